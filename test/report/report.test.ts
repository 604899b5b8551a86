import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadInfereval } from '../../src/validate/infereval.js';
import { evaluationMetrics } from '../../src/metrics/infereval/evaluation-metrics.js';
import { buildReportModel } from '../../src/report/model.js';
import { renderHtml } from '../../src/report/html.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { escapeHtml, escapeMarkdown } from '../../src/report/escape.js';
import { decideVerdict } from '../../src/report/verdict.js';
import { readRetestEvidence, readSweepEvidence } from '../../src/report/evidence.js';
import { cli as runMain } from '../helpers/cli.js';
import { projectRoot, reference, skipWithoutReference } from '../helpers/shared.js';

const example = (f: string) => join(projectRoot, 'examples/report', f);

async function exampleModel(withEvidence: boolean) {
  const eta = await loadInfereval(example('evaluation.json'), 'evaluation');
  const tags = [...new Set(eta.items.flatMap((i) => i.tags))].sort();
  const metrics = evaluationMetrics(eta, { byTag: tags, ci: { iterations: 200, seed: 0 } });
  return buildReportModel({
    evaluation: eta,
    metrics,
    ...(withEvidence
      ? {
          retest: readRetestEvidence({
            kappa: 0.5,
            flipped: [{ id: 'item-03', first: 'good', second: 'bad' }],
          }),
          sweep: readSweepEvidence({
            parameter: 'temperature',
            points: [
              { value: 0, kappa: 0.6 },
              { value: 1, kappa: 0.4 },
            ],
          }),
        }
      : {}),
  });
}

test('escaping: HTML special characters and Markdown markup', () => {
  assert.equal(
    escapeHtml(`<a href="x" onclick='y'>&</a>`),
    '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
  );
  assert.equal(escapeMarkdown('a|b *c* <br>\nd'), 'a\\|b \\*c\\* &lt;br&gt; d');
});

test('HTML report: charts present, record text escaped, no script, CSP forbids scripts', async () => {
  const html = renderHtml(await exampleModel(true));
  assert.doesNotMatch(html, /<script/i);
  assert.doesNotMatch(html, /<img/i);
  assert.match(html, /&lt;script&gt;document\.title=&#39;pwned&#39;&lt;\/script&gt;/);
  assert.match(html, /<meta http-equiv="Content-Security-Policy" content="[^"]*script-src &#39;none&#39;/);
  for (const cls of [
    'chart-kappa-by-tag',
    'chart-confusion',
    'chart-verdicts',
    'chart-dispersion',
    'chart-sweep',
    'chart-retest',
  ]) {
    assert.match(html, new RegExp(`<svg class="chart ${cls}"`), cls);
  }
  assert.doesNotMatch(html, /(src|href)="https?:/, 'no external resource');
});

test('Markdown report: sections, evidence not supplied, negative findings, confusion matrix counts', async () => {
  const model = await exampleModel(false);
  const md = renderMarkdown(model);
  for (const h of [
    '## Identity',
    '## Summary metrics',
    '## Reliability',
    '## Evidence',
    '## Negative findings',
    '## Items',
  ]) {
    assert.ok(md.includes(h), h);
  }
  assert.match(md, /\| Test–retest \| not supplied \|/);
  assert.match(md, /\| Parameter sweep \| not supplied \|/);
  assert.match(md, /Tag "modal" is under-powered/);
  assert.doesNotMatch(md, /<script>/);
  // The confusion matrix counts every item whose model verdict and consensus are both known: all 24 here.
  assert.equal(
    model.confusion.flat().reduce((a, b) => a + b, 0),
    24,
  );
  assert.equal(
    model.entropy_histogram.reduce((a, b) => a + b, 0),
    24,
  );
  assert.doesNotMatch(
    renderHtml(model),
    /chart-sweep|chart-retest/,
    'no sweep or retest plot without evidence',
  );
});

test('the verdict follows its stated rule', () => {
  const base = { kappa: 0.75, ci: { lo: 0.5, hi: 0.9 }, coverage: 0.9, nSubstantive: 40 };
  assert.equal(decideVerdict(base).label, 'supported');
  assert.ok(
    decideVerdict(base).reasons.some((r) => r.includes('No test–retest')),
    'missing evidence is said',
  );
  assert.equal(decideVerdict({ ...base, kappa: 0.3 }).label, 'not supported');
  assert.equal(decideVerdict({ ...base, kappa: null }).label, 'not supported');
  assert.equal(decideVerdict({ ...base, ci: null }).label, 'inconclusive');
  assert.equal(decideVerdict({ ...base, coverage: 0.5 }).label, 'inconclusive');
  assert.equal(decideVerdict({ ...base, retestKappa: 0.4 }).label, 'inconclusive');
  assert.equal(decideVerdict({ ...base, sweepRange: 0.2 }).label, 'inconclusive');
  assert.equal(decideVerdict({ ...base, retestKappa: 0.8, sweepRange: 0.02 }).label, 'supported');
});

test('evidence readers accept alternative key names and name the pointer of a bad value', () => {
  const r = readRetestEvidence({
    cohens_kappa: null,
    agreement_rate: 0.9,
    flips: [{ item_id: 'a', run_a: 'good', run_b: 'bad' }],
  });
  assert.deepEqual(r, { kappa: null, agreement: 0.9, flipped: [{ id: 'a', first: 'good', second: 'bad' }] });
  const s = readSweepEvidence({
    parameter: 'top_p',
    runs: [
      { value: 0.5, cohens_kappa: 0.7 },
      { value: 1, kappa: 0.6 },
    ],
  });
  assert.ok(Math.abs(s.kappa_range! - 0.1) < 1e-12);
  assert.throws(
    () => readSweepEvidence({ points: [{ value: 1, kappa: 'high' }] }, 's.json'),
    /s\.json: .*\(at \/points\/0\/kappa\)/,
  );
  assert.throws(() => readRetestEvidence({ agreement: 1 }, 'r.json'), /no "kappa"/);
});

test('evalkit report prints Markdown; bad evidence is exit 1 with the pointer, no stack trace', async () => {
  const r = await runMain(['report', example('evaluation.json'), '--ci-iterations', '100']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^# Construct-validity report: example-model-1/);
  // κ 0.481 is moderate and no retest evidence is given: inconclusive, whatever the (seeded) interval says.
  assert.match(r.stdout, /\*\*Verdict: construct validity inconclusive\.\*\*/);
  assert.match(r.stdout, /^- Cohen's κ = 0\.481 is only moderate \(0\.40–0\.60\)\.$/m);
  assert.match(r.stdout, /^- No test–retest evidence supplied\.$/m);
  const dir = await mkdtemp(join(tmpdir(), 'evalkit-report-'));
  try {
    const bad = join(dir, 'retest.json');
    await writeFile(bad, JSON.stringify({ kappa: 'high' }));
    const e = await runMain(['report', example('evaluation.json'), '--no-ci', '--retest', bad]);
    assert.equal(e.code, 1);
    assert.match(
      e.stderr,
      /error report\.evidence: .*retest\.json: expected a number or null \(at \/kappa\)/,
    );
    assert.doesNotMatch(e.stderr, /\.([cm]?js|ts):\d+/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('evidence from evalkit retest (library output) and a sweep-summary.json shape is read as such', async () => {
  const { retest } = await import('../../src/metrics/infereval/retest.js');
  const a = await loadInfereval(example('evaluation.json'), 'evaluation');
  const b = structuredClone(a);
  b.id = 'example-report-eta-retest';
  const flippedIds = b.items
    .filter((i) => i.model_verdict === 'good')
    .slice(0, 2)
    .map((i) => i.id);
  for (const item of b.items) if (flippedIds.includes(item.id)) item.model_verdict = 'bad';
  const report = retest(a, b);
  const evidence = readRetestEvidence(JSON.parse(JSON.stringify(report)));
  assert.equal(evidence.kappa, report.test_retest_kappa);
  assert.deepEqual(
    evidence.flipped.map((f) => [f.id, f.first, f.second]),
    flippedIds.map((id) => [id, 'good', 'bad']),
  );
  assert.equal(evidence.flip_rate, report.flip_rate);
  const sweep = readSweepEvidence({
    benchmark_id: 'b',
    parameter: 'temperature',
    values: [0, 1],
    runs: [
      {
        value: 0,
        eta: 'a.json',
        n_items: 24,
        coverage: 1,
        cohens_kappa_consensus: 0.7,
        fleiss_kappa: 0.6,
        agreement_count: 20,
        failed_samples: 0,
      },
      {
        value: 1,
        eta: 'b.json',
        n_items: 24,
        coverage: 0.9,
        cohens_kappa_consensus: null,
        fleiss_kappa: null,
        agreement_count: 18,
        failed_samples: 0,
      },
    ],
    kappa_range: 0,
    interpretation: 'stable',
  });
  assert.deepEqual(sweep.points, [
    { value: 0, kappa: 0.7, coverage: 1 },
    { value: 1, kappa: null, coverage: 0.9 },
  ]);
  assert.equal(sweep.interpretation, 'stable');
});

const realEta = 'infereval/evaluations/stop_sign_haiku_eta0.json';
test(
  'a real evaluation from the reference implementation renders in both formats',
  { skip: skipWithoutReference(realEta) },
  async () => {
    const eta = await loadInfereval(reference(realEta)!, 'evaluation');
    const tags = [...new Set(eta.items.flatMap((i) => i.tags))].sort();
    const model = buildReportModel({ evaluation: eta, metrics: evaluationMetrics(eta, { byTag: tags }) });
    assert.equal(model.items.length, eta.items.length);
    assert.equal(model.verdict.label, 'not supported'); // κ = 0.2 on 4 items
    assert.ok(model.negative_findings.some((f) => f.includes('under-powered')));
    assert.match(renderHtml(model), /<svg class="chart chart-confusion"/);
    assert.match(renderMarkdown(model), /\| Benchmark \(β\) \| not supplied \|/);
  },
);
