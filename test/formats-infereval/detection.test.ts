// Detection of infereval documents, also when they are broken; the real reference files are claimed by exactly
// one type and, having been accepted by the reference, pass every cross-field rule.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { documentTypes } from '../../src/formats/registry.js';
import {
  inferevalBenchmarkType,
  inferevalEvaluationType,
  inferevalTypes,
} from '../../src/formats/infereval/index.js';
import { checkInfereval } from '../../src/validate/infereval.js';
import { reference, skipWithoutReference } from '../helpers/shared.js';

const claimedBy = (doc: Record<string, unknown>) =>
  documentTypes.filter((t) => t.looksLike(doc)).map((t) => t.id);

describe('infereval detection', () => {
  test('broken benchmarks are still benchmarks', () => {
    const cases: Record<string, unknown>[] = [
      { bearers: {} },
      { analysts: 'x' },
      { id: 'b', bearers: null, items: [] },
      { id: 'b', items: [{ id: 'i', premises: [], analyst_verdicts: ['good'] }] },
    ];
    for (const doc of cases) assert.deepEqual(claimedBy(doc), ['infereval.benchmark'], JSON.stringify(doc));
  });

  test('broken evaluations are still evaluations, never benchmarks', () => {
    const cases: Record<string, unknown>[] = [
      { endorsement_config: {} },
      { benchmark_id: 'b', items: 3 },
      { id: 'e', model: { provider: 'x' }, items: [] },
      { benchmark_id: 'b', analysts: [] },
    ];
    for (const doc of cases) assert.deepEqual(claimedBy(doc), ['infereval.evaluation'], JSON.stringify(doc));
  });

  test('unrelated documents are not infereval', () => {
    for (const doc of [
      { items: [] },
      { id: 'x', items: [{ model_verdict: 'good', analyst_verdicts: [] }] },
      {},
    ]) {
      assert.ok(
        !inferevalBenchmarkType.looksLike(doc) && !inferevalEvaluationType.looksLike(doc),
        JSON.stringify(doc),
      );
    }
  });

  test('type data: 1.0, 2020-12, an upstream schema path', () => {
    for (const t of inferevalTypes) {
      assert.equal(t.family, 'infereval');
      const [v] = t.versions;
      assert.deepEqual(
        [t.versions.length, v.version, v.dialect, v.schemaVersionValues],
        [1, '1.0', '2020-12', ['1.0']],
      );
      assert.ok(v.upstreamSchema && v.rules && v.rules.length > 0);
    }
  });

  test('the upstream schema paths exist', { skip: skipWithoutReference('infereval') }, () => {
    for (const t of inferevalTypes) {
      const [v] = t.versions;
      assert.ok(reference(v.upstreamSchema!), v.upstreamSchema);
    }
  });

  test('the bare-string reference error is explained', () => {
    const explain = inferevalBenchmarkType.versions[0].explainSchemaError!;
    const hit = explain({
      instancePath: '/items/3/references/0',
      schemaPath: '',
      keyword: 'type',
      params: {},
    });
    assert.match(hit ?? '', /bare string/);
    assert.equal(
      explain({ instancePath: '/items/3/tags/0', schemaPath: '', keyword: 'type', params: {} }),
      undefined,
    );
  });
});

describe('real reference files', { skip: skipWithoutReference('infereval/examples') }, () => {
  const files: [string, string | undefined][] = [
    ['examples/stop_sign/benchmark.json', 'infereval.benchmark'],
    ['examples/survey_preframe_benchmark.json', 'infereval.benchmark'],
    ['examples/clinical_pilot/benchmark.json', 'infereval.benchmark'],
    ['examples/pulmonary_edema/benchmark.json', 'infereval.benchmark'],
    ['evaluations/stop_sign_haiku_eta0.json', 'infereval.evaluation'],
  ];

  for (const [rel, id] of files) {
    test(`${rel}: detected as ${id}, passes schema and every rule`, () => {
      const doc = JSON.parse(readFileSync(reference(`infereval/${rel}`) as string, 'utf8'));
      assert.deepEqual(claimedBy(doc), [id]);
      const kind = id === 'infereval.benchmark' ? 'benchmark' : 'evaluation';
      assert.deepEqual(checkInfereval(doc, kind), []);
    });
  }

  test('the rules are not vacuous on the clinical pilot: breaking its ladders is caught', () => {
    const doc = JSON.parse(
      readFileSync(reference('infereval/examples/clinical_pilot/benchmark.json') as string, 'utf8'),
    );
    const stepped = doc.items.findIndex((i: any) => i.monotonicity_step);
    assert.ok(stepped >= 0 && doc.copresence_rules.length > 0 && doc.targets.length > 0);
    doc.items[stepped].monotonicity_step.tier_index += 1;
    doc.copresence_rules[0].families.push('no-such-family');
    const codes = checkInfereval(doc, 'benchmark').map((i) => i.code);
    assert.ok(codes.includes('infereval.monotonicity-tier-index'), codes.join());
    assert.ok(codes.includes('infereval.copresence-families-declared'), codes.join());
  });
});
