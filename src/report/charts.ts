/**
 * Inline SVG charts for the HTML report. Each returns a complete <svg> element with a class naming the chart
 * (`chart-kappa-by-tag`, `chart-confusion`, ...), a <title> for screen readers, and only escaped text.
 */
import { escapeHtml as esc } from './escape.js';
import { VERDICT_ORDER, type ItemRow, type SweepEvidence, type TagRow } from './model.js';

const COLORS = { good: '#2e7d32', bad: '#c62828', abstain: '#9e9e9e' } as const;
const n3 = (x: number) => (Math.round(x * 1000) / 1000).toString();

function svg(cls: string, title: string, width: number, height: number, body: string): string {
  return `<svg class="chart ${cls}" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img"><title>${esc(title)}</title>${body}</svg>`;
}

/** κ per tag on a −1…1 axis: a dot at κ and a bar over the CI; under-powered tags drawn hollow. */
export function kappaByTagChart(rows: readonly TagRow[]): string {
  const left = 170;
  const width = 620;
  const plot = width - left - 20;
  const rowH = 26;
  const height = 40 + rowH * Math.max(1, rows.length);
  const x = (k: number) => left + ((Math.max(-1, Math.min(1, k)) + 1) / 2) * plot;
  let body = '';
  for (const t of [-1, -0.5, 0, 0.4, 0.6, 1]) {
    body += `<line class="grid" x1="${x(t)}" x2="${x(t)}" y1="20" y2="${height - 16}" stroke="${t === 0 ? '#555' : '#ddd'}"/>`;
    body += `<text x="${x(t)}" y="${height - 3}" font-size="10" text-anchor="middle">${t}</text>`;
  }
  rows.forEach((r, i) => {
    const y = 32 + i * rowH;
    body += `<text x="${left - 8}" y="${y + 4}" font-size="12" text-anchor="end">${esc(r.tag)} (n=${r.n_substantive})</text>`;
    if (r.ci) {
      body += `<line class="ci-bar" x1="${n3(x(r.ci.lo))}" x2="${n3(x(r.ci.hi))}" y1="${y}" y2="${y}" stroke="#1565c0" stroke-width="3"/>`;
    }
    if (r.kappa === null) {
      body += `<text class="kappa-undefined" x="${x(0) + 6}" y="${y + 4}" font-size="11" fill="#c62828">undefined</text>`;
    } else {
      body += `<circle class="kappa-point" cx="${n3(x(r.kappa))}" cy="${y}" r="5" fill="${r.under_powered ? '#fff' : '#1565c0'}" stroke="#1565c0" stroke-width="2"><title>${esc(r.tag)}: κ = ${n3(r.kappa)}${r.under_powered ? ' (under-powered)' : ''}</title></circle>`;
    }
  });
  if (rows.length === 0) body += `<text x="${left}" y="34" font-size="12">no tags</text>`;
  return svg('chart-kappa-by-tag', "Cohen's κ per tag with confidence intervals", width, height, body);
}

/** Model verdict (rows) against the analysts' consensus (columns), cells shaded by count. */
export function confusionChart(matrix: readonly (readonly number[])[]): string {
  const cell = 64;
  const left = 110;
  const top = 50;
  const max = Math.max(1, ...matrix.flat());
  let body = `<text x="${left + (cell * 3) / 2}" y="16" font-size="12" text-anchor="middle">analysts' consensus</text>`;
  body += `<text x="14" y="${top + (cell * 3) / 2}" font-size="12" text-anchor="middle" transform="rotate(-90 14 ${top + (cell * 3) / 2})">model verdict</text>`;
  VERDICT_ORDER.forEach((v, j) => {
    body += `<text x="${left + j * cell + cell / 2}" y="${top - 8}" font-size="12" text-anchor="middle">${v}</text>`;
    body += `<text x="${left - 8}" y="${top + j * cell + cell / 2 + 4}" font-size="12" text-anchor="end">${v}</text>`;
  });
  matrix.forEach((row, i) =>
    row.forEach((count, j) => {
      const shade = Math.round(245 - (count / max) * 110);
      const fill =
        i === j ? `rgb(${shade},${Math.min(255, shade + 30)},${shade})` : `rgb(255,${shade},${shade})`;
      body += `<rect class="confusion-cell" x="${left + j * cell}" y="${top + i * cell}" width="${cell}" height="${cell}" fill="${fill}" stroke="#fff"/>`;
      body += `<text x="${left + j * cell + cell / 2}" y="${top + i * cell + cell / 2 + 5}" font-size="16" text-anchor="middle">${count}</text>`;
    }),
  );
  return svg(
    'chart-confusion',
    'Model verdict against analysts’ consensus',
    left + cell * 3 + 10,
    top + cell * 3 + 10,
    body,
  );
}

/** One stacked bar per item: share of good / bad / abstain sample verdicts. */
export function verdictDistributionChart(items: readonly ItemRow[]): string {
  const left = 150;
  const width = 620;
  const plot = width - left - 20;
  const rowH = 16;
  const shown = items.slice(0, 200);
  const height = 30 + rowH * Math.max(1, shown.length);
  let body = '';
  shown.forEach((item, i) => {
    const y = 20 + i * rowH;
    const total = item.counts.good + item.counts.bad + item.counts.abstain;
    body += `<text x="${left - 6}" y="${y + 11}" font-size="11" text-anchor="end">${esc(item.id)}</text>`;
    let at = left;
    for (const v of VERDICT_ORDER) {
      const w = total === 0 ? 0 : (item.counts[v] / total) * plot;
      if (w > 0) {
        body += `<rect class="verdict-bar verdict-${v}" x="${n3(at)}" y="${y}" width="${n3(w)}" height="${rowH - 3}" fill="${COLORS[v]}"><title>${esc(item.id)}: ${v} ${item.counts[v]}/${total}</title></rect>`;
      }
      at += w;
    }
    if (total === 0) body += `<text x="${left}" y="${y + 11}" font-size="11">no samples</text>`;
  });
  let legend = '';
  VERDICT_ORDER.forEach((v, i) => {
    legend += `<rect x="${left + i * 90}" y="2" width="10" height="10" fill="${COLORS[v]}"/><text x="${left + i * 90 + 14}" y="11" font-size="11">${v}</text>`;
  });
  const note =
    items.length > shown.length
      ? `<text x="4" y="${height - 4}" font-size="11">first ${shown.length} of ${items.length} items</text>`
      : '';
  return svg('chart-verdicts', 'Sample verdict distribution per item', width, height, legend + body + note);
}

/** Histogram of per-item normalised entropy (0 = unanimous samples, 1 = evenly split). */
export function dispersionHistogram(bins: readonly number[]): string {
  const width = 420;
  const height = 200;
  const left = 36;
  const bottom = 170;
  const barW = (width - left - 10) / bins.length;
  const max = Math.max(1, ...bins);
  let body = `<line x1="${left}" x2="${width - 10}" y1="${bottom}" y2="${bottom}" stroke="#555"/>`;
  bins.forEach((count, i) => {
    const h = (count / max) * (bottom - 20);
    body += `<rect class="histogram-bar" x="${n3(left + i * barW + 1)}" y="${n3(bottom - h)}" width="${n3(barW - 2)}" height="${n3(h)}" fill="#6a1b9a"><title>entropy ${(i / 10).toFixed(1)}–${((i + 1) / 10).toFixed(1)}: ${count}</title></rect>`;
    if (count > 0)
      body += `<text x="${n3(left + i * barW + barW / 2)}" y="${n3(bottom - h - 3)}" font-size="10" text-anchor="middle">${count}</text>`;
  });
  for (const t of [0, 0.5, 1]) {
    body += `<text x="${left + t * (width - left - 10)}" y="${bottom + 14}" font-size="10" text-anchor="middle">${t}</text>`;
  }
  body += `<text x="${width / 2}" y="${height - 2}" font-size="11" text-anchor="middle">normalised entropy of sample verdicts</text>`;
  return svg('chart-dispersion', 'Histogram of per-item verdict entropy', width, height, body);
}

/** κ against the swept parameter's value (categorical x axis, in the order given). */
export function sweepChart(sweep: SweepEvidence): string {
  const width = 520;
  const height = 220;
  const left = 44;
  const bottom = 180;
  const top = 20;
  const n = sweep.points.length;
  const x = (i: number) => left + (n <= 1 ? (width - left - 20) / 2 : (i / (n - 1)) * (width - left - 20));
  const y = (k: number) => bottom - ((Math.max(-1, Math.min(1, k)) + 1) / 2) * (bottom - top);
  let body = '';
  for (const t of [-1, 0, 0.4, 0.6, 1]) {
    body += `<line x1="${left}" x2="${width - 20}" y1="${y(t)}" y2="${y(t)}" stroke="${t === 0 ? '#555' : '#ddd'}"/><text x="${left - 4}" y="${y(t) + 4}" font-size="10" text-anchor="end">${t}</text>`;
  }
  const defined = sweep.points
    .map((p, i) => [i, p.kappa] as const)
    .filter((p): p is readonly [number, number] => p[1] !== null);
  if (defined.length > 1) {
    body += `<polyline class="sweep-line" fill="none" stroke="#1565c0" stroke-width="2" points="${defined.map(([i, k]) => `${n3(x(i))},${n3(y(k))}`).join(' ')}"/>`;
  }
  sweep.points.forEach((p, i) => {
    body += `<text x="${n3(x(i))}" y="${bottom + 14}" font-size="10" text-anchor="middle">${esc(String(p.value))}</text>`;
    if (p.kappa !== null) {
      body += `<circle class="sweep-point" cx="${n3(x(i))}" cy="${n3(y(p.kappa))}" r="4" fill="#1565c0"><title>${esc(sweep.parameter)} = ${esc(String(p.value))}: κ = ${n3(p.kappa)}</title></circle>`;
    }
  });
  body += `<text x="${width / 2}" y="${height - 4}" font-size="11" text-anchor="middle">${esc(sweep.parameter)}</text>`;
  return svg('chart-sweep', `Cohen's κ across ${sweep.parameter}`, width, height, body);
}

/** Agreement vs flip share between test and retest, plus κ, as two bars. */
export function retestChart(
  agreement: number | undefined,
  flipRate: number | undefined,
  kappa: number | null,
): string {
  const width = 420;
  const height = 120;
  const left = 90;
  const plot = width - left - 50;
  let body = '';
  const bars: [string, number | undefined, string][] = [
    ['agreement', agreement, '#2e7d32'],
    ['flip rate', flipRate, '#c62828'],
    ['κ (retest)', kappa === null ? undefined : Math.max(0, kappa), '#1565c0'],
  ];
  bars.forEach(([label, value, color], i) => {
    const y = 12 + i * 34;
    body += `<text x="${left - 6}" y="${y + 14}" font-size="12" text-anchor="end">${label}</text>`;
    body += `<rect x="${left}" y="${y}" width="${plot}" height="20" fill="#eee"/>`;
    if (value !== undefined) {
      body += `<rect class="retest-bar" x="${left}" y="${y}" width="${n3(Math.min(1, value) * plot)}" height="20" fill="${color}"/>`;
      body += `<text x="${left + plot + 6}" y="${y + 14}" font-size="12">${value.toFixed(2)}</text>`;
    } else body += `<text x="${left + plot + 6}" y="${y + 14}" font-size="12">n/a</text>`;
  });
  return svg('chart-retest', 'Test–retest agreement', width, height, body);
}
