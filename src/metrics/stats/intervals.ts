/** Confidence intervals: Wilson score, percentile bootstrap and Politis–Romano subsampling. */
import { randomBytes } from 'node:crypto';
import { quantileSorted } from './descriptive.js';
import { MersenneTwister } from './mersenne.js';
import { normalQuantile } from './normal.js';
import { createRng } from './rng.js';

export interface Interval {
  lower: number;
  upper: number;
}

function checkConfidence(confidence: number): void {
  if (!(confidence > 0 && confidence < 1))
    throw new RangeError(`confidence must be in (0, 1), got ${confidence}`);
}

/**
 * Wilson score interval for a binomial proportion successes/n. With n = 0 nothing is known: [0, 1].
 */
export function wilsonInterval(successes: number, n: number, confidence = 0.95): Interval {
  checkConfidence(confidence);
  if (n < 0 || successes < 0 || successes > n)
    throw new RangeError(`wilsonInterval: bad counts ${successes}/${n}`);
  if (n === 0) return { lower: 0, upper: 1 };
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const z2 = z * z;
  const p = successes / n;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  return { lower: Math.max(0, centre - half), upper: Math.min(1, centre + half) };
}

/** A seed for when the caller gave none: reported back so the run can be repeated. */
export function freshSeed(): number {
  return randomBytes(4).readUInt32LE(0);
}

export interface ResamplingOptions {
  iterations?: number;
  seed?: number;
  confidence?: number;
}

export interface BootstrapResult {
  estimate: number | null;
  lower: number | null;
  upper: number | null;
  iterations: number;
  /** Resamples on which the statistic was defined. */
  defined: number;
  seed: number;
  confidence: number;
}

/**
 * Percentile bootstrap: resample `values` with replacement `iterations` times (seeded sfc32), apply `statistic`,
 * drop undefined (null / NaN) results, and take the type-7 quantiles at α/2 and 1 − α/2.
 */
export function bootstrapPercentile<T>(
  values: readonly T[],
  statistic: (sample: T[]) => number | null,
  options: ResamplingOptions = {},
): BootstrapResult {
  const iterations = options.iterations ?? 1000;
  const confidence = options.confidence ?? 0.95;
  const seed = options.seed ?? freshSeed();
  checkConfidence(confidence);
  const point = statistic(values.slice());
  const estimate = point === null || Number.isNaN(point) ? null : point;
  const base = { estimate, iterations, seed, confidence };
  if (values.length === 0) return { ...base, lower: null, upper: null, defined: 0 };
  const rng = createRng(seed);
  const stats: number[] = [];
  const sample = new Array<T>(values.length);
  for (let it = 0; it < iterations; it++) {
    for (let i = 0; i < values.length; i++) sample[i] = values[Math.floor(rng() * values.length)]!;
    const s = statistic(sample);
    if (s !== null && !Number.isNaN(s)) stats.push(s);
  }
  if (stats.length === 0) return { ...base, lower: null, upper: null, defined: 0 };
  const sorted = Float64Array.from(stats).sort();
  const alpha = (1 - confidence) / 2;
  return {
    ...base,
    lower: quantileSorted(sorted, alpha),
    upper: quantileSorted(sorted, 1 - alpha),
    defined: stats.length,
  };
}

/** Smallest n for which a subsampling interval is computed. */
export const MIN_ITEMS_FOR_SUBSAMPLING = 10;

export interface SubsamplingOptions extends ResamplingOptions {
  /** Items per subsample b (2 ≤ b < n); default max(2, round_half_even(n^0.7)). */
  subsampleSize?: number;
}

export interface SubsamplingResult {
  estimate: number | null;
  lower: number | null;
  upper: number | null;
  /** Why lower/upper are null. */
  reason?: string;
  n: number;
  subsampleSize: number;
  iterations: number;
  /** Subsamples on which the statistic was defined. */
  defined: number;
  seed: number;
  confidence: number;
}

/** Python's round() on a float: round half to even. */
export function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** The Politis–Romano rule-of-thumb subsample size max(2, round(n^0.7)). */
export function defaultSubsampleSize(n: number): number {
  return Math.max(2, roundHalfEven(n ** 0.7));
}

/**
 * Politis–Romano subsampling interval for a statistic of n items. `statistic(indices)` computes it on the items
 * with those indices (all of 0..n−1 for the point estimate). Each of `iterations` draws takes b indices without
 * replacement with CPython's `random.Random(seed).sample(range(n), b)`, so a seed reproduces the Python
 * reference's interval exactly. Undefined draws are dropped; with L defined values sorted, α = (1 − conf)/2,
 * lo = v[⌊αL⌋], hi = v[max(0, ⌊(1−α)L⌋ − 1)], s = √(b/n), CI = (θ + s(lo − mean), θ + s(hi − mean)).
 */
export function subsamplingCI(
  n: number,
  statistic: (indices: readonly number[]) => number | null,
  options: SubsamplingOptions = {},
): SubsamplingResult {
  const iterations = options.iterations ?? 1000;
  const confidence = options.confidence ?? 0.95;
  const seed = options.seed ?? freshSeed();
  checkConfidence(confidence);
  if (!Number.isInteger(iterations) || iterations < 1)
    throw new RangeError(`iterations must be ≥ 1, got ${iterations}`);
  const b = options.subsampleSize ?? defaultSubsampleSize(n);
  const all = Array.from({ length: n }, (_, i) => i);
  const base = { n, subsampleSize: b, iterations, seed, confidence, defined: 0 };
  const undefinedResult = (estimate: number | null, reason: string): SubsamplingResult => ({
    ...base,
    estimate,
    lower: null,
    upper: null,
    reason,
  });
  if (n < MIN_ITEMS_FOR_SUBSAMPLING) {
    const point = n > 0 ? statistic(all) : null;
    return undefinedResult(point, `subsampling needs at least ${MIN_ITEMS_FOR_SUBSAMPLING} items (n = ${n})`);
  }
  if (!Number.isInteger(b) || b < 2 || b >= n) {
    throw new RangeError(`subsample size must be an integer in [2, n) = [2, ${n}), got ${b}`);
  }
  const point = statistic(all);
  if (point === null || Number.isNaN(point))
    return undefinedResult(null, 'the statistic is undefined on all items');
  const rng = new MersenneTwister(seed);
  const values: number[] = [];
  for (let it = 0; it < iterations; it++) {
    const v = statistic(rng.sample(all, b));
    if (v !== null && !Number.isNaN(v)) values.push(v);
  }
  if (values.length === 0) {
    return { ...base, estimate: point, lower: point, upper: point, reason: 'every subsample was undefined' };
  }
  values.sort((x, y) => x - y);
  const alpha = (1 - confidence) / 2;
  const L = values.length;
  const lo = values[Math.floor(alpha * L)]!;
  const hi = values[Math.max(0, Math.floor((1 - alpha) * L) - 1)]!;
  const centre = pythonSum(values) / L;
  const scale = Math.sqrt(b / n);
  return {
    ...base,
    defined: L,
    estimate: point,
    lower: point + scale * (lo - centre),
    upper: point + scale * (hi - centre),
  };
}

/** Left-to-right float sum, as Python's built-in sum() over floats does (kept separate from mean for clarity). */
function pythonSum(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s;
}
