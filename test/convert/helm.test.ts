import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DataError } from '../../src/errors.js';
import { helmSource, isBookkeepingStat } from '../../src/convert/sources/helm.js';
import { probePath } from '../../src/convert/registry.js';
import { reference, skipWithoutReference, wildRunFolders } from '../helpers/shared.js';
import {
  assertUpstreamValid,
  assertValidTree,
  convertInto,
  filesUnder,
  resultById,
  resultOf,
  withRoot,
  type Obj,
} from './sources-helpers.js';

async function runFolders(): Promise<string[]> {
  return [reference('peers/helm/mmlu-philosophy-gpt2')!, ...wildRunFolders('helm')];
}

async function scenarioName(dir: string): Promise<string> {
  if ((await readdir(dir)).includes('scenario.json'))
    return JSON.parse(await readFile(join(dir, 'scenario.json'), 'utf8')).name;
  return JSON.parse(await readFile(join(dir, 'run_spec.json'), 'utf8')).name.split(':')[0];
}

const statKey = (n: Obj) =>
  [
    n.name,
    n.split ?? 'all',
    ...(n.sub_split ? [n.sub_split] : []),
    ...(n.perturbation ? [`${n.perturbation.name}:${n.perturbation.computed_on}`] : []),
  ].join('/');

test(
  'every HELM run of the reference converts: scores are the stats means, one row per instance × score statistic, same bytes twice',
  { skip: skipWithoutReference('peers-wild/helm') },
  async (t) => {
    for (const dir of await runFolders()) {
      assert.ok(helmSource.detect(await probePath(dir)), dir);
      await withRoot(async (root) => {
        const [w, ...more] = await convertInto(root, [dir]);
        assert.equal(more.length, 0);
        const stats: Obj[] = JSON.parse(await readFile(join(dir, 'stats.json'), 'utf8'));
        const scored = stats.filter((s) => !isBookkeepingStat(s.name.name) && Number.isFinite(s.mean));
        assert.equal(w.aggregate.evaluation_results.length, scored.length, dir);
        for (const s of scored) {
          const r = resultById(w.aggregate, statKey(s.name));
          assert.equal(r.score_details.score, s.mean);
          assert.equal(r.score_details.details.helm_count, String(s.count));
          // The scenario's name; without scenario.json, the run's name before its first ":".
          assert.equal(r.evaluation_name, await scenarioName(dir));
          // count is 1 (one train trial) in these runs: no standard error is made up
          if (s.count < 2) assert.equal(r.score_details.uncertainty, undefined);
        }
        // Rows: per instance (duplicate per-instance entries merged), each score statistic it has.
        const perInstance: Obj[] = JSON.parse(await readFile(join(dir, 'per_instance_stats.json'), 'utf8'));
        const expected = new Map<string, Set<string>>();
        for (const e of perInstance) {
          const set = expected.get(`${e.instance_id}/${e.train_trial_index}`) ?? new Set<string>();
          for (const st of e.stats)
            if (!isBookkeepingStat(st.name.name) && Number.isFinite(st.mean)) set.add(st.name.name);
          expected.set(`${e.instance_id}/${e.train_trial_index}`, set);
        }
        const expectedRows = [...expected.values()].reduce((n, s) => n + s.size, 0);
        assert.equal(w.rows.length, expectedRows, dir);
        for (const row of w.rows) {
          const r = resultOf(w.aggregate, row);
          const e = perInstance.find(
            (p) =>
              p.instance_id === row.metadata.helm_instance_id &&
              p.stats.some((st: Obj) => st.name.name === r.metric_config.metric_name),
          )!;
          const st = e.stats.find((x: Obj) => x.name.name === r.metric_config.metric_name);
          assert.equal(row.evaluation.score, st.mean);
        }
        await assertUpstreamValid(t, [w]);
        await assertValidTree(root);
        await withRoot(async (root2) => {
          const [again] = await convertInto(root2, [dir]);
          assert.equal(again.bytes, w.bytes);
        });
      });
    }
  },
);

test(
  'HELM rows carry prompt, completions, references and the chosen letter mapped to its answer',
  { skip: skipWithoutReference('peers/helm') },
  async () => {
    await withRoot(async (root) => {
      const [w] = await convertInto(root, [reference('peers/helm/mmlu-philosophy-gpt2')!]);
      const row = w.rows.find((r) => r.sample_id === 'id147@exact_match/test')!;
      assert.equal(row.input.raw, 'What does the notion of “meaning in life” refer to?');
      assert.deepEqual(row.input.reference, ['internalmeaning']);
      assert.deepEqual(row.input.choices, [
        'external meaning',
        "god's plan",
        'internalmeaning',
        'meaning in an afterlife',
      ]);
      assert.match(row.input.formatted, /^The following are multiple choice questions/);
      assert.deepEqual(row.output.raw, [' D']);
      assert.equal(row.answer_attribution[0].extracted_value, 'meaning in an afterlife');
      assert.equal(row.evaluation.score, 0);
      assert.equal(row.token_usage.input_tokens, 333);
      assert.equal(w.aggregate.model_info.id, 'openai/gpt2');
      assert.equal(w.aggregate.model_info.additional_details.deployment_type, 'self_deployed');
      assert.equal(w.aggregate.model_info.additional_details.model_availability, 'open_weights');
      assert.equal(
        w.aggregate.source_metadata.additional_details['stat.num_prompt_tokens@test'],
        '350.44444444444446',
      );
      const at5 = resultById(w.aggregate, 'exact_match@5/test');
      assert.equal(at5.metric_config.metric_id, 'exact_match@5');
      assert.equal(at5.metric_config.metric_parameters.k, 5);
      assert.equal(at5.metric_config.max_score, 1);
      const perplexity = resultById(w.aggregate, 'perplexity/test');
      assert.equal(perplexity.metric_config.lower_is_better, true);
      assert.equal(perplexity.metric_config.min_score, 1);
    });
  },
);

// A run of our own: three train trials, a perturbation, a sub-split, a failed request; and a suite of two runs.
function ownRun(model: string, shift: number): Record<string, unknown> {
  const stat = (name: Obj, values: number[]) => {
    const sum = values.reduce((a, b) => a + b, 0);
    const mean = sum / values.length;
    const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length;
    return {
      name,
      count: values.length,
      sum,
      mean,
      variance,
      stddev: Math.sqrt(variance),
      min: Math.min(...values),
      max: Math.max(...values),
    };
  };
  const instances = ['i1', 'i2'];
  const requestStates: Obj[] = [];
  const perInstance: Obj[] = [];
  for (const trial of [0, 1, 2])
    for (const id of instances) {
      const ok = !(id === 'i2' && trial === 2);
      requestStates.push({
        instance: {
          input: { text: `question ${id}` },
          references: [
            { output: { text: 'yes' }, tags: ['correct'] },
            { output: { text: 'no' }, tags: [] },
          ],
          split: 'test',
          sub_split: 'hard',
          id,
        },
        train_trial_index: trial,
        request: { prompt: `Q: question ${id}\nA:` },
        result: ok
          ? {
              success: true,
              completions: [{ text: trial === 0 ? 'yes' : 'no' }],
              request_time: 0.5,
              request_datetime: 1700000000 + trial,
            }
          : { success: false, error: 'rate limited', completions: [] },
      });
      perInstance.push({
        instance_id: id,
        train_trial_index: trial,
        stats: [
          {
            name: { name: 'exact_match', split: 'test', sub_split: 'hard' },
            count: 1,
            sum: trial === 0 ? 1 : 0,
            mean: trial === 0 ? 1 : 0,
          },
          { name: { name: 'num_prompt_tokens', split: 'test' }, count: 1, sum: 7, mean: 7 },
          { name: { name: 'num_output_tokens', split: 'test' }, count: 1, sum: 1, mean: 1 },
        ],
      });
    }
  // a perturbed copy of i1 (trial 0)
  requestStates.push({
    instance: {
      input: { text: 'QUESTION I1' },
      references: [{ output: { text: 'yes' }, tags: ['correct'] }],
      split: 'test',
      sub_split: 'hard',
      id: 'i1',
      perturbation: { name: 'typos', prob: 0.1 },
    },
    train_trial_index: 0,
    request: { prompt: 'Q: QUESTION I1\nA:' },
    result: { success: true, completions: [{ text: 'no' }] },
  });
  perInstance.push({
    instance_id: 'i1',
    perturbation: { name: 'typos', prob: 0.1 },
    train_trial_index: 0,
    stats: [
      {
        name: { name: 'exact_match', split: 'test', sub_split: 'hard', perturbation: { name: 'typos' } },
        count: 1,
        sum: 0,
        mean: 0,
      },
    ],
  });
  return {
    'run_spec.json': {
      name: `demo:model=${model}`,
      scenario_spec: { class_name: 'x.Demo', args: { level: 'hard' } },
      adapter_spec: {
        method: 'generation',
        model,
        model_deployment: model,
        temperature: 0,
        max_tokens: 5,
        num_train_trials: 3,
      },
      metric_specs: [],
      groups: ['demo'],
    },
    'scenario.json': {
      name: 'demo',
      description: 'a demo',
      tags: ['x'],
      definition_path: 'https://example.org/demo.py',
    },
    'scenario_state.json': { adapter_spec: {}, request_states: requestStates },
    'per_instance_stats.json': perInstance,
    'stats.json': [
      stat({ name: 'exact_match', split: 'test', sub_split: 'hard' }, [1 - shift, 0, 0]),
      stat(
        {
          name: 'exact_match',
          split: 'test',
          sub_split: 'hard',
          perturbation: { name: 'typos', robustness: true, computed_on: 'perturbed' },
        },
        [0, 0, 0],
      ),
      stat({ name: 'num_prompt_tokens', split: 'test' }, [7, 7, 7]),
      { name: { name: 'training_co2_cost', split: 'test' }, count: 0, sum: 0, sum_squared: 0 },
    ],
  };
}

async function writeRun(dir: string, files: Record<string, unknown>): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [name, value] of Object.entries(files)) await writeFile(join(dir, name), JSON.stringify(value));
}

test('a HELM suite of our own: train trials give a standard error, perturbed and failed instances come through', async (t) => {
  await withRoot(async (root) => {
    const suite = join(root, 'benchmark_output', 'runs', 'v1');
    await writeRun(join(suite, 'demo:model=openai_gpt-4o'), ownRun('openai/gpt-4o', 0));
    await writeRun(join(suite, 'demo:model=meta_llama-3'), ownRun('together/llama-3-8b', 1));
    await writeFile(join(suite, 'costs.json'), '{}');
    const written = await convertInto(join(root, 'out'), [join(root, 'benchmark_output')]);
    assert.equal(written.length, 2);
    const gpt = written.find((w) => w.aggregate.model_info.id === 'openai/gpt-4o')!;
    const em = resultById(gpt.aggregate, 'exact_match/test/hard');
    assert.equal(em.score_details.score, 1 / 3);
    const sd = Math.sqrt(((1 - 1 / 3) ** 2 + 2 * (1 / 3) ** 2) / 3);
    assert.equal(em.score_details.uncertainty.standard_deviation, sd);
    assert.equal(em.score_details.uncertainty.standard_error.value, sd / Math.sqrt(3));
    assert.match(em.score_details.uncertainty.standard_error.method, /stddev \/ sqrt\(count\)/);
    assert.equal(em.score_details.uncertainty.num_samples, 3);
    assert.equal(em.metric_config.metric_parameters.sub_split, 'hard');
    assert.equal(em.source_data.source_type, 'url');
    assert.equal(gpt.aggregate.model_info.additional_details.model_availability, 'closed_weights');
    // 2 instances × 3 trials + the perturbed copy
    assert.equal(gpt.rows.length, 7);
    const failed = gpt.rows.find((r) => r.sample_id === 'i2#trial2@exact_match/test/hard')!;
    assert.equal(failed.error, 'rate limited');
    const perturbed = gpt.rows.find(
      (r) => r.sample_id === 'i1#trial0#typos@exact_match/test/hard/typos:perturbed',
    )!;
    assert.equal(perturbed.input.raw, 'QUESTION I1');
    assert.equal(
      gpt.rows.find((r) => r.sample_id === 'i1#trial0@exact_match/test/hard')!.evaluation.is_correct,
      true,
    );
    assert.equal(gpt.aggregate.retrieved_timestamp, '1700000002');
    assert.ok(gpt.record.fields.some((f) => f.fate === 'not-mapped' && /training_co2_cost/.test(f.field)));
    await assertUpstreamValid(t, written);
    await assertValidTree(join(root, 'out'));
  });
});

test('broken HELM files fail with the file and line, writing nothing', async () => {
  await withRoot(async (root) => {
    const run = join(root, 'run');
    await writeRun(run, ownRun('openai/gpt-4o', 0));
    await writeFile(join(run, 'per_instance_stats.json'), '[{"instance_id": "i1",\n "stats": [}');
    await assert.rejects(convertInto(join(root, 'out'), [run]), (error: unknown) => {
      assert.ok(error instanceof DataError, String(error));
      assert.match(error.message, /per_instance_stats\.json: line 2 column \d+/);
      return true;
    });
    await writeRun(run, ownRun('openai/gpt-4o', 0));
    await writeFile(join(run, 'stats.json'), '{"not": "a list"}');
    await assert.rejects(convertInto(join(root, 'out'), [run]), /stats\.json: must be a list/);
    assert.deepEqual(
      (await filesUnder(root)).filter((f) => f.includes('/out/')),
      [],
    );
  });
});
