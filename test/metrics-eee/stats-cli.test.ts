import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli as runMain } from '../helpers/cli.js';
import { reference, skipWithoutReference } from '../helpers/shared.js';
import { findType, findVersion } from '../../src/formats/registry.js';
import { createAjv } from '../../src/validate/ajv.js';

const UUID = '0b6c8d2e-4f1a-4c3b-9d8e-7a6b5c4d3e2f';

function aggregate(): Record<string, unknown> {
  return {
    schema_version: '0.3.0',
    evaluation_id: 'stats-test/acme/model/1',
    retrieved_timestamp: '1763700000',
    source_metadata: {
      source_type: 'evaluation_run',
      source_organization_name: 'evalkit tests',
      evaluator_relationship: 'third_party',
    },
    eval_library: { name: 'evalkit', version: '0.1.0' },
    model_info: {
      name: 'model',
      id: 'acme/model',
      additional_details: { deployment_type: 'self_deployed', model_availability: 'open_weights' },
    },
    evaluation_results: [
      {
        evaluation_result_id: 'acc',
        evaluation_name: 'accuracy',
        source_data: { dataset_name: 'quiz', source_type: 'other' },
        metric_config: { lower_is_better: false, score_type: 'binary' },
        score_details: { score: 0.7 },
      },
      {
        evaluation_result_id: 'qual',
        evaluation_name: 'quality',
        source_data: { dataset_name: 'quiz', source_type: 'other' },
        metric_config: { lower_is_better: false, score_type: 'continuous', min_score: 0, max_score: 1 },
        score_details: { score: 0.55 },
      },
    ],
    detailed_evaluation_results: {
      format: 'jsonl',
      file_path: `data/stats/acme/model/${UUID}_samples.jsonl`,
    },
  };
}

function samples(): string {
  const rows: string[] = [];
  const acc = [1, 1, 1, 0, 1, 0, 1, 1, 0, 1]; // 7 of 10
  const qual = [0.2, 0.9, 0.5, 0.6]; // mean 0.55
  const row = (id: string, name: string, i: number, score: number) =>
    JSON.stringify({
      schema_version: '0.3.0',
      evaluation_id: 'stats-test/acme/model/1',
      model_id: 'acme/model',
      evaluation_name: name,
      evaluation_result_id: id,
      sample_id: `${id}-${i}`,
      interaction_type: 'single_turn',
      input: { raw: 'q', reference: ['a'] },
      answer_attribution: [],
      evaluation: { score, is_correct: score >= 0.5 },
    });
  acc.forEach((s, i) => rows.push(row('acc', 'accuracy', i, s)));
  qual.forEach((s, i) => rows.push(row('qual', 'quality', i, s)));
  return rows.join('\n') + '\n';
}

test('evalkit stats --in-place writes valid score_details.uncertainty into a datastore record', async () => {
  const root = await mkdtemp(join(tmpdir(), 'evalkit-stats-'));
  try {
    const dir = join(root, 'data/stats/acme/model');
    await mkdir(dir, { recursive: true });
    const aggPath = join(dir, `${UUID}.json`);
    await writeFile(aggPath, JSON.stringify(aggregate(), null, 2));
    await writeFile(join(dir, `${UUID}_samples.jsonl`), samples());
    const r = await runMain(['stats', aggPath, '--in-place', '--iterations', '2000', '--seed', '5']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /accuracy: n=10 mean=0\.7000/);
    const out = JSON.parse(await readFile(aggPath, 'utf8'));
    const [acc, qual] = out.evaluation_results;
    const u = acc.score_details.uncertainty;
    assert.equal(u.num_samples, 10);
    assert.equal(u.num_bootstrap_samples, 2000);
    assert.equal(u.confidence_interval.method, 'percentile_bootstrap');
    assert.ok(Math.abs(u.standard_deviation - Math.sqrt(2.1 / 9)) < 1e-12); // n−1 sd of 7 ones, 3 zeros
    // Wilson 95% lower bound for 7/10, computed with python3 (standard library) from the closed form: 0.39677814746114537.
    assert.ok(Math.abs(Number(acc.score_details.details.wilson_ci_lower) - 0.39677814746114537) < 1e-12);
    assert.equal(qual.score_details.details.wilson_ci_lower, undefined);
    assert.equal(qual.score_details.uncertainty.num_samples, 4);
    // The result validates against the EEE 0.3.0 aggregate schema.
    const type = findType('eee.aggregate');
    const version = type && findVersion(type, '0.3.0');
    if (version) {
      const validate = createAjv(version.dialect).compile(version.schema);
      assert.ok(validate(out), JSON.stringify(validate.errors));
    }
    // Deterministic: the same seed gives the same bytes.
    const again = join(root, 'again.json');
    await writeFile(aggPath, JSON.stringify(aggregate(), null, 2));
    const r2 = await runMain([
      'stats',
      aggPath,
      '-o',
      again,
      '--iterations',
      '2000',
      '--seed',
      '5',
      '--samples',
      join(dir, `${UUID}_samples.jsonl`),
    ]);
    assert.equal(r2.code, 0, r2.stderr);
    assert.deepEqual(JSON.parse(await readFile(again, 'utf8')), out);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('evalkit stats: a missing samples file is a clear I/O error (exit 2)', async () => {
  const root = await mkdtemp(join(tmpdir(), 'evalkit-stats-'));
  try {
    const aggPath = join(root, 'agg.json');
    await writeFile(aggPath, JSON.stringify(aggregate()));
    const r = await runMain(['stats', aggPath]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /eee\.stats\.samples-not-found: cannot find the samples file/);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

const fixture = 'eee/records/fixtures/skill_reference_conversion/data/demo-source/demo-org/demo-model';
test(
  'evalkit stats on a real 0.3.0 record pair from the reference data',
  { skip: skipWithoutReference(fixture) },
  async () => {
    const root = await mkdtemp(join(tmpdir(), 'evalkit-stats-'));
    try {
      const base = 'f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40';
      await copyFile(join(reference(fixture)!, `${base}.json`), join(root, `${base}.json`));
      const r = await runMain([
      'stats', join(root, `${base}.json`), '--samples', join(reference(fixture)!, `${base}_samples.jsonl`), '--format', 'json',
    ]); // prettier-ignore
      assert.equal(r.code, 0, r.stderr);
      const summary = JSON.parse(r.stdout);
      assert.equal(summary.results[0].uncertainty.num_samples, 1);
      assert.equal(summary.results[0].uncertainty.standard_deviation, null, 'one row: no sd');
      assert.equal(summary.written, null);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  },
);
