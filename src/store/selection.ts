/**
 * Which stored result stands for a model on a benchmark and metric, shared by `leaderboard` and `compare`:
 * among the results with that evaluation_name and metric (metric_name, else metric_id, else 'score') of the model's
 * records, the one of the most recently retrieved record (retrieved_timestamp as a number when it is one; ties by
 * record_key, then result_index). Its instance rows are the samples of that record whose evaluation_result_id equals
 * the result's, else (when either is missing) whose evaluation_name equals the benchmark.
 */
import type { DuckDBValue } from '@duckdb/node-api';

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
 * 0/1; rows with neither are left out), the texts, row_index and `cl`, the cluster expression (or NULL).
 */
export function instanceRowsSql(cluster: string | null = null): string {
  return `
  SELECT c.ord, s.sample_id, s.sample_hash, coalesce(s.score, CAST(s.is_correct AS DOUBLE)) AS v,
         s.input_text, s.reference_text, s.output_text, s.row_index, ${cluster ?? 'CAST(NULL AS VARCHAR)'} AS cl
  FROM chosen c JOIN samples s ON s.record_key = c.record_key
  WHERE coalesce(s.evaluation_result_id = c.evaluation_result_id, s.evaluation_name = c.benchmark)
    AND coalesce(s.score, CAST(s.is_correct AS DOUBLE)) IS NOT NULL`;
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

/** A SQL string literal. */
export function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

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
