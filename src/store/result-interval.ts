/**
 * The one 95% interval of a stored result, shown the same by `leaderboard`, the viewer's leaderboard, model and
 * record pages: `resultInterval()` decides, `resultIntervals()` fetches what it needs for any set of results.
 *
 * - From the instance rows when the result has them and their mean (each sample's epochs reduced first, see
 *   selection.ts) reproduces the score within 0.005·max(1, |score|): `wilson` for a proportion — every sample's
 *   value is 0 or 1 and the metric is declared on [0, 1] (min_score 0, max_score 1): a metric without bounds (say
 *   a log-probability that happens to be 0) or on another scale is not a proportion, whatever its values; otherwise
 *   `clt`, mean ± z·sd/√n with n samples (clipped to the metric's bounds when it has them).
 * - Else the record's own interval (`record`), else score ± z × its standard error (`record-se`).
 * - No interval leaves the metric's bounds (min_score, max_score when given; [0, 1] for Wilson): an end beyond one is
 *   set to the bound and `clipped` says so.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { wilsonInterval } from '../metrics/stats/intervals.js';
import { cltInterval } from '../metrics/stats/mean-interval.js';
import { normalQuantile } from '../metrics/stats/normal.js';
import type { Store } from './db.js';
import { hasResultItems, SET_COLUMNS_SQL, type SetColumns } from './result-items.js';
import { BY_HASH_SQL, EPOCH_REDUCER_SQL, METRIC_SQL, pairingCtes, storeReducers } from './selection.js';

export const CONFIDENCE = 0.95;

/** How the interval was obtained. */
export type IntervalMethod = 'wilson' | 'clt' | 'record' | 'record-se';

export const INTERVAL_METHODS: Record<IntervalMethod, string> = {
  wilson: 'Wilson score interval of the samples (0/1 values of a metric on [0, 1])',
  clt: 'mean ± 1.96·sd/√n of the samples (normal approximation)',
  record: "the record's own confidence interval",
  'record-se': "score ± 1.96 × the record's standard error",
};

/** What resultInterval reads: the result's own fields and the statistics of its samples (epochs reduced). */
export interface IntervalInput {
  score: number;
  standard_error: number | null;
  ci_lower: number | null;
  ci_upper: number | null;
  min_score: number | null;
  max_score: number | null;
  /** Samples with a value (null: no instance rows). */
  items: number | null;
  item_mean: number | null;
  item_var: number | null;
  /** Whether every sample's value is 0 or 1. */
  binary: boolean | null;
  successes: number | null;
}

export interface ResultInterval {
  ci: [number, number] | null;
  method: IntervalMethod | null;
  /** True when an end was set to the metric's bound. */
  clipped: boolean;
  /** The standard error behind the interval (null when unknown). */
  se: number | null;
  /** Whether the interval comes from the instance rows (then `items` is the sample count). */
  from_rows: boolean;
}

/**
 * Whether the result is a proportion Wilson's interval fits: every sample's value 0 or 1 on a metric declared on
 * [0, 1].
 */
export const isProportion = (r: IntervalInput): boolean =>
  r.binary === true && r.min_score === 0 && r.max_score === 1;

/** Whether the samples' mean reproduces the record's score (same scale, same items). */
export function rowsMatchScore(r: IntervalInput): boolean {
  return r.item_mean !== null && Math.abs(r.item_mean - r.score) <= 0.005 * Math.max(1, Math.abs(r.score));
}

/** The n shown beside a result: its samples (epochs reduced) when the rows reproduce the score, else num_samples. */
export function sampleCount(r: IntervalInput, numSamples: number | null): number | null {
  return r.items !== null && r.items > 0 && rowsMatchScore(r) ? r.items : numSamples;
}

const finiteOr = (x: number | null, fallback: number): number =>
  x !== null && Number.isFinite(x) ? x : fallback;

/** The interval clipped to [min, max] (unbounded where a bound is absent or infinite). */
export function clipInterval(
  ci: [number, number],
  min: number | null,
  max: number | null,
): { ci: [number, number]; clipped: boolean } {
  const lo = finiteOr(min, -Infinity);
  const hi = finiteOr(max, Infinity);
  const lower = Math.min(Math.max(ci[0], lo), hi);
  const upper = Math.max(Math.min(ci[1], hi), lo);
  return { ci: [lower, upper], clipped: lower !== ci[0] || upper !== ci[1] };
}

export function resultInterval(r: IntervalInput): ResultInterval {
  const z = normalQuantile(1 - (1 - CONFIDENCE) / 2);
  const bounded = (ci: [number, number], method: IntervalMethod, se: number | null, fromRows: boolean) => {
    const c = clipInterval(ci, r.min_score, r.max_score);
    return { ci: c.ci, method, clipped: c.clipped, se, from_rows: fromRows };
  };
  if (r.items !== null && r.items > 0 && rowsMatchScore(r)) {
    const se = r.items >= 2 && r.item_var !== null ? Math.sqrt(r.item_var / r.items) : null;
    if (isProportion(r)) {
      const w = wilsonInterval(Math.round(r.successes ?? 0), r.items, CONFIDENCE);
      return bounded([w.lower, w.upper], 'wilson', se, true);
    }
    const clt =
      r.item_var === null ? null : cltInterval(r.item_mean!, Math.sqrt(r.item_var), r.items, CONFIDENCE);
    if (clt) return bounded([clt.lower, clt.upper], 'clt', clt.se, true);
  }
  if (r.ci_lower !== null && r.ci_upper !== null)
    return bounded(
      [r.ci_lower, r.ci_upper],
      'record',
      r.standard_error ?? (r.ci_upper - r.ci_lower) / (2 * z),
      false,
    );
  if (r.standard_error !== null)
    return bounded(
      [r.score - z * r.standard_error, r.score + z * r.standard_error],
      'record-se',
      r.standard_error,
      false,
    );
  return { ci: null, method: null, clipped: false, se: null, from_rows: false };
}

/** An interval as the leaderboard and the viewer show it. */
export interface ShownInterval {
  ci: [number, number] | null;
  method: IntervalMethod | null;
  clipped: boolean;
  /** True when a zero-width interval of an unfinished run was dropped (it measures nothing). */
  withheld: boolean;
}

/**
 * The interval shown for a result of a run with the given status: a zero-width interval of a run that did not
 * finish (an errored run's 0 over no sample, with a stderr of 0) is not a measurement, so none is shown.
 */
export function shownInterval(
  interval: Pick<ResultInterval, 'ci' | 'method' | 'clipped'>,
  runStatus: string,
): ShownInterval {
  const { ci, method, clipped } = interval;
  if (runStatus !== 'complete' && ci !== null && ci[0] === ci[1])
    return { ci: null, method: null, clipped: false, withheld: true };
  return { ci, method, clipped, withheld: false };
}

/** The SQL of the per-sample statistics of each result in `chosen` (slot = ord), after pairingCtes. */
export const ITEM_STATS_SQL = `
      SELECT slot, CAST(count(va) AS DOUBLE) AS n, avg(va) AS mean, var_samp(va) AS var,
             bool_and(va = 0 OR va = 1) AS binary, sum(va) AS successes`;

export interface StoredResultInterval extends ResultInterval {
  record_key: string;
  result_index: number;
  /** Samples (epochs reduced) when the rows reproduce the score; else the record's num_samples (sampleCount). */
  n: number | null;
}

/**
 * The interval of every result of the given records (by record_key), as resultInterval computes it, keyed by
 * `${record_key}:${result_index}`.
 */
export async function resultIntervals(
  store: Store,
  recordKeys: readonly string[],
): Promise<Map<string, StoredResultInterval>> {
  const out = new Map<string, StoredResultInterval>();
  if (recordKeys.length === 0) return out;
  const params: DuckDBValue[] = [...recordKeys];
  const list = recordKeys.map((_, i) => `$${i + 1}`).join(', ');
  const rows =
    (await intervalInputsFromItems(store, list, params)) ??
    (await intervalInputsFromSamples(store, list, params));
  for (const r of rows) {
    const interval = resultInterval(r);
    out.set(`${r.record_key}:${r.result_index}`, {
      record_key: r.record_key,
      result_index: r.result_index,
      ...interval,
      n: sampleCount(r, r.num_samples),
    });
  }
  return out;
}

type StoredIntervalInput = IntervalInput & {
  record_key: string;
  result_index: number;
  num_samples: number | null;
};

const RESULT_COLUMNS = `r.record_key, r.result_index, r.score, r.standard_error, r.ci_lower, r.ci_upper, r.min_score,
       r.max_score, CAST(r.num_samples AS DOUBLE) AS num_samples`;

/**
 * The results' own item statistics from their item sets (result-items.ts: a result alone is keyed as its items
 * are); undefined when the store has none or a result lacks its set.
 */
async function intervalInputsFromItems(
  store: Store,
  list: string,
  params: DuckDBValue[],
): Promise<StoredIntervalInput[] | undefined> {
  if (!(await hasResultItems(store))) return undefined;
  const rows = await store.all<StoredIntervalInput & SetColumns>(
    `SELECT ${RESULT_COLUMNS}, ${SET_COLUMNS_SQL}
     FROM results r LEFT JOIN result_item_sets s USING (record_key, result_index)
     WHERE r.record_key IN (${list})`,
    params,
  );
  return rows.every((r) => r.has_set) ? rows : undefined;
}

/** The results' own item statistics computed from their instance rows (the pairing SQL of selection.ts). */
async function intervalInputsFromSamples(
  store: Store,
  list: string,
  params: DuckDBValue[],
): Promise<StoredIntervalInput[]> {
  const slots = `
      SELECT c.ord AS slot, c.ord AS a, CAST(NULL AS BIGINT) AS b, ${BY_HASH_SQL} AS by_hash
      FROM chosen c LEFT JOIN hashed ha ON ha.ord = c.ord LEFT JOIN hashed hb ON false`;
  return store.all<StoredIntervalInput>(
    `WITH chosen AS MATERIALIZED (
       SELECT ${RESULT_COLUMNS}, r.evaluation_result_id, r.evaluation_name AS benchmark, ${METRIC_SQL} AS metric,
              ${EPOCH_REDUCER_SQL} AS epoch_reducer,
              row_number() OVER () AS ord
       FROM results r WHERE r.record_key IN (${list})
     ),
     ${pairingCtes(slots, { reducers: await storeReducers(store) })},
     stats AS (${ITEM_STATS_SQL} FROM grouped GROUP BY slot)
     SELECT c.record_key, c.result_index, c.score, c.standard_error, c.ci_lower, c.ci_upper, c.min_score,
            c.max_score, c.num_samples, s.n AS items, s.mean AS item_mean, s.var AS item_var, s.binary, s.successes
     FROM chosen c LEFT JOIN stats s ON s.slot = c.ord`,
    params,
  );
}
