// Structural checks of a model's verdicts against the shape of the benchmark:
// - containment: an item whose conclusion is among its premises is a good inference; the model should say so;
// - RSR role consistency: within one rsr_target (X ⊢ A), items tagged supporter / defeater / irrelevant-addition
//   should relate to the model's own verdict on the base case as the role says;
// - base-case stability: each base case (X ⊢ A itself) should get a decisive verdict that matches the analysts;
// - thin-margin agreement: how many of the model's agreements with the analysts rest on a thin sample margin.
import { compareCodePoints } from '../../io/canonical.js';
import {
  consensusVerdict,
  isInstrumentFailure,
  isSubstantive,
  type BenchmarkLike,
  type EvaluationLike,
  type ItemLike,
  type Verdict,
} from './model.js';
import { verdictDistribution } from './vote.js';

export type CheckStatus = 'pass' | 'fail' | 'not-applicable';
export const RSR_ROLES = ['supporter', 'defeater', 'irrelevant-addition'] as const;
export type RsrRole = (typeof RSR_ROLES)[number];
export const BASE_TAG = 'base-inference';

export interface ContainmentCheck {
  status: CheckStatus;
  n_items: number;
  n_endorsed: number;
  violations: { item_id: string; verdict: Verdict }[];
}

export interface RoleFinding {
  item_id: string;
  role: RsrRole;
  base_item_id: string | null;
  base_verdict: Verdict | null;
  verdict: Verdict;
  outcome: 'consistent' | 'inconsistent' | 'undetermined';
  explanation: string;
}

export interface RoleConsistencyCheck {
  status: CheckStatus;
  n_items: number;
  n_consistent: number;
  n_inconsistent: number;
  n_undetermined: number;
  findings: RoleFinding[];
}

export interface BaseCaseFinding {
  item_id: string;
  rsr_target: { X: string[]; A: string[] };
  verdict: Verdict;
  consensus: Verdict;
  margin: number;
  tie_broken: boolean;
  stable: boolean;
  problems: string[];
}

export interface BaseCaseCheck {
  status: CheckStatus;
  n_base_cases: number;
  n_stable: number;
  findings: BaseCaseFinding[];
}

export interface ThinMarginCheck {
  status: CheckStatus;
  threshold: number;
  n_agreements: number;
  n_thin: number;
  fraction_thin: number;
  thin_items: { item_id: string; margin: number }[];
}

export interface StructureReport {
  evaluation_id: string | null;
  benchmark_id: string | null;
  containment: ContainmentCheck;
  rsr_role_consistency: RoleConsistencyCheck;
  base_case_stability: BaseCaseCheck;
  thin_margin_agreement: ThinMarginCheck;
  n_failed_checks: number;
  /** Items whose every sample failed: undetermined in every check, never read as the model abstaining. */
  instrument_failures: string[];
}

export interface StructureOptions {
  thinMarginThreshold?: number;
  /** Fraction of thin agreements above which the thin-margin check fails (default 0.25). */
  maxThinFraction?: number;
}

const setKey = (xs: readonly string[]): string => JSON.stringify([...new Set(xs)].sort(compareCodePoints));

function containment(
  items: readonly ItemLike[],
  premisesOf: (it: ItemLike) => readonly string[],
  conclusionsOf: (it: ItemLike) => readonly string[],
): ContainmentCheck {
  const contained = items.filter((it) => {
    const premises = new Set(premisesOf(it));
    return conclusionsOf(it).some((c) => premises.has(c));
  });
  const violations = contained
    .filter((it) => it.model_verdict !== 'good')
    .map((it) => ({ item_id: it.id, verdict: it.model_verdict }));
  return {
    status: contained.length === 0 ? 'not-applicable' : violations.length === 0 ? 'pass' : 'fail',
    n_items: contained.length,
    n_endorsed: contained.length - violations.length,
    violations,
  };
}

function judgeRole(
  role: RsrRole,
  base: Verdict | null,
  verdict: Verdict,
  failed: { item: boolean; base: boolean },
): [RoleFinding['outcome'], string] {
  if (base === null) return ['undetermined', 'no base case (X ⊢ A) in the evaluation for this rsr_target'];
  if (failed.item) return ['undetermined', 'every sample of this item failed (instrument failure)'];
  if (failed.base) return ['undetermined', 'every sample of the base case failed (instrument failure)'];
  if (!isSubstantive(verdict)) return ['undetermined', 'the model abstained on this item'];
  if (!isSubstantive(base)) return ['undetermined', 'the model abstained on the base case'];
  switch (role) {
    case 'irrelevant-addition':
      return verdict === base
        ? ['consistent', `keeps the base verdict ${base}`]
        : ['inconsistent', `an irrelevant addition changed the verdict from ${base} to ${verdict}`];
    case 'defeater':
      if (base !== 'good') return ['undetermined', 'the base case is bad, so there is nothing to defeat'];
      return verdict === 'bad'
        ? ['consistent', 'defeats the good base inference']
        : ['inconsistent', 'a defeater left the inference good'];
    case 'supporter':
      return verdict === 'good'
        ? ['consistent', 'the supported inference is good']
        : ['inconsistent', 'a supporter left the inference bad'];
  }
}

export function structure(
  eta: EvaluationLike,
  benchmark: BenchmarkLike,
  options: StructureOptions = {},
): StructureReport {
  const threshold = options.thinMarginThreshold ?? 0.4;
  const maxThin = options.maxThinFraction ?? 0.25;
  const benchById = new Map(benchmark.items.map((bi) => [bi.id, bi]));
  const items = eta.items;
  const failedIds = new Set(items.filter(isInstrumentFailure).map((it) => it.id));
  const premisesOf = (it: ItemLike): readonly string[] => benchById.get(it.id)?.premises ?? it.premises ?? [];
  const conclusionsOf = (it: ItemLike): readonly string[] =>
    benchById.get(it.id)?.conclusions ?? it.conclusions ?? [];
  const tagsOf = (it: ItemLike): readonly string[] => it.tags ?? benchById.get(it.id)?.tags ?? [];

  // Group the evaluation's items by their benchmark rsr_target.
  const groups = new Map<string, { X: string[]; A: string[]; items: ItemLike[] }>();
  for (const it of items) {
    const target = benchById.get(it.id)?.rsr_target;
    if (!target) continue;
    const key = `${setKey(target.X)}⊢${setKey(target.A)}`;
    let g = groups.get(key);
    if (!g) {
      g = {
        X: [...new Set(target.X)].sort(compareCodePoints),
        A: [...new Set(target.A)].sort(compareCodePoints),
        items: [],
      };
      groups.set(key, g);
    }
    g.items.push(it);
  }

  const findings: RoleFinding[] = [];
  const baseFindings: BaseCaseFinding[] = [];
  for (const g of groups.values()) {
    const isBase = (it: ItemLike): boolean =>
      tagsOf(it).includes(BASE_TAG) ||
      (setKey(premisesOf(it)) === setKey(g.X) && setKey(conclusionsOf(it)) === setKey(g.A));
    const base = g.items.find(isBase) ?? null;
    if (base) {
      const d = verdictDistribution(base);
      const consensus = consensusVerdict(base.analyst_verdicts);
      const problems: string[] = [];
      if (failedIds.has(base.id)) problems.push('every sample failed (instrument failure)');
      else if (!isSubstantive(base.model_verdict)) problems.push('the model abstained');
      else if (isSubstantive(consensus) && base.model_verdict !== consensus) {
        problems.push(`the model says ${base.model_verdict}, the analysts ${consensus}`);
      }
      if (d.tie_broken) problems.push('the majority vote needed a tie-break');
      else if (d.n_samples > 0 && d.margin < threshold)
        problems.push(`thin sample margin ${d.margin.toFixed(2)} < ${threshold}`);
      baseFindings.push({
        item_id: base.id,
        rsr_target: { X: g.X, A: g.A },
        verdict: base.model_verdict,
        consensus,
        margin: d.margin,
        tie_broken: d.tie_broken,
        stable: problems.length === 0,
        problems,
      });
    }
    for (const it of g.items) {
      if (it === base) continue;
      const role = RSR_ROLES.find((r) => tagsOf(it).includes(r));
      if (!role) continue;
      const [outcome, explanation] = judgeRole(role, base?.model_verdict ?? null, it.model_verdict, {
        item: failedIds.has(it.id),
        base: base !== null && failedIds.has(base.id),
      });
      findings.push({
        item_id: it.id,
        role,
        base_item_id: base?.id ?? null,
        base_verdict: base?.model_verdict ?? null,
        verdict: it.model_verdict,
        outcome,
        explanation,
      });
    }
  }
  const nInconsistent = findings.filter((f) => f.outcome === 'inconsistent').length;
  const roleCheck: RoleConsistencyCheck = {
    status: findings.length === 0 ? 'not-applicable' : nInconsistent > 0 ? 'fail' : 'pass',
    n_items: findings.length,
    n_consistent: findings.filter((f) => f.outcome === 'consistent').length,
    n_inconsistent: nInconsistent,
    n_undetermined: findings.filter((f) => f.outcome === 'undetermined').length,
    findings,
  };
  const nStable = baseFindings.filter((f) => f.stable).length;
  const baseCheck: BaseCaseCheck = {
    status: baseFindings.length === 0 ? 'not-applicable' : nStable === baseFindings.length ? 'pass' : 'fail',
    n_base_cases: baseFindings.length,
    n_stable: nStable,
    findings: baseFindings,
  };

  const agreements = items.filter(
    (it) => isSubstantive(it.model_verdict) && it.model_verdict === consensusVerdict(it.analyst_verdicts),
  );
  const thinItems = agreements
    .map((it) => ({ item: it, d: verdictDistribution(it) }))
    .filter(({ d }) => d.n_samples > 0 && d.margin < threshold)
    .map(({ item, d }) => ({ item_id: item.id, margin: d.margin }));
  const fractionThin = agreements.length === 0 ? 0 : thinItems.length / agreements.length;
  const thinCheck: ThinMarginCheck = {
    status: agreements.length === 0 ? 'not-applicable' : fractionThin > maxThin ? 'fail' : 'pass',
    threshold,
    n_agreements: agreements.length,
    n_thin: thinItems.length,
    fraction_thin: fractionThin,
    thin_items: thinItems,
  };
  const contain = containment(items, premisesOf, conclusionsOf);
  const checks = [contain, roleCheck, baseCheck, thinCheck];
  return {
    evaluation_id: eta.id ?? null,
    benchmark_id: benchmark.id ?? eta.benchmark_id ?? null,
    containment: contain,
    rsr_role_consistency: roleCheck,
    base_case_stability: baseCheck,
    thin_margin_agreement: thinCheck,
    n_failed_checks: checks.filter((c) => c.status === 'fail').length,
    instrument_failures: [...failedIds],
  };
}
