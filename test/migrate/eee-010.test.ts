// EEE 0.1.0 (the first published schema, upstream tag v0.1.0): `validate` knows it, `migrate` and `ingest` bring it
// to 0.3.0 without losing a value. The records below are written here in the shapes the datastore's early records
// take (an Open LLM Leaderboard record with a URL list; a Hugging Face dataset object; inline per-sample results).
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { migrateEeeAggregate } from '../../src/formats/eee/migrate.js';
import { validatePaths } from '../../src/validate/index.js';
import { cliFromSource as cli } from '../helpers/cli.js';
import { tempDir } from '../checks/tree-fixture.js';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const fresh = () => {
  const d = tempDir('evalkit-eee010-');
  dirs.push(d);
  return d;
};

const metric = { lower_is_better: false, score_type: 'continuous', min_score: 0, max_score: 1 };
/** A 0.1.0 record with a record-level URL list (the Open LLM Leaderboard records' shape). */
function urlRecord(): Record<string, any> {
  return {
    schema_version: '0.1.0',
    evaluation_id: 'leaderboard/org_model/1762652579.46',
    retrieved_timestamp: '1762652579.462642',
    source_data: ['https://example.org/leaderboard/api', 'https://example.org/leaderboard/raw'],
    source_metadata: {
      source_organization_name: 'Example Org',
      evaluator_relationship: 'third_party',
      source_name: 'Example Leaderboard',
      source_type: 'documentation',
    },
    model_info: {
      name: 'org/model-7b',
      developer: 'org',
      inference_platform: 'unknown',
      inference_engine: 'vllm',
      id: 'org/model-7b',
      additional_details: { precision: 'bfloat16', params_billions: 7.24 },
    },
    evaluation_results: [
      {
        evaluation_name: 'IFEval',
        metric_config: { evaluation_description: 'Accuracy on IFEval', ...metric },
        score_details: { score: 0.33 },
        detailed_evaluation_results_url: 'https://example.org/details/ifeval',
      },
      {
        evaluation_name: 'BBH',
        metric_config: { evaluation_description: 'Accuracy on BBH', ...metric },
        score_details: { score: 0.36, details: { subsets: 27 } },
        generation_config: { generation_args: { temperature: 0, seed: 3 }, additional_details: 'greedy' },
      },
    ],
  };
}
/** A variant: a Hugging Face dataset object with integer sample ids, and inline per-sample results. */
function hfRecord(): Record<string, any> {
  const r = urlRecord();
  r.source_data = {
    dataset_name: 'ai2_arc',
    hf_repo: 'allenai/ai2_arc',
    hf_split: 'test',
    samples_number: 2,
    sample_ids: [1, 'b2'],
  };
  r.detailed_evaluation_results_per_samples = [
    { sample_id: '1', input: 'Q?', ground_truth: ['A'], response: 'A', choices: [['A', 'yes']] },
  ];
  return r;
}

function writeRecord(dir: string, name: string, doc: unknown): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, `${JSON.stringify(doc, null, 2)}\n`);
  return path;
}

async function verdict(doc: unknown) {
  const dir = fresh();
  const path = writeRecord(dir, 'record.json', doc);
  const result = await validatePaths([path]);
  const file = result.files[0];
  return {
    types: Object.keys(file.types),
    errors: file.diagnostics.filter((d) => d.severity === 'error'),
  };
}

test('validate: a 0.1.0 record (URL list or Hugging Face object) is valid as eee.aggregate 0.1.0', async () => {
  for (const doc of [urlRecord(), hfRecord()]) {
    const v = await verdict(doc);
    assert.deepEqual(v.errors, []);
    assert.deepEqual(v.types, ['eee.aggregate@0.1.0']);
  }
  const text = await cli(['validate', writeRecord(fresh(), 'r.json', urlRecord()), '-f', 'json']);
  assert.equal(text.code, 0, text.stdout + text.stderr);
  assert.match(text.stdout, /"schema_version":\s*"0\.1\.0"/);
});

test("validate: 0.1.0's own rules and quirks (what upstream's schema says, checked against it on 40 real records)", async () => {
  const perResult = urlRecord();
  perResult.evaluation_results[0].source_data = perResult.source_data;
  delete perResult.source_data; // 0.1.0 requires the record-level source_data
  assert.ok((await verdict(perResult)).errors.length > 0);
  const numericTime = urlRecord();
  numericTime.retrieved_timestamp = 1762652579; // a string in 0.1.0
  assert.ok((await verdict(numericTime)).errors.length > 0);
  const noScoreType = urlRecord();
  delete noScoreType.evaluation_results[0].metric_config.score_type; // the "levels" quirk, as in 0.2.x
  assert.ok((await verdict(noScoreType)).errors.length > 0);
  const noName = hfRecord();
  delete noName.source_data.dataset_name;
  const bad = await verdict(noName);
  assert.ok(
    bad.errors.some((e) => e.pointer === '/source_data' && /dataset_name/.test(e.message)),
    JSON.stringify(bad.errors),
  );
  const emptyChoices = hfRecord();
  emptyChoices.detailed_evaluation_results_per_samples[0].choices = []; // matches both oneOf branches
  assert.ok((await verdict(emptyChoices)).errors.length > 0);
});

/** Every leaf value of a document, as JSON text, so "nothing was lost" can be checked value by value. */
function leaves(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => leaves(v, out));
  else if (value !== null && typeof value === 'object') Object.values(value).forEach((v) => leaves(v, out));
  else out.push(JSON.stringify(value));
  return out;
}

test('migrate: 0.1.0 → 0.3.0 is valid and lossless (record-level source_data per result, engine, per-sample results)', async () => {
  for (const make of [urlRecord, hfRecord]) {
    const input = make();
    const outcome = migrateEeeAggregate(input);
    assert.deepEqual(outcome.problems, []);
    const out = outcome.value as Record<string, any>;
    assert.equal(out.schema_version, '0.3.0');
    assert.equal('source_data' in out, false);
    for (const [i, r] of out.evaluation_results.entries()) {
      assert.equal(r.score_details.score, input.evaluation_results[i].score_details.score);
      if (Array.isArray(input.source_data)) {
        assert.deepEqual(r.source_data, {
          dataset_name: input.evaluation_results[i].evaluation_name,
          source_type: 'url',
          url: input.source_data,
        });
      } else {
        assert.equal(r.source_data.source_type, 'hf_dataset');
        assert.equal(r.source_data.hf_repo, 'allenai/ai2_arc');
        assert.deepEqual(r.source_data.sample_ids, ['1', 'b2']);
      }
    }
    assert.deepEqual(out.model_info.inference_engine, { name: 'vllm' });
    assert.equal(out.evaluation_results[1].generation_config.additional_details.details, 'greedy');
    // Nothing lost: every leaf of the input is in the output, as itself or inside JSON text.
    const text = JSON.stringify(out);
    for (const leaf of leaves(input)) {
      if (leaf === '"0.1.0"') continue;
      const bare = leaf.startsWith('"') ? leaf.slice(1, -1) : leaf;
      assert.ok(text.includes(bare), `lost ${leaf}`);
    }
    const dir = fresh();
    writeRecord(dir, 'migrated.json', out);
    const result = await validatePaths([join(dir, 'migrated.json')]);
    assert.deepEqual(
      result.files[0].diagnostics.filter((d) => d.severity === 'error'),
      [],
    );
    assert.deepEqual(Object.keys(result.files[0].types), ['eee.aggregate@0.3.0']);
    const marker = JSON.parse(out.source_metadata.additional_details.evalkit_migration);
    assert.equal(marker.from, '0.1.0');
    if (Array.isArray(input.source_data))
      assert.ok(marker.inferred.includes('/evaluation_results/0/source_data/dataset_name'));
  }
  const perSamples = migrateEeeAggregate(hfRecord()).value as Record<string, any>;
  assert.deepEqual(
    JSON.parse(perSamples.source_metadata.additional_details.detailed_evaluation_results_per_samples),
    hfRecord().detailed_evaluation_results_per_samples,
  );
});

test('migrate and ingest (CLI): 0.1.0 files are migrated and stored, not refused', async () => {
  const src = fresh();
  writeRecord(src, 'a.json', urlRecord());
  writeRecord(src, 'b.json', { ...hfRecord(), evaluation_id: 'arc/org_model/1' });
  const out = join(fresh(), 'out');
  const migrated = await cli(['migrate', src, '-o', out]);
  assert.equal(migrated.code, 0, migrated.stdout + migrated.stderr);
  assert.match(migrated.stdout, /eee\.aggregate 0\.1\.0 → 0\.3\.0/);
  const validated = await cli(['validate', out]);
  assert.equal(validated.code, 0, validated.stdout + validated.stderr);
  const again = join(fresh(), 'again');
  await cli(['migrate', src, '-o', again]);
  assert.equal(readFileSync(join(again, 'a.json'), 'utf8'), readFileSync(join(out, 'a.json'), 'utf8'));
  const db = join(fresh(), 'store.duckdb');
  const ingested = await cli(['ingest', src, '--db', db, '--format', 'json']);
  assert.equal(ingested.code, 0, ingested.stdout + ingested.stderr);
  const report = JSON.parse(ingested.stdout);
  assert.equal(report.summary.records, 2);
  assert.equal(report.summary.rejected, 0);
});
