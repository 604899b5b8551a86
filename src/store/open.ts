/**
 * The one way read commands open what they read: a DuckDB store file (`--db`) or a Parquet lake (`--lake`), both
 * as a read-only `Store` with the same tables and views, so every query, statistic and view runs unchanged on
 * either.
 */
import { IoError, UsageError } from '../errors.js';
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
 * Runs `use` on the store or lake given. On a lake, a query may find a part whose pages do not read (its footer
 * did, when the lake was opened): the part is then named, and the lake opened again without its records, `use`
 * run again — unless `canRetry` says `use` has already written output: the error then names the part. A lake's
 * warnings are told once.
 */
export async function withReadStore<T>(
  target: StoreTarget,
  options: LakeReadOptions,
  use: (store: Store) => Promise<T>,
  canRetry: () => boolean = () => true,
): Promise<T> {
  if (target.lake === undefined) {
    const store = await openReadStore(target, options);
    try {
      return await use(store);
    } finally {
      store.close();
    }
  }
  const { openLake, findDamagedParts, mayBeDamagedPart, partsVanished } = await import('./lake-read.js');
  const told = new Set<string>();
  const damaged = new Set<string>();
  const once: LakeReadOptions = {
    ...options,
    onWarning: (code, message) => {
      if (!told.has(message)) options.onWarning?.(code, message);
      told.add(message);
    },
  };
  for (;;) {
    const store = await openLake(target.lake, { ...once, damaged });
    try {
      return await use(store);
    } catch (error) {
      // Files gone since the lake was opened (a compaction replaced them): the lake is read again.
      if ((await partsVanished(store)) && canRetry()) continue;
      if (!mayBeDamagedPart(error)) throw error;
      const found = await findDamagedParts(store);
      if (found.length === 0) throw error;
      if (!canRetry())
        throw new IoError(
          'store.lake-part-unreadable',
          `${found.join(', ')} cannot be read (its pages are damaged): the output above is incomplete`,
        );
      for (const file of found) damaged.add(file);
    } finally {
      store.close();
    }
  }
}
