/**
 * `evalkit describe`: the summary of a benchmark a person reads first. It covers what the reference's `describe`
 * prints (identity, bearers, analysts and their label distributions, κ_F*(β), panels, factorial design and cell
 * coverage, paraphrase variants, provenance, tags, RSR targets, references) plus the ladders and ordinal families
 * of the 0.17 field set, and says what is missing before the benchmark can support a construct-validity claim.
 */
import { compareCodePoints } from '../../io/canonical.js';
import type { Benchmark } from '../../formats/infereval/types.js';
import { fleissKappaResult } from '../stats/kappa.js';
import { panelMetrics, UNDER_POWERED_THRESHOLD, type PanelMetrics } from './evaluation-metrics.js';
import type { BenchmarkLike, ItemLike, Verdict } from './model.js';

export interface VerdictCounts {
  good: number;
  bad: number;
  abstain: number;
}

export interface FactorCell {
  levels: Record<string, string>;
  n_items: number;
}

export interface DescribeGap {
  /** Stable id of the gap (`describe.gap.<name>`). */
  code: string;
  /** `gap`: a construct-validity claim is not supportable until it is fixed; `note`: weakens the claim. */
  severity: 'gap' | 'note';
  message: string;
}

export interface BenchmarkDescription {
  id: string;
  title: string | null;
  domain: string | null;
  description: string | null;
  schema_version: string;
  benchmark_hash: string | null;
  template_id: string | null;
  coherence_frame_id: string | null;
  verification_prompt: {
    id: string | null;
    template: string;
    has_system: boolean;
    parse_regex: string | null;
  } | null;
  n_bearers: number;
  n_items: number;
  n_analysts: number;
  bearers: {
    id: string;
    expression: string;
    paraphrases: number;
    references: number;
    ordinal_family: string | null;
  }[];
  paraphrase_variants: number;
  analysts: {
    id: string;
    display_name: string | null;
    panel: string | null;
    verdicts: VerdictCounts;
  }[];
  /** Fleiss' κ over all analysts (null when m < 2 or degenerate; see undefined_reasons). */
  inter_analyst_fleiss: number | null;
  panels: PanelMetrics | null;
  tags: { tag: string; n_items: number; verdicts_of_first_analyst: VerdictCounts }[];
  n_untagged_items: number;
  factorial_design: {
    factors: { name: string; levels: string[]; kind: string | null }[];
    n_cells: number;
    n_populated_cells: number;
    min_items_per_cell: number | null;
    /** The floor describe checks: the declared min_items_per_cell, and never below 2 (several items per condition). */
    required_items_per_cell: number;
    cells: FactorCell[];
    under_populated_cells: FactorCell[];
    items_without_levels: string[];
  } | null;
  rsr_targets: { X: string[]; A: string[]; n_items: number }[];
  n_rsr_targeted_items: number;
  ordinal_families: { name: string; tiers: string[] }[];
  ladders: { ladder: string; n_items: number; variations: Record<string, number> }[];
  monotonicity_ladders: { ladder: string | null; family: string; fixed: string | null; steps: number }[];
  targets: { target: string; n_items: number }[];
  copresence_rules: number;
  entailment_rules: number;
  regularities: { description: string; test_items: number }[];
  placeholder_items: number;
  references: {
    benchmark_level: number;
    bearer_level: number;
    bearers_with_references: number;
    item_level: number;
    items_with_references: number;
    first_citations: string[];
  };
  construction: {
    items_with_metadata: number;
    authors: Record<string, number>;
    authored_on: { first: string; last: string } | null;
    blinded_to_models: string[];
    distinct_sources: number;
  };
  gaps: DescribeGap[];
  undefined_reasons: Record<string, string>;
}

function counts(verdicts: readonly Verdict[]): VerdictCounts {
  const c = { good: 0, bad: 0, abstain: 0 };
  for (const v of verdicts) c[v]++;
  return c;
}

/** Every combination of the factors' levels (factors in sorted name order), with its item count. */
function factorCells(benchmark: Benchmark, names: readonly string[]): FactorCell[] {
  let cells: Record<string, string>[] = [{}];
  for (const f of names)
    cells = cells.flatMap((c) => benchmark.factors[f].map((level) => ({ ...c, [f]: level })));
  return cells.map((levels) => ({
    levels,
    n_items: benchmark.items.filter((it) => names.every((f) => it.factor_levels?.[f] === levels[f])).length,
  }));
}

export const cellName = (levels: Record<string, string>): string =>
  Object.entries(levels)
    .map(([f, l]) => `${f}=${l}`)
    .join(', ');

export function describeBenchmark(
  benchmark: Benchmark,
  options: { hash?: string } = {},
): BenchmarkDescription {
  const reasons: Record<string, string> = {};
  const items = benchmark.items;
  const m = benchmark.analysts.length;
  const byAnalyst = benchmark.analysts.map((a, j) => ({
    id: a.id,
    display_name: a.display_name ?? null,
    panel: a.panel ?? null,
    verdicts: counts(items.map((it) => it.analyst_verdicts[j])),
  }));
  let fleiss: number | null = null;
  if (m < 2) reasons.inter_analyst_fleiss = 'needs at least 2 analysts';
  else {
    const r = fleissKappaResult(items.map((it) => it.analyst_verdicts));
    fleiss = r.value;
    if (r.reason) reasons.inter_analyst_fleiss = r.reason;
  }
  const panels =
    panelMetrics(items as unknown as ItemLike[], benchmark as unknown as BenchmarkLike, reasons) ?? null;

  const tagCounts = new Map<string, Verdict[]>();
  for (const it of items)
    for (const t of it.tags) tagCounts.set(t, [...(tagCounts.get(t) ?? []), it.analyst_verdicts[0]]);
  const tags = [...tagCounts]
    .map(([tag, vs]) => ({ tag, n_items: vs.length, verdicts_of_first_analyst: counts(vs) }))
    .sort((a, b) => b.n_items - a.n_items || compareCodePoints(a.tag, b.tag));

  const factorNames = Object.keys(benchmark.factors ?? {}).sort(compareCodePoints);
  let design: BenchmarkDescription['factorial_design'] = null;
  if (factorNames.length > 0) {
    const cells = factorCells(benchmark, factorNames);
    const min = benchmark.factor_constraints?.min_items_per_cell ?? null;
    const required = Math.max(2, min ?? 2);
    design = {
      factors: factorNames.map((name) => ({
        name,
        levels: [...benchmark.factors[name]],
        kind: benchmark.factor_kinds?.[name] ?? null,
      })),
      n_cells: cells.length,
      n_populated_cells: cells.filter((c) => c.n_items > 0).length,
      min_items_per_cell: min,
      required_items_per_cell: required,
      cells,
      under_populated_cells: cells.filter((c) => c.n_items < required),
      items_without_levels: items
        .filter((it) => factorNames.some((f) => it.factor_levels?.[f] === undefined))
        .map((it) => it.id),
    };
  }

  const rsr = new Map<string, { X: string[]; A: string[]; n_items: number }>();
  for (const it of items) {
    if (!it.rsr_target) continue;
    const key = JSON.stringify([it.rsr_target.X, it.rsr_target.A]);
    const entry = rsr.get(key) ?? { X: [...it.rsr_target.X], A: [...it.rsr_target.A], n_items: 0 };
    entry.n_items++;
    rsr.set(key, entry);
  }

  const ladders = new Map<string, { ladder: string; n_items: number; variations: Record<string, number> }>();
  for (const it of items) {
    if (!it.ladder) continue;
    const entry = ladders.get(it.ladder) ?? { ladder: it.ladder, n_items: 0, variations: {} };
    entry.n_items++;
    const v = it.variation ?? '(none)';
    entry.variations[v] = (entry.variations[v] ?? 0) + 1;
    ladders.set(it.ladder, entry);
  }
  const mono = new Map<string, BenchmarkDescription['monotonicity_ladders'][number]>();
  for (const it of items) {
    const step = it.monotonicity_step;
    if (!step) continue;
    const key = JSON.stringify([it.ladder ?? null, step.family, step.fixed ?? null]);
    const entry = mono.get(key) ?? {
      ladder: it.ladder ?? null,
      family: step.family,
      fixed: step.fixed ?? null,
      steps: 0,
    };
    entry.steps++;
    mono.set(key, entry);
  }

  const bearerEntries = Object.entries(benchmark.bearers).sort(([a], [b]) => compareCodePoints(a, b));
  const maxParaphrases = Math.max(0, ...bearerEntries.map(([, b]) => b.paraphrases.length));
  const cm = items.map((it) => it.construction_metadata).filter((c) => c !== null);
  const authors: Record<string, number> = {};
  for (const c of cm) if (c.authored_by) authors[c.authored_by] = (authors[c.authored_by] ?? 0) + 1;
  const dates = cm.flatMap((c) => (c.authored_on ? [c.authored_on] : [])).sort();
  const blinded = [...new Set(cm.flatMap((c) => c.authored_blind_to_models))].sort(compareCodePoints);

  const description: BenchmarkDescription = {
    id: benchmark.id,
    title: benchmark.title ?? null,
    domain: benchmark.domain ?? null,
    description: benchmark.description ?? null,
    schema_version: benchmark.schema_version,
    benchmark_hash: options.hash ?? null,
    template_id: benchmark.template_id ?? null,
    coherence_frame_id: benchmark.coherence_frame_id ?? null,
    verification_prompt: benchmark.verification_prompt
      ? {
          id: benchmark.verification_prompt.id ?? null,
          template: benchmark.verification_prompt.template,
          has_system: Boolean(benchmark.verification_prompt.system),
          parse_regex: benchmark.verification_prompt.parse_regex ?? null,
        }
      : null,
    n_bearers: bearerEntries.length,
    n_items: items.length,
    n_analysts: m,
    bearers: bearerEntries.map(([id, b]) => ({
      id,
      expression: b.expression,
      paraphrases: b.paraphrases.length,
      references: b.references.length,
      ordinal_family: b.ordinal_family ?? null,
    })),
    paraphrase_variants: 1 + maxParaphrases,
    analysts: byAnalyst,
    inter_analyst_fleiss: fleiss,
    panels,
    tags,
    n_untagged_items: items.filter((it) => it.tags.length === 0).length,
    factorial_design: design,
    rsr_targets: [...rsr.values()].sort((a, b) => b.n_items - a.n_items),
    n_rsr_targeted_items: items.filter((it) => it.rsr_target).length,
    ordinal_families: Object.entries(benchmark.ordinal_families ?? {}).map(([name, tiers]) => ({
      name,
      tiers: [...tiers],
    })),
    ladders: [...ladders.values()].sort((a, b) => compareCodePoints(a.ladder, b.ladder)),
    monotonicity_ladders: [...mono.values()],
    targets: (benchmark.targets ?? []).map((target) => ({
      target,
      n_items: items.filter((it) => it.target === target).length,
    })),
    copresence_rules: benchmark.copresence_rules.length,
    entailment_rules: benchmark.entailment_rules.length,
    regularities: benchmark.regularities.map((r) => ({
      description: r.description,
      test_items: r.test_item_ids.length,
    })),
    placeholder_items: items.filter((it) => it.placeholder).length,
    references: {
      benchmark_level: benchmark.references.length,
      bearer_level: bearerEntries.reduce((s, [, b]) => s + b.references.length, 0),
      bearers_with_references: bearerEntries.filter(([, b]) => b.references.length > 0).length,
      item_level: items.reduce((s, it) => s + it.references.length, 0),
      items_with_references: items.filter((it) => it.references.length > 0).length,
      first_citations: benchmark.references.slice(0, 3).map((r) => r.citation),
    },
    construction: {
      items_with_metadata: cm.length,
      authors,
      authored_on: dates.length ? { first: dates[0], last: dates[dates.length - 1] } : null,
      blinded_to_models: blinded,
      distinct_sources: new Set(cm.flatMap((c) => (c.source ? [c.source] : []))).size,
    },
    gaps: [],
    undefined_reasons: reasons,
  };
  description.gaps = constructValidityGaps(description);
  return description;
}

/** What is missing before the benchmark can carry a construct-validity claim, most serious first. */
export function constructValidityGaps(d: BenchmarkDescription): DescribeGap[] {
  const gaps: DescribeGap[] = [];
  const gap = (name: string, severity: DescribeGap['severity'], message: string): void => {
    gaps.push({ code: `describe.gap.${name}`, severity, message });
  };
  const substantive = d.analysts.map((a) => a.verdicts.good + a.verdicts.bad);
  if (substantive.every((s) => s === 0))
    gap(
      'no-substantive-labels',
      'gap',
      'no analyst gives any item a good or bad verdict: every κ is undefined until real labels are collected',
    );
  if (d.placeholder_items > 0)
    gap(
      'placeholder-verdicts',
      'note',
      `${d.placeholder_items} item(s) carry a placeholder verdict: provisional reads, not analyst judgements`,
    );
  if (d.n_analysts < 2)
    gap(
      'single-analyst',
      'gap',
      'a single analyst: no inter-analyst baseline κ_F*(β), so agreement with the model cannot be compared with agreement between people',
    );
  if (!d.panels)
    gap(
      'no-independent-panel',
      'note',
      'no analyst panels declared: no cross-panel check (an independent reference panel) is possible',
    );
  else if (d.panels.check_panel === null)
    gap(
      'no-independent-panel',
      'note',
      `cross-panel κ needs exactly one panel besides the primary (declared: ${d.panels.panels.join(', ')})`,
    );
  const design = d.factorial_design;
  if (!design)
    gap(
      'no-factors',
      'gap',
      'no design factors declared: `evalkit model` cannot say which conditions drive agreement',
    );
  else {
    const empty = design.cells.filter((c) => c.n_items === 0);
    if (empty.length > 0)
      gap(
        'empty-cells',
        'gap',
        `${empty.length} of ${design.n_cells} factor cells have no item: ${empty
          .slice(0, 5)
          .map((c) => cellName(c.levels))
          .join('; ')}${empty.length > 5 ? '; …' : ''}`,
      );
    if (design.min_items_per_cell === null)
      gap(
        'no-min-items-per-cell',
        'note',
        'factor_constraints.min_items_per_cell is not declared: nothing guarantees several items per condition',
      );
    const under = design.under_populated_cells.filter((c) => c.n_items > 0);
    if (under.length > 0)
      gap(
        'under-populated-cells',
        'gap',
        `${under.length} of ${design.n_cells} cells have fewer than ${design.required_items_per_cell} items (several items per condition are needed to tell the condition from the item): ${under
          .slice(0, 5)
          .map((c) => `${cellName(c.levels)} (${c.n_items})`)
          .join('; ')}${under.length > 5 ? '; …' : ''}`,
      );
    if (design.items_without_levels.length > 0)
      gap(
        'items-without-levels',
        'note',
        `${design.items_without_levels.length} item(s) lack a level of some declared factor and are left out of \`evalkit model\``,
      );
  }
  if (d.n_items < UNDER_POWERED_THRESHOLD)
    gap(
      'few-items',
      'gap',
      `${d.n_items} items: fewer than ${UNDER_POWERED_THRESHOLD}, so subsampling confidence intervals are impossible and every κ is under-powered`,
    );
  if (d.paraphrase_variants < 2)
    gap(
      'no-paraphrases',
      'note',
      'no bearer has paraphrases: content cannot be told apart from wording (no paraphrase sweep)',
    );
  if (d.n_rsr_targeted_items === 0 && d.monotonicity_ladders.length === 0)
    gap(
      'no-structure-targets',
      'note',
      'no rsr_target and no monotonicity ladder: `evalkit structure` and `evalkit monotonicity` have nothing to check',
    );
  if (d.construction.items_with_metadata === 0)
    gap(
      'no-provenance',
      'note',
      'no item has construction_metadata: authorship, dates and blindness to the models under test are unknown',
    );
  // Gaps before notes, each group in the order above.
  return [...gaps.filter((g) => g.severity === 'gap'), ...gaps.filter((g) => g.severity === 'note')];
}
