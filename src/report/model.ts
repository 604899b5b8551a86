/**
 * The report model: everything the Markdown and HTML reports show, gathered once from an evaluation η, its metrics
 * and the optional evidence (benchmark, retest, sweep). Renderers only format this object; they compute nothing.
 */
import type { Benchmark, Evaluation } from '../formats/infereval/types.js';
import type {
  CiReport,
  EvaluationMetricsReport,
  MetricsSection,
} from '../metrics/infereval/evaluation-metrics.js';
import { consensusVerdict } from '../metrics/infereval/model.js';
import { decideVerdict, type ConstructVerdict } from './verdict.js';

export const VERDICT_ORDER = ['good', 'bad', 'abstain'] as const;
export type VerdictName = (typeof VERDICT_ORDER)[number];

/** A test–retest comparison (e.g. `evalkit retest --format json`), normalised. */
export interface RetestEvidence {
  kappa: number | null;
  agreement?: number;
  flip_rate?: number;
  interpretation?: string;
  /** Items whose model verdict changed between the runs. */
  flipped: { id: string; first: string; second: string }[];
}

/** A parameter sweep (e.g. `evalkit sweep --format json`), normalised. */
export interface SweepEvidence {
  parameter: string;
  points: { value: number | string; kappa: number | null; coverage?: number }[];
  kappa_range?: number | null;
  interpretation?: string;
}

export interface TagRow {
  tag: string;
  n: number;
  n_substantive: number;
  kappa: number | null;
  ci: { lo: number; hi: number } | null;
  under_powered: boolean;
}

export interface ItemRow {
  id: string;
  tags: string[];
  model_verdict: string;
  consensus: VerdictName;
  analyst_verdicts: string[];
  counts: { good: number; bad: number; abstain: number };
  tie_broken: boolean;
  entropy: number;
  margin: number;
  /** First sample's raw response (untrusted text: every renderer escapes it). */
  response: string;
  rationales: string[];
}

export interface ReportModel {
  title: string;
  identity: [string, string][];
  summary: [string, string][];
  reliability: [string, string][];
  evidence: [string, string][];
  reference_label: string;
  tags: TagRow[];
  /** confusion[model][consensus] counts, both in VERDICT_ORDER. */
  confusion: number[][];
  items: ItemRow[];
  /** Histogram of per-item normalised entropy, 10 bins over [0, 1]. */
  entropy_histogram: number[];
  retest?: RetestEvidence;
  sweep?: SweepEvidence;
  negative_findings: string[];
  verdict: ConstructVerdict;
}

export interface ReportInput {
  evaluation: Evaluation;
  metrics: EvaluationMetricsReport;
  benchmark?: Benchmark;
  retest?: RetestEvidence;
  sweep?: SweepEvidence;
  /** Source file names, shown in the identity table. */
  files?: { evaluation?: string; benchmark?: string; retest?: string; sweep?: string };
}

export function formatFigure(x: number | null | undefined, digits = 3): string {
  if (x === null || x === undefined || Number.isNaN(x)) return 'undefined';
  return x.toFixed(digits);
}

export function formatCi(ci: { lo: number; hi: number } | null | undefined): string {
  return ci ? `[${formatFigure(ci.lo)}, ${formatFigure(ci.hi)}]` : 'not computed';
}

function ciOf(section: MetricsSection, label: string): CiReport | null {
  const v = section[`cohens_kappa[${label}]_ci`];
  return v && typeof v === 'object' ? (v as CiReport) : null;
}

function tagRow(tag: string, s: MetricsSection): TagRow {
  const ci = ciOf(s, s.reference.label);
  return {
    tag,
    n: s.n,
    n_substantive: s.n_substantive,
    kappa: s.cohens_kappa,
    ci: ci ? { lo: ci.lo, hi: ci.hi } : null,
    under_powered: s.under_powered ?? s.n_substantive < (s.under_powered_threshold ?? 10),
  };
}

export function buildReportModel(input: ReportInput): ReportModel {
  const { evaluation: eta, metrics: m, benchmark } = input;
  const label = m.reference.label;
  const ci = ciOf(m, label);
  const analystNames = benchmark?.analysts.map((a) => a.display_name ?? a.id) ?? [];

  const identity: [string, string][] = [
    ['Evaluation', eta.id],
    ['Benchmark', eta.benchmark_id],
    ['Benchmark hash', eta.benchmark_hash ?? 'not recorded'],
    ['Model', `${eta.model.provider} / ${eta.model.model_id}`],
    ['Temperature', String(eta.model.params.temperature)],
    ['Samples per item', String(eta.endorsement_config.n_samples)],
    ['Question form', eta.endorsement_config.question_form],
    ['Paraphrase variant', String(eta.paraphrase_variant)],
    ['Framework version', eta.framework_version],
    ['Run', `${eta.started_at ?? '?'} → ${eta.finished_at ?? '?'}`],
  ];
  if (input.files?.evaluation) identity.push(['File', input.files.evaluation]);

  const summary: [string, string][] = [
    ['Items (n)', String(m.n)],
    ['Substantive items', String(m.n_substantive)],
    ['Coverage', formatFigure(m.coverage)],
    [`Cohen's κ vs ${label}`, formatFigure(m.cohens_kappa)],
    [`κ ${ci ? `${Math.round(ci.confidence * 100)}% ` : ''}CI (subsampling)`, formatCi(ci)],
    ["Fleiss' κ (analysts + model)", formatFigure(m.fleiss_kappa)],
  ];
  const reliability: [string, string][] = [
    ["Inter-analyst Fleiss' κ", formatFigure(m.inter_analyst_fleiss)],
    ...m.coverage_per_analyst.map(
      (c, i) => [`Coverage of analyst ${analystNames[i] ?? i + 1}`, formatFigure(c)] as [string, string],
    ),
    ['Mean entropy of sample verdicts', formatFigure(m.aggregate_dispersion.mean_entropy)],
    ['Mean vote margin', formatFigure(m.aggregate_dispersion.mean_margin)],
    [
      `Items with margin < ${m.aggregate_dispersion.thin_margin_threshold}`,
      String(m.aggregate_dispersion.n_thin_margin),
    ],
    ['Tie-broken votes', String(m.aggregate_dispersion.n_tie_broken)],
    ['Instrument failures', String(m.instrument_failures.n_items)],
  ];
  if (m.panels) {
    reliability.push(['Cross-panel κ', formatFigure(m.panels.cross_panel_kappa)]);
    for (const [panel, k] of Object.entries(m.panels.inter_analyst_fleiss_per_panel)) {
      reliability.push([`Fleiss' κ within panel ${panel}`, formatFigure(k)]);
    }
  }

  const evidence: [string, string][] = [
    [
      'Benchmark (β)',
      benchmark ? `supplied${input.files?.benchmark ? ` (${input.files.benchmark})` : ''}` : 'not supplied',
    ],
    ['Test–retest', input.retest ? `supplied: κ = ${formatFigure(input.retest.kappa)}` : 'not supplied'],
    [
      'Parameter sweep',
      input.sweep ? `supplied: ${input.sweep.parameter}, ${input.sweep.points.length} runs` : 'not supplied',
    ],
    [
      'Confidence interval',
      ci ? `supplied (${ci.iterations} subsamples of ${ci.subsample_size}, seed ${ci.seed})` : 'not supplied',
    ],
  ];

  const tags = Object.entries(m.by_tag ?? {})
    .map(([tag, s]) => tagRow(tag, s))
    .sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));

  const confusion = VERDICT_ORDER.map(() => VERDICT_ORDER.map(() => 0));
  const entropyHistogram = new Array<number>(10).fill(0);
  const items: ItemRow[] = eta.items.map((item) => {
    const consensus = consensusVerdict(item.analyst_verdicts) as VerdictName;
    const mi = VERDICT_ORDER.indexOf(item.model_verdict as VerdictName);
    const ci2 = VERDICT_ORDER.indexOf(consensus);
    if (mi >= 0 && ci2 >= 0) confusion[mi][ci2]++;
    const d = m.verdict_distributions[item.id];
    const entropy = d?.entropy ?? 0;
    entropyHistogram[Math.min(9, Math.floor(entropy * 10))]++;
    return {
      id: item.id,
      tags: [...(item.tags ?? [])],
      model_verdict: item.model_verdict,
      consensus,
      analyst_verdicts: [...item.analyst_verdicts],
      counts: { good: d?.good ?? 0, bad: d?.bad ?? 0, abstain: d?.abstain ?? 0 },
      tie_broken: d?.tie_broken ?? false,
      entropy,
      margin: d?.margin ?? 0,
      response: item.samples[0]?.raw_response ?? '',
      rationales: (item.analyst_rationales ?? []).filter(
        (r): r is string => typeof r === 'string' && r !== '',
      ),
    };
  });

  const negative: string[] = [];
  if (m.n_substantive < 10) {
    negative.push(
      `Only ${m.n_substantive} substantive items overall: the κ estimate is under-powered (< 10).`,
    );
  }
  for (const t of tags) {
    if (t.under_powered)
      negative.push(`Tag "${t.tag}" is under-powered: ${t.n_substantive} substantive items (< 10).`);
  }
  for (const [key, reason] of Object.entries(m.undefined_reasons ?? {}))
    negative.push(`${key} is undefined: ${reason}`);
  if (m.instrument_failures.n_items > 0) {
    negative.push(
      `${m.instrument_failures.n_items} item(s) failed in the instrument (every sample failed): ${m.instrument_failures.item_ids.join(', ')}.`,
    );
  }
  const disagreements = items.filter(
    (i) =>
      (i.model_verdict === 'good' || i.model_verdict === 'bad') &&
      (i.consensus === 'good' || i.consensus === 'bad') &&
      i.model_verdict !== i.consensus,
  );
  if (disagreements.length > 0) {
    negative.push(
      `The model contradicts the analysts' consensus on ${disagreements.length} item(s): ${disagreements.map((i) => i.id).join(', ')}.`,
    );
  }
  if (input.retest && input.retest.flipped.length > 0) {
    negative.push(
      `${input.retest.flipped.length} item(s) flipped between the test and the retest: ${input.retest.flipped.map((f) => `${f.id} (${f.first} → ${f.second})`).join(', ')}.`,
    );
  }
  if (m.aggregate_dispersion.n_tie_broken > 0) {
    negative.push(`${m.aggregate_dispersion.n_tie_broken} item verdict(s) came from a tie-break.`);
  }

  return {
    title: `Construct-validity report: ${eta.model.model_id} on ${eta.benchmark_id}`,
    identity,
    summary,
    reliability,
    evidence,
    reference_label: label,
    tags,
    confusion,
    items,
    entropy_histogram: entropyHistogram,
    retest: input.retest,
    sweep: input.sweep,
    negative_findings: negative,
    verdict: decideVerdict({
      kappa: m.cohens_kappa,
      ci: ci ? { lo: ci.lo, hi: ci.hi } : null,
      coverage: m.coverage,
      nSubstantive: m.n_substantive,
      retestKappa: input.retest ? input.retest.kappa : undefined,
      sweepRange: input.sweep ? (input.sweep.kappa_range ?? null) : undefined,
    }),
  };
}
