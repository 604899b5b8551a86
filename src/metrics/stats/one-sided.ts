/**
 * One-sided tests that an effect exceeds a margin: H0 "effect ≤ margin" against H1 "effect > margin". The CI gate
 * of `compare --fail-if-worse` asks whether a candidate is worse than its baseline by more than a margin; each
 * function here answers that for one kind of evidence (a t statistic, paired signs, a z statistic).
 */
import { binomialHalfCdf } from './mcnemar.js';
import { normalCdf, studentTCdf, studentTQuantile } from './student-t.js';
import { normalQuantile } from './normal.js';

export interface OneSided {
  /** P(statistic ≥ observed | effect = margin). */
  p_value: number;
  /** The lower (1 − α) confidence bound of the effect (null for the sign test, which has none). */
  lower_bound: number | null;
}

/** t = (estimate − margin)/se with df degrees of freedom; null when the t statistic is undefined (se 0 or NaN). */
export function oneSidedT(
  estimate: number,
  se: number,
  df: number,
  margin: number,
  alpha: number,
): OneSided | null {
  if (!Number.isFinite(se) || !(se > 0) || !(df > 0)) return null;
  const t = (estimate - margin) / se;
  return { p_value: studentTCdf(-t, df), lower_bound: estimate - studentTQuantile(1 - alpha, df) * se };
}

/** z = (estimate − margin)/se against the standard normal; null when se is 0 or unknown. */
export function oneSidedZ(
  estimate: number,
  se: number | null,
  margin: number,
  alpha: number,
): OneSided | null {
  if (se === null || !Number.isFinite(se) || !(se > 0)) return null;
  return {
    p_value: normalCdf(-(estimate - margin) / se),
    lower_bound: estimate - normalQuantile(1 - alpha) * se,
  };
}

/**
 * The exact one-sided sign test of paired effects against a margin: under H0 each effect that differs from the
 * margin exceeds it with probability at most 1/2, so p = P(X ≥ above), X ~ Binomial(above + below, 1/2); 1 when no
 * effect differs from the margin. Used where the t statistic is undefined (every paired effect equal).
 */
export function oneSidedSign(
  effects: ArrayLike<number>,
  margin: number,
): OneSided & { above: number; below: number } {
  let above = 0;
  let below = 0;
  for (let i = 0; i < effects.length; i++) {
    if (effects[i]! > margin) above++;
    else if (effects[i]! < margin) below++;
  }
  const n = above + below;
  // P(X ≥ above) = P(X ≤ below) by the symmetry of Binomial(n, 1/2).
  return { above, below, p_value: n === 0 ? 1 : binomialHalfCdf(below, n), lower_bound: null };
}
