// Model identity and metric facts, the same for every source: a legacy OpenAI evals spec's model_name, a local
// checkpoint path that is never a model id, unnamed runs kept apart, a model map on convert and ingest, `evalkit
// models` grouping look-alike ids, and declared metric facts winning over the table and over guesses.
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../checks/cli-inproc.js';
import { looksLikePath, modelIdFromPath } from '../../src/convert/identity.js';
import { lookAlikeIds } from '../../src/store/models.js';
import {
  assertUpstreamValid,
  assertValidTree,
  convertInto,
  filesUnder,
  withRoot,
  type Obj,
} from './sources-helpers.js';

/** An oaieval log of early 2023: the spec names the model by `model_name` / `model_names`, not `completion_fns`. */
function legacyOaievalLog(model: string | undefined, runId: string): string {
  const spec: Obj = {
    eval_name: 'test-match.s1.simple-v0',
    base_eval: 'test-match',
    split: 's1',
    run_config: {
      eval_spec: {
        cls: 'evals.elsuite.basic.match:Match',
        args: { samples_jsonl: 'test_match/samples.jsonl' },
      },
      seed: 20220722,
      max_samples: null,
      command: 'oaieval gpt-3.5-turbo test-match',
      initial_settings: { visible: true },
    },
    created_by: '',
    run_id: runId,
    created_at: '2023-03-15 17:22:40.218303',
  };
  if (model !== undefined) {
    spec.model_name = model;
    spec.model_names = { completions: [model] };
  }
  const lines: Obj[] = [{ spec }, { final_report: { accuracy: 0.5 } }];
  for (let i = 0; i < 2; i++) {
    const sample_id = `test-match.s1.${i}`;
    lines.push({
      run_id: runId,
      event_id: 2 * i,
      sample_id,
      type: 'sampling',
      data: { prompt: [{ role: 'user', content: `Say ${i}` }], sampled: String(i) },
      created_by: '',
      created_at: '2023-03-15 17:22:41.000000+00:00',
    });
    lines.push({
      run_id: runId,
      event_id: 2 * i + 1,
      sample_id,
      type: 'match',
      data: { correct: i === 0, expected: ['0'], picked: i === 0 ? '0' : null, sampled: String(i) },
      created_by: '',
      created_at: '2023-03-15 17:22:41.000000+00:00',
    });
  }
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

/** A minimal lm-eval 0.4 results file of a local checkpoint (`pretrained=` a path) or of no named model. */
function lmEvalResults(pretrained: string | undefined): string {
  return JSON.stringify({
    results: {
      arc_easy: { alias: 'arc_easy', 'acc,none': 0.61, 'acc_stderr,none': 0.01, attack_success_rate: 0.2 },
    },
    versions: { arc_easy: 1.0 },
    'n-samples': { arc_easy: { original: 100, effective: 100 } },
    config: {
      model: 'hf',
      model_args: pretrained === undefined ? 'dtype=float16' : `pretrained=${pretrained},dtype=float16`,
    },
    lm_eval_version: '0.4.3',
    date: 1718000000.0,
    ...(pretrained !== undefined ? { model_name: pretrained } : {}),
  });
}

test('the path rules: a local path is never a model id; a readable id from its last components', () => {
  assert.equal(looksLikePath('/scratch/u123/ckpts/llama-2/7B'), true);
  assert.equal(looksLikePath('./out/merged'), true);
  assert.equal(looksLikePath('C:\\models\\phi-2'), true);
  assert.equal(looksLikePath('meta-llama/Llama-2-7b-hf'), false);
  assert.equal(looksLikePath('gpt-4o'), false);
  assert.equal(modelIdFromPath('/scratch/u123/ckpts/llama-2/7B'), 'local/7B');
  assert.equal(modelIdFromPath('/models/meta-llama/Llama-2-7b-hf/checkpoint-500'), 'local/Llama-2-7b-hf');
  assert.equal(modelIdFromPath('/phi2'), 'local/phi2');
});

test('a legacy OpenAI evals spec (model_name) names its model; unnamed runs stay apart; a local path is not an id', async (t) => {
  await withRoot(async (root) => {
    await writeFile(join(root, 'legacy.jsonl'), legacyOaievalLog('gpt-3.5-turbo', '230315172240ABCDEFGH'));
    await writeFile(join(root, 'unnamed-a.jsonl'), legacyOaievalLog(undefined, '230315172240AAAAAAAA'));
    await writeFile(join(root, 'unnamed-b.jsonl'), legacyOaievalLog(undefined, '230315172240BBBBBBBB'));
    await mkdir(join(root, 'lm'));
    await writeFile(
      join(root, 'lm', 'results_2024-06-10T07-13-20.000000.json'),
      lmEvalResults('/scratch/u123/ckpts/llama-2/7B'),
    );
    const written = await convertInto(join(root, 'out'), [root]);
    const byPath = new Map(written.map((w) => [w.record.sourcePath.slice(root.length + 1), w]));
    const legacy = byPath.get('legacy.jsonl')!.aggregate.model_info;
    assert.equal(legacy.id, 'openai/gpt-3.5-turbo');
    assert.equal(legacy.additional_details.deployment_type, 'externally_managed');

    const a = byPath.get('unnamed-a.jsonl')!;
    const b = byPath.get('unnamed-b.jsonl')!;
    assert.notEqual(a.aggregate.model_info.id, b.aggregate.model_info.id, 'two unnamed runs are two models');
    assert.match(a.aggregate.model_info.id, /^unknown\/unnamed-[0-9a-f]{12}$/);
    assert.equal(a.aggregate.model_info.additional_details.model_unnamed, 'true');
    assert.ok(a.record.fields.some((f) => /does not name the model/.test(f.reason ?? '')));

    const lm = byPath.get(join('lm', 'results_2024-06-10T07-13-20.000000.json'))!;
    assert.equal(lm.aggregate.model_info.id, 'local/7B');
    assert.equal(lm.aggregate.model_info.additional_details.model_path, '/scratch/u123/ckpts/llama-2/7B');
    assert.ok(lm.record.fields.some((f) => /warning: .* is a local path/.test(f.reason ?? '')));
    for (const w of written) assert.ok(!w.aggregate.model_info.id.startsWith('/'));
    await assertUpstreamValid(t, written);
    await assertValidTree(join(root, 'out'));
  });
});

test('--model-map on convert and on ingest, by source name or derived id; evalkit models groups look-alikes', async () => {
  await withRoot(async (root) => {
    const inputs = join(root, 'in');
    await mkdir(join(inputs, 'lm'), { recursive: true });
    await writeFile(join(inputs, 'legacy.jsonl'), legacyOaievalLog('gpt-3.5-turbo', '230315172240ABCDEFGH'));
    await writeFile(
      join(inputs, 'lm', 'results_2024-06-10T07-13-20.000000.json'),
      lmEvalResults('/scratch/u123/ckpts/llama-2/7B'),
    );
    const map = join(root, 'model-map.json');
    await writeFile(
      map,
      JSON.stringify({
        '/scratch/u123/ckpts/llama-2/7B': { id: 'meta-llama/Llama-2-7b-hf', developer: 'meta-llama' },
        'openai/gpt-3.5-turbo': { id: 'openai/gpt-3.5-turbo-0301' },
      }),
    );
    const out = join(root, 'out');
    const conv = await cli(['convert', '-o', out, '--model-map', map, '--format', 'json', inputs]);
    assert.equal(conv.code, 0, conv.stdout + conv.stderr);
    const ids: string[] = [];
    for (const f of await filesUnder(out))
      if (f.endsWith('.json')) ids.push(JSON.parse(await readFile(f, 'utf8')).model_info.id);
    assert.deepEqual(ids.sort(), ['meta-llama/Llama-2-7b-hf', 'openai/gpt-3.5-turbo-0301']);
    await assertValidTree(out);

    const db = join(root, 's.duckdb');
    const ing = await cli(['ingest', '--db', db, '--model-map', map, '--no-progress', inputs]);
    assert.equal(ing.code, 0, ing.stdout);
    // The same models under other spellings, ingested without the map, then listed.
    await writeFile(
      join(inputs, 'lm', 'results_2024-06-11T07-13-20.000000.json'),
      lmEvalResults('meta/llama-2-7b'),
    );
    assert.equal((await cli(['ingest', '--db', db, '--no-progress', inputs])).code, 0);
    const models = await cli(['models', '--db', db, '--format', 'json']);
    assert.equal(models.code, 0, models.stderr);
    const report = JSON.parse(models.stdout);
    const listed = report.models.map((m: Obj) => m.model_id);
    assert.ok(
      listed.includes('meta-llama/Llama-2-7b-hf') && listed.includes('meta/llama-2-7b'),
      listed.join(),
    );
    assert.ok(
      report.look_alike.some(
        (g: Obj) => g.ids.includes('meta-llama/Llama-2-7b-hf') && g.ids.includes('meta/llama-2-7b'),
      ),
      JSON.stringify(report.look_alike),
    );
    const text = await cli(['models', '--db', db]);
    assert.match(text.stdout, /look like one model/);
    const bad = await cli(['convert', '-o', out, '--model-map', join(root, 'missing.json'), inputs]);
    assert.equal(bad.code, 2);
  });
});

test('look-alike ids: case, separators, developer aliases, -hf; unrelated names apart', () => {
  const groups = lookAlikeIds([
    'meta-llama/Llama-3-8B',
    'meta/llama_3_8b',
    'Meta-Llama/llama-3-8b-hf',
    'openai/gpt-4o',
    'OpenAI/GPT-4o',
    'mistralai/Mistral-7B',
    'google/gemma-7b',
  ]);
  assert.deepEqual(
    groups.map((g) => g.ids),
    [
      ['Meta-Llama/llama-3-8b-hf', 'meta-llama/Llama-3-8B', 'meta/llama_3_8b'],
      ['OpenAI/GPT-4o', 'openai/gpt-4o'],
    ],
  );
});

test('--metric-facts: declared facts win; an unknown direction is marked assumed, unknown bounds unknown; safety metrics rank lower-is-better', async () => {
  await withRoot(async (root) => {
    const dir = join(root, 'lm');
    await mkdir(dir);
    const results = join(dir, 'results_2024-06-10T07-13-20.000000.json');
    await writeFile(
      results,
      JSON.stringify({
        results: {
          redteam: {
            alias: 'redteam',
            'attack_success_rate,none': 0.31,
            'jailbreak_score,none': 4.2,
            'acc,none': 0.9,
          },
        },
        versions: { redteam: 1.0 },
        config: { model: 'hf', model_args: 'pretrained=EleutherAI/pythia-160m' },
        lm_eval_version: '0.4.3',
        date: 1718000000.0,
      }),
    );
    const plain = await convertInto(join(root, 'plain'), [results]);
    const byMetric = (w: Obj) =>
      new Map<string, Obj>(
        w.aggregate.evaluation_results.map((r: Obj) => [r.metric_config.metric_id, r.metric_config]),
      );
    const before = byMetric(plain[0]);
    assert.equal(before.get('attack_success_rate')!.lower_is_better, true, 'a safety metric of the table');
    assert.equal(before.get('attack_success_rate')!.additional_details, undefined);
    const guessed = before.get('jailbreak_score')!;
    assert.equal(guessed.lower_is_better, false);
    assert.deepEqual(guessed.additional_details, { direction_status: 'assumed', bounds_status: 'unknown' });
    assert.equal(guessed.min_score, undefined);

    const facts = join(root, 'metric-facts.json');
    await writeFile(
      facts,
      JSON.stringify({
        jailbreak_score: {
          lower_is_better: true,
          min_score: 1,
          max_score: 10,
          score_type: 'continuous',
          metric_kind: 'harm_score',
        },
        acc: { metric_unit: 'share' },
      }),
    );
    const out = join(root, 'declared');
    const { code, stdout } = await cli([
      'convert',
      '-o',
      out,
      '--metric-facts',
      facts,
      '--format',
      'json',
      results,
    ]);
    assert.equal(code, 0, stdout);
    const aggregate = JSON.parse(
      await readFile(
        (await filesUnder(out)).find((f) => f.endsWith('.json'))!,
        'utf8',
      ),
    );
    const after = byMetric({ aggregate });
    const declared = after.get('jailbreak_score')!;
    assert.equal(declared.lower_is_better, true);
    assert.equal(declared.min_score, 1);
    assert.equal(declared.max_score, 10);
    assert.equal(declared.score_type, 'continuous');
    assert.equal(declared.metric_kind, 'harm_score');
    assert.equal(declared.additional_details, undefined, 'nothing assumed once declared');
    assert.equal(after.get('acc')!.metric_unit, 'share');
    await assertValidTree(out);
    const bad = join(root, 'bad-facts.json');
    await writeFile(bad, JSON.stringify({ x: { lower_is_better: 'yes' } }));
    const refused = await cli(['convert', '-o', join(root, 'o3'), '--metric-facts', bad, results]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /lower_is_better/);
  });
});

test('the documented example files are a valid model map and metric facts file', async () => {
  const { readModelMap, readMetricFacts } = await import('../../src/convert/identity.js');
  const { projectRoot } = await import('../helpers/shared.js');
  const map = await readModelMap(join(projectRoot, 'examples', 'model-map.json'));
  assert.equal(map['gpt-3.5-turbo'].id, 'openai/gpt-3.5-turbo-0301');
  const facts = await readMetricFacts(join(projectRoot, 'examples', 'metric-facts.json'));
  assert.equal(facts.jailbreak_score.lower_is_better, true);
});
