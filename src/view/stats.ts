/**
 * The store's statistics as the viewer calls them: `leaderboards` (store/leaderboard.ts), `compareModels` and
 * `disagreements` (store/compare.ts), `withIntervals` (store/result-interval.ts) — the functions behind `evalkit leaderboard` and `evalkit compare` — and the
 * check, at compile time, that what they return is what the pages read (shared/types.ts).
 */
import { leaderboards } from '../store/leaderboard.js';
import { resultIntervals, shownInterval } from '../store/result-interval.js';
import { runStatuses } from '../store/selection.js';
import type { Store } from '../store/db.js';
import { compareModels, disagreements, type CompareReport, type Disagreements } from '../store/compare.js';
import type {
  CompareResult,
  Disagreements as PageDisagreements,
  Leaderboards,
  ResultIntervalView,
} from './shared/types.js';

export { compareModels, disagreements, leaderboards };

// The pages' types must accept the library's values (a compile error here means a page reads a field that the
// library does not give).
export const asPageLeaderboards = (x: Awaited<ReturnType<typeof leaderboards>>): Leaderboards => x;
export const asPageComparison = (x: CompareReport): CompareResult => x;
export const asPageDisagreements = (x: Disagreements): PageDisagreements => x;

/**
 * The results with their one interval (`interval`), computed as the leaderboard computes it, so the record and
 * model pages show the CI `evalkit leaderboard` shows, and their record's run status (`run_status`): a zero-width
 * interval of a run that did not finish is not shown (`interval.withheld`), as on the leaderboard.
 */
export async function withIntervals<T extends { record_key: string; result_index: number }>(
  store: Store,
  results: T[],
): Promise<(T & { interval: ResultIntervalView; run_status: string })[]> {
  const keys = [...new Set(results.map((r) => r.record_key))];
  const intervals = await resultIntervals(store, keys);
  const statuses = await runStatuses(store, keys);
  return results.map((r) => {
    const i = intervals.get(`${r.record_key}:${r.result_index}`);
    const run_status = statuses.get(r.record_key) ?? 'complete';
    return {
      ...r,
      run_status,
      interval: i
        ? { ...shownInterval(i, run_status), n: i.n }
        : { ci: null, method: null, clipped: false, withheld: false, n: null },
    };
  });
}

/**
 * The task group of each benchmark that has one (lm-eval writes a subtask's group in the result's
 * score_details.details.group), so the overview lists subtasks under their group.
 */
export async function benchmarkGroups(store: Store): Promise<Record<string, string>> {
  const rows = await store.all<{ evaluation_name: string; grp: string }>(
    `SELECT evaluation_name, min(raw -> 'score_details' -> 'details' ->> 'group') AS grp
     FROM results GROUP BY evaluation_name HAVING grp IS NOT NULL AND grp <> evaluation_name`,
  );
  return Object.fromEntries(rows.map((r) => [r.evaluation_name, r.grp]));
}
