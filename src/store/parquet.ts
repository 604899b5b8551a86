/**
 * Parquet for engines beyond one machine. `exportParquet` writes the store's tables (records, results, samples,
 * documents) as Hive-partitioned Parquet (`<table>/collection=<c>/data_0.parquet`), with the tables' own column
 * names, plus `evalkit-export.json` describing every column: Spark, Trino, DuckDB, Polars and Hugging Face datasets
 * read the folders directly. `readParquetExport` reads such an export back into a store (records validated again,
 * rows copied as they are, each record with its rows in one transaction).
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Diagnostic } from '../diagnostics.js';
import { IoError, UsageError } from '../errors.js';
import { validateValue } from '../validate/index.js';
import type { Store } from './db.js';
import type { IngestItem, UnitContext, UnitOutcome } from './ingest.js';
import { admit } from './ingest.js';
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

/**
 * Writes the export into `dir` (which must not exist or be empty). The files are written into a temporary folder
 * beside it and renamed into place at the end, so a failed export leaves no half folder.
 */
export async function exportParquet(store: Store, dir: string): Promise<ExportSummary> {
  if (existsSync(dir) && (await readdir(dir)).length > 0)
    throw new UsageError('usage.export-exists', `${dir} exists and is not empty (choose a new folder)`);
  const temp = join(dirname(dir), `.${basename(dir)}.tmp-${process.pid}`);
  await rm(temp, { recursive: true, force: true });
  await mkdir(temp, { recursive: true });
  const summary: ExportSummary = { dir, tables: [] };
  try {
    for (const table of EXPORTED_TABLES) {
      const target = join(temp, table);
      const [{ n }] = await store.all<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${table}`);
      if (n > 0)
        await store.connection.run(
          `COPY (${exportQuery(table)}) TO ${sqlString(target)}
             (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (collection), FILENAME_PATTERN 'data_{i}')`,
        );
      else await mkdir(target, { recursive: true });
      summary.tables.push({ table, rows: n, files: await countFiles(target) });
    }
    await writeFile(join(temp, EXPORT_SCHEMA_FILE), JSON.stringify(exportSchema(summary), null, 2) + '\n');
    if (existsSync(dir)) await rm(dir, { recursive: true });
    await mkdir(dirname(dir), { recursive: true });
    await rename(temp, dir);
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    if (error instanceof UsageError) throw error;
    throw new IoError('store.export', `cannot export to ${dir}: ${(error as Error).message}`);
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
            ...tableColumns(table),
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

/** Reads an export back: every record validated and stored (or skipped) like any other input. */
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
  const sampleColumns = tableColumns('samples').map((c) => c.name);
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
    const verdict = validateValue(aggregate, { file: source });
    diagnostics.push(...verdict.diagnostics);
    if (!verdict.valid) continue;
    const decision = await context.writer.decide(aggregate);
    item.record_key = decision.recordKey;
    if (!(await admit(decision, item, diagnostics, context.allowDuplicates, source))) continue;
    const collection = r.collection === NULL_PARTITION ? null : r.collection;
    const copyRows = async (key: string): Promise<number> => {
      if (!withSamples) return 0;
      const select = sampleColumns.map((c) => (c === 'record_key' ? `$1 AS record_key` : c)).join(', ');
      await store.connection.run(
        `INSERT INTO samples SELECT ${select} FROM ${tableScan(dir, 'samples')}
           WHERE record_key = $2 ORDER BY row_index`,
        [key, r.record_key],
      );
      const [{ n }] = await store.all<{ n: number }>(
        'SELECT count(*)::INTEGER AS n FROM samples WHERE record_key = $1',
        [key],
      );
      if (n !== r.sample_count)
        throw new IoError(
          'store.export-incomplete',
          `${shown}: record ${r.record_key} has ${n} rows in samples/ but sample_count says ${r.sample_count}`,
        );
      return n;
    };
    const documents = withDocuments
      ? (
          await store.all<{ kind: string; raw: string }>(
            `SELECT kind, raw::VARCHAR AS raw FROM ${tableScan(dir, 'documents')} WHERE record_key = $1`,
            [r.record_key],
          )
        ).map((d) => ({ kind: d.kind, raw: JSON.parse(d.raw) as unknown }))
      : [];
    const rows = await context.writer.write({
      columns: copyRows,
      recordKey: decision.recordKey,
      finish: async () => ({
        aggregate,
        origin: { kind: 'parquet', path: shown, collection },
        decision: decision as Decision & { status: 'new' | 'duplicate' },
        // The warnings found when the record was first ingested (its rows' among them) travel with it.
        // Validating the record again repeats the warnings it had then: those are kept once.
        diagnostics: keptWarnings(r.diagnostics, verdict.diagnostics),
        documents,
      }),
    });
    item.status = 'added';
    item.rows = rows ?? 0;
  }
  return { items, diagnostics };
}

/** The warnings stored with a record, then those of validating it again that say something new (code and place). */
function keptWarnings(stored: string | null, again: Diagnostic[]): Diagnostic[] {
  const before = stored ? (JSON.parse(stored) as Diagnostic[]) : [];
  const known = new Set(before.map((d) => `${d.code}\u0000${d.pointer}`));
  return [...before, ...again.filter((d) => !known.has(`${d.code}\u0000${d.pointer}`))];
}
