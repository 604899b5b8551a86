/**
 * The report's construct-validity verdict, with every reason that led to it. The rule (evalkit's, stated in the
 * report so a reader can disagree with it):
 * - "not supported" when κ_C is undefined or below 0.40, or the CI's upper bound is below 0.40;
 * - "supported" when κ_C ≥ 0.60, the CI is known and its lower bound ≥ 0.40, coverage ≥ 0.80, at least 10
 *   substantive items, and no supplied retest or sweep evidence contradicts it (retest κ < 0.60, κ range ≥ 0.10);
 * - "inconclusive" otherwise.
 * Thresholds follow the usual reading of κ (Landis & Koch: 0.41–0.60 moderate, 0.61–0.80 substantial) and the
 * retest / sweep interpretation bands of the infereval spec.
 */
export type VerdictLabel = 'supported' | 'inconclusive' | 'not supported';

export interface ConstructVerdict {
  label: VerdictLabel;
  reasons: string[];
}

export interface VerdictInput {
  kappa: number | null;
  ci: { lo: number; hi: number } | null;
  coverage: number;
  nSubstantive: number;
  /** undefined: no retest supplied; null: supplied but κ undefined. */
  retestKappa?: number | null;
  sweepRange?: number | null;
}

export function decideVerdict(v: VerdictInput): ConstructVerdict {
  const against: string[] = [];
  const weak: string[] = [];
  const support: string[] = [];
  if (v.kappa === null)
    against.push("Cohen's κ against the reference is undefined (no substantive overlap).");
  else if (v.kappa < 0.4) against.push(`Cohen's κ = ${v.kappa.toFixed(3)} is below 0.40.`);
  else if (v.kappa < 0.6) weak.push(`Cohen's κ = ${v.kappa.toFixed(3)} is only moderate (0.40–0.60).`);
  else support.push(`Cohen's κ = ${v.kappa.toFixed(3)} ≥ 0.60.`);
  if (v.ci === null) weak.push('No confidence interval: the precision of κ is unknown.');
  else if (v.ci.hi < 0.4) against.push(`The CI's upper bound ${v.ci.hi.toFixed(3)} is below 0.40.`);
  else if (v.ci.lo < 0.4) weak.push(`The CI's lower bound ${v.ci.lo.toFixed(3)} is below 0.40.`);
  else support.push(`The CI's lower bound ${v.ci.lo.toFixed(3)} ≥ 0.40.`);
  if (v.coverage < 0.8)
    weak.push(`Coverage ${v.coverage.toFixed(3)} is below 0.80: the model abstains often.`);
  else support.push(`Coverage ${v.coverage.toFixed(3)} ≥ 0.80.`);
  if (v.nSubstantive < 10) weak.push(`Only ${v.nSubstantive} substantive items (< 10).`);
  if (v.retestKappa === null) weak.push('Test–retest κ is undefined.');
  else if (v.retestKappa !== undefined) {
    if (v.retestKappa < 0.6)
      weak.push(`Test–retest κ = ${v.retestKappa.toFixed(3)} < 0.60: the verdicts are unstable.`);
    else support.push(`Test–retest κ = ${v.retestKappa.toFixed(3)} ≥ 0.60.`);
  } else weak.push('No test–retest evidence supplied.');
  if (v.sweepRange !== undefined && v.sweepRange !== null) {
    if (v.sweepRange >= 0.1) weak.push(`κ varies by ${v.sweepRange.toFixed(3)} across the sweep (≥ 0.10).`);
    else support.push(`κ varies by only ${v.sweepRange.toFixed(3)} across the sweep.`);
  }
  if (against.length > 0) return { label: 'not supported', reasons: [...against, ...weak] };
  // Missing retest evidence alone does not block "supported"; say so among the reasons.
  const blocking = weak.filter((w) => !w.startsWith('No test–retest'));
  if (blocking.length > 0)
    return {
      label: 'inconclusive',
      reasons: [...blocking, ...support, ...weak.filter((w) => !blocking.includes(w))],
    };
  return { label: 'supported', reasons: [...support, ...weak] };
}
