/**
 * Reading a lake (`--lake DIR` on every read command). The lake's own part files (lake-files.ts: by name, kind
 * and columns; anything else is skipped with a warning naming it) are copied into a private snapshot, a DuckDB
 * file in a temporary folder, which is then opened exactly as `--db` opens a store: read-only and locked down
 * (db.ts). So whatever SQL a reader runs, it reaches no file at all: not the lake's files (nothing can be written
 * over them or beside them), not any other file below the folder given as the lake; the snapshot goes when the
 * store is closed (or the process ends).
 *
 * A part that fails to read is skipped with a warning naming it, and with it the records of its writer's run in
 * that partition (a record is read with all of its rows or not at all). Rows whose record is not in the lake (a
 * writer killed while publishing) are left out.
 */
import { lstat, mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { IoError } from '../errors.js';
import { removeOnExit } from '../io/remove-on-exit.js';
import { loadDuckDb, openStore, type Store } from './db.js';
import { lakeParts, partColumns, partsScan, sqlString, unitOf, type LakePart } from './lake-files.js';
import { NULL_PARTITION } from './parquet.js';
import { STORE_DDL, STORE_SCHEMA_VERSION } from './schema.js';

/** The tables a lake holds, each a folder partitioned by collection. */
export const LAKE_TABLES = ['records', 'results', 'samples', 'documents'] as const;
export type LakeTable = (typeof LAKE_TABLES)[number];

export interface LakeReadOptions {
  /** Told of every file under the lake that is skipped (not the lake's own, or unreadable). */
  onWarning?: (code: string, message: string) => void;
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

/** Opens a lake for reading: a read-only, locked-down store over a snapshot of the lake's own files. */
export async function openLake(dir: string, options: LakeReadOptions = {}): Promise<Store> {
  const root = resolve(dir);
  await checkLakeDir(root, dir);
  const temp = removeOnExit(await mkdtemp(join(tmpdir(), 'evalkit-lake-read-')));
  const file = join(temp.path, 'lake.duckdb');
  try {
    await snapshot(root, file, options);
    const store = await openStore(file, { readOnly: true });
    return {
      ...store,
      close() {
        store.close();
        temp.remove();
      },
    };
  } catch (error) {
    temp.remove();
    if (error instanceof IoError) throw error;
    throw new IoError('store.open', `cannot read the lake ${dir}: ${(error as Error).message}`);
  }
}

/** Copies the lake's own files into a new store file. */
async function snapshot(root: string, file: string, options: LakeReadOptions): Promise<void> {
  const { DuckDBInstance } = await loadDuckDb();
  const instance = await DuckDBInstance.create(file);
  const c = await instance.connect();
  const skip = (path: string, why: string): void =>
    options.onWarning?.('store.lake-file-skipped', `${path} skipped: ${why}`);
  try {
    for (const table of ['store_meta', 'ingests', ...LAKE_TABLES]) await c.run(ddlOf(table));
    for (const ddl of STORE_DDL) if (/^CREATE OR REPLACE VIEW/.test(ddl)) await c.run(ddl);
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
    const copy = async (table: LakeTable, part: LakePart): Promise<boolean> => {
      const columns = partColumns(table);
      const select =
        table === 'records'
          ? `${columns.join(', ')}, CASE WHEN collection = ${sqlString(NULL_PARTITION)} THEN NULL ELSE collection END`
          : columns.join(', ');
      // samples has no key to ignore a repeated row by (and no writer publishes one twice).
      const into = table === 'records' ? [...columns, 'collection'] : columns;
      try {
        await c.run(
          `${table === 'samples' ? 'INSERT' : 'INSERT OR IGNORE'} INTO ${table} (${into.join(', ')}) SELECT ${select} FROM ${partsScan([part])}`,
        );
        return true;
      } catch (error) {
        skip(part.file, `unreadable: ${(error as Error).message.split('\n')[0]}`);
        return false;
      }
    };
    for (const table of ['samples', 'results', 'documents'] as const)
      for (const part of parts.get(table)!)
        if (published.has(unitOf(part)) && !damaged.has(unitOf(part)) && !(await copy(table, part)))
          damaged.set(unitOf(part), part.file);
    for (const part of parts.get('records')!) {
      const broken = damaged.get(unitOf(part));
      if (broken) skip(part.file, `its records are left out: their rows in ${broken} could not be read`);
      else await copy('records', part);
    }
    for (const table of ['samples', 'results', 'documents'])
      await c.run(`DELETE FROM ${table} WHERE record_key NOT IN (SELECT record_key FROM records)`);
    await c.run('CHECKPOINT');
  } finally {
    c.closeSync();
    instance.closeSync();
  }
}
