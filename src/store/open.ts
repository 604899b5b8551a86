/**
 * The one way read commands open what they read: a DuckDB store file (`--db`) or a Parquet lake (`--lake`), both
 * as a read-only `Store` with the same tables and views, so every query, statistic and view runs unchanged on
 * either.
 */
import { UsageError } from '../errors.js';
import type { Store } from './db.js';
import type { LakeReadOptions } from './lake-read.js';

export type StoreTarget = { db: string; lake?: undefined } | { lake: string; db?: undefined };

export async function openReadStore(target: StoreTarget, options: LakeReadOptions = {}): Promise<Store> {
  if (target.lake !== undefined) {
    const { openLake } = await import('./lake-read.js');
    return openLake(target.lake, options);
  }
  if (target.db === undefined)
    throw new UsageError('usage.no-store', 'no store given (--db FILE or --lake DIR)');
  const { openStore } = await import('./db.js');
  return openStore(target.db, { readOnly: true });
}
