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

/**
 * Runs `use` on the store or lake given; a lake is read without its instance rows when every result has its items
 * (`itemsOnly`, much the larger part of reading a lake), and read again with them, `use` run again, when a query
 * of `use` needed them. `use` must not write its output before it resolves. A lake's warnings are told once.
 */
export async function withReadStore<T>(
  target: StoreTarget,
  options: LakeReadOptions,
  use: (store: Store) => Promise<T>,
): Promise<T> {
  if (target.lake === undefined) {
    const store = await openReadStore(target, options);
    try {
      return await use(store);
    } finally {
      store.close();
    }
  }
  const { isSamplesLeftOut } = await import('./lake-read.js');
  const told = new Set<string>();
  const once: LakeReadOptions = {
    ...options,
    onWarning: (code, message) => {
      if (!told.has(message)) options.onWarning?.(code, message);
      told.add(message);
    },
  };
  for (const itemsOnly of [true, false]) {
    const store = await openReadStore(target, { ...once, itemsOnly });
    try {
      return await use(store);
    } catch (error) {
      if (!itemsOnly || !isSamplesLeftOut(error)) throw error;
    } finally {
      store.close();
    }
  }
  throw new Error('unreachable');
}
