// Text and Markdown renderings of the infereval metrics. Undefined values read "undefined (<why>)".
import type {
  CiReport,
  EvaluationMetricsReport,
  MetricsSection,
} from '../../metrics/infereval/evaluation-metrics.js';
import type { Verdict } from '../../metrics/infereval/model.js';
import type { RetestReport } from '../../metrics/infereval/retest.js';
import type { AuditReport } from '../../metrics/infereval/audit.js';
import type { MonotonicityReport } from '../../metrics/infereval/monotonicity.js';
import type { StructureReport } from '../../metrics/infereval/structure.js';

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
  // Over the substantive pairs only (both sides good or bad): the κ_C table, not every verdict of the run.
  rows.push({ label: 'M verdicts (substantive pairs)', value: counts(s.m_counts) });
  rows.push({ label: 'reference verdicts (substantive pairs)', value: counts(s.r_counts) });
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

// ---- retest, audit, monotonicity, structure ------------------------------------------------------------------

function render(format: TextFormat, title: string, rows: Row[], extra: string[] = []): string {
  const head = format === 'markdown' ? markdownBlock(title, rows) : textBlock(title, rows);
  const tail = extra.length === 0 ? '' : '\n\n' + extra.join('\n');
  return head + tail + '\n';
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
const bullet = (format: TextFormat, s: string): string => (format === 'markdown' ? `- ${s}` : `  - ${s}`);

export function renderRetest(r: RetestReport, format: TextFormat): string {
  const rows: Row[] = [
    {
      label: 'runs',
      value: `${r.run_a_id ?? 'A'} vs ${r.run_b_id ?? 'B'} (benchmark ${r.benchmark_id ?? '?'})`,
    },
    { label: 'items compared', value: String(r.n_items) },
    { label: 'agreement rate', value: `${pct(r.agreement_rate)} (${r.n_agreements} items)` },
    { label: 'flip rate', value: `${pct(r.flip_rate)} (${r.n_disagreements} items)` },
    {
      label: 'test-retest κ',
      value:
        formatKappa(r.test_retest_kappa, r.undefined_reasons.test_retest_kappa) +
        ` over ${r.n_substantive_both} items substantive in both`,
    },
    { label: 'stability', value: r.stability },
    {
      label: 'instrument failures',
      value:
        `${r.instrument_failures.run_a.length} item(s) in A, ${r.instrument_failures.run_b.length} in B ` +
        (r.instrument_failures.excluded
          ? '(excluded)'
          : '(counted as abstain; --exclude-failed leaves them out)'),
    },
  ];
  if (r.only_in_a.length || r.only_in_b.length) {
    rows.push({
      label: 'not in both runs',
      value: `${r.only_in_a.length} only in A, ${r.only_in_b.length} only in B`,
    });
  }
  const extra = [r.stability_verdict];
  if (r.flipped_items.length > 0) {
    extra.push('', 'Flipped items:');
    for (const f of r.flipped_items.slice(0, 50))
      extra.push(bullet(format, `${f.item_id}: ${f.verdict_a} → ${f.verdict_b}`));
    if (r.flipped_items.length > 50) extra.push(bullet(format, `… and ${r.flipped_items.length - 50} more`));
  }
  return render(format, 'Test–retest', rows, extra);
}

export function renderAudit(r: AuditReport, format: TextFormat): string {
  const rows: Row[] = [
    { label: 'items / samples', value: `${r.n_items} / ${r.n_samples}` },
    { label: 'silent failures', value: `${r.n_silent_failures} sample(s) in ${r.n_items_affected} item(s)` },
    {
      label: 'instrument failures',
      value: `${r.instrument_failure_items.length} item(s) with no genuine sample (left out below, not counted as abstention)`,
    },
    {
      label: 'coverage (recorded → audited)',
      value: `${fixed4(r.original.coverage)} → ${fixed4(r.recomputed.coverage)} (n ${r.original.n} → ${r.recomputed.n})`,
    },
    {
      label: 'κ_C(η, consensus) recorded',
      value: formatKappa(
        r.original.cohens_kappa_consensus,
        r.undefined_reasons['original.cohens_kappa_consensus'],
      ),
    },
    {
      label: 'κ_C(η, consensus) audited',
      value: formatKappa(
        r.recomputed.cohens_kappa_consensus,
        r.undefined_reasons['recomputed.cohens_kappa_consensus'],
      ),
    },
    { label: 'verdicts changed', value: String(r.verdict_changes.length) },
  ];
  const extra: string[] = [];
  if (r.silent_failures.length > 0) {
    extra.push('Silent failures:');
    for (const f of r.silent_failures.slice(0, 50)) {
      extra.push(bullet(format, `${f.item_id} sample ${f.sample_index}: ${f.reasons.join('; ')}`));
    }
    if (r.silent_failures.length > 50)
      extra.push(bullet(format, `… and ${r.silent_failures.length - 50} more`));
  }
  return render(format, 'Audit', rows, extra);
}

export function renderMonotonicity(r: MonotonicityReport, format: TextFormat): string {
  if (r.n_ladders === 0) {
    return (
      (format === 'markdown' ? '## Monotonicity\n\n' : '') + 'No monotonicity ladders in this benchmark.\n'
    );
  }
  const lines: string[] = [];
  if (format === 'markdown') {
    lines.push(
      '## Monotonicity',
      '',
      'Verdicts in ascending tier order (`G` good, `B` bad, `·` abstain gap, `×` instrument failure); bad < good.',
      '',
    );
    lines.push(
      '| ladder | family | fixed | expected | sequence | gaps | status |',
      '|---|---|---|---|---|---|---|',
    );
    for (const l of r.ladders) {
      lines.push(
        `| ${l.ladder ?? '—'} | ${l.family} | ${l.fixed ?? '—'} | ${l.expected} | \`${l.sequence}\` | ${l.n_gaps} | ${l.status} |`,
      );
    }
  } else {
    lines.push(
      'Monotonicity',
      '============',
      'Verdicts in ascending tier order (G good, B bad, · abstain gap, × instrument failure); bad < good.',
      '',
    );
    for (const l of r.ladders) {
      lines.push(
        `${l.ladder ?? '—'} (${l.family}${l.fixed ? `, fixed ${l.fixed}` : ''}, ${l.expected}): ${l.sequence}  ${l.status}${l.n_gaps ? ` (${l.n_gaps} gap${l.n_gaps === 1 ? '' : 's'})` : ''}`,
      );
    }
  }
  const violated = r.ladders.filter((l) => l.violations.length > 0);
  if (violated.length > 0) {
    lines.push('', 'Violations (strict inversions):');
    for (const l of violated)
      for (const [a, b] of l.violations)
        lines.push(bullet(format, `ladder ${l.ladder ?? '—'} (${l.family}): ${a} → ${b}`));
  }
  lines.push(
    '',
    `${r.n_ladders} ladder(s): ${r.n_monotone} monotone, ${r.n_violated} violated, ${r.n_insufficient} insufficient (fewer than 2 substantive steps).`,
  );
  lines.push(
    `Instrument failures (× in a sequence; every sample failed, not an abstention): ${r.instrument_failures.length}${r.instrument_failures.length ? ` (${r.instrument_failures.join(', ')})` : ''}.`,
  );
  if (r.items_missing_from_evaluation.length > 0) {
    lines.push(
      `${r.items_missing_from_evaluation.length} ladder item(s) not in the evaluation were skipped.`,
    );
  }
  return lines.join('\n') + '\n';
}

export function renderStructure(r: StructureReport, format: TextFormat): string {
  const c = r.containment;
  const role = r.rsr_role_consistency;
  const base = r.base_case_stability;
  const thin = r.thin_margin_agreement;
  const rows: Row[] = [
    {
      label: 'containment',
      value: `${c.status}: ${c.n_endorsed} of ${c.n_items} self-containing item(s) endorsed good`,
    },
    {
      label: 'RSR role consistency',
      value: `${role.status}: ${role.n_consistent} consistent, ${role.n_inconsistent} inconsistent, ${role.n_undetermined} undetermined`,
    },
    {
      label: 'base-case stability',
      value: `${base.status}: ${base.n_stable} of ${base.n_base_cases} base case(s) stable`,
    },
    {
      label: 'instrument failures',
      value: `${r.instrument_failures.length} item(s) whose every sample failed (undetermined, not abstentions)`,
    },
    {
      label: 'thin-margin agreement',
      value: `${thin.status}: ${thin.n_thin} of ${thin.n_agreements} agreement(s) rest on a margin < ${thin.threshold} (${pct(thin.fraction_thin)})`,
    },
  ];
  const extra: string[] = [];
  const details: string[] = [];
  for (const v of c.violations) details.push(`containment: ${v.item_id} got ${v.verdict}`);
  for (const f of role.findings.filter((x) => x.outcome !== 'consistent')) {
    details.push(`${f.role} ${f.item_id} (${f.outcome}): ${f.explanation}`);
  }
  for (const f of base.findings.filter((x) => !x.stable))
    details.push(`base case ${f.item_id}: ${f.problems.join('; ')}`);
  for (const t of thin.thin_items.slice(0, 20))
    details.push(`thin agreement ${t.item_id}: margin ${t.margin.toFixed(2)}`);
  if (details.length > 0) extra.push('Findings:', ...details.map((d) => bullet(format, d)));
  return render(format, 'Structure', rows, extra);
}
