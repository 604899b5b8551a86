// Text and Markdown renderings of the infereval metrics. Undefined values read "undefined (<why>)".
import type { CiReport, EvaluationMetricsReport, MetricsSection } from './evaluation-metrics.js';
import type { Verdict } from './model.js';

export type TextFormat = 'text' | 'markdown';

const fixed4 = (x: number): string => x.toFixed(4);
const signed4 = (x: number): string => (x >= 0 ? '+' : '') + x.toFixed(4);

/** A κ value, or "undefined (reason)". */
export function formatKappa(value: number | null | undefined, reason?: string): string {
  if (value === null || value === undefined) return reason ? `undefined (${reason})` : 'undefined';
  return signed4(value);
}

function formatCi(ci: CiReport | null | undefined, reason: string | undefined, requested: boolean): string {
  if (!requested) return '';
  if (!ci) return `  CI undefined (${reason ?? 'not computed'})`;
  return ` [${signed4(ci.lo)}, ${signed4(ci.hi)}] (${Math.round(ci.confidence * 100)}% subsampling CI, b=${ci.subsample_size}, ${ci.defined}/${ci.iterations} defined, seed ${ci.seed})`;
}

const counts = (c: Record<Verdict, number>): string => `good ${c.good} / bad ${c.bad} / abstain ${c.abstain}`;

interface Row {
  label: string;
  value: string;
}

function sectionRows(s: MetricsSection, ciRequested: boolean): Row[] {
  const label = s.reference.label;
  const kcKey = `cohens_kappa[${label}]` as const;
  const kcCiKey = `cohens_kappa[${label}]_ci` as const;
  const reasons = s.undefined_reasons;
  const underPowered = s.under_powered ? `  [under-powered: n < ${s.under_powered_threshold}]` : '';
  const rows: Row[] = [
    { label: 'n (items)', value: String(s.n) },
    { label: 'coverage (M)', value: fixed4(s.coverage) },
  ];
  if (s.coverage_per_analyst.length > 0) {
    const named = s.coverage_per_analyst_named;
    const value = named
      ? Object.entries(named)
          .map(([id, c]) => `${id} ${fixed4(c)}`)
          .join(', ')
      : s.coverage_per_analyst.map(fixed4).join(', ');
    rows.push({ label: 'coverage (per analyst)', value });
  }
  const f = s.instrument_failures;
  rows.push({
    label: 'instrument failures',
    value:
      f.n_items === 0
        ? '0 items (no item lost every sample)'
        : `${f.n_items} item(s) whose every sample failed: ${f.item_ids.slice(0, 10).join(', ')}${f.item_ids.length > 10 ? ', …' : ''}` +
          (f.excluded ? ' (excluded)' : ' (counted as abstain here; --exclude-failed leaves them out)'),
  });
  rows.push({ label: 'n (substantive)', value: String(s.n_substantive) });
  rows.push({ label: 'M verdicts', value: counts(s.m_counts) });
  rows.push({ label: 'reference verdicts', value: counts(s.r_counts) });
  rows.push({
    label: `κ_C(η, ${label})`,
    value:
      formatKappa(s[kcKey] as number | null, reasons[kcKey]) +
      formatCi(s[kcCiKey] as CiReport | null | undefined, reasons[kcCiKey], ciRequested) +
      underPowered,
  });
  if (s.reference.label !== 'consensus') {
    rows.push({
      label: 'κ_C(η, consensus)',
      value: formatKappa(s.cohens_kappa_consensus, reasons.cohens_kappa_consensus),
    });
  }
  rows.push({
    label: 'κ_F(η)',
    value:
      formatKappa(s.fleiss_kappa, reasons.fleiss_kappa) +
      (s.fleiss_kappa_weighted === undefined
        ? formatCi(s.fleiss_kappa_ci, reasons.fleiss_kappa_ci, ciRequested)
        : '') +
      underPowered,
  });
  if (s.fleiss_kappa_weighted !== undefined) {
    rows.push({
      label: 'κ_F(η), margin-weighted',
      value:
        formatKappa(s.fleiss_kappa_weighted, reasons.fleiss_kappa_weighted) +
        formatCi(s.fleiss_kappa_ci, reasons.fleiss_kappa_ci, ciRequested),
    });
  }
  rows.push({
    label: 'κ_F*(β) (inter-analyst, all)',
    value: formatKappa(s.inter_analyst_fleiss, reasons.inter_analyst_fleiss),
  });
  const d = s.aggregate_dispersion;
  rows.push({
    label: 'dispersion',
    value:
      `mean entropy ${fixed4(d.mean_entropy)}, mean margin ${fixed4(d.mean_margin)}, ` +
      `thin margins (< ${d.thin_margin_threshold}) ${d.n_thin_margin} of ${d.n_items}, tie-broken ${d.n_tie_broken}`,
  });
  return rows;
}

function panelRows(report: EvaluationMetricsReport): Row[] {
  const p = report.panels;
  if (!p) return [];
  const reasons = report.undefined_reasons;
  const rows: Row[] = p.panels.map((name) => ({
    label: `κ_F* panel ${name}${name === p.primary_panel ? ' (primary)' : ''}`,
    value: formatKappa(
      p.inter_analyst_fleiss_per_panel[name],
      reasons[`inter_analyst_fleiss_per_panel.${name}`],
    ),
  }));
  rows.push({
    label: `cross-panel κ (${p.primary_panel} vs ${p.check_panel ?? '?'})`,
    value: formatKappa(p.cross_panel_kappa, reasons.cross_panel_kappa),
  });
  return rows;
}

function textBlock(title: string, rows: Row[]): string {
  const width = Math.max(...rows.map((r) => [...r.label].length));
  const lines = [title, '='.repeat([...title].length)];
  for (const r of rows) lines.push(`${r.label}${' '.repeat(width - [...r.label].length)} : ${r.value}`);
  return lines.join('\n');
}

function markdownBlock(title: string, rows: Row[]): string {
  const esc = (s: string): string => s.replace(/\|/g, '\\|');
  return [
    `## ${title}`,
    '',
    '| metric | value |',
    '|---|---|',
    ...rows.map((r) => `| ${esc(r.label)} | ${esc(r.value)} |`),
  ].join('\n');
}

/** The whole metrics report as text blocks (Overall, panels, each decomposition) or Markdown sections. */
export function renderMetrics(
  report: EvaluationMetricsReport,
  format: TextFormat,
  ciRequested = false,
): string {
  const block = format === 'markdown' ? markdownBlock : textBlock;
  const blocks: string[] = [];
  const overallRows = [...sectionRows(report, ciRequested), ...panelRows(report)];
  blocks.push(block(report.title, overallRows));
  for (const cell of Object.values(report.by_tag ?? {}))
    blocks.push(block(cell.title, sectionRows(cell, ciRequested)));
  for (const cell of report.by_rsr_target ?? [])
    blocks.push(block(cell.title, sectionRows(cell, ciRequested)));
  return blocks.join('\n\n') + '\n';
}
