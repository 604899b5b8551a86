import { DataError } from '../../errors.js';
import { mean, quantileSorted, standardDeviation } from '../stats/descriptive.js';
import { wilsonInterval } from '../stats/intervals.js';
import { createRng } from '../stats/rng.js';
import { binomial } from './binomial.js';

/** Above this many distinct values the mean bootstrap resamples items directly instead of drawing counts. */
const MAX_DISTINCT_FOR_COUNTS = 64;

export interface MeanBootstrapOptions {
  iterations?: number;
  seed?: number;
  confidence?: number;
}

export interface MeanBootstrapResult {
  lower: number;
  upper: number;
  iterations: number;
  seed: number;
  confidence: number;
}

/**
 * Percentile bootstrap CI of the mean (seeded sfc32 generator, type-7 quantiles at α/2 and 1 − α/2 — the same
 * convention as stats' `bootstrapPercentile`). Resampling n items with replacement from data with few distinct
 * values is a multinomial draw of how often each value is picked, done exactly as a chain of binomial draws, so a
 * resample of 100,000 binary scores costs one binomial draw; with many distinct values items are drawn directly.
 */
export function meanBootstrap(
  values: ArrayLike<number>,
  options: MeanBootstrapOptions = {},
): MeanBootstrapResult {
  const n = values.length;
  const iterations = options.iterations ?? 10000;
  const seed = options.seed ?? 0;
  const confidence = options.confidence ?? 0.95;
  if (!(confidence > 0 && confidence < 1))
    throw new RangeError(`confidence must be in (0, 1), got ${confidence}`);
  if (n === 0) throw new RangeError('meanBootstrap needs at least one value');
  if (!(Number.isInteger(iterations) && iterations >= 1))
    throw new RangeError('iterations must be a positive integer');
  const rng = createRng(seed);
  const means = new Float64Array(iterations);

  const counts = new Map<number, number>();
  for (let i = 0; i < n && counts.size <= MAX_DISTINCT_FOR_COUNTS; i++) {
    counts.set(values[i], (counts.get(values[i]) ?? 0) + 1);
  }
  if (counts.size <= MAX_DISTINCT_FOR_COUNTS) {
    const distinct = [...counts.keys()].sort((a, b) => a - b);
    const weights = distinct.map((v) => counts.get(v)!);
    for (let b = 0; b < iterations; b++) {
      let remaining = n;
      let remainingWeight = n;
      let total = 0;
      for (let j = 0; j < distinct.length - 1 && remaining > 0; j++) {
        const c = binomial(rng, remaining, weights[j] / remainingWeight);
        total += c * distinct[j];
        remaining -= c;
        remainingWeight -= weights[j];
      }
      total += remaining * distinct[distinct.length - 1];
      means[b] = total / n;
    }
  } else {
    for (let b = 0; b < iterations; b++) {
      let total = 0;
      for (let i = 0; i < n; i++) total += values[Math.floor(rng() * n)];
      means[b] = total / n;
    }
  }
  means.sort();
  const alpha = (1 - confidence) / 2;
  return {
    lower: quantileSorted(means, alpha),
    upper: quantileSorted(means, 1 - alpha),
    iterations,
    seed,
    confidence,
  };
}

export interface UncertaintyOptions {
  iterations?: number;
  seed?: number;
  confidence?: number;
}

/** Everything evalkit knows about the uncertainty of a mean score, before it is written in EEE's shape. */
export interface ScoreUncertainty {
  num_samples: number;
  mean: number;
  /** Sample standard deviation (n − 1); null with fewer than 2 scores. */
  standard_deviation: number | null;
  /** Analytic SE = sd / √n; null with fewer than 2 scores. */
  standard_error: number | null;
  /** True when every score is 0 or 1. */
  binary: boolean;
  /** Wilson score interval (binary scores only). */
  wilson?: { lower: number; upper: number; confidence_level: number };
  bootstrap: { lower: number; upper: number; confidence_level: number; iterations: number; seed: number };
}

/**
 * Above this magnitude the squares in the variance (and sums of many scores) could overflow: the scores are then
 * scaled by a power of two (exact in binary floating point), summarised, and the figures scaled back.
 */
const SCALE_ABOVE = 2 ** 480;

export function scoreUncertainty(
  values: ArrayLike<number>,
  options: UncertaintyOptions = {},
): ScoreUncertainty {
  let largest = 0;
  for (let i = 0; i < values.length; i++) largest = Math.max(largest, Math.abs(values[i]));
  if (largest > SCALE_ABOVE) {
    const shift = Math.ceil(Math.log2(largest)) + 8; // the scaled scores are at most 2^-8 in magnitude
    const scaled = Float64Array.from(values, (v) => v * 2 ** -shift);
    const u = scoreUncertaintyOf(scaled, options);
    // (two factors: 2^shift alone can be beyond the largest float)
    const back = (x: number): number => x * 2 ** Math.floor(shift / 2) * 2 ** Math.ceil(shift / 2);
    const out: ScoreUncertainty = {
      ...u,
      mean: back(u.mean),
      standard_deviation: u.standard_deviation === null ? null : back(u.standard_deviation),
      standard_error: u.standard_error === null ? null : back(u.standard_error),
      bootstrap: { ...u.bootstrap, lower: back(u.bootstrap.lower), upper: back(u.bootstrap.upper) },
    };
    for (const x of [
      out.mean,
      out.standard_deviation ?? 0,
      out.standard_error ?? 0,
      out.bootstrap.lower,
      out.bootstrap.upper,
    ])
      if (!Number.isFinite(x))
        throw new DataError(
          'eee.stats.overflow',
          `the scores (up to ${largest}) are too large: their spread overflows a 64-bit float`,
        );
    return out;
  }
  return scoreUncertaintyOf(values, options);
}

function scoreUncertaintyOf(values: ArrayLike<number>, options: UncertaintyOptions): ScoreUncertainty {
  const n = values.length;
  if (n === 0) throw new RangeError('no scores');
  const confidence = options.confidence ?? 0.95;
  const sd = n >= 2 ? standardDeviation(values, 1) : null;
  let binary = true;
  let ones = 0;
  for (let i = 0; i < n; i++) {
    if (values[i] === 1) ones++;
    else if (values[i] !== 0) binary = false;
  }
  const boot = meanBootstrap(values, { iterations: options.iterations, seed: options.seed, confidence });
  const out: ScoreUncertainty = {
    num_samples: n,
    mean: mean(values),
    standard_deviation: sd,
    standard_error: sd === null ? null : sd / Math.sqrt(n),
    binary,
    bootstrap: {
      lower: boot.lower,
      upper: boot.upper,
      confidence_level: confidence,
      iterations: boot.iterations,
      seed: boot.seed,
    },
  };
  if (binary) out.wilson = { ...wilsonInterval(ones, n, confidence), confidence_level: confidence };
  return out;
}
