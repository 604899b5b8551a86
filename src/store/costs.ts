/**
 * What a stored result cost, for `leaderboard --show cost` and the viewer's score-versus-cost chart. EEE has no cost
 * field; evalkit reads it where the records put it:
 *
 * - each instance row's `metadata.cost`: US dollars for that sample (one epoch of it), as `evalkit run --prices`,
 *   `convert --from inspect` (the sample's `model_usage[*].total_cost` summed) and `convert --from promptfoo` (the
 *   result's `cost`) write it — a decimal number in a string, as EEE's metadata values are strings;
 * - else the result's `generation_config.additional_details.total_cost_usd` (how `evalkit run` states the run's
 *   total, and how upstream EEE records of HAL state theirs).
 *
 * A result's cost from its rows is the sum over its rows that have one (a row belongs to a result as in the pairing
 * SQL: by evaluation_result_id, else by evaluation_name), rows of one call counted once: rows that share the sample
 * (its id before any `#`), the epoch, the output and the cost — promptfoo's rows of one test's assertions each
 * carry the test's cost. Per sample is that sum over those calls (each epoch a sample). A result with neither has
 * no cost (null): never 0.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import type { Store } from './db.js';
import { resultKeysSql } from './result-items.js';

export interface ResultCost {
  /** US dollars for the whole result (every priced sample and epoch). */
  total_usd: number;
  /** total_usd over the priced samples (each epoch a sample); null when the count is not known. */
  per_sample_usd: number | null;
  /** Rows with a cost, and the result's rows (a total from the record: its num_samples, or null). */
  priced_samples: number | null;
  samples: number | null;
  /** Where the cost was read: the instance rows' metadata.cost, or the record's total_cost_usd. */
  from: 'rows' | 'record';
}

export interface ResultKey {
  record_key: string;
  result_index: number;
}

const keyOf = (k: ResultKey): string => `${k.record_key}#${k.result_index}`;

/** A row's cost: its metadata.cost when that is a finite number of dollars, 0 or more (a string or a number). */
const ROW_COST_SQL = `CASE WHEN isfinite(TRY_CAST(s.raw -> 'metadata' ->> 'cost' AS DOUBLE))
      AND TRY_CAST(s.raw -> 'metadata' ->> 'cost' AS DOUBLE) >= 0
    THEN TRY_CAST(s.raw -> 'metadata' ->> 'cost' AS DOUBLE) END`;

/** The cost of each given result, by `record_key#result_index` (absent: the result has none). */
export async function resultCosts(
  store: Store,
  keys: readonly ResultKey[],
): Promise<Map<string, ResultCost>> {
  const out = new Map<string, ResultCost>();
  if (keys.length === 0) return out;
  const params: DuckDBValue[] = [];
  const values = resultKeysSql(keys, params);
  const rowColumns = `c.record_key, c.result_index, ${ROW_COST_SQL} AS cost,
      regexp_replace(s.sample_id, '#.*$', '') AS base, s.epoch, s.output_text`;
  const rows = await store.all<{
    record_key: string;
    result_index: number;
    total: number | null;
    priced: number;
    samples: number;
    declared: string | null;
    num_samples: number | null;
  }>(
    `WITH wanted(record_key, result_index) AS (VALUES ${values}),
     chosen AS (
       SELECT r.record_key, r.result_index, r.evaluation_result_id, r.evaluation_name,
              r.raw -> 'generation_config' -> 'additional_details' ->> 'total_cost_usd' AS declared,
              r.num_samples
       FROM results r JOIN wanted w USING (record_key, result_index)
     ),
     costed AS (
       SELECT ${rowColumns} FROM chosen c JOIN samples s
         ON s.record_key = c.record_key AND s.evaluation_result_id = c.evaluation_result_id
       UNION ALL
       SELECT ${rowColumns} FROM chosen c JOIN samples s
         ON s.record_key = c.record_key AND s.evaluation_name = c.evaluation_name
       WHERE s.evaluation_result_id IS NULL
       UNION ALL
       SELECT ${rowColumns} FROM (SELECT * FROM chosen WHERE evaluation_result_id IS NULL) c JOIN samples s
         ON s.record_key = c.record_key AND s.evaluation_name = c.evaluation_name
       WHERE s.evaluation_result_id IS NOT NULL
     ),
     calls AS (
       SELECT DISTINCT record_key, result_index, base, epoch, output_text, cost FROM costed
     ),
     summed AS (
       -- Summed in one fixed order: a sum of doubles depends on its order, and DuckDB's parallel aggregation
       -- (or a lake's other layout) would give another last digit from run to run.
       SELECT record_key, result_index, sum(cost ORDER BY base, epoch, output_text, cost) AS total,
              count(cost)::INTEGER AS priced,
              count(*)::INTEGER AS samples
       FROM calls GROUP BY record_key, result_index
     )
     SELECT c.record_key, c.result_index, s.total, coalesce(s.priced, 0) AS priced,
            coalesce(s.samples, 0) AS samples, c.declared, CAST(c.num_samples AS INTEGER) AS num_samples
     FROM chosen c LEFT JOIN summed s USING (record_key, result_index)`,
    params,
  );
  for (const r of rows) {
    const key = keyOf(r);
    if (r.priced > 0 && r.total !== null) {
      out.set(key, {
        total_usd: r.total,
        per_sample_usd: r.total / r.priced,
        priced_samples: r.priced,
        samples: r.samples,
        from: 'rows',
      });
      continue;
    }
    const declared = r.declared === null ? NaN : Number(r.declared);
    if (r.declared !== null && r.declared.trim() !== '' && Number.isFinite(declared) && declared >= 0)
      out.set(key, {
        total_usd: declared,
        per_sample_usd: r.num_samples !== null && r.num_samples > 0 ? declared / r.num_samples : null,
        priced_samples: null,
        samples: r.num_samples,
        from: 'record',
      });
  }
  return out;
}

/** The cost of one result from the map resultCosts gives (null: none). */
export const costOf = (costs: ReadonlyMap<string, ResultCost>, key: ResultKey): ResultCost | null =>
  costs.get(keyOf(key)) ?? null;

/**
 * The Pareto front of (cost, score) points: the points no other point beats — at most its cost with a better
 * score, or at a lower cost with at least its score (better: higher, or lower when lower_is_better). Their indices
 * in cost order; points without a cost are never on it.
 */
export function paretoFront(
  points: readonly { cost: number | null; score: number }[],
  lowerIsBetter = false,
): number[] {
  const better = (a: number, b: number) => (lowerIsBetter ? a < b : a > b);
  const front: number[] = [];
  points.forEach((p, i) => {
    if (p.cost === null) return;
    const dominated = points.some(
      (q, j) =>
        j !== i &&
        q.cost !== null &&
        q.cost <= p.cost! &&
        (better(q.score, p.score) || (q.cost < p.cost! && q.score === p.score)),
    );
    if (!dominated) front.push(i);
  });
  return front.sort((a, b) => points[a]!.cost! - points[b]!.cost! || a - b);
}
