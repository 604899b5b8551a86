/**
 * `evalkit query`: one SQL text run over a store opened read-only, the result as a table, JSON or CSV. A statement
 * that would write is refused by DuckDB itself (the file is opened READ_ONLY); the error says so in plain words.
 */
import { UsageError } from '../errors.js';
import { plainRows, type Store } from './db.js';

export interface QueryResult {
  columns: { name: string; type: string }[];
  rows: Record<string, unknown>[];
}

/** Runs the SQL (several statements: the last one's result) and returns its columns and rows. */
export async function runQuery(store: Store, sql: string): Promise<QueryResult> {
  if (sql.trim() === '') throw new UsageError('usage.empty-query', 'no SQL given');
  let reader;
  try {
    reader = await store.connection.runAndReadAll(sql);
  } catch (error) {
    throw queryError(error as Error);
  }
  const names = reader.columnNames();
  const types = reader.columnTypes();
  return {
    columns: names.map((name, i) => ({ name, type: types[i].alias ?? types[i].toString() })),
    rows: plainRows(reader),
  };
}

function queryError(error: Error): UsageError {
  const first = error.message.split('\n')[0];
  if (/read-only mode|read only mode|attached in read-only/i.test(error.message))
    return new UsageError(
      'store.read-only',
      `query opens the store read-only, so statements that change it are refused (${first}); records are added with \`evalkit ingest\``,
    );
  return new UsageError('store.query', `the query failed: ${first}`);
}

/** A cell as text: NULL as empty in CSV and as "NULL" in a table; nested values as JSON. */
function cellText(v: unknown, nullText: string): string {
  if (v === null || v === undefined) return nullText;
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** CSV with a header line, quoted as RFC 4180 says; lines end in \n (the CLI shows a carriage return as an escape). */
export function formatCsv(result: QueryResult): string {
  const field = (s: string): string => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  const lines = [result.columns.map((c) => field(c.name)).join(',')];
  for (const row of result.rows)
    lines.push(result.columns.map((c) => field(cellText(row[c.name], ''))).join(','));
  return lines.join('\n') + '\n';
}

/**
 * An aligned text table (cells cut at `maxCell` characters and ended with …, new lines shown as ⏎), with the row
 * count and, when a value was cut, how many and how to get them whole.
 */
export function formatTable(result: QueryResult, maxCell = 60): string {
  let cutCells = 0;
  const cut = (s: string): string => {
    const one = s.replace(/\r?\n/g, '⏎');
    if (one.length <= maxCell) return one;
    cutCells++;
    return `${one.slice(0, maxCell - 1)}…`;
  };
  const header = result.columns.map((c) => c.name);
  const body = result.rows.map((row) => result.columns.map((c) => cut(cellText(row[c.name], 'NULL'))));
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const numeric = result.columns.map((c) => /INT|DOUBLE|FLOAT|DECIMAL|REAL/.test(c.type));
  const line = (cells: string[]): string =>
    cells
      .map((s, i) => (numeric[i] ? s.padStart(widths[i]) : s.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  const out = [line(header), widths.map((w) => '-'.repeat(w)).join('  ')];
  for (const r of body) out.push(line(r));
  out.push(`(${result.rows.length} row${result.rows.length === 1 ? '' : 's'})`);
  if (cutCells > 0)
    out.push(
      `(${cutCells} value${cutCells === 1 ? '' : 's'} cut at ${maxCell} characters, ending in …; ` +
        '--format csv or --format json prints every value whole)',
    );
  return out.join('\n') + '\n';
}
