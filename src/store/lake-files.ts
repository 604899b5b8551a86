/**
 * Which files of a lake are the lake's own. A lake table is `<table>/collection=<c>/part-<run>_<i>.parquet`, each
 * a regular file (never a symbolic link) holding exactly the table's stored columns; anything else under a table
 * folder that looks like data (a `.parquet` file of another name, place or schema, a symbolic link, a file DuckDB
 * cannot read) is not the lake's: it is skipped with a warning naming it and never read into results.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { NULL_PARTITION } from './parquet.js';
import { tableColumns } from './schema.js';

/** The name of a lake part file: `part-<run>_<i>.parquet`, `<run>` the writer's ingest id. */
export const PART_FILE = /^part-([0-9a-f-]+)_\d+\.parquet$/;
const PARTITION_DIR = /^collection=[^/]+$/;

export const sqlString = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** One file of a lake table: its path and what makes it a unit of publishing (run and partition). */
export interface LakePart {
  file: string;
  run: string;
  partition: string;
  /** Columns the part lacks because an older evalkit wrote it (ADDED_COLUMNS): read as NULL. Set by vetParts. */
  missing?: readonly string[];
}

/**
 * The order of each table's rows in a part file, by record first (`ingest --lake` and `lake compact` write them so):
 * a reader's filter on a record keeps only that record's row groups, by their footer statistics.
 */
export const PART_ORDER: Record<string, string> = {
  records: 'record_key',
  results: 'record_key, result_index',
  samples: 'record_key, row_index',
  documents: 'record_key',
  result_items: 'record_key, result_index, pos',
  result_item_sets: 'record_key, result_index',
};

/** A writer's unit of publishing: its run in one partition (its records file is renamed into place last). */
export const unitOf = (p: LakePart): string => `${p.run}\u0000${p.partition}`;

/**
 * Columns of a store table that a part file leaves out: the partition column (the folder's name), and an item's two
 * hashes of its key (DuckDB's `hash`, of no use to other engines; a reader computes them: DERIVED_COLUMNS).
 */
const NOT_IN_PARTS: Record<string, readonly string[]> = {
  records: ['collection'],
  result_items: ['k_1', 'k_2'],
};

/** The columns a part file of the table holds: the stored columns but those of NOT_IN_PARTS. */
export function partColumns(table: string): string[] {
  return tableColumns(table)
    .map((c) => c.name)
    .filter((c) => !NOT_IN_PARTS[table]?.includes(c));
}

/**
 * Columns added to a table's parts after lakes were first written (schema.ts, STORE_UPGRADES): a part an older
 * evalkit wrote lacks them, and is read with NULL there.
 */
const ADDED_COLUMNS: Record<string, readonly string[]> = { result_item_sets: ['key_digest'] };

/**
 * The SQL of each part column read from `parts` (by name), and whether their files differ in columns: a column
 * that none of the parts holds is NULL; one that some hold is read from those (`partsScan(parts, true)` gives the
 * others NULL there).
 */
export function partColumnsOver(
  table: string,
  parts: readonly LakePart[],
): { columns: Map<string, string>; mixed: boolean } {
  const types = new Map(tableColumns(table).map((c) => [c.name, c.type]));
  const columns = new Map<string, string>();
  for (const name of partColumns(table)) {
    const lacking = parts.filter((p) => p.missing?.includes(name)).length;
    columns.set(
      name,
      parts.length > 0 && lacking === parts.length ? `CAST(NULL AS ${types.get(name)}) AS ${name}` : name,
    );
  }
  const shapes = new Set(parts.map((p) => (p.missing ?? []).join(',')));
  return { columns, mixed: shapes.size > 1 };
}

/** The stored columns a reader computes from a part's columns (SQL over the part's columns, by name). */
export const DERIVED_COLUMNS: Record<string, Record<string, string>> = {
  records: {
    collection: `CASE WHEN collection = ${sqlString(NULL_PARTITION)} THEN NULL ELSE collection END`,
  },
  result_items: { k_1: 'hash(k)', k_2: `hash('#' || k)` },
};

/**
 * The part files of a table by name and kind (regular files in `collection=` folders, never through a symbolic
 * link); every other `.parquet` file or symbolic link found under the table folder is reported through `skip`.
 */
export async function partFilesByName(
  dir: string,
  table: string,
  skip: (file: string, why: string) => void,
): Promise<LakePart[]> {
  const root = join(dir, table);
  const info = await lstat(root).catch(() => undefined);
  if (!info) return [];
  if (!info.isDirectory()) {
    skip(root, info.isSymbolicLink() ? 'a symbolic link, not a folder of the lake' : 'not a folder');
    return [];
  }
  const parts: LakePart[] = [];
  const walk = async (folder: string, depth: number): Promise<void> => {
    const entries = await readdir(folder, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const path = join(folder, e.name);
      if (e.isSymbolicLink()) {
        skip(path, 'a symbolic link (a lake reads only its own files)');
        continue;
      }
      if (e.isDirectory()) {
        if (depth === 0 && PARTITION_DIR.test(e.name)) await walk(path, 1);
        else await reportStray(path, skip);
        continue;
      }
      if (!e.name.endsWith('.parquet')) continue;
      const run = PART_FILE.exec(e.name)?.[1];
      if (depth === 1 && run && e.isFile())
        parts.push({ file: path, run, partition: relative(root, folder) });
      else skip(path, `not a lake part file (${table}/collection=…/part-<run>_<i>.parquet)`);
    }
  };
  await walk(root, 0);
  return parts;
}

/** Every `.parquet` file or symbolic link below a folder that is no part of the lake's layout. */
async function reportStray(folder: string, skip: (file: string, why: string) => void): Promise<void> {
  for (const e of await readdir(folder, { withFileTypes: true, recursive: true }).catch(() => [])) {
    const path = join(e.parentPath, e.name);
    if (e.isSymbolicLink()) skip(path, 'a symbolic link (a lake reads only its own files)');
    else if (e.name.endsWith('.parquet'))
      skip(path, 'not a lake part file (outside the collection=… folders)');
  }
}

/**
 * The part files of a table that DuckDB can read and that hold exactly the table's stored columns (`parts`); the
 * others are reported through `skip`, and those named as parts among them are returned as `refused`.
 */
export async function lakeParts(
  connection: DuckDBConnection,
  dir: string,
  table: string,
  skip: (file: string, why: string) => void,
): Promise<{ parts: LakePart[]; refused: LakePart[] }> {
  return vetParts(connection, table, await partFilesByName(dir, table, skip), skip);
}

/** `lakeParts` of part files already found by name. */
export async function vetParts(
  connection: DuckDBConnection,
  table: string,
  candidates: readonly LakePart[],
  skip: (file: string, why: string) => void,
): Promise<{ parts: LakePart[]; refused: LakePart[] }> {
  const expected = partColumns(table).join(', ');
  const added = ADDED_COLUMNS[table] ?? [];
  const older = partColumns(table)
    .filter((c) => !added.includes(c))
    .join(', ');
  const good: LakePart[] = [];
  const refused: LakePart[] = [];
  // Every footer in one statement (a lake may have thousands of parts); one by one when some footer fails.
  const columnsOf = await footerColumns(connection, candidates);
  for (const part of candidates) {
    let names: string[];
    try {
      names =
        columnsOf?.get(part.file) ??
        (
          (
            await connection.runAndReadAll(
              `DESCRIBE SELECT * FROM read_parquet(${sqlString(part.file)}, hive_partitioning = false)`,
            )
          ).getRowObjectsJson() as { column_name: string }[]
        ).map((c) => c.column_name);
    } catch (error) {
      skip(part.file, `unreadable: ${(error as Error).message.split('\n')[0]}`);
      refused.push(part);
      continue;
    }
    if (names.join(', ') === expected) good.push(part);
    else if (added.length > 0 && names.join(', ') === older) good.push({ ...part, missing: added });
    else {
      const shown =
        names.length > 5 ? `${names.slice(0, 4).join(', ')}, … (${names.length})` : names.join(', ');
      skip(part.file, `not a ${table} part: its columns are ${shown}`);
      refused.push(part);
    }
  }
  return { parts: good, refused };
}

/**
 * The column names of each part's footer (its schema's elements after the root), read in one statement; undefined
 * when some footer does not read (the caller then reads them one by one, to name the one that fails).
 */
async function footerColumns(
  connection: DuckDBConnection,
  parts: readonly LakePart[],
): Promise<Map<string, string[]> | undefined> {
  if (parts.length === 0) return new Map();
  try {
    const rows = (
      await connection.runAndReadAll(
        `SELECT file_name, name FROM parquet_schema([${parts.map((p) => sqlString(p.file)).join(', ')}])`,
      )
    ).getRowObjectsJson() as { file_name: string; name: string }[];
    const columns = new Map<string, string[]>();
    for (const row of rows) {
      const names = columns.get(row.file_name);
      // The first element of a file's schema is its root, not a column.
      if (names) names.push(row.name);
      else columns.set(row.file_name, []);
    }
    return columns;
  } catch {
    return undefined;
  }
}

/**
 * `read_parquet` over the given part files, the partition column read back from the folder name as VARCHAR; with
 * `byName`, files whose columns differ (partColumnsOver's `mixed`) are read by column name, a column a file lacks
 * read as NULL.
 */
export function partsScan(parts: readonly LakePart[], byName = false): string {
  return `read_parquet([${parts.map((p) => sqlString(p.file)).join(', ')}], hive_partitioning = true, hive_types = {'collection': VARCHAR}${byName ? ', union_by_name = true' : ''})`;
}

/**
 * Where compaction (lake-compact.ts) says which units a new unit replaces: `_evalkit/compactions/<run>.json`
 * (a folder other engines skip, as they skip every path that begins with `_` or `.`), `{run, partitions: {<partition
 * folder>: [<replaced run>, …]}}`. Once the new unit is published (its records file in place), readers ignore the
 * units it replaces, whose files compaction then removes.
 */
export const COMPACTIONS_DIR = join('_evalkit', 'compactions');

export interface CompactionManifest {
  run: string;
  partitions: Record<string, string[]>;
}

/** The compaction manifests of a lake, by file name (a file that is not one is ignored). */
export async function readManifests(dir: string): Promise<Map<string, CompactionManifest>> {
  const found = new Map<string, CompactionManifest>();
  const folder = join(dir, COMPACTIONS_DIR);
  for (const name of (await readdir(folder).catch(() => [] as string[])).sort()) {
    if (!/^[0-9a-f-]+\.json$/.test(name)) continue;
    try {
      const manifest = JSON.parse(await readFile(join(folder, name), 'utf8')) as CompactionManifest;
      if (typeof manifest.run === 'string' && manifest.partitions && typeof manifest.partitions === 'object')
        found.set(name, manifest);
    } catch {
      // Removed meanwhile, or not one of compaction's (it writes them whole, by rename).
    }
  }
  return found;
}

/**
 * The units (`unitOf`) that published compactions replace: those of every manifest whose new unit has its records
 * file among `records` (a manifest whose unit is not published yet replaces nothing).
 */
export function replacedUnits(
  manifests: Iterable<CompactionManifest>,
  records: readonly LakePart[],
): Set<string> {
  const published = new Set(records.map(unitOf));
  const replaced = new Set<string>();
  for (const m of manifests)
    for (const [partition, runs] of Object.entries(m.partitions))
      if (published.has(unitOf({ file: '', run: m.run, partition })))
        for (const run of runs) replaced.add(unitOf({ file: '', run, partition }));
  return replaced;
}

/** Every table's part files by name, listed rows first and records last, and the compaction manifests. */
export interface LakeListing {
  parts: Map<string, LakePart[]>;
  manifests: Map<string, CompactionManifest>;
}

/**
 * Lists the lake's parts and manifests until two listings in a row agree (a writer's renames and removals never
 * come back, so two equal listings saw no change between them: the set is one a publisher left, whole), the rows
 * tables before the manifests and those before `records`, the order in which a publisher adds them. What `skip`
 * hears is told once, from the listing kept.
 */
export async function listLake(
  dir: string,
  tables: readonly string[],
  skip: (file: string, why: string) => void,
): Promise<LakeListing> {
  const order = [...tables.filter((t) => t !== 'records'), 'records'];
  const once = async (): Promise<{ listing: LakeListing; skipped: [string, string][]; key: string }> => {
    const skipped: [string, string][] = [];
    const parts = new Map<string, LakePart[]>();
    let manifests = new Map<string, CompactionManifest>();
    for (const table of order) {
      if (table === 'records') manifests = await readManifests(dir);
      parts.set(table, await partFilesByName(dir, table, (file, why) => skipped.push([file, why])));
    }
    const key = JSON.stringify([
      [...parts].map(([t, ps]) => [t, ps.map((p) => p.file)]),
      [...manifests.keys()],
    ]);
    return { listing: { parts, manifests }, skipped, key };
  };
  let last = await once();
  for (let tries = 0; tries < 20; tries++) {
    const next = await once();
    if (next.key === last.key) break;
    last = next;
  }
  for (const [file, why] of last.skipped) skip(file, why);
  return last.listing;
}
