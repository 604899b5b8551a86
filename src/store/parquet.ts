/**
 * Parquet for engines beyond one machine. `exportParquet` writes the store's tables (records, results, samples,
 * documents) as Hive-partitioned Parquet (`<table>/collection=<c>/data_0.parquet`), with the tables' own column
 * names, plus `evalkit-export.json` describing every column: Spark, Trino, DuckDB, Polars and Hugging Face datasets
 * read the folders directly. `readParquetExport` reads such an export back into a store (records validated again,
 * rows copied as they are, each record with its rows in one transaction).
 */
import { retrievalColumns } from './retrieval/tables.js';
import { exportRetrievalTables } from './retrieval/parquet.js';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Diagnostic } from '../diagnostics.js';
import { IoError, UsageError } from '../errors.js';
import { isProcessAlive } from '../io/process-alive.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  admitDecision,
  admitDocument,
  type IngestItem,
  type UnitContext,
  type UnitOutcome,
} from './admission.js';
import { loadDuckDb, openStore, type Store } from './db.js';
import { sampleRow } from './sample-row.js';
import { STORE_SCHEMA_VERSION, tableColumns } from './schema.js';
import type { Decision } from './write.js';

/** The file that marks a folder as an evalkit export and describes its columns. */
export const EXPORT_SCHEMA_FILE = 'evalkit-export.json';
export const EXPORT_FORMAT = 'evalkit.parquet-export';
/** The tables an export holds, each partitioned by collection. */
export const EXPORTED_TABLES = ['records', 'results', 'samples', 'documents'] as const;
/** Hive's name for a NULL partition value (Spark and Trino read it back as NULL). */
export const NULL_PARTITION = '__HIVE_DEFAULT_PARTITION__';

export interface ExportSummary {
  dir: string;
  tables: { table: string; rows: number; files: number }[];
}

const sqlString = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** Each table's query: its own columns, then the record's collection as the partition column. */
function exportQuery(table: (typeof EXPORTED_TABLES)[number]): string {
  const collection = `coalesce(r.collection, ${sqlString(NULL_PARTITION)}) AS collection`;
  const order =
    table === 'samples'
      ? 't.record_key, t.row_index'
      : table === 'results'
        ? 't.record_key, t.result_index'
        : 't.record_key';
  if (table === 'records')
    return `SELECT r.* EXCLUDE (collection), ${collection} FROM records r ORDER BY r.record_key`;
  return `SELECT t.*, ${collection} FROM ${table} t JOIN records r USING (record_key) ORDER BY ${order}`;
}

/** Marks a staging folder as evalkit's own (only folders holding it are ever swept). */
const STAGING_MARKER = '.evalkit-export-staging';

/**
 * The folder an export to `dir` is written in before it is renamed into place: beside `dir` (same file system),
 * named after it and this process. A reader's store lets DuckDB write there and nowhere else (`openStore`'s
 * `writableDirectories`).
 */
export function exportStagingDir(dir: string, pid: number = process.pid): string {
  return join(dirname(dir), `.${basename(dir)}.tmp-${pid}`);
}

/**
 * Removes the staging folders of earlier exports to `dir` whose process is gone (killed before it could clean
 * up): only folders named as `exportStagingDir` names them and holding evalkit's marker.
 */
async function sweepStaleStaging(dir: string): Promise<void> {
  const prefix = `.${basename(dir)}.tmp-`;
  const entries = await readdir(dirname(dir)).catch(() => [] as string[]);
  for (const name of entries) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    if (!/^\d+$/.test(name.slice(prefix.length)) || pid === process.pid || isProcessAlive(pid)) continue;
    const folder = join(dirname(dir), name);
    if (!existsSync(join(folder, STAGING_MARKER))) continue;
    await rm(folder, { recursive: true, force: true });
  }
}

/**
 * Writes the export into `dir` (which must not exist or be empty). The files are written into a staging folder
 * beside it (`exportStagingDir`) and renamed into place at the end, so a failed export leaves no half folder; the
 * staging folder is removed on failure, and one left by a killed export is removed by the next export to `dir`.
 * A read-only store (locked down: it may write nowhere) is read through a second read-only opening of the same
 * file that may write the staging folder and nothing else.
 */
export async function exportParquet(store: Store, dir: string): Promise<ExportSummary> {
  if (existsSync(dir) && (await readdir(dir)).length > 0)
    throw new UsageError('usage.export-exists', `${dir} exists and is not empty (choose a new folder)`);
  await sweepStaleStaging(dir);
  const temp = exportStagingDir(dir);
  await rm(temp, { recursive: true, force: true });
  await mkdir(temp, { recursive: true });
  const summary: ExportSummary = { dir, tables: [] };
  let source: Store | undefined;
  try {
    await writeFile(join(temp, STAGING_MARKER), '');
    source = !store.readOnly
      ? store
      : store.reopen
        ? await store.reopen([temp])
        : await openStore(store.path, { readOnly: true, writableDirectories: [temp] });
    for (const table of EXPORTED_TABLES) {
      const target = join(temp, table);
      const [{ n }] = await source.all<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${table}`);
      if (n > 0)
        await source.connection.run(
          `COPY (${exportQuery(table)}) TO ${sqlString(target)}
             (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (collection), FILENAME_PATTERN 'data_{i}')`,
        );
      else await mkdir(target, { recursive: true });
      summary.tables.push({ table, rows: n, files: await countFiles(target) });
    }
    summary.tables.push(...(await exportRetrievalTables(source, temp)));
    await writeFile(join(temp, EXPORT_SCHEMA_FILE), JSON.stringify(exportSchema(summary), null, 2) + '\n');
    await rm(join(temp, STAGING_MARKER));
    if (existsSync(dir)) await rm(dir, { recursive: true });
    await mkdir(dirname(dir), { recursive: true });
    await rename(temp, dir);
  } catch (error) {
    if (source !== store) source?.close();
    source = undefined;
    await rm(temp, { recursive: true, force: true });
    if (error instanceof UsageError || error instanceof IoError) throw error;
    throw new IoError('store.export', `cannot export to ${dir}: ${(error as Error).message}`);
  } finally {
    if (source !== store) source?.close();
  }
  return summary;
}

async function countFiles(dir: string): Promise<number> {
  let n = 0;
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile() && e.name.endsWith('.parquet')) n++;
  return n;
}

/** The schema file: every table's columns with their types and descriptions, and how the folders are laid out. */
function exportSchema(summary: ExportSummary): unknown {
  return {
    format: EXPORT_FORMAT,
    store_schema_version: STORE_SCHEMA_VERSION,
    partitioning: {
      style: 'hive',
      column: 'collection',
      null_value: NULL_PARTITION,
      description: 'each table is a folder <table>/collection=<collection>/data_<i>.parquet',
    },
    tables: Object.fromEntries(
      summary.tables.map(({ table, rows }) => [
        table,
        {
          rows,
          path: `${table}/`,
          columns: [
            ...(tableColumns(table).length > 0 ? tableColumns(table) : retrievalColumns(table)),
            ...(table === 'records'
              ? []
              : [
                  {
                    name: 'collection',
                    type: 'VARCHAR',
                    description: 'the record\u2019s collection (partition)',
                  },
                ]),
          ],
        },
      ]),
    ),
  };
}

/** True when a folder is an export written by `exportParquet`. */
export async function isParquetExport(dir: string): Promise<boolean> {
  try {
    const schema = JSON.parse(await readFile(join(dir, EXPORT_SCHEMA_FILE), 'utf8')) as { format?: string };
    return schema.format === EXPORT_FORMAT;
  } catch {
    return false;
  }
}

/** `read_parquet` over one table of an export, with the collection read from the folder names. */
function tableScan(dir: string, table: string): string {
  const glob = join(dir, table, '**', '*.parquet');
  return `read_parquet(${sqlString(glob)}, hive_partitioning = true, hive_types = {'collection': VARCHAR})`;
}

/**
 * Reads an export back: every record and every row goes through the store's admission like any other input (the
 * validator, finite numbers), so an edited export stores nothing `evalkit validate` would refuse. A record whose
 * rows are refused is not stored, and the rows are rebuilt from the columns exactly as `sample_rows` shows them.
 */
export async function readParquetExport(
  dir: string,
  shown: string,
  context: UnitContext,
): Promise<UnitOutcome> {
  const store = context.writer.store;
  const schema = JSON.parse(await readFile(join(dir, EXPORT_SCHEMA_FILE), 'utf8')) as {
    store_schema_version?: number;
    tables?: Record<string, { rows?: number }>;
  };
  if (schema.store_schema_version !== STORE_SCHEMA_VERSION)
    throw new IoError(
      'store.export-version',
      `${shown} was exported from a store of layout ${schema.store_schema_version}; this evalkit reads layout ${STORE_SCHEMA_VERSION}`,
    );
  const has = async (table: string): Promise<boolean> =>
    (await readdir(join(dir, table), { recursive: true }).catch(() => [] as string[])).some((f) =>
      String(f).endsWith('.parquet'),
    );
  if (!(await has('records'))) return { items: [], diagnostics: [] };
  const withSamples = await has('samples');
  const withDocuments = await has('documents');
  const records = await store.all<{
    record_key: string;
    raw: string;
    collection: string;
    sample_count: number;
    diagnostics: string | null;
  }>(
    `SELECT record_key, raw::VARCHAR AS raw, collection, sample_count::BIGINT::DOUBLE AS sample_count,
            diagnostics::VARCHAR AS diagnostics
       FROM ${tableScan(dir, 'records')} ORDER BY record_key`,
  );
  const items: IngestItem[] = [];
  const diagnostics: Diagnostic[] = [];
  // The rows are read on a connection of their own while the store's connection appends them.
  const reader = withSamples ? (await store.connect()).connection : undefined;
  try {
    for (const r of records) {
      const source = `${shown}#${r.record_key}`;
      const aggregate = JSON.parse(r.raw) as Record<string, unknown>;
      const item: IngestItem = {
        source,
        origin_kind: 'parquet',
        status: 'rejected',
        rows: 0,
        evaluation_id: String(aggregate.evaluation_id),
      };
      items.push(item);
      const verdict = admitDocument(aggregate, context.engine, { file: source, line: 0, column: 0 });
      diagnostics.push(...verdict.diagnostics);
      if (!verdict.ok) continue;
      const decision = await context.writer.decide(aggregate);
      item.record_key = decision.recordKey;
      if (!(await admitDecision(decision, item, diagnostics, context.allowDuplicates, source))) continue;
      const collection = r.collection === NULL_PARTITION ? null : r.collection;
      const documents = withDocuments
        ? (
            await store.all<{ kind: string; raw: string }>(
              `SELECT kind, raw::VARCHAR AS raw FROM ${tableScan(dir, 'documents')} WHERE record_key = $1`,
              [r.record_key],
            )
          ).map((d) => ({ kind: d.kind, raw: JSON.parse(d.raw) as unknown }))
        : [];
      let rowCount = 0;
      const rows = await context.writer.write({
        rows: reader
          ? async (append) => {
              const ok = await admitExportRows(
                reader,
                dir,
                r.record_key,
                source,
                context,
                diagnostics,
                (row) => {
                  rowCount++;
                  append(row);
                },
              );
              if (ok && rowCount !== r.sample_count) {
                diagnostics.push(
                  exportIncomplete(
                    source,
                    `record ${r.record_key} has ${rowCount} rows in samples/ but sample_count says ${r.sample_count}: not stored`,
                  ),
                );
                return false;
              }
              return ok;
            }
          : undefined,
        recordKey: decision.recordKey,
        finish: async () => ({
          aggregate,
          origin: { kind: 'parquet', path: shown, collection },
          decision: decision as Decision & { status: 'new' | 'duplicate' },
          // The warnings found when the record was first ingested (its rows' among them) travel with it;
          // validating the record again repeats the warnings it had then: those are kept once.
          diagnostics: keptWarnings(r.diagnostics, verdict.diagnostics),
          documents,
        }),
      });
      if (rows === undefined) continue;
      if (!reader && r.sample_count !== 0) {
        diagnostics.push(
          exportIncomplete(
            source,
            `record ${r.record_key} has no rows in samples/ but sample_count says ${r.sample_count}`,
          ),
        );
      }
      item.status = 'added';
      item.rows = rows;
    }
  } finally {
    reader?.closeSync();
  }
  return { items, diagnostics };
}

/** The samples columns an instance row is rebuilt from (see sample-row.ts). */
const ROW_COLUMNS = tableColumns('samples')
  .map((c) => c.name)
  .filter((c) => c !== 'record_key' && c !== 'row_index' && c !== 'epoch');

/**
 * One record's rows from an export, in order, each rebuilt as the instance row and admitted (validator, finite
 * numbers: a NaN or ±Infinity column value lands in the row it belongs to and is refused there); resolves to
 * false when any row was refused.
 */
async function admitExportRows(
  reader: DuckDBConnection,
  dir: string,
  recordKey: string,
  source: string,
  context: UnitContext,
  diagnostics: Diagnostic[],
  append: (row: Record<string, unknown>) => void,
): Promise<boolean> {
  const { JSDuckDBValueConverter } = await loadDuckDb();
  const result = await reader.stream(
    `SELECT row_index, ${ROW_COLUMNS.map((c) => (c === 'raw' ? 'raw::VARCHAR AS raw' : c)).join(', ')}
       FROM ${tableScan(dir, 'samples')} WHERE record_key = $1 ORDER BY row_index`,
    [recordKey],
  );
  const names = result.columnNames();
  let ok = true;
  for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk())
    for (const values of chunk.convertRows(JSDuckDBValueConverter)) {
      const stored = Object.fromEntries(names.map((n, i) => [n, values[i]]));
      const line = Number(stored.row_index) + 1;
      let row: Record<string, unknown>;
      try {
        row = sampleRow(stored);
      } catch {
        diagnostics.push({
          file: `${source} (samples)`,
          line,
          column: 1,
          pointer: '',
          severity: 'error',
          code: 'store.export-row',
          message: 'the row\u2019s raw column is not a JSON object: not stored',
        });
        ok = false;
        continue;
      }
      const verdict = admitDocument(row, context.engine, { file: `${source} (samples)`, line });
      diagnostics.push(...verdict.diagnostics);
      if (verdict.ok) append(row);
      else ok = false;
    }
  return ok;
}

/** The warnings stored with a record, then those of validating it again that say something new (code and place). */
function keptWarnings(stored: string | null, again: Diagnostic[]): Diagnostic[] {
  const before = stored ? (JSON.parse(stored) as Diagnostic[]) : [];
  const known = new Set(before.map((d) => `${d.code}\u0000${d.pointer}`));
  return [...before, ...again.filter((d) => !known.has(`${d.code}\u0000${d.pointer}`))];
}

/** A record of an export whose samples/ rows do not match its sample_count. */
function exportIncomplete(file: string, message: string): Diagnostic {
  return {
    file,
    line: 0,
    column: 0,
    pointer: '',
    severity: 'error',
    code: 'store.export-incomplete',
    message,
  };
}
