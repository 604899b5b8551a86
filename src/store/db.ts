/**
 * Opening the store: one embedded DuckDB file. Writers (`ingest`) open it read-write and create the tables;
 * readers (`query`, `leaderboard`, `compare`, `view`, `export`) open it read-only and locked down (see
 * `READER_LOCKDOWN`): whatever SQL a reader runs, it reads the store and nothing else. Every `--db` goes through
 * `checkStoreFile` first: an existing path must be a regular file that is a DuckDB database.
 */
import type { DuckDBConnection, DuckDBInstance, DuckDBResultReader, DuckDBValue } from '@duckdb/node-api';
import { constants } from 'node:fs';
import { createRequire } from 'node:module';
import { open } from 'node:fs/promises';
import { IoError } from '../errors.js';
import { describeFileKind, readError } from '../io/file-kind.js';
import { STORE_DDL, STORE_SCHEMA_VERSION, STORE_UPGRADES } from './schema.js';
import { storeSettings } from './settings.js';

export interface Store {
  readonly path: string;
  readonly readOnly: boolean;
  readonly connection: DuckDBConnection;
  /**
   * Runs a query with positional parameters ($1, $2, ...) and returns the rows as plain JSON-able objects: 64- and
   * 128-bit integers as numbers when exactly representable (else as strings), DECIMAL and timestamps as strings,
   * JSON columns as their text.
   */
  all<T = Record<string, unknown>>(sql: string, params?: DuckDBValue[]): Promise<T[]>;
  /**
   * Another connection to the same open database (its own transactions and temporary tables; queries on two
   * connections run at the same time). Its `close()` closes that connection only.
   */
  connect(): Promise<Store>;
  close(): void;
  /**
   * True for a lake's in-memory snapshot (lake-read.ts): DuckDB does not hold it read-only, so `query` refuses the
   * statements that could change it by their kind (query.ts).
   */
  readonly snapshot?: boolean;
  /**
   * The same store opened again with folders DuckDB may write into (`writableDirectories`), for a store that has
   * no file to open again (a lake's snapshot); a store file is opened again by its path.
   */
  reopen?(writableDirectories: readonly string[]): Promise<Store>;
  /**
   * Where a query for one result's items reads them, when not the `result_items` table (a lake: its part files
   * themselves, without the view's check that each row's record was read, which a query for a result whose item
   * set was read does not need).
   */
  readonly itemsSql?: string;
}

export { storePath, DEFAULT_STORE_FILE } from './path.js';

export interface OpenStoreOptions {
  readOnly: boolean;
  /**
   * For a read-only store: folders DuckDB may write into (`exportParquet`'s staging folder). Nothing else outside
   * the store file can be read or written.
   */
  writableDirectories?: readonly string[];
}

/**
 * DuckDB's native module, loaded on the first `openStore` only: a static import would load it at every CLI start
 * (the bundle inlines the store commands' lazy imports), for commands that never touch the store.
 */
let duckdb: typeof import('@duckdb/node-api') | undefined;
/** True in the CLI bundle (scripts/bundle.mjs defines it), undefined when run from the sources or tsc's output. */
declare const EVALKIT_BUNDLE: boolean | undefined;
export async function loadDuckDb(): Promise<typeof import('@duckdb/node-api')> {
  // From the sources: loaded with require, because the package is CommonJS and an ESM import of it makes Node parse
  // each of its ~100 modules for their export names first (~0.2 s of CPU on every store command). In the bundle:
  // imported, so that esbuild bundles the package's JavaScript into the store's chunk (only its native binding,
  // @duckdb/node-bindings, is loaded from node_modules): one file to compile instead of ~100 to find and load.
  // (esbuild gives a CommonJS module's exports as the chunk's default export.)
  duckdb ??=
    typeof EVALKIT_BUNDLE === 'boolean'
      ? ((await import('@duckdb/node-api')) as unknown as { default: typeof import('@duckdb/node-api') })
          .default
      : (createRequire(import.meta.url)('@duckdb/node-api') as typeof import('@duckdb/node-api'));
  return duckdb;
}

let wideIntegers: Set<number> | undefined;
export function isWideInteger(typeId: number): boolean {
  if (!duckdb) return false;
  const { DuckDBTypeId } = duckdb;
  wideIntegers ??= new Set<number>([
    DuckDBTypeId.BIGINT,
    DuckDBTypeId.UBIGINT,
    DuckDBTypeId.HUGEINT,
    DuckDBTypeId.UHUGEINT,
  ]);
  return wideIntegers.has(typeId);
}

/** A result's rows as JSON-able objects, wide integers as numbers when they are exact (see `Store.all`). */
export function plainRows(result: DuckDBResultReader): Record<string, unknown>[] {
  const rows = result.getRowObjectsJson() as Record<string, unknown>[];
  const names = result.columnNames();
  const wide = result.columnTypes().flatMap((t, i) => (isWideInteger(t.typeId) ? [names[i]] : []));
  if (wide.length === 0) return rows;
  for (const row of rows)
    for (const name of wide) {
      const v = row[name];
      if (typeof v === 'string' && Number.isSafeInteger(Number(v))) row[name] = Number(v);
    }
  return rows;
}

/**
 * DuckDB's open errors in the user's terms. The file lock is the one that matters: one process writes a store at a
 * time, and not while another process has it open (a reader holds a shared lock, a writer an exclusive one). The
 * message says who is in the way in evalkit's words and what to do; DuckDB's own advice (its CLI flags) and the
 * holder's process id are left out.
 */
function openError(path: string, error: Error, readOnly: boolean): IoError {
  if (/Could not set lock on file/.test(error.message)) {
    // DuckDB adds "you would be able to open this database in read-only mode" when the holder only reads.
    const heldByReader = /read-only mode/.test(error.message);
    const message = readOnly
      ? `the store ${path} is being written by another process (an \`evalkit ingest\`): it cannot be read until that has finished; run this again then`
      : heldByReader
        ? `the store ${path} is open in another process that reads it (an \`evalkit view\`, \`query\`, \`leaderboard\` or \`compare\`): a store cannot be written while another process has it open. Stop that process (a viewer stops with Ctrl-C in its terminal), or run this again when it has finished`
        : `the store ${path} is being written by another process (another \`evalkit ingest\`): a store has one writer at a time; run this again when it has finished`;
    return new IoError('store.locked', message);
  }
  if (/not a valid DuckDB database file|Not a DuckDB file|file is not a valid/i.test(error.message))
    return new IoError('store.not-duckdb', `${path} is not a DuckDB store: ${error.message}`);
  return new IoError('store.open', `cannot open the store ${path}: ${error.message}`);
}

/** The bytes at offset 8 of every DuckDB database file (after the 8-byte checksum of the first block). */
const DUCKDB_MAGIC = 'DUCK';

/**
 * The guard every `--db` goes through before any work: a path that exists must be a regular file (a FIFO, a device
 * or a folder is refused without blocking on it) whose header is DuckDB's; anything else (an EEE record, a CSV, a
 * Parquet file, an empty file) is refused rather than opened, because DuckDB would read some of those as something
 * else, or not at all. Resolves to whether the file exists.
 */
export async function checkStoreFile(path: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return false;
    if (code === 'EISDIR')
      throw new IoError(
        'io.not-regular',
        `the store ${path} is a directory: a store is a DuckDB database file`,
      );
    throw readError(path, error);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile())
      throw new IoError(
        'io.not-regular',
        `the store ${path} is ${describeFileKind(info)}: a store is a DuckDB database file`,
      );
    const head = Buffer.alloc(12);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    if (bytesRead < head.length || head.toString('latin1', 8, 12) !== DUCKDB_MAGIC)
      throw new IoError(
        'store.not-duckdb',
        `${path} is ${info.size === 0 ? 'an empty file' : 'not a DuckDB database file'}, so it is not a store: give --db the path of a store, or of a file that does not exist yet (ingest creates it)`,
      );
    return true;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

const sqlString = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/**
 * What a reader's DuckDB may do, set in this order once the file is open (each of these settings can only be
 * tightened at run time, and the last locks every setting): no file or network access beyond the store (no COPY
 * TO, ATTACH, EXPORT DATABASE, read_csv/read_text/read_blob/glob), no extension installed or loaded, no persistent
 * secrets; then the configuration is locked, so `SET`/`RESET` cannot undo any of it. The file itself is opened
 * READ_ONLY, so nothing in it changes either (temporary tables live in memory). `readableFiles`: the only other files
 * DuckDB may open (a lake's part files, read in place: DuckDB would also let a statement write them, so a lake's
 * `query` runs only the statement kinds that read).
 */
export function readerLockdown(
  writableDirectories: readonly string[],
  readableFiles: readonly string[] = [],
): string[] {
  return [
    ...(writableDirectories.length > 0
      ? [`SET allowed_directories = [${writableDirectories.map(sqlString).join(', ')}]`]
      : []),
    ...(readableFiles.length > 0 ? [`SET allowed_paths = [${readableFiles.map(sqlString).join(', ')}]`] : []),
    'SET enable_external_access = false',
    'SET autoinstall_known_extensions = false',
    'SET autoload_known_extensions = false',
    'SET allow_community_extensions = false',
    'SET allow_persistent_secrets = false',
    'SET lock_configuration = true',
  ];
}

/** A store made with another table layout is refused (with what to do) rather than half understood. */
async function checkSchemaVersion(connection: DuckDBConnection, path: string): Promise<void> {
  const meta = await connection.runAndReadAll(
    `SELECT count(*)::INTEGER AS n FROM information_schema.tables WHERE table_name = 'store_meta'`,
  );
  if ((meta.getRowObjectsJson()[0] as { n: number }).n === 0) return;
  const found = await connection.runAndReadAll(`SELECT value FROM store_meta WHERE key = 'schema_version'`);
  const version = (found.getRowObjectsJson()[0] as { value?: string } | undefined)?.value;
  if (version !== undefined && version !== String(STORE_SCHEMA_VERSION))
    throw new IoError(
      'store.schema-version',
      `the store ${path} has table layout ${version}, this evalkit reads layout ${STORE_SCHEMA_VERSION}: export it with the evalkit that made it (evalkit export parquet) and ingest the export into a new store`,
    );
}

export async function openStore(path: string, options: OpenStoreOptions): Promise<Store> {
  const exists = await checkStoreFile(path);
  if (options.readOnly && !exists) {
    throw new IoError('store.not-found', `no store at ${path} (create one with \`evalkit ingest\`)`);
  }
  const { DuckDBInstance } = await loadDuckDb();
  let instance: DuckDBInstance;
  try {
    instance = await DuckDBInstance.create(path, {
      ...storeSettings(options.readOnly),
      ...(options.readOnly ? { access_mode: 'READ_ONLY' } : {}),
    });
  } catch (error) {
    throw openError(path, error as Error, options.readOnly);
  }
  const connection = await instance.connect();
  const prepare = async (): Promise<void> => {
    if (options.readOnly)
      for (const setting of readerLockdown(
        (options.writableDirectories ?? []).map((d) => (d.endsWith('/') ? d : `${d}/`)),
      ))
        await connection.run(setting);
    await checkSchemaVersion(connection, path);
  };
  await prepare().catch((error) => {
    connection.closeSync();
    instance.closeSync();
    throw error;
  });
  if (!options.readOnly) {
    for (const ddl of [...STORE_DDL, ...STORE_UPGRADES]) await connection.run(ddl);
    await connection.run(
      `INSERT INTO store_meta VALUES ('schema_version', $1) ON CONFLICT (key) DO NOTHING`,
      [String(STORE_SCHEMA_VERSION)],
    );
  }
  return storeOver(instance, connection, path, options.readOnly);
}

/**
 * The Store over an open DuckDB instance and its first connection: closing it closes both; `connect()` gives another
 * connection to the same instance, whose `close()` closes that connection only.
 */
export function storeOver(
  instance: DuckDBInstance,
  connection: DuckDBConnection,
  path: string,
  readOnly: boolean,
): Store {
  const on = (c: DuckDBConnection, close: () => void): Store => ({
    path,
    readOnly,
    connection: c,
    async all<T>(sql: string, params: DuckDBValue[] = []): Promise<T[]> {
      return plainRows(await c.runAndReadAll(sql, params)) as T[];
    },
    async connect() {
      const other = await instance.connect();
      return on(other, () => other.closeSync());
    },
    close,
  });
  return on(connection, () => {
    connection.closeSync();
    instance.closeSync();
  });
}
