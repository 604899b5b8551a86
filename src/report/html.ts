/**
 * The self-contained HTML report: one file, inline CSS and inline SVG only, no script, no external resource, and
 * a Content-Security-Policy that forbids scripts, so it opens offline and record text can never execute.
 */
import {
  confusionChart,
  dispersionHistogram,
  kappaByTagChart,
  retestChart,
  sweepChart,
  verdictDistributionChart,
} from './charts.js';
import { escapeHtml as esc, truncate } from './escape.js';
import type { ReportModel } from './model.js';

export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'none'; object-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;max-width:980px;color:#212121;padding:0 1rem}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f5f5f5}.kv th{width:16rem}.verdict{padding:.75rem 1rem;border-radius:6px;font-weight:600}
.verdict-supported{background:#e8f5e9}.verdict-inconclusive{background:#fff8e1}.verdict-not-supported{background:#ffebee}
.response{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;white-space:pre-wrap;max-width:34rem;overflow-wrap:anywhere}
.muted{color:#757575}figure{margin:1rem 0}figcaption{font-size:12px;color:#616161}
`;

function kvTable(rows: readonly [string, string][]): string {
  return `<table class="kv">${rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join('')}</table>`;
}

function figure(chart: string, caption: string): string {
  return `<figure>${chart}<figcaption>${esc(caption)}</figcaption></figure>`;
}

export function renderHtml(model: ReportModel): string {
  const v = model.verdict;
  const parts: string[] = [];
  parts.push(`<h1>${esc(model.title)}</h1>`);
  parts.push(
    `<p class="verdict verdict-${v.label.replace(' ', '-')}">Verdict: construct validity ${esc(v.label)}</p><ul class="reasons">${v.reasons.map((r) => `<li>${esc(r)}</li>`).join('')}</ul>`,
  );
  parts.push(`<h2>Identity</h2>${kvTable(model.identity)}`);
  parts.push(`<h2>Summary metrics</h2>${kvTable(model.summary)}`);
  parts.push(`<h2>Reliability</h2>${kvTable(model.reliability)}`);
  parts.push(`<h2>Evidence</h2>${kvTable(model.evidence)}`);

  parts.push('<h2>Agreement by tag</h2>');
  parts.push(
    figure(
      kappaByTagChart(model.tags),
      `Cohen's κ against ${model.reference_label} per tag; bars are subsampling CIs, hollow dots are under-powered tags (< 10 substantive items).`,
    ),
  );
  parts.push('<h2>Model against consensus</h2>');
  parts.push(
    figure(
      confusionChart(model.confusion),
      'Counts of items by model verdict (rows) and analysts’ consensus (columns).',
    ),
  );
  parts.push('<h2>Verdict distributions</h2>');
  parts.push(figure(verdictDistributionChart(model.items), 'Share of sample verdicts per item.'));
  parts.push(
    figure(
      dispersionHistogram(model.entropy_histogram),
      'Per-item entropy of sample verdicts, normalised by ln 3.',
    ),
  );

  if (model.sweep) {
    parts.push(`<h2>Parameter sweep: ${esc(model.sweep.parameter)}</h2>`);
    parts.push(
      figure(
        sweepChart(model.sweep),
        `κ range ${model.sweep.kappa_range === undefined || model.sweep.kappa_range === null ? 'undefined' : model.sweep.kappa_range.toFixed(3)}${model.sweep.interpretation ? `: ${model.sweep.interpretation}` : ''}.`,
      ),
    );
  }
  if (model.retest) {
    const r = model.retest;
    parts.push('<h2>Test–retest</h2>');
    parts.push(
      figure(
        retestChart(r.agreement, r.flip_rate, r.kappa),
        r.interpretation ?? 'Agreement between the two runs.',
      ),
    );
    if (r.flipped.length > 0) {
      parts.push(
        `<table><tr><th>Flipped item</th><th>Test</th><th>Retest</th></tr>${r.flipped.map((f) => `<tr><td>${esc(f.id)}</td><td>${esc(f.first)}</td><td>${esc(f.second)}</td></tr>`).join('')}</table>`,
      );
    }
  }

  parts.push('<h2>Negative findings</h2>');
  parts.push(
    model.negative_findings.length === 0
      ? '<p class="muted">None.</p>'
      : `<ul class="negative">${model.negative_findings.map((f) => `<li>${esc(f)}</li>`).join('')}</ul>`,
  );

  parts.push('<h2>Items</h2>');
  parts.push(
    `<table class="items"><tr><th>Item</th><th>Tags</th><th>Model</th><th>Consensus</th><th>Analysts</th><th>Samples g/b/a</th><th>First response</th></tr>${model.items
      .map(
        (i) =>
          `<tr><td>${esc(i.id)}</td><td>${esc(i.tags.join(', '))}</td><td>${esc(i.model_verdict)}</td><td>${esc(i.consensus)}</td><td>${esc(i.analyst_verdicts.join(', '))}</td><td>${i.counts.good}/${i.counts.bad}/${i.counts.abstain}${i.tie_broken ? ' (tie)' : ''}</td><td class="response">${esc(truncate(i.response, 400))}</td></tr>`,
      )
      .join('')}</table>`,
  );

  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${esc(CONTENT_SECURITY_POLICY)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="evalkit">
<title>${esc(model.title)}</title>
<style>${CSS}</style>
</head>
<body>
${parts.join('\n')}
</body>
</html>
`;
}
