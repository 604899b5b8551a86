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
}

/** The metric a result is listed under. */
export const METRIC_SQL = `coalesce(r.metric_name, r.metric_id, 'score')`;

/**
 * SQL (a SELECT usable as a CTE body) of the chosen results, one per (benchmark, metric, model), with the filters
 * bound as positional parameters appended to `params`.
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
  return `SELECT * EXCLUDE (pick) FROM (
      SELECT r.record_key, r.result_index, r.evaluation_result_id, r.evaluation_name AS benchmark,
             ${METRIC_SQL} AS metric, r.lower_is_better, r.score, r.standard_error, r.ci_lower, r.ci_upper,
             CAST(r.num_samples AS DOUBLE) AS num_samples, rec.model_id, rec.developer, rec.evaluation_id,
             coalesce(rec.source_organization_name, rec.source_name) AS source,
             coalesce(rec.evaluation_timestamp, rec.retrieved_timestamp) AS date,
             row_number() OVER (
               PARTITION BY r.evaluation_name, ${METRIC_SQL}, rec.model_id
               ORDER BY TRY_CAST(rec.retrieved_timestamp AS DOUBLE) DESC NULLS LAST, rec.retrieved_timestamp DESC NULLS LAST,
                        rec.record_key, r.result_index) AS pick
      FROM results r JOIN records rec USING (record_key)
      ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
    ) WHERE pick = 1`;
}

/**
 * SQL joining a CTE `chosen` (with record_key, evaluation_result_id, benchmark and an `ord` column) to its instance
 * rows: one row per sample row with `ord`, sample_id, sample_hash, the value v (evaluation.score, else is_correct as
 * 0/1; rows with neither are left out, and so are values that are not finite, which ingest refuses but a store
 * written otherwise may hold), the texts, row_index and `cl`, the cluster expression (or NULL).
 */
function instanceRowsSql(cluster: string | null): string {
  // Two equi-joins rather than one join on record_key filtered afterwards: a record with many results would
  // otherwise meet each of its rows once per result.
  const columns = `c.ord, s.sample_id, s.sample_hash, coalesce(s.score, CAST(s.is_correct AS DOUBLE)) AS v,
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
  WHERE (s.evaluation_result_id IS NULL OR c.evaluation_result_id IS NULL) AND ${scored}`;
}

/**
 * The CTEs that pair two results' items in one pass, after a CTE `chosen` (one row per chosen result, `ord`):
 * - `hashed` (ord, all_hashed): whether every instance row of the result has a sample_hash;
 * - `slots` (slot, a, b, by_hash): given as `slotsSql` (it may use `hashed`); b may be NULL (a alone);
 * - `grouped` (slot, k, va, vb, ...extra): per slot and pairing key k (sample_hash when `by_hash`, else sample_id)
 *   the mean of each side's rows (so the epochs of one sample are averaged); va or vb is NULL where that side has
 *   no row with this key. `extra` adds aggregates over `tagged` (columns slot, is_a, k, v, cl, sample_id,
 *   sample_hash, the texts, row_index).
 * Every instance row is read once per slot it is in and grouped once: no per-side grouping and join.
 */
export function pairingCtes(
  slotsSql: string,
  options: { cluster?: string | null; extra?: string } = {},
): string {
  return `
    instance_rows AS (${instanceRowsSql(options.cluster ?? null)}),
    hashed AS (SELECT ord, bool_and(sample_hash IS NOT NULL) AS all_hashed FROM instance_rows GROUP BY ord),
    slots AS MATERIALIZED (${slotsSql}),
    membership AS (
      SELECT slot, a AS ord, true AS is_a, by_hash FROM slots
      UNION ALL SELECT slot, b AS ord, false AS is_a, by_hash FROM slots WHERE b IS NOT NULL
    ),
    tagged AS (
      SELECT m.slot, m.is_a, CASE WHEN m.by_hash THEN r.sample_hash ELSE r.sample_id END AS k, r.v, r.cl,
             r.sample_id, r.sample_hash, r.input_text, r.reference_text, r.output_text, r.row_index
      FROM membership m JOIN instance_rows r ON r.ord = m.ord
    ),
    grouped AS (
      SELECT slot, k, avg(v) FILTER (WHERE is_a) AS va, avg(v) FILTER (WHERE NOT is_a) AS vb ${options.extra ? `, ${options.extra}` : ''}
      FROM tagged GROUP BY slot, k
    )`;
}

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

/** A numeric retrieved/evaluation timestamp (Unix seconds) as an ISO date-time; other text is returned as is. */
export function displayDate(value: string | null): string | null {
  if (value === null) return null;
  const n = Number(value);
  if (value.trim() !== '' && Number.isFinite(n)) {
    const ms = n > 1e11 ? n : n * 1000;
    const d = new Date(ms);
    if (!Number.isNaN(d.getTime())) return d.toISOString().replace(/\.000Z$/, 'Z');
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
