/**
 * `compare BASELINE CANDIDATE --fail-if-worse`: the CI gate over compare's paired statistics. For each comparison,
 * "worse by" is the candidate's shortfall against the baseline in the metric's own direction (A − B when higher is
 * better, B − A when lower is), and a one-sided test asks whether it exceeds the margin: H0 "the candidate is at
 * most `margin` worse" against H1 "it is worse by more than `margin`". The evidence is the one compare already uses:
 * the paired t (the clustered t with --cluster-by), the exact sign test where every paired difference is equal, the
 * z test of two results without paired rows. Holm adjusts the gate's p-values across the call's comparisons; the
 * gate fails when any adjusted p is below α.
 */
import { holmAdjust } from '../metrics/stats/holm.js';
import { oneSidedSign, oneSidedT, oneSidedZ, type OneSided } from '../metrics/stats/one-sided.js';

export interface GateOptions {
  /** How much worse than the baseline the candidate may be, in the metric's units (default 0). */
  margin: number;
  /** The significance level of the one-sided test, after Holm's adjustment (default 0.05). */
  alpha: number;
}

export const DEFAULT_GATE: GateOptions = { margin: 0, alpha: 0.05 };

/** One comparison's gate. */
export interface GateResult {
  /** How much worse the candidate (B) is than the baseline (A) in the metric's direction; negative is better. */
  worse_by: number;
  margin: number;
  /** 'clustered-t' with --cluster-by, 'sign-exact' where every paired difference is equal, 'z' when unpaired. */
  test: 't' | 'clustered-t' | 'sign-exact' | 'z' | null;
  /** The one-sided p-value of H0 "worse_by ≤ margin" (null: no test possible). */
  p_value: number | null;
  /** Holm-adjusted across the call's comparisons. */
  p_holm: number | null;
  /** The lower (1 − α) confidence bound of worse_by (unadjusted; null for the sign test or without a test). */
  lower_bound: number | null;
  /** worse: significantly worse by more than the margin; untested: no test was possible (it does not fail). */
  verdict: 'worse' | 'not-worse' | 'untested';
}

/** The evidence one comparison offers the gate. */
export type GateEvidence =
  | { kind: 'paired'; d: number[]; se: number | null; df: number | null }
  | { kind: 'clustered'; d: number[]; se: number; df: number }
  | { kind: 'unpaired'; difference: number; se: number | null };

/** The gate of one comparison (d = A − B, baseline minus candidate), before Holm. */
export function gateOne(evidence: GateEvidence, lowerIsBetter: boolean, options: GateOptions): GateResult {
  const sign = lowerIsBetter ? -1 : 1;
  const { margin, alpha } = options;
  let worseBy: number;
  let test: GateResult['test'] = null;
  let result: OneSided | null = null;
  if (evidence.kind === 'unpaired') {
    worseBy = sign * evidence.difference;
    result = oneSidedZ(worseBy, evidence.se, margin, alpha);
    if (result) test = 'z';
  } else {
    const effects = evidence.d.map((x) => sign * x);
    worseBy = effects.reduce((s, x) => s + x, 0) / effects.length;
    if (evidence.se === 0 || evidence.se === null || evidence.df === null) {
      if (effects.length > 0) {
        result = oneSidedSign(effects, margin);
        test = 'sign-exact';
      }
    } else {
      result = oneSidedT(worseBy, evidence.se, evidence.df, margin, alpha);
      if (result) test = evidence.kind === 'clustered' ? 'clustered-t' : 't';
    }
  }
  return {
    worse_by: worseBy,
    margin,
    test,
    p_value: result?.p_value ?? null,
    p_holm: null,
    lower_bound: result?.lower_bound ?? null,
    verdict: result === null ? 'untested' : 'not-worse',
  };
}

/** Holm across the gates of one call and each verdict; true when the gate fails (some comparison is worse). */
export function settleGates(gates: GateResult[], alpha: number): boolean {
  const holm = holmAdjust(gates.map((g) => g.p_value));
  let failed = false;
  gates.forEach((g, i) => {
    g.p_holm = holm[i] ?? null;
    if (g.p_holm !== null && g.p_holm < alpha) {
      g.verdict = 'worse';
      failed = true;
    }
  });
  return failed;
}
