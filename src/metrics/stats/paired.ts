/**
 * Paired comparison of two models' scores on the same items (Miller 2024, "Adding Error Bars to Evals"):
 * d_i = a_i − b_i, d̄ its mean, SE = sd(d)/√n with n − 1 in the variance, a Student t CI and two-sided p with
 * n − 1 df; the clustered SE when items share a cluster; the minimum detectable effect at a given power.
 */
import { mean, variance } from './descriptive.js';
import { normalCdf, studentTQuantile, studentTTwoSided } from './student-t.js';
import { normalQuantile } from './normal.js';
import { mcnemarExact } from './mcnemar.js';

export interface TInference {
  se: number;
  df: number;
  ci: [number, number];
  p_value: number;
}

/**
 * The t CI and two-sided p of an estimate with standard error `se` and `df` degrees of freedom. Null when the t
 * statistic is undefined: se NaN, or se = 0 (no variance: t = estimate / 0 is no evidence, see exactSignTest).
 */
export function tInference(estimate: number, se: number, df: number, confidence = 0.95): TInference | null {
  if (!Number.isFinite(se) || !(se > 0) || !(df > 0)) return null;
  const q = studentTQuantile(1 - (1 - confidence) / 2, df);
  const p = studentTTwoSided(estimate / se, df);
  return { se, df, ci: [estimate - q * se, estimate + q * se], p_value: p };
}

export interface SignTest {
  /** Items with a positive difference (A above B), with a negative one; zero differences are left out. */
  positive: number;
  negative: number;
  p_value: number;
}

/**
 * The exact two-sided sign test of paired differences: under no difference each non-zero d_i is positive with
 * probability 1/2, p = min(1, 2·P(X ≤ min(pos, neg))), X ~ Binomial(pos + neg, 1/2). On 0/1 scores it is McNemar's
 * exact test. Used where the t test is undefined (every d_i equal, so sd(d) = 0).
 */
export function exactSignTest(d: ArrayLike<number>): SignTest {
  let positive = 0;
  let negative = 0;
  for (let i = 0; i < d.length; i++) {
    if (d[i]! > 0) positive++;
    else if (d[i]! < 0) negative++;
  }
  return { positive, negative, p_value: mcnemarExact(positive, negative) };
}

/** Pearson's correlation; null when either side is constant or n < 2. */
export function correlation(a: ArrayLike<number>, b: ArrayLike<number>): number | null {
  const n = a.length;
  if (n !== b.length) throw new RangeError('correlation: arrays differ in length');
  if (n < 2) return null;
  const ma = mean(a);
  const mb = mean(b);
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    const x = a[i]! - ma;
    const y = b[i]! - mb;
    sab += x * y;
    saa += x * x;
    sbb += y * y;
  }
  return saa === 0 || sbb === 0 ? null : sab / Math.sqrt(saa * sbb);
}

/** The smallest true difference a two-sided test at level α detects with the given power: (z_{1−α/2} + z_power)·SE (≈ 2.8·SE at α = 0.05, 80%). */
export function minimumDetectableEffect(se: number, alpha = 0.05, power = 0.8): number {
  return (normalQuantile(1 - alpha / 2) + normalQuantile(power)) * se;
}

export interface PairedTTest {
  n: number;
  mean_a: number;
  mean_b: number;
  difference: number;
  /** sd(d)/√n; null when n < 2. 0 when every difference is equal: then df, ci, t, p and mde are null. */
  se: number | null;
  df: number | null;
  ci: [number, number] | null;
  t: number | null;
  p_value: number | null;
  correlation: number | null;
  mde: number | null;
}

/** The paired t test of a − b (scipy's ttest_rel), with the t CI of the mean difference. */
export function pairedTTest(a: ArrayLike<number>, b: ArrayLike<number>, confidence = 0.95): PairedTTest {
  const n = a.length;
  if (n !== b.length) throw new RangeError('pairedTTest: arrays differ in length');
  if (n === 0) throw new RangeError('pairedTTest needs at least one pair');
  const d = new Float64Array(n);
  for (let i = 0; i < n; i++) d[i] = a[i]! - b[i]!;
  const difference = mean(d);
  // Every difference equal: sd(d) is 0 exactly (the float variance may leave a rounding residue).
  const constant = d.every((x) => x === d[0]);
  const se = n < 2 ? Number.NaN : constant ? 0 : Math.sqrt(variance(d, 1) / n);
  const inference = tInference(difference, se, n - 1, confidence);
  return {
    n,
    mean_a: mean(a),
    mean_b: mean(b),
    difference,
    se: inference?.se ?? (se === 0 ? 0 : null),
    df: inference?.df ?? null,
    ci: inference?.ci ?? null,
    t: inference && se > 0 ? difference / se : null,
    p_value: inference?.p_value ?? null,
    correlation: correlation(a, b),
    mde: inference ? minimumDetectableEffect(se) : null,
  };
}

export interface ClusteredInference extends TInference {
  clusters: number;
}

/**
 * The clustered (sandwich) SE of the mean difference: √(C/(C−1) · Σ_c (Σ_{i∈c} (d_i − d̄))²) / n with C clusters,
 * and the t CI and p with C − 1 df. `clusters[i]` names item i's cluster. Null with fewer than 2 clusters.
 */
export function clusteredInference(
  d: ArrayLike<number>,
  clusters: ArrayLike<string | number>,
  confidence = 0.95,
): ClusteredInference | null {
  const n = d.length;
  if (n !== clusters.length) throw new RangeError('clusteredInference: arrays differ in length');
  const dbar = mean(d);
  const sums = new Map<string | number, number>();
  for (let i = 0; i < n; i++) sums.set(clusters[i]!, (sums.get(clusters[i]!) ?? 0) + (d[i]! - dbar));
  const C = sums.size;
  if (C < 2) return null;
  let acc = 0;
  for (const s of sums.values()) acc += s * s;
  const se = Math.sqrt((C / (C - 1)) * acc) / n;
  const inference = tInference(dbar, se, C - 1, confidence);
  return inference && { clusters: C, ...inference };
}

export interface UnpairedComparison {
  difference: number;
  se: number | null;
  ci: [number, number] | null;
  p_value: number | null;
}

/**
 * Two independent estimates: difference a − b, SE = √(se_a² + se_b²), normal CI and two-sided p (z test).
 * SE, CI and p are null when either standard error is unknown; CI and p are null when both are 0.
 */
export function unpairedComparison(
  a: number,
  seA: number | null,
  b: number,
  seB: number | null,
  confidence = 0.95,
): UnpairedComparison {
  const difference = a - b;
  if (seA === null || seB === null || !Number.isFinite(seA) || !Number.isFinite(seB))
    return { difference, se: null, ci: null, p_value: null };
  const se = Math.sqrt(seA * seA + seB * seB);
  // Both standard errors 0: z = difference / 0 is undefined, not evidence.
  if (se === 0) return { difference, se, ci: null, p_value: null };
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const p = 2 * normalCdf(-Math.abs(difference / se));
  return { difference, se, ci: [difference - z * se, difference + z * se], p_value: p };
}
