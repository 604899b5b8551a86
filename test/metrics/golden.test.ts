// Every metrics, dispersion and majority-vote vector of the reference's golden_vectors.json, reproduced to 1e-12.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadInfereval } from '../../src/validate/infereval.js';
import {
  dispersion,
  evaluationMetrics,
  majorityVote,
  type ItemLike,
  type Verdict,
} from '../../src/metrics/index.js';
import { reference, skipWithoutReference } from '../helpers/shared.js';

interface Vector {
  name: string;
  input: Record<string, unknown>;
  expected: Record<string, unknown>;
}

const GOLDEN = 'infereval/golden_vectors.json';
const vectors = (): Vector[] =>
  (JSON.parse(readFileSync(reference(GOLDEN)!, 'utf8')) as { vectors: Vector[] }).vectors;

/** Deep equality where numbers may differ by at most 1e-12. */
function assertClose(actual: unknown, expected: unknown, path = ''): void {
  if (typeof expected === 'number') {
    assert.equal(typeof actual, 'number', `${path}: expected a number, got ${JSON.stringify(actual)}`);
    assert.ok(Math.abs((actual as number) - expected) <= 1e-12, `${path}: ${actual} vs ${expected}`);
  } else if (expected !== null && typeof expected === 'object') {
    assert.ok(actual !== null && typeof actual === 'object', `${path}: expected an object`);
    if (Array.isArray(expected))
      assert.equal((actual as unknown[]).length, expected.length, `${path}: length`);
    for (const [k, v] of Object.entries(expected))
      assertClose((actual as Record<string, unknown>)[k], v, `${path}/${k}`);
  } else {
    assert.equal(actual, expected, path);
  }
}

const rowsToItems = (rows: [Verdict[], Verdict][]): ItemLike[] =>
  rows.map(([analysts, model], i) => ({ id: `row-${i}`, analyst_verdicts: analysts, model_verdict: model }));

test(
  'golden metric rows: coverage, κ_C (consensus), κ_F, κ_F*',
  { skip: skipWithoutReference(GOLDEN) },
  () => {
    const metricVectors = vectors().filter((v) => 'rows' in v.input);
    assert.ok(metricVectors.length >= 10, 'expected the metric row vectors');
    for (const v of metricVectors) {
      const report = evaluationMetrics({ items: rowsToItems(v.input.rows as [Verdict[], Verdict][]) });
      const picked = Object.fromEntries(
        Object.keys(v.expected).map((k) => [k, report[k as keyof typeof report]]),
      );
      assertClose(picked, v.expected, v.name);
    }
  },
);

test(
  'golden: κ_C against analyst 0 is 1.0 where the consensus κ is undefined',
  { skip: skipWithoutReference(GOLDEN) },
  () => {
    const v = vectors().find((x) => x.name === 'analyst0_reference_perfect')!;
    const report = evaluationMetrics(
      { items: rowsToItems(v.input.rows as [Verdict[], Verdict][]) },
      { reference: 'analyst:0' },
    );
    assert.equal(report.cohens_kappa, 1);
    assert.equal(report['cohens_kappa[analyst[0]]'], 1);
    assert.equal(report.cohens_kappa_consensus, null);
    assert.match(report.undefined_reasons.cohens_kappa_consensus!, /p_e = 1/);
  },
);

test('golden dispersion vectors', { skip: skipWithoutReference(GOLDEN) }, () => {
  const ds = vectors().filter((v) => v.name.startsWith('dispersion_'));
  assert.ok(ds.length >= 3);
  for (const v of ds) {
    const d = dispersion(v.input as { good: number; bad: number; abstain: number });
    assertClose({ entropy: d.entropy, margin: d.margin }, v.expected, v.name);
  }
});

test('golden majority-vote vectors', { skip: skipWithoutReference(GOLDEN) }, () => {
  const mv = vectors().filter((v) => v.name === 'majority_vote');
  assert.ok(mv.length >= 7);
  for (const v of mv) {
    const r = majorityVote(
      v.input.verdicts as Verdict[],
      v.input.tie_break as 'abstain' | 'good' | 'bad' | 'first',
    );
    assert.deepEqual({ verdict: r.verdict, tie_broken: r.tie_broken }, v.expected, JSON.stringify(v.input));
  }
});

test(
  'golden MetricsReport.to_dict of the real Haiku evaluation',
  { skip: skipWithoutReference(GOLDEN) },
  async () => {
    const v = vectors().find((x) => x.name.startsWith('metrics_report_to_dict'))!;
    const eta = await loadInfereval(
      join(reference('infereval')!, v.input.evaluation_file as string),
      'evaluation',
    );
    const report = evaluationMetrics(eta, { byTag: ['irrelevant-addition', 'base-inference', 'defeater'] });
    for (const key of Object.keys(v.expected))
      assertClose(report[key as keyof typeof report], v.expected[key], key);
    // The note of the vector: by tag irrelevant-addition n_sub = 2, κ_C = 0, κ_F = −1; the single-item cells undefined.
    const ia = report.by_tag!['irrelevant-addition']!;
    assert.equal(ia.n_substantive, 2);
    assertClose(ia.cohens_kappa_consensus, 0);
    assertClose(ia.fleiss_kappa, -1);
    assert.equal(ia.under_powered, true);
    for (const tag of ['base-inference', 'defeater']) {
      assert.equal(report.by_tag![tag]!.n_substantive, 1);
      assert.equal(report.by_tag![tag]!.cohens_kappa_consensus, null);
      assert.equal(report.by_tag![tag]!.fleiss_kappa, null);
    }
  },
);
