/**
 * Opening the store: one embedded DuckDB file. Writers (`ingest`) open it read-write and create the tables;
 * readers (`query`, `leaderboard`, `compare`, `view`) open it read-only.
 */
import { DuckDBInstance, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { existsSync } from 'node:fs';
import { IoError } from '../errors.js';
import { STORE_DDL, STORE_SCHEMA_VERSION } from './schema.js';

export interface Store {
  readonly path: string;
  readonly readOnly: boolean;
  readonly connection: DuckDBConnection;
  /** Runs a query with positional parameters ($1, $2, ...) and returns the rows as plain JSON-able objects. */
  all<T = Record<string, unknown>>(sql: string, params?: DuckDBValue[]): Promise<T[]>;
  close(): void;
}

/** The store path: the flag, else $EVALKIT_DB, else `evalkit.duckdb` in the working directory. */
export function storePath(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return flag ?? env.EVALKIT_DB ?? 'evalkit.duckdb';
}

export async function openStore(path: string, options: { readOnly: boolean }): Promise<Store> {
  if (options.readOnly && !existsSync(path)) {
    throw new IoError('store.not-found', `no store at ${path} (create one with \`evalkit ingest\`)`);
  }
  let instance: DuckDBInstance;
  try {
    instance = await DuckDBInstance.create(path, options.readOnly ? { access_mode: 'READ_ONLY' } : {});
  } catch (error) {
    throw new IoError('store.open', `cannot open the store ${path}: ${(error as Error).message}`);
  }
  const connection = await instance.connect();
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
      const reader = await connection.runAndReadAll(sql, params);
      return reader.getRowObjectsJson() as T[];
    },
    close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}
