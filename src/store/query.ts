/**
 * `evalkit query`: SQL over a store opened read-only and locked down (db.ts: the store file and nothing else), its
 * result streamed out chunk by chunk as a table, CSV, JSON or JSON lines, so memory stays flat however many rows it
 * has. The SQL may hold several statements: all of them run, in order, and the last one's result is the output
 * (earlier results are read and dropped; an error in any statement stops the run and names the statement).
 */
import type { DuckDBDataChunk, DuckDBPreparedStatement, DuckDBResult } from '@duckdb/node-api';
import { UsageError } from '../errors.js';
import { isWideInteger, loadDuckDb, type Store } from './db.js';

export interface QueryColumn {
  name: string;
  type: string;
}

export interface QueryResult {
  columns: QueryColumn[];
  rows: Record<string, unknown>[];
  /** How many statements the SQL held (all ran; `rows` is the last one's result). */
  statements: number;
}

export type QueryFormat = 'table' | 'csv' | 'json' | 'jsonl';

/** What a streamed query did. */
export interface QuerySummary {
  columns: QueryColumn[];
  rows: number;
  statements: number;
}

/** Receives the output text piece by piece; a returned promise is awaited (backpressure). */
export type TextSink = (text: string) => void | Promise<void>;

/**
 * What changes the engine's state past its locked configuration: `enable_logging(...)` can send DuckDB's log to a
 * file (refused by the lockdown only when the log is next written, which aborts the process) or to standard output;
 * `enable_profiling()` and the `PRAGMA enable_…`/`disable_…` switches (profiling, progress bar, verification) print
 * on the terminal behind the output or change how queries run; `truncate_duckdb_logs()` empties the log. Refused
 * where they are called, as table functions (`CALL enable_profiling()`, `FROM disable_logging()`) or as PRAGMAs.
 */
const REFUSED_CALLS =
  /\b((?:enable|disable)_\w+|truncate_duckdb_logs)\s*\(|\bpragma\s+((?:enable|disable)_\w+)/;

/** The SQL with string literals, quoted identifiers and comments blanked out (for the name check above). */
function codeOnly(sql: string): string {
  return sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\/\*[\s\S]*?\*\//g, (m) =>
    m.startsWith('"') ? m.slice(1, -1) : ' ',
  );
}

function refuseUnsafe(sql: string): void {
  const found = REFUSED_CALLS.exec(codeOnly(sql).toLowerCase());
  if (found)
    throw new UsageError(
      'store.query-refused',
      `query does not run ${found[1] ?? `PRAGMA ${found[2]}`}: it would change how DuckDB logs, prints or runs, outside the store`,
    );
}

/**
 * The first words of DuckDB's statements that do not only read. A statement starting with one is refused before
 * DuckDB even prepares it, since preparing can already write (`EXPORT DATABASE 'STORE.tmp'` makes its folder when
 * it is prepared); any other statement is prepared and then checked by its kind (`refuseChange`), and a word
 * DuckDB does not know is its parser error.
 */
const WRITING_STARTS = new Set([
  'alter',
  'analyze',
  'attach',
  'checkpoint',
  'comment',
  'copy',
  'create',
  'deallocate',
  'delete',
  'detach',
  'drop',
  'execute',
  'export',
  'force',
  'import',
  'insert',
  'install',
  'load',
  'merge',
  'prepare',
  'truncate',
  'update',
  'upsert',
  'use',
  'vacuum',
]);

function refuseWritingStart(sql: string): void {
  const statements = codeOnly(sql).toLowerCase().split(';');
  for (const [i, text] of statements.entries()) {
    const first = /^[\s(]*([a-z_]+)/.exec(text)?.[1];
    if (first === undefined || !WRITING_STARTS.has(first)) continue;
    const where = statements.filter((t) => t.trim() !== '').length > 1 ? `statement ${i + 1}: ` : '';
    throw new UsageError(
      'store.read-only',
      `query opens the store read-only and runs only reading statements: one that could change the store or write a file is refused (${where}a ${first.toUpperCase()} statement; only reading kinds run: SELECT, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN, PRAGMA, CALL, SET); records are added with \`evalkit ingest\``,
    );
  }
}

/**
 * Refuses, by its kind, every statement that is not a reading one, on a store file and on a lake's snapshot alike:
 * only SELECT and its kin (DESCRIBE, SHOW, SUMMARIZE, FROM …), EXPLAIN without ANALYZE, PRAGMA and CALL (table
 * functions), SET and SET VARIABLE (settings are refused by the locked configuration) and BEGIN/COMMIT/ROLLBACK
 * run. Everything else (INSERT, UPDATE, DELETE, CREATE — temporary objects too —, DROP, ALTER, COPY, EXPORT,
 * ATTACH, PREPARE/EXECUTE, ...) is refused before it runs. DuckDB's own lockdown is not enough on a store file: it
 * lets a locked database write its own siblings (`COPY … TO 'STORE.wal'`, `EXPORT DATABASE 'STORE.tmp'`), and a
 * lake's snapshot is in memory, which DuckDB does not hold read-only. EXPLAIN ANALYZE runs its statement, so SQL
 * holding one is refused too.
 */
async function refuseChange(prepared: DuckDBPreparedStatement, sql: string, where: string): Promise<void> {
  const { StatementType: T } = await loadDuckDb();
  const type = prepared.statementType;
  const analyze = type === T.EXPLAIN && /\bexplain\s+analy[sz]e\b/.test(codeOnly(sql).toLowerCase());
  const unchanging = [T.SELECT, T.EXPLAIN, T.PRAGMA, T.CALL, T.SET, T.VARIABLE_SET, T.TRANSACTION];
  if (unchanging.includes(type) && !analyze) return;
  throw new UsageError(
    'store.read-only',
    `query opens the store read-only and runs only reading statements: one that could change the store or write a file is refused (${where}a ${analyze ? 'EXPLAIN ANALYZE' : T[type]} statement; only reading kinds run: SELECT, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN, PRAGMA, CALL, SET); records are added with \`evalkit ingest\``,
  );
}

/**
 * Runs every statement of the SQL in order and hands over the last one's result, unread (a streaming result).
 * Earlier statements' rows are read and dropped a chunk at a time.
 */
async function runStatements(
  store: Store,
  sql: string,
): Promise<{ result: DuckDBResult; statements: number }> {
  if (codeOnly(sql).replace(/[;\s]/g, '') === '')
    throw new UsageError('usage.empty-query', 'no SQL statement given');
  refuseUnsafe(sql);
  refuseWritingStart(sql);
  const connection = store.connection;
  const extracted = await connection.extractStatements(sql).catch((error: Error) => {
    throw queryError(error);
  });
  const count = extracted.count;
  if (count === 0) throw new UsageError('usage.empty-query', 'no SQL statement given');
  for (let i = 0; i < count; i++) {
    const where = count > 1 ? `statement ${i + 1} of ${count}: ` : '';
    try {
      const prepared = await extracted.prepare(i);
      let result: DuckDBResult;
      try {
        await refuseChange(prepared, sql, where);
        result = await prepared.stream();
      } finally {
        prepared.destroySync();
      }
      if (i === count - 1) return { result, statements: count };
      for (
        let chunk = await result.fetchChunk();
        chunk && chunk.rowCount > 0;
        chunk = await result.fetchChunk()
      );
    } catch (error) {
      throw queryError(error as Error, where);
    }
  }
  throw new UsageError('usage.empty-query', 'no SQL statement given');
}

function queryError(error: Error, where = ''): UsageError {
  if (error instanceof UsageError) return error;
  const first = error.message.split('\n')[0].replace(/^Failed to extract statements: /, '');
  if (/read-only mode|read only mode|attached in read-only/i.test(error.message))
    return new UsageError(
      'store.read-only',
      `query opens the store read-only, so statements that change it are refused (${where}${first}); records are added with \`evalkit ingest\``,
    );
  if (
    /disabled by configuration|configuration has been locked|disabled through configuration/i.test(
      error.message,
    )
  )
    return new UsageError(
      'store.query-refused',
      `query reads the store and nothing else: files, other databases, extensions and settings are out of its reach (${where}${first})`,
    );
  return Object.assign(new UsageError('store.query', `the query failed: ${where}${first}`), { cause: error });
}

interface Decoder {
  columns: QueryColumn[];
  /** Unique keys for row objects (DuckDB's deduplicated column names). */
  keys: string[];
  rows(chunk: DuckDBDataChunk): unknown[][];
}

/** Turns a result's chunks into JSON-able rows: wide integers as numbers when exact (as `Store.all` does). */
async function decoder(result: DuckDBResult): Promise<Decoder> {
  const { JsonDuckDBValueConverter } = await loadDuckDb();
  const types = result.columnTypes();
  const columns = result.columnNames().map((name, i) => ({
    name,
    type: types[i].alias ?? types[i].toString(),
  }));
  const wide = types.flatMap((t, i) => (isWideInteger(t.typeId) ? [i] : []));
  return {
    columns,
    keys: result.deduplicatedColumnNames(),
    rows(chunk) {
      const rows = chunk.convertRows(JsonDuckDBValueConverter) as unknown[][];
      if (wide.length > 0)
        for (const row of rows)
          for (const i of wide) {
            const v = row[i];
            if (typeof v === 'string' && Number.isSafeInteger(Number(v))) row[i] = Number(v);
          }
      return rows;
    },
  };
}

/** Runs the SQL (several statements: all run, the last one's result is returned) and returns its rows. */
export async function runQuery(store: Store, sql: string): Promise<QueryResult> {
  const { result, statements } = await runStatements(store, sql);
  const d = await decoder(result);
  const rows: Record<string, unknown>[] = [];
  try {
    for (
      let chunk = await result.fetchChunk();
      chunk && chunk.rowCount > 0;
      chunk = await result.fetchChunk()
    )
      for (const row of d.rows(chunk)) rows.push(Object.fromEntries(d.keys.map((k, i) => [k, row[i]])));
  } catch (error) {
    throw queryError(error as Error);
  }
  return { columns: d.columns, rows, statements };
}

/**
 * Runs the SQL and writes the last statement's result to `sink` as it is read, one chunk (about 2,000 rows) at a
 * time: memory holds one chunk, whatever the row count. A table's column widths come from the first chunk (later
 * cells longer than that are cut to it, with …).
 */
export async function streamQuery(
  store: Store,
  sql: string,
  format: QueryFormat,
  sink: TextSink,
): Promise<QuerySummary> {
  const { result, statements } = await runStatements(store, sql);
  const d = await decoder(result);
  const writer = formatWriter(format, d);
  let count = 0;
  try {
    await sink(writer.head());
    for (
      let chunk = await result.fetchChunk();
      chunk && chunk.rowCount > 0;
      chunk = await result.fetchChunk()
    ) {
      const rows = d.rows(chunk);
      await sink(writer.rows(rows, count));
      count += rows.length;
    }
  } catch (error) {
    throw queryError(error as Error);
  }
  await sink(writer.tail(count, statements));
  return { columns: d.columns, rows: count, statements };
}

interface FormatWriter {
  head(): string;
  /** Text for the next rows; `before` rows were written already. */
  rows(rows: unknown[][], before: number): string;
  tail(rows: number, statements: number): string;
}

function formatWriter(format: QueryFormat, d: Decoder): FormatWriter {
  switch (format) {
    case 'csv':
      return {
        head: () => d.columns.map((c) => csvField(c.name)).join(',') + '\n',
        rows: (rows) => rows.map((r) => r.map((v) => csvField(cellText(v, ''))).join(',') + '\n').join(''),
        tail: () => '',
      };
    case 'jsonl':
      return {
        head: () => '',
        rows: (rows) => rows.map((r) => JSON.stringify(rowObject(d.keys, r)) + '\n').join(''),
        tail: () => '',
      };
    case 'json':
      return {
        head: () => `{"columns":${JSON.stringify(d.columns)},"rows":[`,
        rows: (rows, before) =>
          rows
            .map((r, i) => (before + i === 0 ? '\n' : ',\n') + JSON.stringify(rowObject(d.keys, r)))
            .join(''),
        tail: (_rows, statements) => `\n],"statements":${statements}}\n`,
      };
    case 'table':
      return tableWriter(d);
  }
}

const rowObject = (keys: string[], row: unknown[]): Record<string, unknown> =>
  Object.fromEntries(keys.map((k, i) => [k, row[i]]));

/** A cell as text: NULL as empty in CSV and as "NULL" in a table; nested values as JSON. */
function cellText(v: unknown, nullText: string): string {
  if (v === null || v === undefined) return nullText;
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** A CSV field quoted as RFC 4180 says; lines end in \n (the CLI shows a carriage return as an escape). */
const csvField = (s: string): string => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

/** Cells cut at this many characters in a table. */
const MAX_CELL = 60;

const cutCell = (s: string, max: number, cut: { cells: number }): string => {
  const one = s.replace(/\r?\n/g, '⏎');
  if (one.length <= max) return one;
  cut.cells++;
  return `${one.slice(0, max - 1)}…`;
};

/**
 * An aligned text table: the widths are fixed by the header and the first chunk of rows (cells cut at MAX_CELL),
 * and the footer gives the row count and, for several statements, which result this is.
 */
function tableWriter(d: Decoder): FormatWriter {
  const header = d.columns.map((c) => c.name);
  const numeric = d.columns.map((c) => /INT|DOUBLE|FLOAT|DECIMAL|REAL/.test(c.type));
  let widths: number[] | undefined;
  const cut = { cells: 0 };
  const line = (cells: string[]): string =>
    cells
      .map((s, i) => (numeric[i] ? s.padStart(widths![i]) : s.padEnd(widths![i])))
      .join('  ')
      .trimEnd() + '\n';
  const start = (body: string[][]): string => {
    widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
    return line(header) + widths.map((w) => '-'.repeat(w)).join('  ') + '\n';
  };
  return {
    head: () => '',
    rows(rows) {
      const first = widths === undefined;
      const body = rows.map((r) =>
        r.map((v, i) => cutCell(cellText(v, 'NULL'), first ? MAX_CELL : Math.max(widths![i], 1), cut)),
      );
      return (first ? start(body) : '') + body.map(line).join('');
    },
    tail(rows, statements) {
      const head = widths === undefined ? start([]) : '';
      const of = statements > 1 ? `; the result of the last of ${statements} statements, which all ran` : '';
      const cutNote =
        cut.cells > 0
          ? `(${cut.cells} value${cut.cells === 1 ? '' : 's'} cut at ${MAX_CELL} characters, ending in …; ` +
            '--format csv or --format json prints every value whole)\n'
          : '';
      return `${head}(${rows} row${rows === 1 ? '' : 's'}${of})\n${cutNote}`;
    },
  };
}
