/**
 * Which stored result stands for a model on a benchmark and metric, shared by `leaderboard` and `compare`:
 * among the results with that evaluation_name and metric (metric_name, else metric_id, else 'score') of the model's
 * records, the one of the most recently retrieved record (retrieved_timestamp as a number when it is one; ties by
 * record_key, then result_index). Its instance rows are the samples of that record whose evaluation_result_id equals
 * the result's, else (when either is missing) whose evaluation_name equals the benchmark.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { UsageError } from '../errors.js';
import { closestNames } from './closest.js';
import type { Store } from './db.js';

export interface SelectionFilters {
  benchmark?: string;
  metric?: string;
  developer?: string;
  deploymentType?: string;
  availability?: string;
  sourceOrganization?: string;
  collection?: string;
  models?: string[];
  /** Only the records with these evaluation ids (one run each). */
  evaluationIds?: string[];
  /** Only runs that finished (run_status "complete"); unfinished runs are left out. */
  completeOnly?: boolean;
}

/**
 * A record's run status: "complete", else the source's own word for the unfinished run (Inspect's `error`,
 * `cancelled`, `started`), else "partial". From the run identity a converter writes
 * (eval_library.additional_details.run_status); a record that states none is complete.
 */
export const RUN_STATUS_SQL = `CASE WHEN coalesce(rec.raw -> 'eval_library' -> 'additional_details' ->> 'run_status', 'complete') = 'complete'
  THEN 'complete' ELSE coalesce(rec.raw -> 'source_metadata' -> 'additional_details' ->> 'status', 'partial') END`;

/** The run status (RUN_STATUS_SQL) of each of the given records, by record_key. */
export async function runStatuses(store: Store, recordKeys: readonly string[]): Promise<Map<string, string>> {
  if (recordKeys.length === 0) return new Map();
  const list = recordKeys.map((_, i) => `$${i + 1}`).join(', ');
  const rows = await store.all<{ record_key: string; run_status: string }>(
    `SELECT record_key, ${RUN_STATUS_SQL} AS run_status FROM records rec WHERE record_key IN (${list})`,
    [...recordKeys],
  );
  return new Map(rows.map((r) => [r.record_key, r.run_status]));
}

/** The metric a result is listed under. */
export const METRIC_SQL = `coalesce(r.metric_name, r.metric_id, 'score')`;

/**
 * The result's epoch reducer (Inspect's names: mean, median, mode, max, at_least_N, pass_at_N), lower-cased, from
 * metric_config.additional_details.epoch_reducer; 'mean' when absent.
 */
export const EPOCH_REDUCER_SQL = `coalesce(lower(trim(r.raw -> 'metric_config' -> 'additional_details' ->> 'epoch_reducer')), 'mean')`;

/**
 * The note of a result whose rows disagree with its source (the reconciliation outcome the record keeps, see
 * checks/reconciliation.ts), else NULL.
 */
export const DISAGREEMENT_SQL = `CASE WHEN r.raw -> 'score_details' -> 'details' ->> 'evalkit_reconciliation' IN ('count_mismatch', 'headline_mismatch', 'key_collision')
  THEN r.raw -> 'score_details' -> 'details' ->> 'evalkit_reconciliation_note' END`;

/** A result's `score_details.details.score_missing` ("true": no value, the score is EEE's required placeholder). */
export const SCORE_MISSING_SQL = `(r.raw -> 'score_details' -> 'details' ->> 'score_missing')`;

/**
 * SQL (a SELECT usable as a CTE body) of the chosen results, one per (benchmark, metric, model): a finished run's
 * before an unfinished one's, then the latest; with the filters bound as positional parameters appended to `params`.
 */
export function chosenResultsSql(filters: SelectionFilters, params: DuckDBValue[]): string {
  const where: string[] = [];
  const bind = (value: DuckDBValue): string => {
    params.push(value);
    return `$${params.length}`;
  };
  if (filters.benchmark !== undefined) where.push(`r.evaluation_name = ${bind(filters.benchmark)}`);
  if (filters.metric !== undefined) where.push(`${METRIC_SQL} = ${bind(filters.metric)}`);
  if (filters.developer !== undefined) where.push(`rec.developer = ${bind(filters.developer)}`);
  if (filters.deploymentType !== undefined)
    where.push(`rec.deployment_type = ${bind(filters.deploymentType)}`);
  if (filters.availability !== undefined)
    where.push(`rec.model_availability = ${bind(filters.availability)}`);
  if (filters.sourceOrganization !== undefined)
    where.push(`rec.source_organization_name = ${bind(filters.sourceOrganization)}`);
  if (filters.collection !== undefined) where.push(`rec.collection = ${bind(filters.collection)}`);
  if (filters.models !== undefined)
    where.push(`rec.model_id IN (${filters.models.map((m) => bind(m)).join(', ')})`);
  if (filters.evaluationIds !== undefined)
    where.push(`rec.evaluation_id IN (${filters.evaluationIds.map((m) => bind(m)).join(', ')})`);
  if (filters.completeOnly) where.push(`(${RUN_STATUS_SQL}) = 'complete'`);
  // A result without a value (`score_details.details.score_missing`, its score a placeholder) stands for nothing.
  where.push(`${SCORE_MISSING_SQL} IS DISTINCT FROM 'true'`);
  return `SELECT * EXCLUDE (pick) FROM (
      SELECT r.record_key, r.result_index, r.evaluation_result_id, r.evaluation_name AS benchmark,
             ${METRIC_SQL} AS metric, r.lower_is_better, r.score, r.standard_error, r.ci_lower, r.ci_upper,
             CAST(r.num_samples AS DOUBLE) AS num_samples, r.min_score, r.max_score, r.score_type,
             ${EPOCH_REDUCER_SQL} AS epoch_reducer,
             r.raw -> 'metric_config' -> 'additional_details' ->> 'direction_status' AS direction_status,
             ${DISAGREEMENT_SQL} AS disagreement,
             rec.model_id, rec.developer, rec.evaluation_id,
             coalesce(rec.source_organization_name, rec.source_name) AS source,
             coalesce(rec.evaluation_timestamp, rec.retrieved_timestamp) AS date,
             ${RUN_STATUS_SQL} AS run_status,
             row_number() OVER (
               PARTITION BY r.evaluation_name, ${METRIC_SQL}, rec.model_id
               ORDER BY (${RUN_STATUS_SQL}) = 'complete' DESC, TRY_CAST(rec.retrieved_timestamp AS DOUBLE) DESC NULLS LAST, rec.retrieved_timestamp DESC NULLS LAST,
                        rec.record_key, r.result_index) AS pick
      FROM results r JOIN records rec USING (record_key)
      ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
    ) WHERE pick = 1`;
}

/**
 * The sample a row belongs to when pairing by sample_id: rows of one sample's epochs share it. A row with an epoch
 * whose sample_id carries it as `#epochN` (how `evalkit convert` names Inspect's epochs) has that part removed.
 */
const SAMPLE_KEY_SQL = `CASE WHEN s.epoch IS NOT NULL THEN regexp_replace(s.sample_id, '#epoch[0-9]+', '') ELSE s.sample_id END`;

/**
 * SQL joining a CTE `chosen` (with record_key, evaluation_result_id, benchmark and an `ord` column) to its instance
 * rows: one row per sample row with `ord`, sample_id, sample_hash, the value v (evaluation.score, else is_correct as
 * 0/1; rows with neither are left out, and so are values that are not finite, which ingest refuses but a store
 * written otherwise may hold), the texts, row_index and `cl`, the cluster expression (or NULL).
 */
export function instanceRowsSql(cluster: string | null): string {
  // Equi-joins rather than one join on record_key filtered afterwards: a record with many results would otherwise
  // meet each of its rows once per result. A row belongs to a result by evaluation_result_id when both have one,
  // else by evaluation_name; the three branches are disjoint, and the last two read only rows (or results) without
  // an id, so a store whose rows all carry one is scanned once.
  const columns = `c.ord, c.epoch_reducer AS reducer, s.sample_id, ${SAMPLE_KEY_SQL} AS sample_key, s.sample_hash,
         s.sample_hash IS NOT NULL AS has_hash, hash(s.sample_hash) AS hash_1, hash('#' || s.sample_hash) AS hash_2,
         coalesce(s.score, CAST(s.is_correct AS DOUBLE)) AS v, s.epoch,
         s.input_text, s.reference_text, s.output_text, s.row_index, ${cluster ?? 'CAST(NULL AS VARCHAR)'} AS cl`;
  const scored = `isfinite(coalesce(s.score, CAST(s.is_correct AS DOUBLE)))`;
  return `
  SELECT ${columns}
  FROM chosen c JOIN samples s
    ON s.record_key = c.record_key AND s.evaluation_result_id = c.evaluation_result_id
  WHERE ${scored}
  UNION ALL
  SELECT ${columns}
  FROM chosen c JOIN samples s ON s.record_key = c.record_key AND s.evaluation_name = c.benchmark
  WHERE s.evaluation_result_id IS NULL AND ${scored}
  UNION ALL
  SELECT ${columns}
  FROM (SELECT * FROM chosen WHERE evaluation_result_id IS NULL) c JOIN samples s
    ON s.record_key = c.record_key AND s.evaluation_name = c.benchmark
  WHERE s.evaluation_result_id IS NOT NULL AND ${scored}`;
}

/** The epoch reducers the statistics know, by kind (at_least_N and pass_at_N carry their N). */
export type ReducerKind = 'mean' | 'median' | 'max' | 'min' | 'mode' | 'at_least' | 'pass_at';

export function kindOf(reducer: string): ReducerKind {
  if (reducer === 'median' || reducer === 'max' || reducer === 'min' || reducer === 'mode') return reducer;
  if (/^at_least_[0-9]+$/.test(reducer)) return 'at_least';
  if (/^pass_at_[0-9]+$/.test(reducer)) return 'pass_at';
  return 'mean';
}

/**
 * The epoch reducers of the store's results (EPOCH_REDUCER_SQL), so the pairing SQL computes only the reductions
 * it needs: a store of plain means (most) pays for one average per sample, as before epochs were reduced.
 */
export async function storeReducers(store: Store): Promise<ReadonlySet<ReducerKind>> {
  const rows = await store.all<{ reducer: string }>(
    `SELECT DISTINCT ${EPOCH_REDUCER_SQL} AS reducer FROM results r`,
  );
  return new Set(rows.map((r) => kindOf(r.reducer)));
}

/**
 * The value of one side's rows of one sample, reduced the way the source reduced its epochs (SQL over the
 * aggregates of `grouped_rows` with the suffix `_a` or `_b`): mean (also an unknown or absent reducer), median, max,
 * min (evalkit run's reducer), mode (the most frequent value; a tie goes to the value seen first, by epoch), at_least_N (1 when at least N
 * epochs score ≥ 1, else 0) and pass_at_N (Chen et al.'s unbiased estimator 1 − C(n − c, N)/C(n, N) over n scored
 * epochs, c of them ≥ 1; undefined with fewer than N epochs), as Inspect's reducers compute them. Only the kinds in
 * `kinds` are computed.
 */
function reducedSql(side: 'a' | 'b', kinds: ReadonlySet<ReducerKind>): string {
  const col = (name: string) => `${name}_${side}`;
  if (kinds.size === 1 && kinds.has('mean')) return col('mean');
  const reducer = col('reducer');
  const k = `TRY_CAST(regexp_extract(${reducer}, '_([0-9]+)$', 1) AS DOUBLE)`;
  const n = col('n');
  const c = col('passed');
  const counts = `list_transform(${col('values')}, x -> len(list_filter(${col('values')}, y -> y = x)))`;
  const m = `(${n} - ${c})`;
  const branches: string[] = [];
  if (kinds.has('median')) branches.push(`WHEN ${reducer} = 'median' THEN ${col('median')}`);
  if (kinds.has('max')) branches.push(`WHEN ${reducer} = 'max' THEN ${col('max')}`);
  if (kinds.has('min')) branches.push(`WHEN ${reducer} = 'min' THEN ${col('min')}`);
  if (kinds.has('mode'))
    branches.push(
      `WHEN ${reducer} = 'mode' THEN ${col('values')}[list_position(${counts}, list_max(${counts}))]`,
    );
  if (kinds.has('at_least'))
    branches.push(
      `WHEN starts_with(${reducer}, 'at_least_') AND ${k} IS NOT NULL THEN CASE WHEN ${c} >= ${k} THEN 1.0 ELSE 0.0 END`,
    );
  if (kinds.has('pass_at'))
    branches.push(`WHEN starts_with(${reducer}, 'pass_at_') AND ${k} IS NOT NULL THEN CASE
        WHEN ${n} < ${k} THEN NULL
        WHEN ${m} < ${k} THEN 1.0
        ELSE 1 - exp(lgamma(${m} + 1) - lgamma(${m} - ${k} + 1) - lgamma(${n} + 1) + lgamma(${n} - ${k} + 1))
      END`);
  return `CASE WHEN ${n} = 0 THEN NULL ${branches.join(' ')} ELSE ${col('mean')} END`;
}

/** The per-side aggregates reducedSql reads, over the rows of `tagged` where `filter` holds. */
function sideAggregates(side: 'a' | 'b', filter: string, kinds: ReadonlySet<ReducerKind>): string[] {
  const f = (extra = '') => `FILTER (WHERE ${filter}${extra})`;
  const out = [`avg(v) ${f()} AS mean_${side}`];
  if (kinds.size === 1 && kinds.has('mean')) return out;
  out.push(`any_value(reducer) ${f()} AS reducer_${side}`, `count(v) ${f()} AS n_${side}`);
  if (kinds.has('at_least') || kinds.has('pass_at'))
    out.push(`count(v) ${f(' AND v >= 1')} AS passed_${side}`);
  if (kinds.has('max')) out.push(`max(v) ${f()} AS max_${side}`);
  if (kinds.has('min')) out.push(`min(v) ${f()} AS min_${side}`);
  if (kinds.has('median')) out.push(`median(v) ${f(" AND reducer = 'median'")} AS median_${side}`);
  if (kinds.has('mode'))
    out.push(`list(v ORDER BY epoch NULLS LAST, row_index) ${f(" AND reducer = 'mode'")} AS values_${side}`);
  return out;
}

/** The output names of aggregates ("… AS name"). */
const names = (aggregates: string[]): string[] => aggregates.map((a) => a.slice(a.lastIndexOf(' AS ') + 4));

/**
 * One result's rows of one sample reduced to one value, as pairingCtes reduces side a: the aggregates to compute
 * over the rows of a group (columns v, reducer, epoch, row_index) and the SQL of the value over their names.
 */
export function reducedItemSql(kinds: ReadonlySet<ReducerKind>): { aggregates: string[]; value: string } {
  return { aggregates: sideAggregates('a', 'true', kinds), value: reducedSql('a', kinds) };
}

/**
 * The CTEs that pair two results' items in one pass, after a CTE `chosen` (one row per chosen result, `ord`,
 * `epoch_reducer`):
 * - `hashed` (ord, all_hashed): whether the result keys by sample_hash (KEYED_BY_HASH_SQL);
 * - `slots` (slot, a, b, by_hash): given as `slotsSql` (it may use `hashed`); b may be NULL (a alone);
 * - `grouped` (slot, va, vb, ...extra; k too with `key`): per slot and pairing key k (sample_hash when `by_hash`,
 *   else the sample key: the sample_id without its epoch) each side's rows of that sample reduced to one value by
 *   the side's epoch reducer (see reducedSql; `reducers` from storeReducers, default: every kind), so n, intervals
 *   and pairing count samples, not epochs; va or vb is NULL where that side has no row with this key. `extra` adds
 *   aggregates over `tagged` (columns slot, is_a, k, v, cl, sample_id, sample_hash, the texts, row_index).
 * Every instance row is read once per slot it is in and grouped once: no per-side grouping and join.
 *
 * The rows are grouped on two 64-bit hashes of k (k_1, k_2) rather than on its text: cheaper to hash and compare
 * than 64-character strings, and a sample_hash's are computed once per instance row, not once per slot it is in.
 * Two different keys of one slot share a group only when both hashes collide: for n keys in a slot, about
 * n²/2¹²⁹ (10⁻²⁷ for a million keys) if the two hashes behave as independent random functions, far below the
 * chance of a hardware fault. k itself is carried (as the group's least k) only when asked for: `key`.
 */
export function pairingCtes(
  slotsSql: string,
  options: {
    cluster?: string | null;
    extra?: string;
    reducers?: ReadonlySet<ReducerKind>;
    key?: boolean;
  } = {},
): string {
  const kinds = options.reducers ?? ALL_REDUCERS;
  const sideA = sideAggregates('a', 'is_a', kinds);
  const sideB = sideAggregates('b', 'NOT is_a', kinds);
  return `
    instance_rows AS (${instanceRowsSql(options.cluster ?? null)}),
    hashed AS (SELECT ord, ${KEYED_BY_HASH_SQL} AS all_hashed FROM instance_rows GROUP BY ord),
    slots AS MATERIALIZED (${slotsSql}),
    membership AS (
      SELECT slot, a AS ord, true AS is_a, by_hash FROM slots
      UNION ALL SELECT slot, b AS ord, false AS is_a, by_hash FROM slots WHERE b IS NOT NULL
    ),
    tagged AS (
      SELECT m.slot, m.is_a, CASE WHEN m.by_hash THEN r.sample_hash ELSE r.sample_key END AS k,
             CASE WHEN m.by_hash THEN r.hash_1 ELSE hash(r.sample_key) END AS k_1,
             CASE WHEN m.by_hash THEN r.hash_2 ELSE hash('#' || r.sample_key) END AS k_2, r.v, r.reducer,
             r.epoch, r.cl, r.sample_id, r.sample_hash, r.input_text, r.reference_text, r.output_text, r.row_index
      FROM membership m JOIN instance_rows r ON r.ord = m.ord
    ),
    grouped_rows AS (
      SELECT slot, ${[...(options.key ? ['min(k) AS k'] : []), ...sideA, ...sideB, ...(options.extra ? [options.extra] : [])].join(', ')}
      FROM tagged GROUP BY slot, k_1, k_2
    ),
    grouped AS (
      SELECT * EXCLUDE (${[...names(sideA), ...names(sideB)].join(', ')}),
             ${reducedSql('a', kinds)} AS va, ${reducedSql('b', kinds)} AS vb
      FROM grouped_rows
    )`;
}

const ALL_REDUCERS: ReadonlySet<ReducerKind> = new Set([
  'mean',
  'median',
  'max',
  'min',
  'mode',
  'at_least',
  'pass_at',
]);

/**
 * Over one result's instance rows (columns has_hash, sample_hash, sample_key): whether the sample_hash can be its
 * pairing key: every row has one and hashes and samples correspond one to one (the epochs of a sample share its
 * hash). Where two samples share a hash (the same input and reference: a converter that could not tell them
 * apart) the result pairs by sample key instead, so the two are never taken for epochs of one sample.
 */
export const KEYED_BY_HASH_SQL = `(bool_and(has_hash) AND count(DISTINCT sample_hash) = count(DISTINCT sample_key)
  AND count(DISTINCT sample_key) = count(DISTINCT sample_hash || chr(0) || sample_key))`;

/**
 * Whether a slot pairs by sample_hash: when every row of both results has one (of the one result, when the slot
 * has no second result). `ha` and `hb` are the `hashed` rows of the two results.
 */
export const BY_HASH_SQL = `coalesce(ha.all_hashed AND (hb.ord IS NULL OR hb.all_hashed), false)`;

/** The samples columns `--cluster-by` may name directly; any other name is looked up in the row's metadata, then at its top level. */
export const SAMPLE_COLUMNS = [
  'evaluation_result_id',
  'evaluation_name',
  'sample_id',
  'sample_hash',
  'epoch',
  'interaction_type',
  'input_text',
  'reference_text',
] as const;

/**
 * A retrieved/evaluation timestamp as an ISO date-time: Unix seconds (or milliseconds, from 1e11) as written by EEE,
 * or an ISO date-time. Null when it is no date: empty, 0 or negative (a placeholder for "not known", never
 * 1970-01-01), or text that is not a date; other text is returned as is.
 */
export function displayDate(value: string | null): string | null {
  if (value === null || value.trim() === '') return null;
  const n = Number(value);
  if (Number.isFinite(n)) {
    if (n <= 0) return null;
    const d = new Date(n > 1e11 ? n : n * 1000);
    return Number.isNaN(d.getTime()) ? null : d.toISOString().replace(/\.000Z$/, 'Z');
  }
  return value;
}

/** Throws a UsageError naming the closest known names when --benchmark or --metric names nothing in the store. */
export async function checkBenchmarkAndMetric(
  store: Store,
  filters: { benchmark?: string; metric?: string },
): Promise<void> {
  const checks: [string | undefined, string, string][] = [
    [filters.benchmark, 'evaluation_name', 'benchmark'],
    [filters.metric, METRIC_SQL, 'metric'],
  ];
  for (const [value, column, what] of checks) {
    if (value === undefined) continue;
    const known = (
      await store.all<{ name: string }>(`SELECT DISTINCT ${column} AS name FROM results r ORDER BY name`)
    ).map((r) => r.name);
    if (known.includes(value)) continue;
    const closest = closestNames(value, known);
    throw new UsageError(
      `store.unknown-${what}`,
      `unknown ${what} "${value}"` +
        (closest.length > 0 ? `; closest known: ${closest.join(', ')}` : `; the store has no results`),
    );
  }
}
