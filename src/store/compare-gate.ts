/**
 * `compare BASELINE CANDIDATE --fail-if-worse`: the CI gate over compare's paired statistics. For each comparison,
 * "worse by" is the candidate's shortfall against the baseline in the metric's own direction (A − B when higher is
 * better, B − A when lower is), and a one-sided test asks whether it exceeds the margin: H0 "the candidate is at
 * most `margin` worse" against H1 "it is worse by more than `margin`". The evidence is the one compare already uses:
 * the paired t (the clustered t with --cluster-by), the exact sign test where every paired difference is equal, the
 * z test of two results without paired rows. Holm adjusts the gate's p-values across the call's comparisons; the
 * gate fails when any adjusted p is below α.
 *
 * A gate never passes on nothing: every benchmark and metric of the baseline must be tested on at least
 * `min_pairs` paired samples. A comparison with no possible test (`untested`), one paired on fewer samples
 * (`too few pairs`: an unpaired z test on two headline scores is not evidence the candidate held up item by item),
 * and a benchmark and metric the candidate lacks (`missing`) fail the gate unless `allow_untested`.
 */
import { UsageError } from '../errors.js';
import { holmAdjust } from '../metrics/stats/holm.js';
import { oneSidedSign, oneSidedT, oneSidedZ, type OneSided } from '../metrics/stats/one-sided.js';

export interface GateOptions {
  /** How much worse than the baseline the candidate may be, in the metric's units (default 0). */
  margin: number;
  /** The significance level of the one-sided test, after Holm's adjustment (default 0.05). */
  alpha: number;
  /** The fewest paired samples a comparison needs to count as tested (default DEFAULT_MIN_PAIRS). */
  min_pairs?: number;
  /**
   * Pass although some of the baseline's benchmarks and metrics were not tested (untested, missing, too few
   * pairs); the gate still fails on a comparison found worse. Default false: a gate never passes on nothing.
   */
  allow_untested?: boolean;
}

/** The fewest paired samples a comparison needs before the gate counts it as tested. */
export const DEFAULT_MIN_PAIRS = 10;

export const DEFAULT_GATE: GateOptions = { margin: 0, alpha: 0.05 };

/** Why the gate could not count a benchmark and metric of the baseline as tested. */
export type GateReason = 'untested' | 'missing' | 'too few pairs';

/** A benchmark and metric the baseline has and the candidate lacks. */
export interface MissingComparison {
  benchmark: string;
  metric: string;
}

/** The gate's outcome over one call. */
export interface GateReport {
  margin: number;
  alpha: number;
  min_pairs: number;
  allow_untested: boolean;
  /** True when a comparison is worse, or (without allow_untested) when anything was left untested. */
  failed: boolean;
  /** Why it failed ('worse' and the reasons of the untested), in this order; empty when it passed cleanly. */
  reasons: ('worse' | GateReason)[];
  /** The baseline's benchmarks and metrics the candidate lacks (reason 'missing'). */
  missing: MissingComparison[];
}

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
  /** Paired samples behind the test (0 when unpaired). */
  n_paired: number;
  /**
   * worse: significantly worse by more than the margin; untested: not counted as tested (see `reason`), which
   * fails the gate unless it allows untested comparisons.
   */
  verdict: 'worse' | 'not-worse' | 'untested';
  /** Why the verdict is untested: no test was possible, or fewer paired samples than min_pairs; else null. */
  reason: Exclude<GateReason, 'missing'> | null;
  /** The reason in words (null when tested). */
  detail: string | null;
}

/** The evidence one comparison offers the gate. */
export type GateEvidence =
  | { kind: 'paired'; d: number[]; se: number | null; df: number | null }
  | { kind: 'clustered'; d: number[]; se: number; df: number }
  | { kind: 'unpaired'; difference: number; se: number | null };

/**
 * The gate of one comparison (d = A − B, baseline minus candidate) on `nPaired` paired samples, before Holm:
 * untested when no test is possible or fewer than min_pairs samples pair (settleGates may still find it worse).
 */
export function gateOne(
  evidence: GateEvidence,
  lowerIsBetter: boolean,
  options: GateOptions,
  nPaired: number,
  why: string | null = null,
): GateResult {
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
  const minPairs = options.min_pairs ?? DEFAULT_MIN_PAIRS;
  const reason = result === null ? 'untested' : nPaired < minPairs ? 'too few pairs' : null;
  return {
    worse_by: worseBy,
    margin,
    test,
    p_value: result?.p_value ?? null,
    p_holm: null,
    lower_bound: result?.lower_bound ?? null,
    n_paired: nPaired,
    verdict: reason === null ? 'not-worse' : 'untested',
    reason,
    detail:
      reason === 'untested'
        ? `no test possible${why ? ` (${why})` : ''}`
        : reason === 'too few pairs'
          ? `too few pairs: ${nPaired} paired sample(s), fewer than ${minPairs}${why ? ` (${why})` : ''}`
          : null,
  };
}

/**
 * Holm across the gates of one call and each verdict (a comparison whose Holm-adjusted p is below α is worse, even
 * on few pairs), then the gate's outcome: failed when some comparison is worse, or, unless `allow_untested`, when a
 * comparison is untested or too thinly paired or a benchmark and metric of the baseline is missing from the
 * candidate.
 */
export function settleGates(
  gates: GateResult[],
  options: GateOptions,
  missing: MissingComparison[] = [],
): GateReport {
  const holm = holmAdjust(gates.map((g) => g.p_value));
  let worse = false;
  gates.forEach((g, i) => {
    g.p_holm = holm[i] ?? null;
    if (g.p_holm !== null && g.p_holm < options.alpha) {
      g.verdict = 'worse';
      g.reason = null;
      g.detail = null;
      worse = true;
    }
  });
  const reasons: GateReport['reasons'] = worse ? ['worse'] : [];
  for (const r of ['untested', 'too few pairs'] as const)
    if (gates.some((g) => g.verdict === 'untested' && g.reason === r)) reasons.push(r);
  if (missing.length > 0) reasons.push('missing');
  const allow = options.allow_untested ?? false;
  return {
    margin: options.margin,
    alpha: options.alpha,
    min_pairs: options.min_pairs ?? DEFAULT_MIN_PAIRS,
    allow_untested: allow,
    failed: worse || (!allow && reasons.length > 0),
    reasons,
    missing,
  };
}

/**
 * Refuses a margin the gate could never exceed: on a bounded metric the candidate is worse by at most the metric's
 * range (max − min), so a margin of the range or more makes the gate pass whatever the scores.
 */
export function checkMargin(
  margin: number,
  bounded: { benchmark: string; metric: string; range: number }[],
): void {
  const hit = bounded.find((b) => margin >= b.range);
  if (hit)
    throw new UsageError(
      'usage.bad-option',
      `--margin ${margin} is not below the range of ${hit.benchmark} · ${hit.metric} (${hit.range}): ` +
        'the candidate can never be worse by more than that, so the gate could never fail',
    );
}
