// `compare`'s pull-request faces: a Markdown table for a PR comment and GitHub workflow annotations. Both state the
// difference as candidate (B) − baseline (A), the way a reviewer reads a change.
import type { CompareReport, Comparison } from '../../store/compare.js';
import { markdownTable } from '../../report/tables.js';
import { formatInterval, formatNumber, formatP } from './numbers.js';

type Side = CompareReport['a'];

export const sideLabel = (side: Side): string =>
  side.kind === 'model' ? side.model_id : `${side.model_id} @ run ${side.evaluation_id}`;

/** The candidate's change (B − A) and its 95% CI (compare states A − B). */
function change(c: Comparison): { delta: string; ci: string } {
  const ci = c.ci === null ? null : ([-c.ci[1], -c.ci[0]] as [number, number]);
  return { delta: formatNumber(-c.difference, true), ci: formatInterval(ci, true) };
}

/** One comparison's verdict in a few words: the gate's when there is one, else the two-sided test's. */
export function shortVerdict(c: Comparison): string {
  if (c.gate) {
    if (c.gate.verdict === 'worse') return `worse by more than ${c.gate.margin}`;
    if (c.gate.verdict === 'untested') return `untested — ${c.gate.detail}`;
    return `not worse by more than ${c.gate.margin}`;
  }
  const p = c.clustered?.p_holm ?? c.p_holm;
  if (p === null) return 'no test possible';
  if (p >= 0.05) return 'no significant difference';
  const aBetter = c.lower_is_better ? c.difference < 0 : c.difference > 0;
  return aBetter ? 'candidate worse' : 'candidate better';
}

const MARK: Record<string, string> = { worse: '❌', 'not-worse': '✅', untested: '⚠️' };

/** The gate's summary sentence, or null without a gate. */
export function gateSummary(report: CompareReport): string | null {
  const g = report.gate;
  if (g === null) return null;
  const name = (c: { benchmark: string; metric: string }) => `${c.benchmark} · ${c.metric}`;
  const worse = report.comparisons.filter((c) => c.gate?.verdict === 'worse').map(name);
  const untested = (reason: string) =>
    report.comparisons.filter((c) => c.gate?.verdict === 'untested' && c.gate.reason === reason).map(name);
  const gaps = [
    ...(['untested', 'too few pairs'] as const).flatMap((reason) => {
      const names = untested(reason);
      const why =
        reason === 'too few pairs' ? `fewer than ${g.min_pairs} paired samples` : 'no test possible';
      return names.length === 0 ? [] : [`${reason}: ${names.join(', ')} (${why})`];
    }),
    ...(g.missing.length > 0
      ? [`missing: ${g.missing.map(name).join(', ')} (the candidate has no result)`]
      : []),
  ];
  const tested = report.comparisons.length - untested('untested').length - untested('too few pairs').length;
  const rule = `one-sided, Holm, α = ${g.alpha}`;
  if (worse.length > 0)
    return `gate failed: the candidate is worse than the baseline by more than ${g.margin} (${rule}) on ${worse.join(', ')}${gaps.length > 0 ? `; also ${gaps.join('; ')}` : ''}`;
  if (gaps.length > 0 && !g.allow_untested)
    return `gate failed: not everything the baseline has was tested — ${gaps.join('; ')} (--allow-untested passes on what was tested)`;
  const allowed = gaps.length > 0 ? `; --allow-untested: not counted — ${gaps.join('; ')}` : '';
  return `gate passed: the candidate is not significantly worse than the baseline by more than ${g.margin} on any of ${tested} tested comparison(s) (${rule})${allowed}`;
}

export function renderMarkdown(report: CompareReport): string {
  const out = [
    `### evalkit compare: \`${sideLabel(report.a)}\` (baseline) → \`${sideLabel(report.b)}\` (candidate)`,
    '',
  ];
  const summary = gateSummary(report);
  if (summary !== null) out.push(`${report.gate?.failed ? '❌' : '✅'} **${summary}**`, '');
  const header = [
    'Benchmark',
    'Metric',
    'Baseline',
    'Candidate',
    'Δ (candidate − baseline)',
    '95% CI',
    'n paired',
    'p (Holm)',
  ];
  if (report.gate) header.push('One-sided p (Holm)');
  header.push('Verdict');
  const rows = report.comparisons.map((c) => {
    const { delta, ci } = change(c);
    const row = [
      c.benchmark,
      `${c.metric} (${c.lower_is_better ? 'lower' : 'higher'} is better)`,
      formatNumber(c.mean_a),
      formatNumber(c.mean_b),
      delta,
      ci,
      c.paired ? String(c.n_paired) : 'unpaired',
      formatP(c.clustered?.p_holm ?? c.p_holm),
    ];
    if (report.gate) row.push(formatP(c.gate?.p_holm));
    row.push(`${c.gate ? `${MARK[c.gate.verdict]} ` : ''}${shortVerdict(c)}`);
    return row;
  });
  out.push(markdownTable(header, rows).trimEnd(), '');
  return `${out.join('\n')}\n`;
}

/** GitHub's workflow-command escaping: of the message, and (more) of a property value. */
const escapeData = (s: string): string => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (s: string): string => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

/**
 * One annotation per comparison (`::error` when the gate finds the candidate worse, `::warning` when it could not
 * test, `::notice` otherwise) and a last one with the gate's summary.
 */
export function renderGithub(report: CompareReport): string {
  const lines = report.comparisons.map((c) => {
    const { delta, ci } = change(c);
    const level =
      c.gate?.verdict === 'worse' ? 'error' : c.gate?.verdict === 'untested' ? 'warning' : 'notice';
    const p = c.gate
      ? `one-sided p (Holm) ${formatP(c.gate.p_holm)}`
      : `p (Holm) ${formatP(c.clustered?.p_holm ?? c.p_holm)}`;
    const message =
      `${shortVerdict(c)}: baseline ${formatNumber(c.mean_a)}, candidate ${formatNumber(c.mean_b)}, ` +
      `change ${delta} (95% CI ${ci}), ${c.paired ? `${c.n_paired} paired samples` : 'unpaired'}, ${p}`;
    return `::${level} title=${escapeProperty(`evalkit compare: ${c.benchmark} · ${c.metric}`)}::${escapeData(message)}`;
  });
  const summary = gateSummary(report);
  if (summary !== null)
    lines.push(`::${report.gate?.failed ? 'error' : 'notice'} title=evalkit gate::${escapeData(summary)}`);
  return `${lines.join('\n')}\n`;
}
