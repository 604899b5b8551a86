/**
 * The confidence interval of the difference of two paired proportions, p_A − p_B, from the paired 2×2 table of
 * 0/1 scores: Newcombe's hybrid score interval (Newcombe 1998, "Improved confidence intervals for the difference
 * between binomial proportions based on paired data", Statistics in Medicine 17:2635–2650, method 10). It combines
 * the Wilson score intervals of the two marginal proportions with their estimated correlation φ, so it never leaves
 * [−1, 1] and, unlike the paired t interval, stays honest at small n and near 0 or 1.
 *
 * With p1 = (both + aOnly)/n, p2 = (both + bOnly)/n, (l1, u1) and (l2, u2) their Wilson limits, and
 * φ = C/√((both+aOnly)(bOnly+neither)(both+bOnly)(aOnly+neither)) where A = both·neither − aOnly·bOnly and
 * C = A − n/2 when A > n/2, 0 when 0 ≤ A ≤ n/2, A when A < 0 (φ = 0 when a margin is empty):
 *   L = D − √((p1 − l1)² − 2φ(p1 − l1)(u2 − p2) + (u2 − p2)²)
 *   U = D + √((p2 − l2)² − 2φ(p2 − l2)(u1 − p1) + (u1 − p1)²),  D = p1 − p2.
 */
import { wilsonInterval, type Interval } from './intervals.js';

export interface PairedTable {
  /** Items both got right (1, 1). */
  both: number;
  /** A right, B wrong (1, 0). */
  aOnly: number;
  /** B right, A wrong (0, 1). */
  bOnly: number;
  /** Both wrong (0, 0). */
  neither: number;
}

/** The paired 2×2 table of two equally long 0/1 score lists; null when a value is neither 0 nor 1. */
export function pairedTable(a: ArrayLike<number>, b: ArrayLike<number>): PairedTable | null {
  if (a.length !== b.length) throw new RangeError('pairedTable: arrays differ in length');
  const t: PairedTable = { both: 0, aOnly: 0, bOnly: 0, neither: 0 };
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if ((x !== 0 && x !== 1) || (y !== 0 && y !== 1)) return null;
    if (x === 1 && y === 1) t.both++;
    else if (x === 1) t.aOnly++;
    else if (y === 1) t.bOnly++;
    else t.neither++;
  }
  return t;
}

/** Newcombe's hybrid score interval of p_A − p_B (method 10 of Newcombe 1998). Throws on n = 0. */
export function newcombePairedInterval(t: PairedTable, confidence = 0.95): Interval {
  const counts = [t.both, t.aOnly, t.bOnly, t.neither];
  if (!counts.every((c) => Number.isInteger(c) && c >= 0))
    throw new RangeError(
      `newcombePairedInterval: counts must be non-negative integers, got ${counts.join(', ')}`,
    );
  const n = t.both + t.aOnly + t.bOnly + t.neither;
  if (n === 0) throw new RangeError('newcombePairedInterval needs at least one pair');
  const x1 = t.both + t.aOnly;
  const x2 = t.both + t.bOnly;
  const p1 = x1 / n;
  const p2 = x2 / n;
  const w1 = wilsonInterval(x1, n, confidence);
  const w2 = wilsonInterval(x2, n, confidence);
  const margins = x1 * (n - x1) * x2 * (n - x2);
  let phi = 0;
  if (margins > 0) {
    const A = t.both * t.neither - t.aOnly * t.bOnly;
    const C = A > n / 2 ? A - n / 2 : A >= 0 ? 0 : A;
    phi = C / Math.sqrt(margins);
  }
  const d = p1 - p2;
  const lowA = p1 - w1.lower;
  const upA = w1.upper - p1;
  const lowB = p2 - w2.lower;
  const upB = w2.upper - p2;
  const lower = d - Math.sqrt(Math.max(0, lowA * lowA - 2 * phi * lowA * upB + upB * upB));
  const upper = d + Math.sqrt(Math.max(0, lowB * lowB - 2 * phi * lowB * upA + upA * upA));
  return { lower: Math.max(-1, lower), upper: Math.min(1, upper) };
}
