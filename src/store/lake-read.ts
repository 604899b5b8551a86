/**
 * Reading a lake (`--lake DIR` on every read command), in place. The lake's own part files (lake-files.ts: by name,
 * kind and columns; anything else is skipped with a warning naming it) are read where they lie, by an in-memory
 * DuckDB database that is then locked down as `--db` locks a store (db.ts's `readerLockdown`), with one difference:
 * DuckDB may read exactly the vetted part files (`allowed_paths`) and nothing else. Whatever SQL a reader runs, it
 * reaches no other file; and since DuckDB would let a statement write to an allowed path, `query` runs only the
 * statement kinds that read (query.ts: the store says it is a `snapshot`), so nothing is written even in the lake.
 *
 * What is read at opening is small: the `records`, `results`, `documents` and `result_item_sets` parts are copied
 * into memory (a record is read with all of its rows or not at all, so every part of them is read through once).
 * The two large tables, the instance rows (`samples`) and the results' items (`result_items`), are views over their
 * part files: a query reads only the row groups its filters keep (a writer sorts both by record, so a question
 * about two results reads those results' row groups, whatever the size of the lake: docs/lake.md).
 *
 * A part that fails to read is skipped with a warning naming it, and with it the records of its writer's run in
 * that partition. A part of the two large tables whose footer reads but whose pages do not is found by the first
 * query that reads those pages: `findDamagedParts` then names it, and `withReadStore` (open.ts) opens the lake again
 * without its records and runs the command again. Rows whose record is not in the lake (a writer killed while
 * publishing) are left out.
 */
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { lstat, mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { IoError } from '../errors.js';
import { removeOnExit } from '../io/remove-on-exit.js';
import { loadDuckDb, readerLockdown, storeOver, type Store } from './db.js';
import {
  DERIVED_COLUMNS,
  listLake,
  partColumnsOver,
  partsScan,
  replacedUnits,
  sqlString,
  unitOf,
  vetParts,
  type LakePart,
} from './lake-files.js';
import { STORE_DDL, STORE_SCHEMA_VERSION, tableColumns } from './schema.js';

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

/** The tables read in place (views over their parts); the others are copied into memory when the lake opens. */
const IN_PLACE: readonly LakeTable[] = ['samples', 'result_items'];

export interface LakeReadOptions {
  /** Told of every file under the lake that is skipped (not the lake's own, or unreadable). */
  onWarning?: (code: string, message: string) => void;
  /** Folders DuckDB may write into (`exportParquet`'s staging folder), as `OpenStoreOptions.writableDirectories`. */
  writableDirectories?: readonly string[];
  /** Part files found damaged by an earlier reading (`findDamagedParts`): read as parts that cannot be read. */
  damaged?: ReadonlySet<string>;
}

/** A lake opened for reading: a store, and what `findDamagedParts` needs. */
export interface LakeStore extends Store {
  /** The part files the views of the tables read in place read. */
  readonly inPlaceParts: readonly string[];
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

/** Opens a lake for reading: a read-only, locked-down store over the lake's own files, read in place. */
export async function openLake(dir: string, options: LakeReadOptions = {}): Promise<LakeStore> {
  const root = resolve(dir);
  await checkLakeDir(root, dir);
  const temp = removeOnExit(await mkdtemp(join(tmpdir(), 'evalkit-lake-read-')));
  const { DuckDBInstance } = await loadDuckDb();
  let instance: DuckDBInstance | undefined;
  let connection: DuckDBConnection | undefined;
  try {
    // A compaction may remove files between the listing and their reading: the lake is then read again, from a
    // new listing (which sees the compaction's new files), and only the warnings of the reading kept are told.
    let inPlaceParts: string[] = [];
    let itemsSql: string | undefined;
    for (let attempt = 0; ; attempt++) {
      instance = await DuckDBInstance.create(':memory:', { temp_directory: temp.path });
      connection = await instance.connect();
      // Each query over the parts reads their footers again unless DuckDB keeps them (the files never change: a
      // writer adds and removes whole files).
      await connection.run('SET parquet_metadata_cache = true');
      const warnings: [string, string][] = [];
      const read = await readLake(connection, root, {
        ...options,
        onWarning: (code, message) => warnings.push([code, message]),
      });
      if (attempt < 10 && (await anyVanished(read.listed))) {
        connection.closeSync();
        instance.closeSync();
        continue;
      }
      for (const [code, message] of warnings) options.onWarning?.(code, message);
      inPlaceParts = read.inPlace;
      itemsSql = read.itemsSql;
      break;
    }
    const writable = (options.writableDirectories ?? []).map((d) => (d.endsWith('/') ? d : `${d}/`));
    for (const setting of readerLockdown(writable, inPlaceParts)) await connection.run(setting);
    const store = storeOver(instance, connection, root, true);
    const lakeOf = (s: Store): Store => ({
      ...s,
      snapshot: true,
      itemsSql,
      connect: async () => lakeOf(await s.connect()),
    });
    return {
      ...lakeOf(store),
      inPlaceParts,
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
 * Whether an error could be a part file's pages failing to read (DuckDB does not name the file): any error of
 * DuckDB's (or caused by one) but those of the SQL itself or of the lockdown, which reading every page again would
 * not explain.
 */
export const mayBeDamagedPart = (error: unknown): boolean =>
  error instanceof Error &&
  (error.cause !== undefined
    ? mayBeDamagedPart(error.cause)
    : /^[A-Z][A-Za-z ]* Error: /.test(error.message) &&
      !/^(Parser|Binder|Catalog|Permission|Conversion|Constraint|Interrupt|Not implemented) Error/.test(
        error.message,
      ));

/**
 * The part files of the tables read in place whose pages do not read, each read through on its own (after a
 * query failed: `mayBeDamagedPart`); none when every part reads, so the failure was something else.
 */
export async function findDamagedParts(store: LakeStore): Promise<string[]> {
  const damaged: string[] = [];
  for (const file of store.inPlaceParts)
    try {
      // Every column of every row, so that every page is decoded.
      await store.all(
        `SELECT count(*) FROM read_parquet(${sqlString(file)}, hive_partitioning = false) t
         WHERE hash(COLUMNS(*)) IS NULL`,
      );
    } catch {
      damaged.push(file);
    }
  return damaged;
}

/** Whether a part the lake's views read is gone since the lake was opened (a compaction replaced it). */
export const partsVanished = (store: LakeStore): Promise<boolean> => anyVanished(store.inPlaceParts);

/** The SQL of a table's rows over its parts: its columns in the store's order, the derived ones computed. */
function tableOverParts(table: LakeTable, parts: readonly LakePart[]): string {
  const derived = DERIVED_COLUMNS[table] ?? {};
  const { columns, mixed } = partColumnsOver(table, parts);
  const select = tableColumns(table)
    .map((c) => columns.get(c.name) ?? `${derived[c.name]} AS ${c.name}`)
    .join(', ');
  return `SELECT ${select} FROM ${partsScan(parts, mixed)}`;
}

/**
 * Reads the lake into the (empty, in-memory) database of `c`: the small tables copied, the large ones as views
 * over their parts. Resolves to the part files the views read.
 */
async function readLake(
  c: DuckDBConnection,
  root: string,
  options: LakeReadOptions,
): Promise<{ inPlace: string[]; listed: string[]; itemsSql?: string }> {
  const skip = (path: string, why: string): void =>
    options.onWarning?.('store.lake-file-skipped', `${path} skipped: ${why}`);
  for (const table of ['store_meta', 'ingests', ...LAKE_TABLES])
    if (!IN_PLACE.includes(table as LakeTable)) await c.run(ddlOf(table));
  await c.run(`INSERT INTO store_meta VALUES ('schema_version', $1)`, [String(STORE_SCHEMA_VERSION)]);

  const parts = new Map<LakeTable, LakePart[]>();
  // The records of a run and partition whose rows cannot all be read are left out.
  const damaged = new Map<string, string>();
  const listing = await listLake(root, LAKE_TABLES, skip);
  // The units a published compaction replaced (their files are being removed, or were left by a killed one).
  const replaced = replacedUnits(listing.manifests.values(), listing.parts.get('records')!);
  for (const table of LAKE_TABLES) {
    const named = listing.parts.get(table)!.filter((p) => !replaced.has(unitOf(p)));
    const found = await vetParts(c, table, named, skip);
    const known = found.parts.filter((p) => options.damaged?.has(p.file));
    for (const part of known) skip(part.file, 'unreadable: its pages cannot be read');
    parts.set(
      table,
      found.parts.filter((p) => !known.includes(p)),
    );
    if (table !== 'records')
      for (const part of [...found.refused, ...known]) damaged.set(unitOf(part), part.file);
  }
  // A writer's run is published partition by partition, its records file last: rows of a run and partition
  // without a records file are not published (yet) and are not read.
  const published = new Set(parts.get('records')!.map(unitOf));
  const readable = (part: LakePart): boolean => published.has(unitOf(part)) && !damaged.has(unitOf(part));
  // Rows are copied only for the records copied (a semi-join on the small records table).
  const insert = (table: LakeTable): string =>
    `${/PRIMARY KEY/.test(ddlOf(table)) ? 'INSERT OR IGNORE' : 'INSERT'} INTO ${table}`;
  const copy = async (table: LakeTable, part: LakePart): Promise<boolean> => {
    const recorded = table === 'records' ? '' : ' WHERE record_key IN (SELECT record_key FROM records)';
    try {
      await c.run(`${insert(table)} ${tableOverParts(table, [part])}${recorded}`);
      return true;
    } catch (error) {
      skip(part.file, `unreadable: ${(error as Error).message.split('\n')[0]}`);
      return false;
    }
  };
  const copyAll = async (table: LakeTable, all: readonly LakePart[]): Promise<boolean> => {
    try {
      await c.run('BEGIN');
      await c.run(
        `${insert(table)} ${tableOverParts(table, all)} WHERE record_key IN (SELECT record_key FROM records)`,
      );
      await c.run('COMMIT');
      return true;
    } catch {
      await c.run('ROLLBACK');
      return false;
    }
  };
  /** Copies the records of every unit whose rows all read (so far); resolves to how many units are damaged. */
  const unreadRecords = new Set<LakePart>();
  const copyRecords = async (): Promise<number> => {
    await c.run('DELETE FROM records');
    const own = parts.get('records')!.filter((p) => !damaged.has(unitOf(p)) && !unreadRecords.has(p));
    if (own.length > 1) {
      try {
        await c.run(`${insert('records')} ${tableOverParts('records', own)}`);
        return damaged.size;
      } catch {
        await c.run('DELETE FROM records');
      }
    }
    for (const part of own) if (!(await copy('records', part))) unreadRecords.add(part);
    return damaged.size;
  };
  const copied: LakeTable[] = LAKE_TABLES.filter((t) => t !== 'records' && !IN_PLACE.includes(t));
  const damagedBefore = await copyRecords();
  for (const table of copied) {
    const own = parts.get(table)!.filter(readable);
    // All of a table's parts in one statement; part by part when one fails, to name it.
    if (own.length > 1 && (await copyAll(table, own))) continue;
    for (const part of own) if (!(await copy(table, part))) damaged.set(unitOf(part), part.file);
  }
  // A part that failed to read while copying: its unit's records go, and the rows copied for them.
  if (damaged.size > damagedBefore) {
    await copyRecords();
    for (const table of copied)
      await c.run(`DELETE FROM ${table} WHERE record_key NOT IN (SELECT record_key FROM records)`);
  }
  for (const part of parts.get('records')!) {
    const broken = damaged.get(unitOf(part));
    if (broken) skip(part.file, `its records are left out: their rows in ${broken} could not be read`);
  }
  // The large tables: views over the readable parts, the rows of records not read left out.
  const inPlace: string[] = [];
  let itemsSql: string | undefined;
  for (const table of IN_PLACE) {
    const own = parts.get(table)!.filter(readable);
    if (own.length === 0) {
      await c.run(ddlOf(table));
      continue;
    }
    inPlace.push(...own.map((p) => p.file));
    if (table === 'result_items') itemsSql = `(${tableOverParts(table, own)})`;
    await c.run(
      `CREATE VIEW ${table} AS ${tableOverParts(table, own)} WHERE record_key IN (SELECT record_key FROM records)`,
    );
  }
  for (const ddl of STORE_DDL) if (/^CREATE OR REPLACE VIEW/.test(ddl)) await c.run(ddl);
  return {
    inPlace,
    listed: [...listing.parts.values()].flat().map((p) => p.file),
    ...(itemsSql === undefined ? {} : { itemsSql }),
  };
}

/** Whether some of the files gone since they were listed (a compaction removed them). */
async function anyVanished(files: readonly string[]): Promise<boolean> {
  const gone = await Promise.all(
    files.map((f) =>
      lstat(f).then(
        () => false,
        () => true,
      ),
    ),
  );
  return gone.includes(true);
}
