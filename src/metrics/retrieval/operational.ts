import { quantileType7 } from '../stats/descriptive.js';

/**
 * Operational figures from `evaluation_observation` events: latency quantiles, error rate, timeout share.
 *
 * An observation's `outcome` is classified as:
 * - `abort`: a client abort ("abort", "aborted", "client_abort", "cancelled", "canceled") — excluded from the
 *   error rate entirely (neither an error nor a request that counts in the denominator);
 * - `error`: "error", "failed", "failure", an HTTP status 4xx/5xx ("404", "http_503", "5xx", "status_500");
 * - `timeout`: "timeout" / "timed_out" (counted as an error too: the caller got no answer);
 * - `ok`: anything else, including a missing outcome.
 */
export interface Observation {
  type: 'evaluation_observation';
  request_id: string;
  ts: string;
  agent_id?: string;
  user_id?: string;
  layer?: string;
  model_id?: string;
  tool_id?: string;
  latency_ms?: number;
  tokens?: number;
  retrieved_ids?: string[];
  outcome?: string;
}

export type OutcomeClass = 'ok' | 'error' | 'timeout' | 'abort';

export function classifyOutcome(outcome: string | undefined): OutcomeClass {
  if (outcome === undefined) return 'ok';
  const o = outcome.trim().toLowerCase();
  if (/^(client_)?abort(ed)?$|^cancell?ed$/.test(o)) return 'abort';
  if (/^(timeout|timed_out)$/.test(o)) return 'timeout';
  if (/^(error|failed|failure)$/.test(o) || /^(http_|status_)?[45](\d\d|xx)$/.test(o)) return 'error';
  return 'ok';
}

export interface OperationalFigures {
  /** Observations considered (client aborts included here, excluded from the error rate). */
  observations: number;
  /** Observations that carry a latency. */
  latency_count: number;
  p50_ms?: number;
  p95_ms?: number;
  p99_ms?: number;
  /** Errors and timeouts among non-aborted requests. */
  errors: number;
  aborts: number;
  /** errors per 1,000 non-aborted requests (absent when every request was aborted). */
  error_rate_per_1k?: number;
  /** Share of observations with a latency above the soft deadline (absent without a deadline or latencies). */
  timeout_share?: number;
}

/** Figures over a set of observations. Latency quantiles are type-7 (numpy's default). */
export function operationalFigures(
  observations: readonly Observation[],
  options: { softDeadlineMs?: number } = {},
): OperationalFigures {
  const latencies: number[] = [];
  let errors = 0;
  let aborts = 0;
  let late = 0;
  for (const o of observations) {
    const cls = classifyOutcome(o.outcome);
    if (cls === 'abort') aborts++;
    else if (cls === 'error' || cls === 'timeout') errors++;
    if (typeof o.latency_ms === 'number' && Number.isFinite(o.latency_ms)) {
      latencies.push(o.latency_ms);
      if (options.softDeadlineMs !== undefined && o.latency_ms > options.softDeadlineMs) late++;
    }
  }
  const figures: OperationalFigures = {
    observations: observations.length,
    latency_count: latencies.length,
    errors,
    aborts,
  };
  if (latencies.length > 0) {
    latencies.sort((a, b) => a - b);
    figures.p50_ms = quantileType7(latencies, 0.5);
    figures.p95_ms = quantileType7(latencies, 0.95);
    figures.p99_ms = quantileType7(latencies, 0.99);
    if (options.softDeadlineMs !== undefined) figures.timeout_share = late / latencies.length;
  }
  const counted = observations.length - aborts;
  if (counted > 0) figures.error_rate_per_1k = (errors / counted) * 1000;
  return figures;
}
