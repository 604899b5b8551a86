// The metrics of one evaluation η: coverage, consensus, Cohen's κ_C, Fleiss' κ_F, κ_F* (all analysts, per panel,
// primary panel), cross-panel κ, dispersion, decompositions by tag and RSR target, and the subsampling CI.
// The JSON shape keeps the reference implementation's key names.
import { compareCodePoints } from '../../io/canonical.js';
import { DataError, UsageError } from '../../errors.js';
import { cohensKappaResult, fleissKappaResult, type KappaResult } from '../stats/kappa.js';
import { subsamplingCI, type SubsamplingResult } from '../stats/intervals.js';
import {
  consensusVerdict,
  isInstrumentFailure,
  isSubstantive,
  type BenchmarkLike,
  type EvaluationLike,
  type ItemLike,
  type Verdict,
} from './model.js';
import { verdictDistribution, type VerdictDistribution } from './vote.js';

/** Cells whose substantive count is below this are flagged under-powered (the CI's minimum n as well). */
export const UNDER_POWERED_THRESHOLD = 10;
export const THIN_MARGIN_THRESHOLD = 0.4;

export interface RsrTargetSpec {
  X: string[];
  A: string[];
}

export interface CiOptions {
  iterations?: number;
  subsampleSize?: number;
  seed?: number;
  confidence?: number;
}

export interface MetricsOptions {
  benchmark?: BenchmarkLike;
  /** `consensus` (default), `analyst:<id>` (needs the benchmark) or `analyst:<0-based index>`. */
  reference?: string;
  byTag?: readonly string[];
  byRsrTarget?: readonly RsrTargetSpec[];
  /** Compute Politis–Romano subsampling CIs on κ_C and κ_F. */
  ci?: boolean | CiOptions;
  /** Weight κ_C (and the κ_F variant) by each item's plurality margin. */
  weightByMargin?: boolean;
  /** Leave out items whose every sample failed (instrument failure) before computing anything. */
  excludeFailed?: boolean;
  thinMarginThreshold?: number;
  /** Fill the per-item `verdict_distributions` (default true; false leaves it `{}` for very large evaluations). */
  includeVerdictDistributions?: boolean;
}

export interface ResolvedReference {
  spec: string;
  kind: 'consensus' | 'analyst';
  analystIndex: number | null;
  analystId: string | null;
  /** As the reference labels it: `consensus`, `analyst[0]`, with `,margin-weighted` when weighted. */
  label: string;
}

/** Parses `--reference` like the reference CLI: a numeric index is tried before an analyst id. */
export function resolveReference(
  spec: string,
  analystCount: number,
  benchmark: BenchmarkLike | undefined,
  weighted = false,
): ResolvedReference {
  const suffix = weighted ? ',margin-weighted' : '';
  if (spec === 'consensus') {
    return { spec, kind: 'consensus', analystIndex: null, analystId: null, label: `consensus${suffix}` };
  }
  if (!spec.startsWith('analyst:')) {
    throw new UsageError(
      'metrics.reference',
      `unknown reference ${JSON.stringify(spec)}: use "consensus", "analyst:<id>" or "analyst:<index>"`,
    );
  }
  const rest = spec.slice('analyst:'.length);
  let index: number;
  if (/^\s*[+-]?\d+\s*$/.test(rest)) {
    index = Number(rest.trim());
    if (index < 0 || index >= analystCount) {
      throw new UsageError(
        'metrics.reference',
        `analyst index ${index} is out of range: the evaluation has ${analystCount} analyst verdict(s) per item (0-based)`,
      );
    }
  } else {
    if (!benchmark) {
      throw new UsageError(
        'metrics.reference-needs-benchmark',
        `the reference analyst:${rest} names an analyst by id, which needs the benchmark to resolve the analyst id`,
      );
    }
    index = benchmark.analysts.findIndex((a) => a.id === rest);
    if (index < 0) {
      const known = benchmark.analysts.map((a) => a.id).join(', ');
      throw new UsageError(
        'metrics.reference',
        `no analyst with id ${JSON.stringify(rest)} (analysts: ${known})`,
      );
    }
  }
  const analystId = benchmark?.analysts[index]?.id ?? null;
  return { spec, kind: 'analyst', analystIndex: index, analystId, label: `analyst[${index}]${suffix}` };
}

function referenceVerdicts(items: readonly ItemLike[], ref: ResolvedReference): Verdict[] {
  return ref.kind === 'consensus'
    ? items.map((it) => consensusVerdict(it.analyst_verdicts))
    : items.map((it) => it.analyst_verdicts[ref.analystIndex!] ?? 'abstain');
}

export interface CiReport {
  lo: number;
  hi: number;
  estimate: number;
  subsample_size: number;
  iterations: number;
  defined: number;
  seed: number;
  confidence: number;
}

export interface AggregateDispersion {
  n_items: number;
  mean_entropy: number;
  mean_margin: number;
  n_thin_margin: number;
  fraction_thin_margin: number;
  thin_margin_threshold: number;
  n_tie_broken: number;
}

export interface InstrumentFailures {
  /** Items whose every sample failed (counted as the model's abstain unless excluded). */
  n_items: number;
  item_ids: string[];
  excluded: boolean;
}

export interface PanelMetrics {
  panels: string[];
  inter_analyst_fleiss_per_panel: Record<string, number | null>;
  primary_panel: string | null;
  inter_analyst_fleiss_primary_panel: number | null;
  check_panel: string | null;
  cross_panel_kappa: number | null;
}

/** One section (overall or a decomposition cell); the keys before `reference` are the reference's. */
export interface MetricsSection {
  title: string;
  n: number;
  coverage: number;
  coverage_per_analyst: number[];
  cohens_kappa_consensus: number | null;
  fleiss_kappa: number | null;
  inter_analyst_fleiss: number | null;
  coverage_per_analyst_named?: Record<string, number>;
  /** Per item id; empty when includeVerdictDistributions is false. */
  verdict_distributions: Record<string, VerdictDistribution>;
  aggregate_dispersion: AggregateDispersion;
  /** `cohens_kappa[<label>]` and `cohens_kappa[<label>]_ci`, as the reference CLI names them. */
  [bracketKey: `cohens_kappa[${string}`]: number | null | CiReport;
  fleiss_kappa_ci?: CiReport | null;
  n_substantive: number;
  m_counts: Record<Verdict, number>;
  r_counts: Record<Verdict, number>;
  under_powered?: boolean;
  under_powered_threshold?: number;
  rsr_target?: RsrTargetSpec;
  tag?: string;
  reference: { spec: string; label: string; analyst_index: number | null; analyst_id: string | null };
  cohens_kappa: number | null;
  cohens_kappa_weighted?: number | null;
  fleiss_kappa_weighted?: number | null;
  instrument_failures: InstrumentFailures;
  /** Why each null value above is null (keyed like the value). */
  undefined_reasons: Record<string, string>;
}

export interface EvaluationMetricsReport extends MetricsSection {
  evaluation_id: string | null;
  benchmark_id: string | null;
  panels?: PanelMetrics;
  by_tag?: Record<string, MetricsSection>;
  by_rsr_target?: MetricsSection[];
}

function coverageOf(verdicts: readonly string[]): number {
  if (verdicts.length === 0) return 0;
  let c = 0;
  for (const v of verdicts) if (v !== 'abstain') c++;
  return c / verdicts.length;
}

/**
 * The panel size m, the same on every item: the κ statistics compare each item's verdicts with one panel, so an
 * evaluation whose items carry different numbers of analyst verdicts is a data error naming the first that differs.
 */
function analystCountOf(items: readonly (ItemLike & { id?: string })[]): number {
  if (items.length === 0) return 0;
  const m = items[0]!.analyst_verdicts.length;
  const odd = items.findIndex((it) => it.analyst_verdicts.length !== m);
  if (odd >= 0)
    throw new DataError(
      'metrics.uneven-panel',
      `item ${JSON.stringify(items[odd]!.id ?? odd)} has ${items[odd]!.analyst_verdicts.length} analyst verdict(s) but item ${JSON.stringify(items[0]!.id ?? 0)} has ${m}: every item must carry the same panel (at /items/${odd}/analyst_verdicts)`,
    );
  return m;
}

/** Plurality of the panel members' verdicts; any tie → abstain (cross-panel κ). */
function panelPlurality(verdicts: readonly Verdict[], indices: readonly number[]): Verdict {
  const counts = new Map<Verdict, number>();
  for (const j of indices) {
    const v = verdicts[j]!;
    counts.set(v, (counts.get(v) ?? 0) + 1);
  }
  if (counts.size === 0) return 'abstain';
  const top = Math.max(...counts.values());
  const winners = [...counts].filter(([, c]) => c === top);
  return winners.length > 1 ? 'abstain' : winners[0]![0];
}

export function panelMetrics(
  items: readonly ItemLike[],
  benchmark: BenchmarkLike,
  reasons: Record<string, string>,
) {
  const panels = [...new Set(benchmark.analysts.map((a) => a.panel).filter((p): p is string => !!p))].sort(
    compareCodePoints,
  );
  if (panels.length === 0) return undefined;
  const indicesOf = (name: string): number[] =>
    benchmark.analysts.flatMap((a, j) => (a.panel === name ? [j] : []));
  const perPanel: Record<string, number | null> = {};
  for (const name of panels) {
    const idx = indicesOf(name);
    const r = fleissKappaResult(items.map((it) => idx.map((j) => it.analyst_verdicts[j]!)));
    perPanel[name] = r.value;
    if (r.reason) reasons[`inter_analyst_fleiss_per_panel.${name}`] = r.reason;
  }
  const primary = benchmark.primary_panel ?? panels[0]!;
  const others = panels.filter((p) => p !== primary);
  const check = others.length === 1 ? others[0]! : null;
  let cross: number | null = null;
  if (check === null) {
    reasons.cross_panel_kappa = `needs exactly one panel besides the primary (declared: ${panels.join(', ')})`;
  } else {
    const pi = indicesOf(primary);
    const ci = indicesOf(check);
    const r = cohensKappaResult(
      items.map((it) => panelPlurality(it.analyst_verdicts, pi)),
      items.map((it) => panelPlurality(it.analyst_verdicts, ci)),
    );
    cross = r.value;
    if (r.reason) reasons.cross_panel_kappa = r.reason;
  }
  return {
    panels,
    inter_analyst_fleiss_per_panel: perPanel,
    primary_panel: primary,
    inter_analyst_fleiss_primary_panel: perPanel[primary] ?? null,
    check_panel: check,
    cross_panel_kappa: cross,
  } satisfies PanelMetrics;
}

function ciReport(r: SubsamplingResult): CiReport | null {
  if (r.lower === null || r.upper === null || r.estimate === null) return null;
  return {
    lo: r.lower,
    hi: r.upper,
    estimate: r.estimate,
    subsample_size: r.subsampleSize,
    iterations: r.iterations,
    defined: r.defined,
    seed: r.seed,
    confidence: r.confidence,
  };
}

interface SectionContext {
  benchmark: BenchmarkLike | undefined;
  /** Resolved once for the whole evaluation, so an empty decomposition cell cannot make it fail. */
  reference: ResolvedReference;
  weighted: boolean;
  ci: CiOptions | null;
  thin: number;
  distributions: boolean;
  failures: InstrumentFailures;
  seed: number | undefined;
}

function computeSection(
  items: readonly ItemLike[],
  ctx: SectionContext,
  title: string,
  isCell: boolean,
): MetricsSection {
  const reasons: Record<string, string> = {};
  const note = (key: string, r: KappaResult): number | null => {
    if (r.reason) reasons[key] = r.reason;
    return r.value;
  };
  const m = analystCountOf(items);
  const ref = ctx.reference;
  const model = items.map((it) => it.model_verdict);
  const consensus = items.map((it) => consensusVerdict(it.analyst_verdicts));
  const reference = ref.kind === 'consensus' ? consensus : referenceVerdicts(items, ref);
  const distributions = items.map(verdictDistribution);
  const margins = distributions.map((d) => d.margin);

  const kappaConsensus = note('cohens_kappa_consensus', cohensKappaResult(model, consensus));
  const fleissRows: Verdict[][] = new Array<Verdict[]>(items.length);
  for (let i = 0; i < items.length; i++) {
    const row = items[i]!.analyst_verdicts.slice();
    row.push(items[i]!.model_verdict);
    fleissRows[i] = row;
  }
  const fleiss = note('fleiss_kappa', fleissKappaResult(fleissRows));
  const interAnalyst = note(
    'inter_analyst_fleiss',
    fleissKappaResult(items.map((it) => it.analyst_verdicts)),
  );
  const chosen = ctx.weighted
    ? note(`cohens_kappa[${ref.label}]`, cohensKappaResult(model, reference, { weights: margins }))
    : ref.kind === 'consensus'
      ? kappaConsensus
      : note(`cohens_kappa[${ref.label}]`, cohensKappaResult(model, reference));
  if (!ctx.weighted && ref.kind === 'consensus' && reasons.cohens_kappa_consensus) {
    reasons[`cohens_kappa[${ref.label}]`] = reasons.cohens_kappa_consensus;
  }

  const coveragePerAnalyst = Array.from({ length: items.length === 0 ? 0 : m }, (_, j) =>
    coverageOf(items.map((it) => it.analyst_verdicts[j]!)),
  );

  const verdictDistributions: Record<string, VerdictDistribution> = {};
  if (ctx.distributions) items.forEach((it, i) => (verdictDistributions[it.id] = distributions[i]!));
  const n = items.length;
  const nThin = margins.filter((x) => x < ctx.thin).length;
  const aggregate: AggregateDispersion = {
    n_items: n,
    mean_entropy: n === 0 ? 0 : sumInOrder(distributions.map((d) => d.entropy)) / n,
    mean_margin: n === 0 ? 0 : sumInOrder(margins) / n,
    n_thin_margin: nThin,
    fraction_thin_margin: n === 0 ? 0 : nThin / n,
    thin_margin_threshold: ctx.thin,
    n_tie_broken: distributions.filter((d) => d.tie_broken).length,
  };

  const mCounts: Record<Verdict, number> = { good: 0, bad: 0, abstain: 0 };
  const rCounts: Record<Verdict, number> = { good: 0, bad: 0, abstain: 0 };
  let nSubstantive = 0;
  for (let i = 0; i < n; i++) {
    if (isSubstantive(model[i]!) && isSubstantive(reference[i]!)) {
      nSubstantive++;
      mCounts[model[i]!]++;
      rCounts[reference[i]!]++;
    }
  }

  const section = {
    title,
    n,
    coverage: coverageOf(model),
    coverage_per_analyst: coveragePerAnalyst,
    cohens_kappa_consensus: kappaConsensus,
    fleiss_kappa: fleiss,
    inter_analyst_fleiss: interAnalyst,
  } as MetricsSection;
  if (ctx.benchmark) {
    const named: Record<string, number> = {};
    ctx.benchmark.analysts.forEach(
      (a, j) => (named[a.id] = coverageOf(items.map((it) => it.analyst_verdicts[j]!))),
    );
    section.coverage_per_analyst_named = named;
  }
  section.verdict_distributions = verdictDistributions;
  section.aggregate_dispersion = aggregate;
  section[`cohens_kappa[${ref.label}]`] = chosen;

  let fleissWeighted: number | null | undefined;
  if (ctx.weighted) {
    fleissWeighted = note('fleiss_kappa_weighted', fleissKappaResult(fleissRows, { weights: margins }));
  }

  if (ctx.ci) {
    const opts = { ...ctx.ci, seed: ctx.seed };
    const kcStat = (idx: readonly number[]): number | null =>
      cohensKappaResult(
        idx.map((i) => model[i]!),
        idx.map((i) => reference[i]!),
        ctx.weighted ? { weights: idx.map((i) => margins[i]!) } : {},
      ).value;
    const kfStat = (idx: readonly number[]): number | null =>
      fleissKappaResult(
        idx.map((i) => fleissRows[i]!),
        ctx.weighted ? { weights: idx.map((i) => margins[i]!) } : {},
      ).value;
    const kcKey = `cohens_kappa[${ref.label}]_ci` as const;
    const kc = subsamplingCI(n, kcStat, opts);
    section[kcKey] = ciReport(kc) as CiReport;
    if (section[kcKey] === null) reasons[kcKey] = kc.reason ?? 'undefined';
    const kf = subsamplingCI(n, kfStat, opts);
    section.fleiss_kappa_ci = ciReport(kf);
    if (section.fleiss_kappa_ci === null) reasons.fleiss_kappa_ci = kf.reason ?? 'undefined';
  }

  section.n_substantive = nSubstantive;
  section.m_counts = mCounts;
  section.r_counts = rCounts;
  if (isCell) {
    section.under_powered = nSubstantive < UNDER_POWERED_THRESHOLD;
    section.under_powered_threshold = UNDER_POWERED_THRESHOLD;
  }
  section.reference = {
    spec: ref.spec,
    label: ref.label,
    analyst_index: ref.analystIndex,
    analyst_id: ref.analystId,
  };
  section.cohens_kappa = chosen;
  if (ctx.weighted) {
    section.cohens_kappa_weighted = chosen;
    section.fleiss_kappa_weighted = fleissWeighted ?? null;
  }
  let failedHere = ctx.failures.item_ids;
  if (failedHere.length > 0 && !ctx.failures.excluded) {
    const ids = new Set(items.map((it) => it.id));
    failedHere = failedHere.filter((id) => ids.has(id));
  }
  section.instrument_failures = { ...ctx.failures, n_items: failedHere.length, item_ids: failedHere };
  section.undefined_reasons = reasons;
  return section;
}

/** Python's sum over floats in order (kept as its own function so the summation order is explicit). */
function sumInOrder(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s;
}

const sameSet = (a: readonly string[], b: readonly string[]): boolean => {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
};

/** Every metric of one evaluation, in the reference's JSON shape plus evalkit's additions. */
export function evaluationMetrics(
  eta: EvaluationLike,
  options: MetricsOptions = {},
): EvaluationMetricsReport {
  const benchmark = options.benchmark;
  const failedIds = eta.items.filter(isInstrumentFailure).map((it) => it.id);
  const excluded = options.excludeFailed === true;
  const failedSet = new Set(failedIds);
  const items = excluded ? eta.items.filter((it) => !failedSet.has(it.id)) : eta.items;
  const ci = options.ci ? (options.ci === true ? {} : options.ci) : null;
  const m = analystCountOf(eta.items);
  if (benchmark && eta.items.length > 0 && benchmark.analysts.length !== m) {
    throw new DataError(
      'metrics.benchmark-mismatch',
      `the benchmark declares ${benchmark.analysts.length} analyst(s) but the evaluation's items carry ${m} analyst verdict(s): is it the benchmark of ${JSON.stringify(eta.benchmark_id ?? '?')}?`,
    );
  }
  const weighted = options.weightByMargin === true;
  const ctx: SectionContext = {
    benchmark,
    reference: resolveReference(options.reference ?? 'consensus', m, benchmark, weighted),
    weighted,
    ci,
    thin: options.thinMarginThreshold ?? THIN_MARGIN_THRESHOLD,
    distributions: options.includeVerdictDistributions !== false,
    failures: { n_items: failedIds.length, item_ids: failedIds, excluded },
    seed: ci?.seed,
  };
  if (ci && ctx.seed === undefined) {
    // One seed for every interval of the run, reported so that the run can be repeated.
    ctx.seed = Math.floor(Math.random() * 2 ** 32);
  }
  const overall = computeSection(items, ctx, 'Overall', false);
  const report: EvaluationMetricsReport = {
    evaluation_id: eta.id ?? null,
    benchmark_id: eta.benchmark_id ?? null,
    ...overall,
  };
  if (benchmark) {
    const panels = panelMetrics(items, benchmark, report.undefined_reasons);
    if (panels) report.panels = panels;
  }
  if (options.byTag && options.byTag.length > 0) {
    report.by_tag = {};
    for (const tag of options.byTag) {
      const cell = computeSection(
        items.filter((it) => (it.tags ?? []).includes(tag)),
        ctx,
        `By tag: ${tag}`,
        true,
      );
      cell.tag = tag;
      report.by_tag[tag] = cell;
    }
  }
  if (options.byRsrTarget && options.byRsrTarget.length > 0) {
    if (!benchmark) {
      throw new UsageError(
        'metrics.rsr-target-needs-benchmark',
        'a decomposition by RSR target needs the benchmark (rsr_target lives on benchmark items)',
      );
    }
    report.by_rsr_target = options.byRsrTarget.map((target) => {
      const keep = new Set(
        benchmark.items
          .filter(
            (bi) => bi.rsr_target && sameSet(bi.rsr_target.X, target.X) && sameSet(bi.rsr_target.A, target.A),
          )
          .map((bi) => bi.id),
      );
      const X = [...new Set(target.X)].sort(compareCodePoints);
      const A = [...new Set(target.A)].sort(compareCodePoints);
      const cell = computeSection(
        items.filter((it) => keep.has(it.id)),
        ctx,
        `By RSR target X=${JSON.stringify(X)} A=${JSON.stringify(A)}`,
        true,
      );
      cell.rsr_target = { X, A };
      return cell;
    });
  }
  return report;
}

/** Parses one RSR target given as JSON `{"X": [...], "A": [...]}`. */
export function parseRsrTarget(text: string): RsrTargetSpec {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new UsageError(
      'metrics.rsr-target',
      `an RSR target must be JSON like {"X":["sa"],"A":["ra"]}: ${(e as Error).message}`,
    );
  }
  const v = value as Record<string, unknown> | null;
  const isStrings = (x: unknown): x is string[] => Array.isArray(x) && x.every((s) => typeof s === 'string');
  if (v === null || typeof v !== 'object' || !isStrings(v.X) || !isStrings(v.A)) {
    throw new UsageError(
      'metrics.rsr-target',
      `an RSR target must be an object with string arrays X and A, got ${text}`,
    );
  }
  return { X: v.X, A: v.A };
}
