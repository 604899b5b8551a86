import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli as runMain } from '../helpers/cli.js';
import { projectRoot } from '../helpers/shared.js';
import { findType } from '../../src/formats/registry.js';
import { createAjv } from '../../src/validate/ajv.js';
import { classifyOutcome, operationalFigures } from '../../src/metrics/retrieval/operational.js';
import { parseThresholds, verdictsFor } from '../../src/metrics/retrieval/thresholds.js';

const ex = (f: string) => join(projectRoot, 'examples/retrieval', f);

function validator(typeId: string) {
  const version = findType(typeId)!.versions.find((v) => v.version === '0.1')!;
  return createAjv(version.dialect).compile(version.schema);
}

test('retrieval score: fills metrics and verdicts, rows valid against retrieval.result 0.1', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'evalkit-retrieval-'));
  try {
    const out = join(dir, 'scored.jsonl');
    const r = await runMain([
      'retrieval', 'score', '--gold', ex('gold.jsonl'), '--results', ex('results.jsonl'),
      '--thresholds', ex('thresholds.json'), '--events', ex('events.jsonl'), '-o', out, '--format', 'json',
    ]); // prettier-ignore
    assert.equal(r.code, 0, r.stderr);
    const summary = JSON.parse(r.stdout);
    assert.equal(summary.scored, 3);
    assert.deepEqual(
      summary.diagnostics.map((d: { code: string }) => d.code),
      ['retrieval.missing-result'],
    );
    const rows = (await readFile(out, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const validate = validator('retrieval.result');
    for (const row of rows) assert.ok(validate(row), JSON.stringify(validate.errors));
    // q1 by hand: retrieved [hist, harbour, misc, founders, ferry], expected {hist, founders}:
    // p@5 = 2/5, recall@5 = 1, MRR = 1, nDCG@5 = (1 + 1/log2 5) / (1 + 1/log2 3); entities {harbour, ferry} both retrieved.
    const q1 = rows[0].metrics;
    assert.equal(q1.p_at_5, 0.4);
    assert.equal(q1.recall_at_5, 1);
    assert.equal(q1.mrr_10, 1);
    assert.ok(Math.abs(q1.ndcg_5 - (1 + 1 / Math.log2(5)) / (1 + 1 / Math.log2(3))) < 1e-12);
    assert.equal(q1.cov_entities, 1);
    assert.equal(q1.p50_ms, 120);
    assert.equal(q1.privacy_leak, false, 'supplied metrics are kept');
    // q3: [fleet, fleet(dup), news, faq], expected {accessibility, faq, fleet}: 2 distinct hits in top 5.
    assert.equal(rows[2].metrics.p_at_5, 0.4);
    assert.ok(Math.abs(rows[2].metrics.recall_at_5 - 2 / 3) < 1e-12);
    const pAt5 = summary.metrics.find((m: { metric: string }) => m.metric === 'p_at_5');
    assert.ok(Math.abs(pAt5.mean - (0.4 + 0.2 + 0.4) / 3) < 1e-12);
    assert.ok(pAt5.ci.lower <= pAt5.mean && pAt5.mean <= pAt5.ci.upper);
    assert.ok(rows.every((row) => row.verdicts.every((v: { pass: boolean }) => v.pass)));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('retrieval score reports unknown ids, duplicate ids and invalid rows with file:line and exits 1', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'evalkit-retrieval-'));
  try {
    const gold = join(dir, 'gold.jsonl');
    const results = join(dir, 'results.jsonl');
    const g = (id: string) =>
      JSON.stringify({ schema_version: '0.1', id, query: 'q', expected_ids: ['a'], layers: [] });
    const res = (id: string, req: string) =>
      JSON.stringify({ schema_version: '0.1', id, request_id: req, metrics: {}, retrieved_ids: ['a'] });
    await writeFile(gold, [g('x'), g('x'), g('y')].join('\n'));
    await writeFile(
      results,
      [res('x', 'r1'), res('x', 'r2'), res('nope', 'r3'), '{"id": 5}'].join('\n') + '\n',
    );
    const r = await runMain(['retrieval', 'score', '--gold', gold, '--results', results]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /gold\.jsonl:2:1 error retrieval\.duplicate-gold-id/);
    assert.match(r.stderr, /results\.jsonl:2:1 warning retrieval\.duplicate-result-id/);
    assert.match(r.stderr, /results\.jsonl:3:1 error retrieval\.unknown-id .*"nope"/);
    assert.match(r.stderr, /results\.jsonl:4:1 error schema\./);
    assert.match(r.stderr, /gold\.jsonl:3:1 warning retrieval\.missing-result gold "y"/);
    assert.doesNotMatch(r.stderr, /at .*\.([cm]?js|ts):\d+/, 'no stack trace');
    const bad = await runMain(['retrieval', 'score', '--gold', gold, '--results', results, '--k', '0,x']);
    assert.equal(bad.code, 2);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('retrieval gate: evaluation_result events valid against retrieval.event, exit 1 on a failed gate', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'evalkit-retrieval-'));
  try {
    const out = join(dir, 'results.jsonl');
    const r = await runMain([
      'retrieval',
      'gate',
      '--events',
      ex('events.jsonl'),
      '--thresholds',
      ex('thresholds.json'),
      '-o',
      out,
    ]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /FAIL gate p95_ms = 1748 /); // numpy.percentile([120, 340, 95, 2100, 45], 95) = 1748.0
    assert.match(r.stdout, /FAIL gate error_rate_per_1k = 250 /); // 1 error (503) of 4 non-aborted requests
    const events = (await readFile(out, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const validate = validator('retrieval.event');
    for (const e of events) assert.ok(validate(e), JSON.stringify(validate.errors));
    assert.deepEqual(events[0].observation_ids, ['req-1', 'req-2', 'req-3', 'req-4', 'req-5']);
    assert.equal(events[0].ts, '2026-11-20T10:00:04Z', 'latest observation time, not the clock');

    const lenient = join(dir, 't.json');
    await writeFile(lenient, JSON.stringify({ thresholds: { p95_ms: 5000, error_rate_per_1k: 500 } }));
    const ok = await runMain(['retrieval', 'gate', '--events', ex('events.jsonl'), '--thresholds', lenient]);
    assert.equal(ok.code, 0, ok.stdout);
    const grouped = await runMain([
      'retrieval',
      'gate',
      '--events',
      ex('events.jsonl'),
      '--thresholds',
      lenient,
      '--group-by',
      'tool_id',
      '--format',
      'json',
    ]);
    const g = JSON.parse(grouped.stdout);
    assert.equal(g.groups, 2);
    assert.deepEqual(
      [...new Set(g.events.map((e: { request_id: string }) => e.request_id))],
      ['gate:tool_id=archive', 'gate:tool_id=search'],
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('operational figures and thresholds', () => {
  assert.equal(classifyOutcome('HTTP_503'), 'error');
  assert.equal(classifyOutcome('404'), 'error');
  assert.equal(classifyOutcome('client_abort'), 'abort');
  assert.equal(classifyOutcome('timeout'), 'timeout');
  assert.equal(classifyOutcome('ok'), 'ok');
  const f = operationalFigures(
    [10, 20, 30, 40].map((latency_ms, i) => ({
      type: 'evaluation_observation' as const,
      request_id: `r${i}`,
      ts: 't',
      latency_ms,
    })),
    { softDeadlineMs: 25 },
  );
  assert.equal(f.p50_ms, 25); // numpy.percentile([10,20,30,40], 50) = 25.0
  assert.ok(Math.abs(f.p99_ms! - 39.7) < 1e-9); // numpy.percentile([10,20,30,40], 99) = 39.7
  assert.equal(f.timeout_share, 0.5);
  const config = parseThresholds({
    thresholds: { ndcg_10: 0.5, p95_ms: 100, errors: { threshold: 2, direction: 'lower' } },
  });
  assert.deepEqual(
    verdictsFor({ ndcg_10: 0.5, p95_ms: 101, errors: 2 }, config.thresholds).map((v) => v.pass),
    [true, false, true],
  );
  assert.throws(
    () => parseThresholds({ thresholds: { x: 'high' } }, 'T.json'),
    /T\.json: .*\(at \/thresholds\/x\)/,
  );
  assert.throws(() => parseThresholds({ thresholds: {}, extra: 1 }, 'T.json'), /unknown key "extra"/);
});
