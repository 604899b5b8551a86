/**
 * The store's statistics as the viewer calls them: `leaderboards` (store/leaderboard.ts), `compareModels` and
 * `disagreements` (store/compare.ts) — the functions behind `evalkit leaderboard` and `evalkit compare`.
 */
import type { Store } from '../store/db.js';
import { UsageError } from '../errors.js';

export interface Statistics {
  leaderboards(store: Store, options: Record<string, unknown>): Promise<unknown> | unknown;
  compareModels(
    store: Store,
    a: string,
    b: string,
    options: Record<string, unknown>,
  ): Promise<unknown> | unknown;
  disagreements(
    store: Store,
    a: string,
    b: string,
    benchmark: string,
    metric: string,
    page: { offset: number; limit: number },
  ): Promise<unknown> | unknown;
}

let loaded: Statistics | undefined;

export async function statistics(): Promise<Statistics> {
  if (loaded) return loaded;
  const modules = ['../store/leaderboard.js', '../store/compare.js'];
  try {
    const [leaderboard, compare] = await Promise.all(modules.map((m) => import(m)));
    loaded = { ...leaderboard, ...compare } as Statistics;
    return loaded;
  } catch {
    throw new UsageError('view.no-statistics', 'this build has no leaderboard or compare statistics yet');
  }
}
