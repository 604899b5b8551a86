/** McNemar's exact test: the two-sided binomial test of the discordant pairs (b = A right B wrong, c = the reverse). */
import { lnGamma } from './special.js';

/**
 * P(X ≤ k) for X ~ Binomial(n, 1/2), summed in log space from k downward until the terms no longer matter
 * (so n in the millions costs O(√n) terms).
 */
export function binomialHalfCdf(k: number, n: number): number {
  if (k < 0) return 0;
  if (k >= n) return 1;
  const logNorm = lnGamma(n + 1) - n * Math.LN2;
  const logTerm = (j: number) => logNorm - lnGamma(j + 1) - lnGamma(n - j + 1);
  const top = logTerm(k);
  let sum = 0;
  for (let j = k; j >= 0; j--) {
    const r = Math.exp(logTerm(j) - top);
    sum += r;
    if (r < 1e-17 * sum) break;
  }
  return Math.exp(top) * sum;
}

/** Two-sided exact McNemar p-value: min(1, 2·P(X ≤ min(b, c))) with X ~ Binomial(b + c, 1/2); 1 when b + c = 0. */
export function mcnemarExact(b: number, c: number): number {
  if (!(Number.isInteger(b) && Number.isInteger(c) && b >= 0 && c >= 0))
    throw new RangeError(`mcnemarExact: counts must be non-negative integers, got ${b}, ${c}`);
  if (b + c === 0) return 1;
  if (b === c) return 1;
  return Math.min(1, 2 * binomialHalfCdf(Math.min(b, c), b + c));
}
