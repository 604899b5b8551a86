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
 * Reading (`--lake DIR` on every read command): lake-read.ts.
 */
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { IoError } from '../errors.js';
import { acquireLock, type Lock } from '../io/lock.js';
import { isProcessAlive } from '../io/process-alive.js';
import { pauseForTest } from '../io/test-pause.js';
import { openStore, type Store } from './db.js';
import { ingestPaths, type IngestOptions, type IngestResult } from './ingest.js';
import {
  COMPACTIONS_DIR,
  lakeParts,
  partFilesByName,
  PART_ORDER,
  partsScan,
  readManifests,
  replacedUnits,
  sqlString,
  unitOf,
} from './lake-files.js';
import { LAKE_TABLES, type LakeTable } from './lake-read.js';
import { NULL_PARTITION } from './parquet.js';
import { tableColumns } from './schema.js';

export { LAKE_TABLES, openLake, type LakeTable } from './lake-read.js';

export const STAGING_PREFIX = '.evalkit-staging-';
const LOCK_TARGET = '.evalkit-lake';

/** Removes staging folders left by writers that are gone. */
export async function removeDeadStaging(dir: string): Promise<void> {
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!name.startsWith(STAGING_PREFIX)) continue;
    const pid = Number(/-(\d+)-[0-9a-f]+$/.exec(name)?.[1]);
    if (!Number.isInteger(pid) || !isProcessAlive(pid))
      await rm(join(dir, name), { recursive: true, force: true });
  }
}

/**
 * Removes the files a writer killed while publishing left without their partition's records file (only called
 * under the lake lock, when no other writer is publishing).
 */
export async function removeUnpublished(dir: string): Promise<void> {
  const published = new Set((await partFilesByName(dir, 'records', ignore)).map(unitOf));
  for (const table of LAKE_TABLES) {
    if (table === 'records') continue;
    for (const p of await partFilesByName(dir, table, ignore))
      if (!published.has(unitOf(p))) await rm(p.file, { force: true });
  }
}

/**
 * Completes what earlier compactions left (only under the writers' lock): a manifest whose new unit is published
 * has the units it replaces removed, records first; one whose new unit is not is dropped (its rows files are
 * unpublished, removed by `removeUnpublished`). Then the manifest goes.
 */
export async function finishCompactions(root: string): Promise<void> {
  const manifests = await readManifests(root);
  if (manifests.size === 0) return;
  const records = await partFilesByName(root, 'records', ignore);
  const replaced = replacedUnits(manifests.values(), records);
  for (const table of ['records', ...LAKE_TABLES.filter((t) => t !== 'records')])
    for (const part of await partFilesByName(root, table, ignore))
      if (replaced.has(unitOf(part))) await rm(part.file, { force: true });
  for (const name of manifests.keys()) await rm(join(root, COMPACTIONS_DIR, name), { force: true });
}

/**
 * Takes the lake's lock, waiting while another writer publishes: `onWait` hears at once that it waits and for
 * whom (the lock's message), then every few seconds how long it has waited.
 */
export async function lockLake(
  dir: string,
  onWait: LakeIngestOptions['onLakeWait'],
  timeoutMs = 10 * 60_000,
): Promise<Lock> {
  const started = Date.now();
  let told = 0;
  for (;;) {
    try {
      return await acquireLock(join(dir, LOCK_TARGET), 'ingest --lake (publishing)');
    } catch (error) {
      if (!(error instanceof IoError) || error.code !== 'io.locked' || Date.now() - started > timeoutMs)
        throw error;
      const waited = Date.now() - started;
      if (told === 0 || waited - told >= 5_000) {
        onWait?.(
          told === 0
            ? `waiting for the lake's lock: ${error.message}`
            : `still waiting for the lake's lock (${Math.round(waited / 1000)} s)`,
        );
        told = Math.max(waited, 1);
      }
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
    }
  }
}

const STORE_COLUMNS = (table: LakeTable): string =>
  tableColumns(table)
    .map((c) => c.name)
    .join(', ');

export interface LakeIngestOptions extends IngestOptions {
  /** Told at once when another writer holds the lake's lock, then every few seconds while this one waits. */
  onLakeWait?: (message: string) => void;
  /** Told of every file in the lake that is not the lake's own (skipped). */
  onLakeWarning?: (code: string, message: string) => void;
}

const ignore = (): void => undefined;

/** Ingests the given paths into the lake at `dir` (created when absent). */
export async function ingestToLake(
  dir: string,
  paths: string[],
  options: LakeIngestOptions = {},
): Promise<IngestResult> {
  const root = resolve(dir);
  // A lake always has its records folder (what makes a folder a lake to its readers), even before its first record.
  await mkdir(join(root, 'records'), { recursive: true });
  await removeDeadStaging(root);
  const staging = join(root, `${STAGING_PREFIX}${process.pid}-${Math.random().toString(16).slice(2, 10)}`);
  await mkdir(staging, { recursive: true });
  try {
    const store = await openStore(join(staging, 'stage.duckdb'), { readOnly: false });
    try {
      const c = store.connection;
      // The lake's records, so that the ingest's decisions (already stored, duplicate) see them: its own records
      // files only (foreign or unreadable files are skipped, each named once).
      const warned = new Set<string>();
      const skip = (file: string, why: string): void => {
        if (!warned.has(file)) options.onLakeWarning?.('store.lake-file-skipped', `${file} skipped: ${why}`);
        warned.add(file);
      };
      const recordsScan = async (): Promise<string | undefined> => {
        const { parts } = await lakeParts(c, root, 'records', skip);
        return parts.length === 0 ? undefined : partsScan(parts);
      };
      const seeded = await recordsScan();
      if (seeded)
        await c.run(
          `INSERT INTO records (${STORE_COLUMNS('records')}) SELECT * REPLACE ('lake' AS ingest_id, CASE WHEN collection = ${sqlString(NULL_PARTITION)} THEN NULL ELSE collection END AS collection) FROM (SELECT ${STORE_COLUMNS('records')} FROM ${seeded}) ON CONFLICT DO NOTHING`,
        );
      const result = await ingestPaths(store, paths, {
        ...options,
        refuseRetrieval: 'a lake keeps evaluation records only (ingest retrieval files with --db)',
      });
      const lock = await lockLake(root, options.onLakeWait);
      try {
        // Another writer may have published some of the same records since: they are not written again.
        const published = await recordsScan();
        const inLake = new Set(
          published
            ? (await store.all<{ record_key: string }>(`SELECT record_key FROM ${published}`)).map(
                (r) => r.record_key,
              )
            : [],
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
        await finishCompactions(root);
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

/**
 * Writes this run's records (those of ingest_id `run`, a hex id) as Parquet into the staging folder, then renames
 * the files into the lake. Exported for the benchmarks, which make a lake of the rows they generate in a store.
 */
export async function publish(store: Store, root: string, staging: string, run: string): Promise<void> {
  const c = store.connection;
  const mine = `SELECT record_key FROM records WHERE ingest_id = ${sqlString(run)}`;
  const [{ n }] = await store.all<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM (${mine})`);
  if (n === 0) return;
  const collection = `coalesce(r.collection, ${sqlString(NULL_PARTITION)}) AS collection`;
  const queries: Record<LakeTable, string> = {
    records: `SELECT r.* EXCLUDE (collection), ${collection} FROM records r WHERE r.record_key IN (${mine}) ORDER BY ${PART_ORDER.records}`,
    results: `SELECT t.*, ${collection} FROM results t JOIN records r USING (record_key) WHERE r.record_key IN (${mine}) ORDER BY ${PART_ORDER.results}`,
    samples: `SELECT t.*, ${collection} FROM samples t JOIN records r USING (record_key) WHERE r.record_key IN (${mine}) ORDER BY ${PART_ORDER.samples}`,
    documents: `SELECT t.*, ${collection} FROM documents t JOIN records r USING (record_key) WHERE r.record_key IN (${mine}) ORDER BY ${PART_ORDER.documents}`,
    // Each result's items as the staging store derived them (result-items.ts), so a reader pairs items, not rows.
    result_items: `SELECT t.* EXCLUDE (k_1, k_2), ${collection} FROM result_items t JOIN records r USING (record_key) WHERE r.record_key IN (${mine}) ORDER BY ${PART_ORDER.result_items}`,
    result_item_sets: `SELECT t.*, ${collection} FROM result_item_sets t JOIN records r USING (record_key) WHERE r.record_key IN (${mine}) ORDER BY ${PART_ORDER.result_item_sets}`,
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
  const order = ['samples', 'results', 'documents', 'result_items', 'result_item_sets', 'records'] as const;
  for (const table of order) {
    // EVALKIT_TEST_PAUSE_BEFORE_LAKE_RECORDS=N: the N-th publish waits here, all but its last files in place.
    if (table === order.at(-1))
      await pauseForTest('EVALKIT_TEST_PAUSE_BEFORE_LAKE_RECORDS', 'paused-before-lake-records');
    for (const file of written[table] ?? []) {
      const target = join(root, table, file);
      await mkdir(join(target, '..'), { recursive: true });
      await rename(join(staging, 'out', table, file), target);
    }
  }
}
