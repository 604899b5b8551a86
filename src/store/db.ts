/**
 * Opening the store: one embedded DuckDB file. Writers (`ingest`) open it read-write and create the tables;
 * readers (`query`, `leaderboard`, `compare`, `view`) open it read-only.
 */
import type { DuckDBConnection, DuckDBInstance, DuckDBResultReader, DuckDBValue } from '@duckdb/node-api';
import { existsSync } from 'node:fs';
import { IoError } from '../errors.js';
import { STORE_DDL, STORE_SCHEMA_VERSION } from './schema.js';
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
  close(): void;
}

export { storePath, DEFAULT_STORE_FILE } from './path.js';

/**
 * DuckDB's native module, loaded on the first `openStore` only: a static import would load it at every CLI start
 * (the bundle inlines the store commands' lazy imports), for commands that never touch the store.
 */
let duckdb: typeof import('@duckdb/node-api') | undefined;
async function loadDuckDb(): Promise<typeof import('@duckdb/node-api')> {
  duckdb ??= await import('@duckdb/node-api');
  return duckdb;
}

let wideIntegers: Set<number> | undefined;
function isWideInteger(typeId: number): boolean {
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
 * DuckDB's open errors in the user's terms. The file lock is the one that matters: a store has one writer at a
 * time (and a reader cannot open it while another process writes), so a second `ingest` is told who holds it.
 */
function openError(path: string, error: Error, readOnly: boolean): IoError {
  const lock =
    /Could not set lock on file .*?Conflicting lock is held in (.*?)(?: \(PID (\d+)\))?[.:]? *(?:See also|$)/s.exec(
      error.message,
    );
  if (lock) {
    const holder = lock[2] ? `process ${lock[2]} (${lock[1]})` : `another process (${lock[1]})`;
    return new IoError(
      'store.locked',
      `the store ${path} is in use by ${holder}: a store has one writer at a time and cannot be ${readOnly ? 'read' : 'written'} while another process writes it; try again when it has finished`,
    );
  }
  if (/not a valid DuckDB database file|Not a DuckDB file|file is not a valid/i.test(error.message))
    return new IoError('store.not-duckdb', `${path} is not a DuckDB store: ${error.message}`);
  return new IoError('store.open', `cannot open the store ${path}: ${error.message}`);
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

export async function openStore(path: string, options: { readOnly: boolean }): Promise<Store> {
  if (options.readOnly && !existsSync(path)) {
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
  await checkSchemaVersion(connection, path).catch((error) => {
    connection.closeSync();
    instance.closeSync();
    throw error;
  });
  if (!options.readOnly) {
    for (const ddl of STORE_DDL) await connection.run(ddl);
    await connection.run(
      `INSERT INTO store_meta VALUES ('schema_version', $1) ON CONFLICT (key) DO NOTHING`,
      [String(STORE_SCHEMA_VERSION)],
    );
  }
  return {
    path,
    readOnly: options.readOnly,
    connection,
    async all<T>(sql: string, params: DuckDBValue[] = []): Promise<T[]> {
      return plainRows(await connection.runAndReadAll(sql, params)) as T[];
    },
    close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}
