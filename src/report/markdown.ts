/** The Markdown construct-validity report (GitHub-flavoured tables; every record string escaped). */
import { escapeMarkdown as md, truncate } from './escape.js';
import { formatFigure, formatCi, VERDICT_ORDER, type ReportModel } from './model.js';
import { markdownRows as table } from './tables.js';

const kv = (rows: readonly [string, string][]) =>
  table(
    ['', ''],
    rows.map(([k, v]) => [md(k), md(v)]),
  );

export function renderMarkdown(model: ReportModel): string {
  const out: string[] = [];
  out.push(`# ${md(model.title)}`, '');
  out.push(`**Verdict: construct validity ${model.verdict.label}.**`, '');
  for (const r of model.verdict.reasons) out.push(`- ${md(r)}`);
  out.push('', '## Identity', '', kv(model.identity));
  out.push('', '## Summary metrics', '', kv(model.summary));
  out.push('', '## Reliability', '', kv(model.reliability));
  out.push('', '## Evidence', '', kv(model.evidence));
  out.push('', '## Agreement by tag', '');
  out.push(
    model.tags.length === 0
      ? 'No tags.'
      : table(
          ['Tag', 'n', 'Substantive', `κ vs ${md(model.reference_label)}`, 'CI', 'Note'],
          model.tags.map((t) => [
            md(t.tag),
            String(t.n),
            String(t.n_substantive),
            formatFigure(t.kappa),
            formatCi(t.ci),
            t.under_powered ? 'under-powered' : '',
          ]),
        ),
  );
  out.push('', '## Model against consensus', '');
  out.push(
    table(
      ['model \\\\ consensus', ...VERDICT_ORDER],
      VERDICT_ORDER.map((v, i) => [v, ...model.confusion[i].map(String)]),
    ),
  );
  if (model.sweep) {
    const s = model.sweep;
    out.push('', `## Parameter sweep: ${md(s.parameter)}`, '');
    out.push(
      table(
        [md(s.parameter), 'κ', 'coverage'],
        s.points.map((p) => [md(String(p.value)), formatFigure(p.kappa), formatFigure(p.coverage)]),
      ),
    );
    out.push(
      '',
      `κ range: ${formatFigure(s.kappa_range)}${s.interpretation ? ` (${md(s.interpretation)})` : ''}.`,
    );
  }
  if (model.retest) {
    const r = model.retest;
    out.push('', '## Test–retest', '');
    out.push(
      kv([
        ['κ between runs', formatFigure(r.kappa)],
        ['Agreement', formatFigure(r.agreement)],
        ['Flip rate', formatFigure(r.flip_rate)],
        ['Interpretation', r.interpretation ?? ''],
      ]),
    );
  }
  out.push('', '## Negative findings', '');
  if (model.negative_findings.length === 0) out.push('None.');
  for (const f of model.negative_findings) out.push(`- ${md(f)}`);
  out.push('', '## Items', '');
  out.push(
    table(
      ['Item', 'Model', 'Consensus', 'Samples g/b/a', 'First response'],
      model.items.map((i) => [
        md(i.id),
        i.model_verdict,
        i.consensus,
        `${i.counts.good}/${i.counts.bad}/${i.counts.abstain}`,
        md(truncate(i.response, 160)),
      ]),
    ),
  );
  out.push('');
  return out.join('\n');
}
