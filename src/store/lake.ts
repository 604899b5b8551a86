/**
 * The Parquet lake: a folder of Hive-partitioned Parquet files, laid out as `evalkit export parquet` writes them
 * (`<table>/collection=<c>/<file>.parquet`, zstd, the store's column names), kept as a store in its own right.
 *
 * Writing (`ingest --lake DIR`): the inputs are ingested into a private staging store first (the same pipeline as
 * `ingest --db`: validation, conversion, the record_key and duplicate decisions, seeded with the lake's records so
 * a record already in the lake is skipped), and the new records' rows are written as Parquet into a staging folder
 * `DIR/.evalkit-staging-<run>/` that no reader looks at. Then, holding the lake's lock (`DIR/.evalkit-lake.lock`;
 * only this short publishing step is serialised, so concurrent writers stage in parallel), the writer drops any
 * record another writer published meanwhile, removes files a killed writer published without their records file,
 * and renames its files into place: rows, results and documents first, the records file of each partition last.
 * Every file name carries the run id (`part-<run>_<i>.parquet`), so files are never overwritten or rewritten. A
 * kill at any moment leaves no partial file visible (Parquet files appear by rename only) and no record without its
 * rows; staging folders of dead writers are removed by the next writer, and running the ingest again completes it.
 *
 * Reading (`--lake DIR` on every read command): an in-memory DuckDB whose tables are views over `read_parquet`
 * with hive partitioning, with the same columns, in the same order, as the store's tables, and the store's own
 * views (sample_rows, models, benchmarks, result_rows) over them, so every query runs unchanged. Rows whose
 * record is not in the lake (a writer killed while publishing) are left out.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { IoError } from '../errors.js';
import { acquireLock, type Lock } from '../io/lock.js';
import { isProcessAlive } from '../io/process-alive.js';
import { loadDuckDb, openStore, readerLockdown, storeOver, type Store } from './db.js';
import { ingestPaths, type IngestOptions, type IngestResult } from './ingest.js';
import { NULL_PARTITION } from './parquet.js';
import { STORE_DDL, tableColumns } from './schema.js';
import { storeSettings } from './settings.js';

/** The tables a lake holds, each a folder partitioned by collection. */
export const LAKE_TABLES = ['records', 'results', 'samples', 'documents'] as const;
export type LakeTable = (typeof LAKE_TABLES)[number];

const STAGING_PREFIX = '.evalkit-staging-';
const LOCK_TARGET = '.evalkit-lake';
const sqlString = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** The Parquet files of a table, as a glob (readers skip the hidden staging folders: they are not under it). */
export function lakeGlob(dir: string, table: LakeTable): string {
  return join(dir, table, '**', '*.parquet');
}

async function parquetFiles(dir: string, table: LakeTable): Promise<string[]> {
  const root = join(dir, table);
  const entries = await readdir(root, { recursive: true }).catch(() => [] as string[]);
  return entries
    .map(String)
    .filter((f) => f.endsWith('.parquet') && !f.split(sep).some((p) => p.startsWith('.')))
    .map((f) => join(root, f))
    .sort();
}

/** `read_parquet` of a table with the partition column read back as VARCHAR (Hive's NULL name as NULL). */
function scan(dir: string, table: LakeTable): string {
  return `read_parquet(${sqlString(lakeGlob(dir, table))}, hive_partitioning = true, hive_types = {'collection': VARCHAR}, union_by_name = true)`;
}

/** A view with a store table's columns and no rows. */
function emptyViewSql(table: string): string {
  const empty = tableColumns(table)
    .map((c) => `NULL::${c.type} AS ${c.name}`)
    .join(', ');
  return `CREATE VIEW ${table} AS SELECT ${empty} WHERE false`;
}

/** The store's columns of a table, from the lake's files; `collection` (records only) NULL for Hive's NULL name. */
function viewSql(dir: string, table: LakeTable, present: boolean): string {
  const columns = tableColumns(table);
  if (!present) return emptyViewSql(table);

  const list = columns
    .map((c) =>
      c.name === 'collection'
        ? `CASE WHEN collection = ${sqlString(NULL_PARTITION)} THEN NULL ELSE collection END AS collection`
        : c.name,
    )
    .join(', ');
  // Rows of a record not in the lake (left by a writer killed while publishing) are not part of it.
  const where = table === 'records' ? '' : ' WHERE record_key IN (SELECT record_key FROM records)';
  return `CREATE VIEW ${table} AS SELECT ${list} FROM ${scan(dir, table)}${where}`;
}

/** Opens a lake for reading: a Store whose tables are views over the lake's Parquet files. */
export async function openLake(dir: string): Promise<Store> {
  const root = resolve(dir);
  if (!existsSync(root))
    throw new IoError('store.not-found', `no lake at ${dir} (create one with \`evalkit ingest --lake\`)`);
  const { DuckDBInstance } = await loadDuckDb();
  const instance = await DuckDBInstance.create(':memory:', storeSettings(true));
  const connection = await instance.connect();
  try {
    for (const table of LAKE_TABLES)
      await connection.run(viewSql(root, table, (await parquetFiles(root, table)).length > 0));
    // A lake keeps no ingest log or store metadata: the store's tables, empty, so every query still binds.
    for (const table of ['ingests', 'store_meta']) await connection.run(emptyViewSql(table));

    for (const ddl of STORE_DDL) if (/^CREATE OR REPLACE VIEW/.test(ddl)) await connection.run(ddl);
  } catch (error) {
    connection.closeSync();
    instance.closeSync();
    throw new IoError('store.open', `cannot read the lake ${dir}: ${(error as Error).message}`);
  }
  // A reader of the lake reads the lake and nothing else: the store's lockdown, with the lake as the one folder
  // DuckDB may open.
  for (const setting of readerLockdown([root])) await connection.run(setting);
  return storeOver(instance, connection, root, true);
}

/** Removes staging folders left by writers that are gone. */
async function removeDeadStaging(dir: string): Promise<void> {
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!name.startsWith(STAGING_PREFIX)) continue;
    const pid = Number(/-(\d+)-[0-9a-f]+$/.exec(name)?.[1]);
    if (!Number.isInteger(pid) || !isProcessAlive(pid))
      await rm(join(dir, name), { recursive: true, force: true });
  }
}

/** The run id a lake file name carries (`part-<run>_<i>.parquet`). */
const runOfFile = (file: string): string | undefined =>
  /^part-([0-9a-f-]+)_\d+\.parquet$/.exec(file.split(sep).pop()!)?.[1];

/**
 * Removes the files a writer killed while publishing left without their partition's records file (only called
 * under the lake lock, when no other writer is publishing).
 */
async function removeUnpublished(dir: string): Promise<void> {
  const published = new Set<string>();
  for (const f of await parquetFiles(dir, 'records')) {
    const run = runOfFile(f);
    if (run) published.add(`${run}\u0000${relative(join(dir, 'records'), f).split(sep)[0]}`);
  }
  for (const table of LAKE_TABLES) {
    if (table === 'records') continue;
    for (const f of await parquetFiles(dir, table)) {
      const run = runOfFile(f);
      const partition = relative(join(dir, table), f).split(sep)[0];
      if (run && !published.has(`${run}\u0000${partition}`)) await rm(f, { force: true });
    }
  }
}

/** Takes the lake's lock, waiting while another writer publishes. */
async function lockLake(dir: string, timeoutMs = 10 * 60_000): Promise<Lock> {
  const started = Date.now();
  for (;;) {
    try {
      return await acquireLock(join(dir, LOCK_TARGET), 'ingest --lake (publishing)');
    } catch (error) {
      if (!(error instanceof IoError) || error.code !== 'io.locked' || Date.now() - started > timeoutMs)
        throw error;
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
    }
  }
}

const STORE_COLUMNS = (table: LakeTable): string =>
  tableColumns(table)
    .map((c) => c.name)
    .join(', ');

/** Ingests the given paths into the lake at `dir` (created when absent). */
export async function ingestToLake(
  dir: string,
  paths: string[],
  options: IngestOptions = {},
): Promise<IngestResult> {
  const root = resolve(dir);
  await mkdir(root, { recursive: true });
  await removeDeadStaging(root);
  const staging = join(root, `${STAGING_PREFIX}${process.pid}-${Math.random().toString(16).slice(2, 10)}`);
  await mkdir(staging, { recursive: true });
  try {
    const store = await openStore(join(staging, 'stage.duckdb'), { readOnly: false });
    try {
      const c = store.connection;
      // The lake's records, so that the ingest's decisions (already stored, duplicate) see them.
      const seed = async (): Promise<void> => {
        if ((await parquetFiles(root, 'records')).length === 0) return;
        await c.run(`DELETE FROM records WHERE ingest_id = 'lake'`);
        await c.run(
          `INSERT INTO records (${STORE_COLUMNS('records')}) SELECT * REPLACE ('lake' AS ingest_id, CASE WHEN collection = ${sqlString(NULL_PARTITION)} THEN NULL ELSE collection END AS collection) FROM (SELECT ${STORE_COLUMNS('records')} FROM ${scan(root, 'records')}) ON CONFLICT DO NOTHING`,
        );
      };
      await seed();
      const result = await ingestPaths(store, paths, options);
      const lock = await lockLake(root);
      try {
        // Another writer may have published some of the same records since: they are not written again.
        const inLake = new Set(
          (await parquetFiles(root, 'records')).length === 0
            ? []
            : (
                await store.all<{ record_key: string }>(`SELECT record_key FROM ${scan(root, 'records')}`)
              ).map((r) => r.record_key),
        );
        const mine = await store.all<{ record_key: string }>(
          `SELECT record_key FROM records WHERE ingest_id = $1`,
          [result.ingest_id],
        );
        const taken = new Set(mine.filter((r) => inLake.has(r.record_key)).map((r) => r.record_key));
        for (const key of taken) await c.run(`DELETE FROM records WHERE record_key = $1`, [key]);
        for (const item of result.items)
          if (item.status === 'added' && item.record_key && taken.has(item.record_key)) {
            item.status = 'already-stored';
            result.summary.records--;
            result.summary.rows -= item.rows;
            result.summary.skipped++;
          }
        await removeUnpublished(root);
        await publish(store, root, staging, result.ingest_id).catch((error: Error) => {
          throw new IoError('store.lake-write', `cannot write to the lake ${dir}: ${error.message}`);
        });
      } finally {
        lock.release();
      }
      return result;
    } finally {
      store.close();
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Writes this run's records as Parquet into the staging folder, then renames the files into the lake. */
async function publish(store: Store, root: string, staging: string, run: string): Promise<void> {
  const c = store.connection;
  const mine = `SELECT record_key FROM records WHERE ingest_id = ${sqlString(run)}`;
  const [{ n }] = await store.all<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM (${mine})`);
  if (n === 0) return;
  const collection = `coalesce(r.collection, ${sqlString(NULL_PARTITION)}) AS collection`;
  const queries: Record<LakeTable, string> = {
    records: `SELECT r.* EXCLUDE (collection), ${collection} FROM records r WHERE r.record_key IN (${mine}) ORDER BY r.record_key`,
    results: `SELECT t.*, ${collection} FROM results t JOIN records r USING (record_key) WHERE r.record_key IN (${mine}) ORDER BY t.record_key, t.result_index`,
    samples: `SELECT t.*, ${collection} FROM samples t JOIN records r USING (record_key) WHERE r.record_key IN (${mine}) ORDER BY t.record_key, t.row_index`,
    documents: `SELECT t.*, ${collection} FROM documents t JOIN records r USING (record_key) WHERE r.record_key IN (${mine}) ORDER BY t.record_key`,
  };
  const written: Record<string, string[]> = {};
  await mkdir(join(staging, 'out'), { recursive: true });
  for (const table of LAKE_TABLES) {
    const out = join(staging, 'out', table);
    const [{ rows }] = await store.all<{ rows: number }>(
      `SELECT count(*)::INTEGER AS rows FROM (${queries[table]})`,
    );
    if (rows === 0) continue;
    await c.run(
      `COPY (${queries[table]}) TO ${sqlString(out)}
         (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (collection), FILENAME_PATTERN ${sqlString(`part-${run}_{i}`)})`,
    );
    written[table] = (await readdir(out, { recursive: true }))
      .map(String)
      .filter((f) => f.endsWith('.parquet'));
  }
  // Rows first, each partition's records file last: a record appears with all of its rows or not at all.
  for (const table of ['samples', 'results', 'documents', 'records'] as const)
    for (const file of written[table] ?? []) {
      const target = join(root, table, file);
      await mkdir(join(target, '..'), { recursive: true });
      await rename(join(staging, 'out', table, file), target);
    }
}
