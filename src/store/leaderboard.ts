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
 * - tier: tiers do not chain. The first model is the top of tier 1. Each next model is compared with the top of the
 *   current tier (not merely with its neighbour, which would let 0.90 ~ 0.80 ~ 0.60 share a tier though 0.90 and
 *   0.60 differ): a paired t test on the items both have (the exact sign test when every paired difference is
 *   equal) (pairing as `compare`: sample_hash when both results hash every row, else sample_id), or when fewer than
 *   two items pair, a z test on the two standard errors (instance rows' sd/√n, else the record's standard_error,
 *   else its CI width / (2·1.96)). A model significantly different from the tier's top (Holm-adjusted p < 0.05)
 *   starts a new tier and becomes its top; otherwise it shares the tier (also when the test is impossible). Holm
 *   adjusts the p-values of the tests that placed the models, one per model below the first (tierAssignment).
 *   So a model shares a tier only with models not significantly different from that tier's top.
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
import { costOf, resultCosts, type ResultCost } from './costs.js';
import {
  gapAggregatesSql,
  gapStats,
  hasResultItems,
  keyDigestSql,
  onConnections,
  pairable,
  SET_COLUMNS_SQL,
  setOfRow,
  type GapStats,
  type ItemSet,
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
  /** More columns: `cost`, each result's cost (costs.ts; null when it has none). */
  show?: readonly 'cost'[];
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
  /** With `show: ['cost']`: what the result cost (null: it states no cost). */
  cost?: ResultCost | null;
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
  /** The result's item set when the rows came from the stored items (rankedFromItems). */
  item_set?: ItemSet;
  result_index?: number;
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
    SELECT c.record_key, c.result_index, c.benchmark, c.metric, c.lower_is_better, c.score, c.standard_error, c.ci_lower,
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
     SELECT c.*, ${SET_COLUMNS_SQL}, ${await keyDigestSql(store)} AS key_digest
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
  return rows.map((row, i) => ({ ...row, ...gaps[i]!, item_set: sets[i]! }));
}

/** A pair of one board's models by position (0-based, in rank order): the tier's top and the model tested. */
interface BoardPair {
  board: RankedResult[];
  top: number;
  model: number;
}

/**
 * The gap statistics of pairs of models that are not neighbours (a model against its tier's top): from the two
 * item sets when both have one and they pair, else from the instance rows by the pairing SQL (one query for all).
 */
async function pairGaps(
  store: Store,
  filters: SelectionFilters,
  pairs: readonly BoardPair[],
): Promise<GapStats[]> {
  // One query at a time on the store's connection (there are few such pairs).
  const out: (GapStats | undefined)[] = [];
  for (const { board, top, model } of pairs) {
    const [a, b] = [board[top]!.item_set, board[model]!.item_set];
    out.push(a && b && pairable(a, b) ? await gapStats(store, a, b) : undefined);
  }
  const rest = pairs.flatMap((p, i) => (out[i] === undefined ? [{ ...p, slot: i + 1 }] : []));
  if (rest.length > 0) {
    const params: DuckDBValue[] = [];
    const chosen = chosenResultsSql(filters, params);
    const values = rest
      .map(({ board, top, model, slot }) => {
        params.push(slot, board[0]!.benchmark, board[0]!.metric, top + 1, model + 1);
        const n = params.length;
        return `($${n - 4}::BIGINT, $${n - 3}, $${n - 2}, $${n - 1}::BIGINT, $${n}::BIGINT)`;
      })
      .join(', ');
    const slots = `
      SELECT w.slot, a.ord AS a, b.ord AS b, ${BY_HASH_SQL} AS by_hash
      FROM (VALUES ${values}) w(slot, benchmark, metric, pa, pb)
      JOIN chosen a ON a.benchmark = w.benchmark AND a.metric = w.metric AND a.pos = w.pa
      JOIN chosen b ON b.benchmark = w.benchmark AND b.metric = w.metric AND b.pos = w.pb
      LEFT JOIN hashed ha ON ha.ord = a.ord LEFT JOIN hashed hb ON hb.ord = b.ord`;
    const rows = await store.all<GapStats & { slot: number }>(
      `WITH chosen AS MATERIALIZED (
         SELECT *, row_number() OVER () AS ord, ${POSITION_SQL} AS pos FROM (${chosen})
       ),
       ${pairingCtes(slots, { reducers: await storeReducers(store) })}
       SELECT CAST(slot AS INTEGER) AS slot, ${gapAggregatesSql('va', 'vb')} FROM grouped GROUP BY slot`,
      params,
    );
    const bySlot = new Map(rows.map((r) => [Number(r.slot), r]));
    for (const { slot } of rest) {
      const { slot: _slot, ...stats } = bySlot.get(slot) ?? { ...NO_PAIRS, slot };
      out[slot - 1] = stats;
    }
  }
  return out as GapStats[];
}

/** The gap of two results with no item in common. */
const NO_PAIRS: GapStats = {
  paired_n: 0,
  mean_d: null,
  var_d: null,
  constant_d: null,
  positive_d: 0,
  negative_d: 0,
};

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

/**
 * The two-sided p of the difference between two models of a board: the paired t test on their paired items (the
 * exact sign test when every paired difference is equal), or, with fewer than two pairs, the z test on their
 * standard errors; null when no test is possible.
 */
function pairP(
  gap: GapStats,
  above: { score: number; se: number | null },
  r: { score: number; se: number | null },
) {
  if (gap.paired_n !== null && gap.paired_n >= 2 && gap.mean_d !== null && gap.var_d !== null) {
    // Every paired difference equal: the t test is undefined; the exact sign test (McNemar's on 0/1 scores).
    if (gap.constant_d) return mcnemarExact(gap.positive_d ?? 0, gap.negative_d ?? 0);
    return tInference(gap.mean_d, Math.sqrt(gap.var_d / gap.paired_n), gap.paired_n - 1)?.p_value ?? null;
  }
  return unpairedComparison(above.score, above.se, r.score, r.se).p_value;
}

/**
 * The tiers of `count` ranked models given the two-sided p of any pair (top, model) with top < model (null: no test
 * possible; undefined: not known yet). The first model tops tier 1; each next model is tested against the top of
 * the current tier and starts a new tier (becoming its top) when the Holm-adjusted p is below α. Holm adjusts the
 * count − 1 tests that placed the models; since which tests those are depends on the tiers, the assignment is
 * repeated until the tests it uses are the tests it was adjusted over. Returns the pairs still unknown instead
 * when it needs one.
 */
export function tierAssignment(
  count: number,
  p: (top: number, model: number) => number | null | undefined,
  alpha = TIER_ALPHA,
): { tiers: number[] } | { need: [number, number][] } {
  // The top each model is tested against; first guess: its neighbour.
  const tops = Array.from({ length: count }, (_, i) => i - 1);
  let tiers: number[] = [];
  for (let round = 0; round <= count * count; round++) {
    const raw = tops.map((t, i) => (i === 0 ? null : p(t, i)));
    // An unknown (top, i) is asked for with the same top's later pairs: the models below i will be tested against
    // that top too unless one of them starts a tier, so one round of fetching usually settles a tier.
    const need = new Map<string, [number, number]>();
    tops.forEach((t, i) => {
      if (i === 0 || raw[i] !== undefined) return;
      for (let j = i; j < count; j++) if (p(t, j) === undefined) need.set(`${t}:${j}`, [t, j]);
    });
    if (need.size > 0) return { need: [...need.values()] };
    const adjusted = holmAdjust(raw as (number | null)[]);
    let top = 0;
    let tier = 1;
    let settled = true;
    tiers = [1];
    for (let i = 1; i < count; i++) {
      if (tops[i] !== top) {
        tops[i] = top;
        settled = false;
        break;
      }
      const q = adjusted[i];
      if (q !== null && q !== undefined && q < alpha) {
        tier += 1;
        top = i;
      }
      tiers.push(tier);
    }
    if (settled) return { tiers };
  }
  return { tiers };
}

function buildLeaderboard(
  group: RankedResult[],
  tiers: number[],
  costs?: ReadonlyMap<string, ResultCost>,
): Leaderboard {
  const first = group[0]!;
  const intervals = group.map(resultInterval);
  const ranks = competitionRanks(group.map((r) => r.score));
  const rows = group.map((r, i): LeaderboardRow => {
    const tier = tiers[i]!;
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
      ...(costs !== undefined
        ? { cost: costOf(costs, { record_key: r.record_key, result_index: r.result_index! }) }
        : {}),
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

/**
 * Each board's tiers (tierAssignment): the neighbours' gaps come with the ranked rows; the gaps of a model to a
 * tier's top further up are fetched as the assignment asks for them, in one round for all boards.
 */
async function boardTiers(
  store: Store,
  filters: SelectionFilters,
  groups: RankedResult[][],
): Promise<number[][]> {
  const ses = groups.map((g) => g.map((r) => resultInterval(r).se));
  const known = groups.map(() => new Map<string, number | null>());
  const pOf = (g: number) => (top: number, model: number) => {
    const board = groups[g]!;
    const key = `${top}:${model}`;
    if (top === model - 1 && !known[g]!.has(key))
      known[g]!.set(
        key,
        pairP(
          board[model]!,
          { score: board[top]!.score, se: ses[g]![top]! },
          { score: board[model]!.score, se: ses[g]![model]! },
        ),
      );
    return known[g]!.get(key);
  };
  for (;;) {
    const results = groups.map((g, i) => tierAssignment(g.length, pOf(i)));
    const needed = results.flatMap((r, g) =>
      'need' in r ? r.need.map(([top, model]) => ({ g, board: groups[g]!, top, model })) : [],
    );
    if (needed.length === 0) return results.map((r) => ('tiers' in r ? r.tiers : []));
    const gaps = await pairGaps(store, filters, needed);
    needed.forEach(({ g, board, top, model }, i) =>
      known[g]!.set(
        `${top}:${model}`,
        pairP(
          gaps[i]!,
          { score: board[top]!.score, se: ses[g]![top]! },
          { score: board[model]!.score, se: ses[g]![model]! },
        ),
      ),
    );
  }
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
  const tiers = await boardTiers(store, filters, groups);
  const costs = options.show?.includes('cost')
    ? await resultCosts(
        store,
        rows.map((r) => ({ record_key: r.record_key, result_index: Number(r.result_index) })),
      )
    : undefined;
  const boards = groups.map((g, i) => buildLeaderboard(g, tiers[i]!, costs));
  return {
    leaderboards: boards,
    ...(options.composite ? { composite: meanWinRates(boards) } : {}),
    ...(unranked > 0 ? { unranked_partial_runs: unranked } : {}),
  };
}
