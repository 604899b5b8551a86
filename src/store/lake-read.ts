/**
 * Reading a lake (`--lake DIR` on every read command). The lake's own part files (lake-files.ts: by name, kind
 * and columns; anything else is skipped with a warning naming it) are copied into a private snapshot, an in-memory
 * DuckDB database (spilling, if it must, into a private temporary folder), which is then locked down exactly as
 * `--db` locks a store (db.ts's `readerLockdown`). So whatever SQL a reader runs, it reaches no file at all: not
 * the lake's files (nothing can be written over them or beside them), not any other file below the folder given
 * as the lake. An in-memory database is not read-only to DuckDB, so the store says it is a `snapshot` and `query`
 * refuses by kind every statement that could change it (query.ts). The snapshot goes when the store is closed.
 *
 * In memory rather than in a DuckDB file: writing the copy to a file compressed every column and cost several times
 * the copy itself (bench/RESULTS.md). The lake's items parts (`result_items`, `result_item_sets`, written by
 * `ingest --lake`) are copied too, so `leaderboard` and `compare` pair items as on a store file.
 *
 * A part that fails to read is skipped with a warning naming it, and with it the records of its writer's run in
 * that partition (a record is read with all of its rows or not at all). Rows whose record is not in the lake (a
 * writer killed while publishing) are left out.
 */
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { lstat, mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { IoError } from '../errors.js';
import { removeOnExit } from '../io/remove-on-exit.js';
import { loadDuckDb, readerLockdown, storeOver, type Store } from './db.js';
import { DERIVED_COLUMNS, lakeParts, partColumns, partsScan, unitOf, type LakePart } from './lake-files.js';
import { STORE_DDL, STORE_SCHEMA_VERSION } from './schema.js';

/** The tables a lake holds, each a folder partitioned by collection. */
export const LAKE_TABLES = [
  'records',
  'results',
  'samples',
  'documents',
  'result_items',
  'result_item_sets',
] as const;
export type LakeTable = (typeof LAKE_TABLES)[number];

export interface LakeReadOptions {
  /** Told of every file under the lake that is skipped (not the lake's own, or unreadable). */
  onWarning?: (code: string, message: string) => void;
  /**
   * Leave the instance rows out when every result has its items (`leaderboard` and `compare` pair items, and
   * copying the rows is most of a lake's reading): a query that reads them then fails (`isSamplesLeftOut`), and
   * `withReadStore` (open.ts) opens the lake again with them.
   */
  itemsOnly?: boolean;
  /** Folders DuckDB may write into (`exportParquet`'s staging folder), as `OpenStoreOptions.writableDirectories`. */
  writableDirectories?: readonly string[];
}

/**
 * The folder must be a lake: a folder (not a file) holding the `records/` folder every lake has (`ingest --lake`
 * makes it when it makes the lake). A parent folder of a lake, or any other folder, is refused.
 */
export async function checkLakeDir(root: string, shown: string): Promise<void> {
  const info = await stat(root).catch(() => undefined);
  if (!info)
    throw new IoError('store.not-found', `no lake at ${shown} (create one with \`evalkit ingest --lake\`)`);
  if (!info.isDirectory())
    throw new IoError(
      'store.not-lake',
      `${shown} is a file, not a lake: a lake is the folder \`evalkit ingest --lake\` writes (use --db for a store file)`,
    );
  const records = await lstat(join(root, 'records')).catch(() => undefined);
  if (!records?.isDirectory())
    throw new IoError(
      'store.not-lake',
      `${shown} is not a lake: it has no records/ folder (a lake is the folder \`evalkit ingest --lake\` writes, not a folder above it)`,
    );
}

/** The store's DDL of a table. */
const ddlOf = (table: string): string =>
  STORE_DDL.find((s) => s.startsWith(`CREATE TABLE IF NOT EXISTS ${table} (`))!;

/** Opens a lake for reading: a read-only, locked-down store over an in-memory snapshot of the lake's own files. */
export async function openLake(dir: string, options: LakeReadOptions = {}): Promise<Store> {
  const root = resolve(dir);
  await checkLakeDir(root, dir);
  const temp = removeOnExit(await mkdtemp(join(tmpdir(), 'evalkit-lake-read-')));
  const { DuckDBInstance } = await loadDuckDb();
  let instance: DuckDBInstance | undefined;
  let connection: DuckDBConnection | undefined;
  try {
    instance = await DuckDBInstance.create(':memory:', { temp_directory: temp.path });
    connection = await instance.connect();
    await snapshot(connection, root, options);
    const writable = (options.writableDirectories ?? []).map((d) => (d.endsWith('/') ? d : `${d}/`));
    for (const setting of readerLockdown(writable)) await connection.run(setting);
    const store = storeOver(instance, connection, root, true);
    return {
      ...store,
      snapshot: true,
      reopen: (writableDirectories) => openLake(dir, { ...options, writableDirectories }),
      close() {
        store.close();
        temp.remove();
      },
    };
  } catch (error) {
    connection?.closeSync();
    instance?.closeSync();
    temp.remove();
    if (error instanceof IoError) throw error;
    throw new IoError('store.open', `cannot read the lake ${dir}: ${(error as Error).message}`);
  }
}

/**
 * Whether an error is a query's on a snapshot whose instance rows were left out (`itemsOnly`): the snapshot then
 * has no `samples` table and no view over it, so such a query fails when DuckDB binds it, before anything runs.
 */
export const isSamplesLeftOut = (error: unknown): boolean =>
  error instanceof Error && /Table with name (samples|sample_rows) does not exist/.test(error.message);

/** Copies the lake's own files into the (empty, in-memory) database of `c`. */
async function snapshot(c: DuckDBConnection, root: string, options: LakeReadOptions): Promise<void> {
  const skip = (path: string, why: string): void =>
    options.onWarning?.('store.lake-file-skipped', `${path} skipped: ${why}`);
  for (const table of ['store_meta', 'ingests', ...LAKE_TABLES])
    if (table !== 'samples') await c.run(ddlOf(table));
  await c.run(`INSERT INTO store_meta VALUES ('schema_version', $1)`, [String(STORE_SCHEMA_VERSION)]);

  const parts = new Map<LakeTable, LakePart[]>();
  // The records of a run and partition whose rows cannot all be read are left out.
  const damaged = new Map<string, string>();
  for (const table of LAKE_TABLES) {
    const found = await lakeParts(c, root, table, skip);
    parts.set(table, found.parts);
    if (table !== 'records') for (const part of found.refused) damaged.set(unitOf(part), part.file);
  }
  // A writer's run is published partition by partition, its records file last: rows of a run and partition
  // without a records file are not published (yet) and are not read.
  const published = new Set(parts.get('records')!.map(unitOf));
  // Rows are copied only for the records copied (a semi-join on the small records table, not a DELETE over
  // millions of rows afterwards).
  const copy = async (table: LakeTable, part: LakePart): Promise<boolean> => {
    const derived = Object.entries(DERIVED_COLUMNS[table] ?? {});
    const columns = partColumns(table);
    const select = [...columns, ...derived.map(([, sql]) => sql)].join(', ');
    const into = [...columns, ...derived.map(([name]) => name)];
    const recorded = table === 'records' ? '' : ' WHERE record_key IN (SELECT record_key FROM records)';
    // samples and result_items have no key to ignore a repeated row by (and no writer publishes one twice).
    try {
      await c.run(
        `${/PRIMARY KEY/.test(ddlOf(table)) ? 'INSERT OR IGNORE' : 'INSERT'} INTO ${table} (${into.join(', ')}) SELECT ${select} FROM ${partsScan([part])}${recorded}`,
      );
      return true;
    } catch (error) {
      skip(part.file, `unreadable: ${(error as Error).message.split('\n')[0]}`);
      return false;
    }
  };
  /** Copies the records of every unit whose rows all read (so far); resolves to how many units are damaged. */
  const unreadRecords = new Set<LakePart>();
  const copyRecords = async (): Promise<number> => {
    await c.run('DELETE FROM records');
    for (const part of parts.get('records')!)
      if (!damaged.has(unitOf(part)) && !unreadRecords.has(part) && !(await copy('records', part)))
        unreadRecords.add(part);
    return damaged.size;
  };
  const copyRows = async (table: LakeTable): Promise<void> => {
    for (const part of parts.get(table)!)
      if (published.has(unitOf(part)) && !damaged.has(unitOf(part)) && !(await copy(table, part)))
        damaged.set(unitOf(part), part.file);
  };
  const damagedBefore = await copyRecords();
  // The instance rows last: left out when every result copied has its items and the caller reads only those.
  const rowTables: LakeTable[] = LAKE_TABLES.filter((t) => t !== 'records' && t !== 'samples');
  for (const table of rowTables) await copyRows(table);
  const [{ missing }] = (
    await c.runAndReadAll(
      `SELECT count(*)::INTEGER AS missing FROM results ANTI JOIN result_item_sets USING (record_key, result_index)`,
    )
  ).getRowObjectsJson() as { missing: number }[];
  const withRows = !options.itemsOnly || missing > 0;
  if (withRows) {
    await c.run(ddlOf('samples'));
    await copyRows('samples');
    rowTables.push('samples');
  }
  for (const part of parts.get('records')!) {
    const broken = damaged.get(unitOf(part));
    if (broken) skip(part.file, `its records are left out: their rows in ${broken} could not be read`);
  }
  // A part that failed to read while copying: its unit's records go, and the rows copied for them.
  if (damaged.size > damagedBefore) {
    await copyRecords();
    for (const table of rowTables)
      await c.run(`DELETE FROM ${table} WHERE record_key NOT IN (SELECT record_key FROM records)`);
  }
  for (const ddl of STORE_DDL)
    if (/^CREATE OR REPLACE VIEW/.test(ddl) && (withRows || !/\bFROM samples\b/.test(ddl))) await c.run(ddl);
}
