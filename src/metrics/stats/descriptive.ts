/** Descriptive statistics over plain number arrays. Empty input gives NaN (there is no mean of nothing). */

function sum(xs: ArrayLike<number>): number {
  let total = 0;
  for (let i = 0; i < xs.length; i++) total += xs[i]!;
  return total;
}

export function mean(xs: ArrayLike<number>): number {
  return xs.length === 0 ? Number.NaN : sum(xs) / xs.length;
}

/** Variance with `ddof` delta degrees of freedom (1 = sample variance, 0 = population variance), two-pass. */
export function variance(xs: ArrayLike<number>, ddof = 1): number {
  const n = xs.length;
  if (n - ddof <= 0) return Number.NaN;
  const m = mean(xs);
  let acc = 0;
  for (let i = 0; i < n; i++) {
    const d = xs[i]! - m;
    acc += d * d;
  }
  return acc / (n - ddof);
}

export function standardDeviation(xs: ArrayLike<number>, ddof = 1): number {
  return Math.sqrt(variance(xs, ddof));
}

/**
 * Quantile by linear interpolation between order statistics (Hyndman & Fan type 7, numpy's default):
 * h = (n − 1)·p, q = x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]). The input need not be sorted.
 */
export function quantileType7(xs: ArrayLike<number>, p: number): number {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`quantile p must be in [0, 1], got ${p}`);
  const n = xs.length;
  if (n === 0) return Number.NaN;
  const sorted = Float64Array.from(xs).sort();
  return quantileSorted(sorted, p);
}

/** Type-7 quantile of an already ascending-sorted array. */
export function quantileSorted(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const h = (n - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  const lower = sorted[lo]!;
  return lower + (h - lo) * (sorted[hi]! - lower);
}
