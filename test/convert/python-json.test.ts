// Python's JSON (NaN, Infinity, -Infinity as bare tokens, as json.dumps writes them) in the files of Python tools:
// an lm-eval 0.4.8 run whose error metric is infinite is converted, not refused; a non-finite value is never a score.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  assertUpstreamValid,
  assertValidTree,
  convertInto,
  resultById,
  withRoot,
  type Obj,
} from './sources-helpers.js';

const TS = '2025-03-14T10-21-07.118243';

/** A results file as lm-eval 0.4.8 writes it (json.dumps: bare Infinity / NaN), with a second, finite task. */
function resultsText(): string {
  const doc = {
    results: {
      numeric_estimation: { alias: 'numeric_estimation', 'mae,none': 1e308, 'mae_stderr,none': 1.5e308 },
      arc_easy: { alias: 'arc_easy', 'acc,none': 0.75, 'acc_stderr,none': 0.0884 },
    },
    group_subtasks: { numeric_estimation: [], arc_easy: [] },
    configs: {
      numeric_estimation: {
        task: 'numeric_estimation',
        dataset_path: 'json',
        test_split: 'test',
        output_type: 'generate_until',
        metric_list: [{ metric: 'mae', aggregation: 'mean', higher_is_better: false }],
      },
      arc_easy: { task: 'arc_easy', dataset_path: 'allenai/ai2_arc', output_type: 'multiple_choice' },
    },
    versions: { numeric_estimation: 1.0, arc_easy: 1.0 },
    'n-shot': { numeric_estimation: 0, arc_easy: 0 },
    higher_is_better: { numeric_estimation: { mae: false }, arc_easy: { acc: true } },
    'n-samples': {
      numeric_estimation: { original: 24, effective: 24 },
      arc_easy: { original: 24, effective: 24 },
    },
    config: {
      model: 'hf',
      model_args: 'pretrained=EleutherAI/pythia-160m,dtype=float32',
      batch_size: 1,
      bootstrap_iters: 100000,
    },
    git_hash: 'a1b2c3d',
    date: 1741947667.0,
    transformers_version: '4.49.0',
    lm_eval_version: '0.4.8',
    model_name: 'EleutherAI/pythia-160m',
  };
  // json.dumps writes the non-finite numbers bare: stand-ins replaced in the text.
  return JSON.stringify(doc, null, 2).replace('1e+308', 'Infinity').replace('1.5e+308', 'NaN');
}

/** A samples line of a generate_until task with a per-sample `mae` (Infinity where the answer was not a number). */
function sampleLine(i: number, mae: number): string {
  const line: Obj = {
    doc_id: i,
    doc: { question: `How many? (${i})`, answer: String(i * 3) },
    target: String(i * 3),
    arguments: { gen_args_0: { arg_0: `How many? (${i})\nAnswer:`, arg_1: { until: ['\n'] } } },
    resps: [[mae === 1e308 ? 'many' : String(i * 3 + mae)]],
    filtered_resps: [mae === 1e308 ? 'many' : String(i * 3 + mae)],
    filter: 'none',
    metrics: ['mae'],
    doc_hash: `d${i}`,
    prompt_hash: `p${i}`,
    target_hash: `t${i}`,
    mae,
  };
  return JSON.stringify(line).replace('1e+308', 'Infinity');
}

async function writeRun(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const results = join(dir, `results_${TS}.json`);
  await writeFile(results, resultsText());
  // 17 of 24 per-sample values are Infinity.
  const lines: string[] = [];
  for (let i = 0; i < 24; i++) lines.push(sampleLine(i, i % 24 < 7 ? i * 0.5 : 1e308));
  await writeFile(join(dir, `samples_numeric_estimation_${TS}.jsonl`), `${lines.join('\n')}\n`);
  const arc: string[] = [];
  for (let i = 0; i < 24; i++)
    arc.push(
      JSON.stringify({
        doc_id: i,
        doc: { question: `q${i}` },
        target: 0,
        arguments: {
          gen_args_0: { arg_0: `q${i}`, arg_1: ' a' },
          gen_args_1: { arg_0: `q${i}`, arg_1: ' b' },
        },
        resps: [[['-1.0', 'True']], [['-2.0', 'False']]],
        filtered_resps: [
          ['-1.0', 'True'],
          ['-2.0', 'False'],
        ],
        filter: 'none',
        metrics: ['acc'],
        doc_hash: 'h',
        prompt_hash: 'h',
        target_hash: 'h',
        acc: i < 18 ? 1.0 : 0.0,
      }),
    );
  await writeFile(join(dir, `samples_arc_easy_${TS}.jsonl`), `${arc.join('\n')}\n`);
  return results;
}

test('lm-eval 0.4.8 with "mae,none": Infinity and NaN stderr: converted, the infinite result left out and kept as a string, 7 of 24 rows', async (t) => {
  await withRoot(async (root) => {
    const results = await writeRun(join(root, 'run'));
    const [w] = await convertInto(join(root, 'out'), [results]);
    const a = w.aggregate;
    assert.equal(
      a.evaluation_results.some((r: Obj) => r.evaluation_name === 'numeric_estimation'),
      false,
      'a non-finite score is no result',
    );
    assert.equal(
      a.source_metadata.additional_details['non_finite_score.numeric_estimation/mae,none'],
      'Infinity',
    );
    assert.equal(
      resultById(a, 'arc_easy/acc,none').score_details.score,
      0.75,
      'the finite result is written',
    );
    const numeric = w.rows.filter((r) => r.evaluation_name === 'numeric_estimation');
    assert.equal(numeric.length, 7, 'the 7 finite per-sample values are rows');
    assert.ok(numeric.every((r) => Number.isFinite(r.evaluation.score)));
    assert.ok(
      numeric.every((r) => r.evaluation_result_id === undefined),
      'no result to name',
    );
    assert.equal(w.rows.filter((r) => r.evaluation_name === 'arc_easy').length, 24);
    const fates = w.record.fields;
    assert.ok(
      fates.some(
        (f) =>
          f.field === 'results.numeric_estimation.mae,none' &&
          /Infinity is not a finite number/.test(f.reason ?? ''),
      ),
    );
    assert.ok(
      fates.some(
        (f) =>
          f.fate === 'not-mapped' &&
          /^17 line\(s\) whose metric value is NaN or ±Infinity/.test(f.reason ?? ''),
      ),
      JSON.stringify(fates.filter((f) => f.fate === 'not-mapped')),
    );
    await assertUpstreamValid(t, [w]);
    await assertValidTree(join(root, 'out'));

    // Deterministic: a second conversion writes the same bytes (also on worker threads).
    const [again] = await convertInto(join(root, 'out2'), [results]);
    assert.equal(again.bytes, w.bytes);
  });
});

test('a NaN stderr beside a finite score: the result is written without an uncertainty, the NaN kept as a detail', async (t) => {
  await withRoot(async (root) => {
    const dir = join(root, 'run');
    await mkdir(dir);
    const text = resultsText().replace('"mae,none": Infinity', '"mae,none": 2.5');
    const results = join(dir, `results_${TS}.json`);
    await writeFile(results, text);
    const [w] = await convertInto(join(root, 'out'), [results]);
    const mae = resultById(w.aggregate, 'numeric_estimation/mae,none');
    assert.equal(mae.score_details.score, 2.5);
    assert.equal(mae.score_details.uncertainty.standard_error, undefined);
    assert.equal(mae.score_details.details.stderr, 'NaN');
    assert.equal(mae.metric_config.lower_is_better, true);
    await assertUpstreamValid(t, [w]);
  });
});

test('strict JSON stays strict for EEE records: validate refuses an aggregate holding a bare NaN', async () => {
  const { cli } = await import('../checks/cli-inproc.js');
  await withRoot(async (root) => {
    const results = await writeRun(join(root, 'run'));
    const out = join(root, 'out');
    await convertInto(out, [results]);
    const { filesUnder } = await import('./sources-helpers.js');
    const aggregate = (await filesUnder(out)).find((p) => p.endsWith('.json'))!;
    const { readFile } = await import('node:fs/promises');
    const text = await readFile(aggregate, 'utf8');
    const broken = text.replace(/"score":\s*0\.75/, '"score": NaN');
    assert.notEqual(broken, text);
    await writeFile(aggregate, broken);
    const { code, stdout } = await cli(['validate', aggregate, '--format', 'json', '--no-progress']);
    assert.equal(code, 1, stdout.slice(0, 500));
  });
});
