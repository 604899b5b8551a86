/**
 * `evalkit leaderboard`: per benchmark and metric, the models ranked by score with a 95% CI and significance tiers;
 * optionally a composite mean win rate across benchmarks. The store fetches and groups (in DuckDB: choosing results,
 * averaging epochs, pairing adjacent models' items); the numbers come from the `metrics/stats` primitives.
 *
 * - score: the result's own score; rank: competition ranking ("1, 2, 2, 4") by score, descending unless
 *   lower_is_better; ties in score are ordered by model_id.
 * - ci: the result's one interval (result-interval.ts, shared with the viewer): from the samples when the rows
 *   reproduce the score (Wilson for 0/1 values, else mean ± 1.96·sd/√n), else the record's own interval, else
 *   score ± 1.96 SE; never beyond the metric's bounds (`ci_clipped` when an end was set to one). The epochs of one
 *   sample are reduced first by the result's epoch_reducer, and n counts samples. `ci_method` says which.
 * - direction_assumed: the metric's direction was guessed by the converter (direction_status "assumed").
 * - run_status: only finished runs are ranked unless `includePartial`; then an unfinished run is ranked with its
 *   status (error, cancelled, ...) beside it, and a zero-width CI of such a run is not shown as a measurement.
 * - tier: the first model is tier 1. Each next model is compared with the model ranked directly above it: a paired
 *   t test on the items both have (the exact sign test when every paired difference is equal) (pairing as `compare`: sample_hash when both results hash every row, else
 *   sample_id), or when fewer than two items pair, a z test on the two standard errors (instance rows' sd/√n, else
 *   the record's standard_error, else its CI width / (2·1.96)). The p-values of one leaderboard's adjacent gaps
 *   are Holm-adjusted together; a gap with adjusted p < 0.05 starts a new tier (tier + 1), otherwise the model shares the tier of the model above (also when the
 *   gap cannot be tested). So tiers are separated exactly where a gap between neighbours is significant.
 * - composite: for each leaderboard with at least two models, a model's win rate is the fraction of the other models
 *   it beats (a tie counts one half); the mean win rate averages those over the leaderboards the model is on, as
 *   HELM ranks models. Ranked by mean win rate, descending.
 */
import { holmAdjust } from '../metrics/stats/holm.js';
import { mcnemarExact } from '../metrics/stats/mcnemar.js';
import { tInference, unpairedComparison } from '../metrics/stats/paired.js';
import type { DuckDBValue } from '@duckdb/node-api';
import type { Store } from './db.js';
import { disagreementText } from '../checks/reconciliation.js';
import {
  gapAggregatesSql,
  gapStats,
  hasResultItems,
  onConnections,
  pairable,
  SET_COLUMNS_SQL,
  setOfRow,
  type GapStats,
  type SetColumns,
} from './result-items.js';
import {
  ITEM_STATS_SQL,
  resultInterval,
  sampleCount,
  shownInterval,
  type IntervalInput,
  type IntervalMethod,
} from './result-interval.js';
import {
  BY_HASH_SQL,
  checkBenchmarkAndMetric,
  chosenResultsSql,
  displayDate,
  pairingCtes,
  storeReducers,
  type SelectionFilters,
} from './selection.js';

/** The selection filters (every filter but an explicit model list), and whether to add the composite table. */
export interface LeaderboardOptions extends Omit<
  SelectionFilters,
  'models' | 'evaluationIds' | 'completeOnly'
> {
  composite?: boolean;
  /** Rank unfinished runs too (marked by their run_status); by default only finished runs are ranked. */
  includePartial?: boolean;
}
export interface LeaderboardRow {
  rank: number;
  tier: number;
  model_id: string;
  developer: string | null;
  score: number;
  ci: [number, number] | null;
  /** How the CI was obtained (see result-interval.ts); null without a CI. */
  ci_method: IntervalMethod | null;
  /** True when an end of the CI was set to the metric's bound (min_score / max_score). */
  ci_clipped: boolean;
  n: number | null;
  evaluation_id: string;
  record_key: string;
  source: string | null;
  date: string | null;
  /** "rows disagree with the source: …" when the result's rows disagree with its source (reconciliation), else null. */
  disagreement: string | null;
  /** "complete", or the unfinished run's status (error, cancelled, started, partial): shown beside the model. */
  run_status: string;
}
export interface Leaderboard {
  benchmark: string;
  metric: string;
  lower_is_better: boolean;
  /**
   * True when the metric's direction was guessed, not declared (a result's
   * metric_config.additional_details.direction_status is "assumed"): the ranking may be upside down.
   */
  direction_assumed: boolean;
  rows: LeaderboardRow[];
}
export interface CompositeRow {
  rank: number;
  model_id: string;
  mean_win_rate: number;
  benchmarks: number;
}

/** Significance level of the tier gaps (after Holm). */
export const TIER_ALPHA = 0.05;
interface RankedResult extends IntervalInput, GapStats {
  record_key: string;
  direction_status: string | null;
  disagreement: string | null;
  benchmark: string;
  metric: string;
  lower_is_better: boolean;
  num_samples: number | null;
  model_id: string;
  developer: string | null;
  evaluation_id: string;
  source: string | null;
  date: string | null;
  run_status: string;
}

function leaderboardSql(
  options: SelectionFilters,
  params: DuckDBValue[],
  reducers: Awaited<ReturnType<typeof storeReducers>>,
): string {
  // Slot of each result: itself (a) and the model ranked directly below it (b), so one grouping gives every
  // result's own item statistics (side a) and every adjacent gap (the slot of the model above).
  const slots = `
      SELECT a.ord AS slot, a.ord AS a, b.ord AS b, ${BY_HASH_SQL} AS by_hash
      FROM chosen a LEFT JOIN chosen b ON b.benchmark = a.benchmark AND b.metric = a.metric AND b.pos = a.pos + 1
      LEFT JOIN hashed ha ON ha.ord = a.ord LEFT JOIN hashed hb ON hb.ord = b.ord`;
  return `
    WITH chosen AS MATERIALIZED (
      SELECT *, row_number() OVER () AS ord,
             ${POSITION_SQL} AS pos
      FROM (${chosenResultsSql(options, params)})
    ),
    ${pairingCtes(slots, { reducers })},
    stats AS (
      ${ITEM_STATS_SQL}, ${gapAggregatesSql('va', 'vb')}
      FROM grouped GROUP BY slot
    )
    SELECT c.record_key, c.benchmark, c.metric, c.lower_is_better, c.score, c.standard_error, c.ci_lower,
           c.ci_upper, c.num_samples, c.min_score, c.max_score, c.direction_status, c.disagreement, c.model_id, c.developer, c.evaluation_id, c.source, c.date, c.run_status,
           own.n AS items, own.mean AS item_mean, own.var AS item_var, own.binary, own.successes,
           gap.paired_n, gap.mean_d, gap.var_d, gap.constant_d, gap.positive_d, gap.negative_d
    FROM chosen c
    LEFT JOIN stats own ON own.slot = c.ord
    LEFT JOIN chosen above ON above.benchmark = c.benchmark AND above.metric = c.metric AND above.pos = c.pos - 1
    LEFT JOIN stats gap ON gap.slot = above.ord
    ORDER BY c.benchmark, c.metric, c.pos`;
}

/** The ranked results from the instance rows, paired by the pairing SQL of selection.ts. */
async function rankedFromSamples(store: Store, options: SelectionFilters): Promise<RankedResult[]> {
  const params: DuckDBValue[] = [];
  const reducers = await storeReducers(store);
  return store.all<RankedResult>(leaderboardSql(options, params, reducers), params);
}

/** The order of a leaderboard's models: by score (descending unless lower_is_better), then model_id. */
const POSITION_SQL = `row_number() OVER (PARTITION BY benchmark, metric
                                ORDER BY CASE WHEN lower_is_better THEN score ELSE -score END, model_id)`;

/**
 * The ranked results from the stored items (result-items.ts): each result's own statistics from its item set, each
 * gap from pairing the two item lists. Undefined when a chosen result has no item set, or two neighbours' items key
 * differently (by hash and by sample id): the pairing SQL then does it all.
 */
async function rankedFromItems(store: Store, options: SelectionFilters): Promise<RankedResult[] | undefined> {
  if (!(await hasResultItems(store))) return undefined;
  const params: DuckDBValue[] = [];
  const rows = await store.all<Omit<RankedResult, keyof GapStats> & SetColumns>(
    `WITH chosen AS (SELECT *, ${POSITION_SQL} AS pos FROM (${chosenResultsSql(options, params)}))
     SELECT c.*, ${SET_COLUMNS_SQL}
     FROM chosen c LEFT JOIN result_item_sets s USING (record_key, result_index)
     ORDER BY c.benchmark, c.metric, c.pos`,
    params,
  );
  if (rows.some((r) => !r.has_set)) return undefined;
  const sets = rows.map(setOfRow);
  // The set of the model ranked directly above each result, when there is one.
  const above = rows.map((row, i) => (i > 0 && sameBoard(rows[i - 1]!, row) ? sets[i - 1]! : null));
  if (above.some((a, i) => a !== null && !pairable(a, sets[i]!))) return undefined;
  const gaps = await onConnections(
    store,
    above.map((a, i) => async (connection: Store) => (a ? gapStats(connection, a, sets[i]!) : NO_GAP)),
  );
  return rows.map((row, i) => ({ ...row, ...gaps[i]! }));
}

const NO_GAP: GapStats = {
  paired_n: null,
  mean_d: null,
  var_d: null,
  constant_d: null,
  positive_d: null,
  negative_d: null,
};

const sameBoard = (a: { benchmark: string; metric: string }, b: { benchmark: string; metric: string }) =>
  a.benchmark === b.benchmark && a.metric === b.metric;

/** Competition ranks ("1, 2, 2, 4") of values already in order, equal values sharing a rank. */
function competitionRanks(values: readonly number[]): number[] {
  const ranks: number[] = [];
  values.forEach((v, i) => ranks.push(i > 0 && values[i - 1] === v ? ranks[i - 1]! : i + 1));
  return ranks;
}

function buildLeaderboard(group: RankedResult[]): Leaderboard {
  const first = group[0]!;
  const intervals = group.map(resultInterval);
  // p of the gap between each model and the one above it (index 0 has none).
  const gapP = group.map((r, i): number | null => {
    if (i === 0) return null;
    if (r.paired_n !== null && r.paired_n >= 2 && r.mean_d !== null && r.var_d !== null) {
      // Every paired difference equal: the t test is undefined; the exact sign test (McNemar's on 0/1 scores).
      if (r.constant_d) return mcnemarExact(r.positive_d ?? 0, r.negative_d ?? 0);
      return tInference(r.mean_d, Math.sqrt(r.var_d / r.paired_n), r.paired_n - 1)?.p_value ?? null;
    }
    const above = group[i - 1]!;
    return unpairedComparison(above.score, intervals[i - 1]!.se, r.score, intervals[i]!.se).p_value;
  });
  const adjusted = holmAdjust(gapP);
  const ranks = competitionRanks(group.map((r) => r.score));
  let tier = 1;
  const rows = group.map((r, i): LeaderboardRow => {
    const p = adjusted[i];
    if (i > 0 && p !== null && p !== undefined && p < TIER_ALPHA) tier += 1;
    const interval = intervals[i]!;
    const { ci, method, clipped } = shownInterval(interval, r.run_status);
    return {
      rank: ranks[i]!,
      tier,
      model_id: r.model_id,
      developer: r.developer,
      score: r.score,
      ci,
      ci_method: method,
      ci_clipped: clipped,
      n: sampleCount(r, r.num_samples),
      evaluation_id: r.evaluation_id,
      record_key: r.record_key,
      source: r.source,
      date: displayDate(r.date),
      disagreement: r.disagreement === null ? null : disagreementText(r.disagreement),
      run_status: r.run_status,
    };
  });
  return {
    benchmark: first.benchmark,
    metric: first.metric,
    lower_is_better: first.lower_is_better,
    direction_assumed: group.some((r) => r.direction_status === 'assumed'),
    rows,
  };
}

/** HELM's mean win rate over the given leaderboards (those with at least two models). */
export function meanWinRates(boards: readonly Leaderboard[]): CompositeRow[] {
  const totals = new Map<string, { sum: number; count: number }>();
  for (const board of boards) {
    const m = board.rows.length;
    if (m < 2) continue;
    for (const row of board.rows) {
      let wins = 0;
      for (const other of board.rows) {
        if (other === row) continue;
        if (other.score === row.score) wins += 0.5;
        else if (board.lower_is_better ? row.score < other.score : row.score > other.score) wins += 1;
      }
      const t = totals.get(row.model_id) ?? { sum: 0, count: 0 };
      t.sum += wins / (m - 1);
      t.count += 1;
      totals.set(row.model_id, t);
    }
  }
  const sorted = [...totals]
    .map(([model_id, t]) => ({ model_id, mean_win_rate: t.sum / t.count, benchmarks: t.count }))
    .sort((a, b) => b.mean_win_rate - a.mean_win_rate || a.model_id.localeCompare(b.model_id));
  const ranks = competitionRanks(sorted.map((r) => r.mean_win_rate));
  return sorted.map((r, i) => ({ rank: ranks[i]!, ...r }));
}

export async function leaderboards(
  store: Store,
  options: LeaderboardOptions,
): Promise<{ leaderboards: Leaderboard[]; composite?: CompositeRow[]; unranked_partial_runs?: number }> {
  await checkBenchmarkAndMetric(store, options);
  const filters = { ...options, completeOnly: !options.includePartial };
  // The unfinished runs the filters would have ranked: said, never silently left out.
  let unranked = 0;
  if (!options.includePartial) {
    const params: DuckDBValue[] = [];
    const [row] = await store.all<{ n: number }>(
      `SELECT count(DISTINCT record_key)::INTEGER AS n FROM (${chosenResultsSql(options, params)})
       WHERE run_status <> 'complete'`,
      params,
    );
    unranked = row?.n ?? 0;
  }
  const rows = (await rankedFromItems(store, filters)) ?? (await rankedFromSamples(store, filters));
  const groups: RankedResult[][] = [];
  for (const row of rows) {
    const last = groups[groups.length - 1];
    if (last && last[0]!.benchmark === row.benchmark && last[0]!.metric === row.metric) last.push(row);
    else groups.push([row]);
  }
  const boards = groups.map(buildLeaderboard);
  return {
    leaderboards: boards,
    ...(options.composite ? { composite: meanWinRates(boards) } : {}),
    ...(unranked > 0 ? { unranked_partial_runs: unranked } : {}),
  };
}
