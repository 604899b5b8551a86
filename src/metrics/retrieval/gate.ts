import { DataError } from '../../errors.js';
import { operationalFigures, type Observation } from './operational.js';
import { meets, parseThresholds, type ThresholdConfig } from './thresholds.js';

/** An `evaluation_result` event (retrieval.event 0.1). */
export interface EvaluationResultEvent {
  type: 'evaluation_result';
  request_id: string;
  metric: string;
  value: number;
  threshold?: number;
  pass?: boolean;
  observation_ids?: string[];
  ts: string;
}

export interface GateOutcome {
  events: EvaluationResultEvent[];
  /** Thresholds whose metric could not be computed from the observations (no latencies, no deadline, ...). */
  unmeasured: string[];
  /** Thresholds on metrics observations cannot give (quality metrics need gold rows: `retrieval score`). */
  notGated: string[];
  failed: EvaluationResultEvent[];
  groups: number;
  /** True when no threshold could be checked (no gate metric named, or no observation): not a pass. */
  nothingGated: boolean;
}

/** Quality metrics `retrieval score` computes from gold rows (a gate leaves them to it). */
const SCORE_METRIC = /^(p_at_\d+|recall_at_\d+|ndcg_\d+|mrr_\d+|cov_entities|privacy_leak)$/;

const squash = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * Throws `retrieval.unknown-metric` for threshold names that neither a gate nor `retrieval score` computes (a
 * typo such as "p95ms" would otherwise be skipped, and the gate pass without checking it).
 */
export function checkGateMetricNames(config: ThresholdConfig, file = 'thresholds'): void {
  const known: readonly string[] = GATE_METRICS;
  const unknown = config.thresholds
    .map((t) => t.metric)
    .filter((m) => !known.includes(m) && !SCORE_METRIC.test(m));
  if (unknown.length === 0) return;
  const described = unknown.map((m) => {
    const near = known.find((k) => squash(k) === squash(m));
    return near ? `"${m}" (did you mean "${near}"?)` : `"${m}"`;
  });
  throw new DataError(
    'retrieval.unknown-metric',
    `${file}: unknown metric ${described.join(', ')}; a gate computes ${known.join(', ')} ` +
      '(quality metrics such as p_at_5, ndcg_10, mrr_10 are scored from gold rows)',
  );
}

/**
 * Reads the thresholds of a gate (`retrieval gate` over files, `retrieval serve` on its rolling window): a
 * threshold set whose every metric a gate can measure or `retrieval score` computes, else a DataError.
 */
export function parseGateThresholds(doc: unknown, file = 'thresholds'): ThresholdConfig {
  const config = parseThresholds(doc, file);
  checkGateMetricNames(config, file);
  return config;
}

/** The metrics a gate computes from observations alone. */
export const GATE_METRICS = [
  'p50_ms',
  'p95_ms',
  'p99_ms',
  'errors',
  'error_rate_per_1k',
  'timeout_share',
] as const;

export interface GateOptions {
  /** Gate each group of observations sharing this field's value separately (e.g. "tool_id"); default: all. */
  groupBy?: 'agent_id' | 'user_id' | 'layer' | 'model_id' | 'tool_id';
  /** Prefix of the results' request_id (default "gate"); the group value is appended after a colon. */
  requestIdPrefix?: string;
}

/**
 * Turns observations into `evaluation_result` events: one per threshold per group, with the figure, the
 * threshold, pass/fail, and the request_ids of the observations it was computed from (the audit trail).
 * Deterministic: the event time is the latest observation time of the group, not the wall clock.
 */
export function gateObservations(
  observations: readonly Observation[],
  config: ThresholdConfig,
  options: GateOptions = {},
): GateOutcome {
  const groups = new Map<string, Observation[]>();
  for (const o of observations) {
    const key = options.groupBy ? String(o[options.groupBy] ?? '(none)') : '';
    const list = groups.get(key);
    if (list) list.push(o);
    else groups.set(key, [o]);
  }
  checkGateMetricNames(config);
  const prefix = options.requestIdPrefix ?? 'gate';
  const events: EvaluationResultEvent[] = [];
  const unmeasured = new Set<string>();
  const gated = config.thresholds.filter((t) => (GATE_METRICS as readonly string[]).includes(t.metric));
  const notGated = config.thresholds.filter((t) => !gated.includes(t)).map((t) => t.metric);
  for (const key of [...groups.keys()].sort()) {
    const group = groups.get(key)!;
    const figures = operationalFigures(group, { softDeadlineMs: config.softDeadlineMs }) as unknown as Record<
      string,
      number | undefined
    >;
    let ts = group[0].ts;
    for (const o of group) if (o.ts > ts) ts = o.ts;
    const observationIds = group.map((o) => o.request_id);
    for (const t of gated) {
      const value = figures[t.metric];
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        unmeasured.add(t.metric);
        continue;
      }
      events.push({
        type: 'evaluation_result',
        request_id: options.groupBy ? `${prefix}:${options.groupBy}=${key}` : prefix,
        metric: t.metric,
        value,
        threshold: t.threshold,
        pass: meets(value, t.threshold, t.direction),
        observation_ids: observationIds,
        ts,
      });
    }
  }
  return {
    events,
    unmeasured: [...unmeasured],
    notGated,
    failed: events.filter((e) => e.pass === false),
    groups: groups.size,
    nothingGated: events.length === 0,
  };
}
