import { DataError } from '../../errors.js';

/**
 * Threshold sets for retrieval verdicts, read from a config file:
 *
 *   { "thresholds": { "p_at_5": 0.6, "p95_ms": 800, "errors": { "threshold": 0, "direction": "lower" } },
 *     "soft_deadline_ms": 1500 }
 *
 * A bare number takes the metric's default direction: lower-is-better for latency (`*_ms`), errors, error rates,
 * timeouts and `privacy_leak`; higher-is-better for everything else (quality metrics).
 */
export type Direction = 'higher' | 'lower';

export interface Threshold {
  metric: string;
  threshold: number;
  direction: Direction;
}

export interface ThresholdConfig {
  thresholds: Threshold[];
  /** Soft deadline for the timeout share, in milliseconds (absent: no timeout figure). */
  softDeadlineMs?: number;
}

export interface ThresholdVerdict {
  metric: string;
  value: number;
  threshold: number;
  pass: boolean;
}

const LOWER_IS_BETTER = /(_ms$|^errors$|^error_rate|^timeout|^privacy_leak$)/;

export function defaultDirection(metric: string): Direction {
  return LOWER_IS_BETTER.test(metric) ? 'lower' : 'higher';
}

/** True when `value` meets `threshold` in `direction` (equality passes). */
export function meets(value: number, threshold: number, direction: Direction): boolean {
  return direction === 'higher' ? value >= threshold : value <= threshold;
}

function fail(file: string, pointer: string, message: string): never {
  throw new DataError('retrieval.thresholds', `${file}: ${message} (at ${pointer || '/'})`);
}

function isFiniteNumber(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x);
}

/** Parses a thresholds document (already JSON-parsed). Throws DataError naming the JSON pointer of a bad value. */
export function parseThresholds(doc: unknown, file = 'thresholds'): ThresholdConfig {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) fail(file, '', 'expected an object');
  const obj = doc as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (key !== 'thresholds' && key !== 'soft_deadline_ms' && key !== '$schema' && key !== 'description') {
      fail(file, `/${key}`, `unknown key "${key}" (expected "thresholds" and optionally "soft_deadline_ms")`);
    }
  }
  const map = obj.thresholds;
  if (map === null || typeof map !== 'object' || Array.isArray(map)) {
    fail(file, '/thresholds', 'expected an object mapping metric names to thresholds');
  }
  const thresholds: Threshold[] = [];
  for (const [metric, spec] of Object.entries(map as Record<string, unknown>)) {
    const pointer = `/thresholds/${metric.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (isFiniteNumber(spec)) {
      thresholds.push({ metric, threshold: spec, direction: defaultDirection(metric) });
      continue;
    }
    if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) {
      fail(file, pointer, 'expected a number or {"threshold": number, "direction": "higher" | "lower"}');
    }
    const s = spec as Record<string, unknown>;
    if (!isFiniteNumber(s.threshold)) fail(file, `${pointer}/threshold`, 'expected a finite number');
    const direction = s.direction ?? defaultDirection(metric);
    if (direction !== 'higher' && direction !== 'lower') {
      fail(file, `${pointer}/direction`, 'expected "higher" or "lower"');
    }
    thresholds.push({ metric, threshold: s.threshold, direction });
  }
  const config: ThresholdConfig = { thresholds };
  if (obj.soft_deadline_ms !== undefined) {
    if (!isFiniteNumber(obj.soft_deadline_ms) || obj.soft_deadline_ms <= 0) {
      fail(file, '/soft_deadline_ms', 'expected a positive number of milliseconds');
    }
    config.softDeadlineMs = obj.soft_deadline_ms;
  }
  return config;
}

/** A metric value as a number for a verdict: booleans (privacy_leak) count as 1 / 0; anything else is skipped. */
export function verdictValue(value: unknown): number | undefined {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return isFiniteNumber(value) ? value : undefined;
}

/** One verdict per threshold whose metric has a value in `metrics`, in the order of the threshold set. */
export function verdictsFor(
  metrics: Record<string, unknown>,
  thresholds: readonly Threshold[],
): ThresholdVerdict[] {
  const out: ThresholdVerdict[] = [];
  for (const t of thresholds) {
    const value = verdictValue(metrics[t.metric]);
    if (value === undefined) continue;
    out.push({
      metric: t.metric,
      value,
      threshold: t.threshold,
      pass: meets(value, t.threshold, t.direction),
    });
  }
  return out;
}
