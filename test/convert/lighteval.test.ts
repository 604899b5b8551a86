// lighteval runs (results_<date>.json, details/<model>/<date>/details_<task>_<date>.parquet): the real runs of
// ../shared/reference/peers-wild-3/lighteval (9 API models of a custom community task with four metrics; lighteval
// 0.13.0's own smoke run with task keys without a suite) and generated runs whose Parquet details DuckDB writes:
// both task-key forms, NaN / Infinity in the results JSON, a task without details, details alone, several row
// groups, and headlines that do not match their details.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { reference, skipWithoutReference } from '../helpers/shared.js';
import { assertUpstreamValid, assertValidTree, convertInto, load, tempRoot, treeBytes } from './helpers.js';
import { parseTaskKey } from '../../src/convert/sources/lighteval.js';

const SET = 'peers-wild-3/lighteval';
const skip = skipWithoutReference(`${SET}`);

const reconciliationOf = (result: any): string => result.score_details.details.evalkit_reconciliation;

test('parseTaskKey reads both task-key forms', () => {
  assert.deepEqual(parseTaskKey('community|gpqa-diamond-idk|0'), {
    suite: 'community',
    task: 'gpqa-diamond-idk',
    fewshot: '0',
  });
  assert.deepEqual(parseTaskKey('anli:r1|0'), { task: 'anli:r1', fewshot: '0' });
  assert.deepEqual(parseTaskKey('leaderboard|mmlu:abstract_algebra|5'), {
    suite: 'leaderboard',
    task: 'mmlu:abstract_algebra',
    fewshot: '5',
  });
});

test(
  'every real lighteval run of peers-wild-3 converts, validates, reconciles and gives the same bytes twice',
  { skip },
  async (t) => {
    const root = reference(SET)!;
    for (const run of readdirSync(root).sort()) {
      const folder = join(root, run);
      const first = await convertInto([folder]);
      assert.deepEqual(
        first.failures.map((f) => `${f.sourcePath}: ${f.error.message}`),
        [],
      );
      // The details files and the results file of a run are one record; only PROVENANCE.md is nobody's.
      assert.deepEqual(
        first.skipped
          .filter((s) => !s.reason.startsWith('the same record as from'))
          .map((s) => s.path.split('/').pop()),
        run.includes('smoke') ? ['PROVENANCE.md'] : [],
      );
      for (const { record } of first.written) {
        const { aggregate, rows } = load(first.root, record);
        await assertUpstreamValid(t, aggregate, rows);
        assert.ok(rows.length > 0, `${record.sourcePath}: no rows`);
        // Every result has its details rows and is a mean of them.
        for (const r of aggregate.evaluation_results)
          assert.equal(reconciliationOf(r), 'reconciled', `${r.evaluation_result_id}`);
      }
      await assertValidTree(first.root);
      const second = await convertInto([folder]);
      assert.deepEqual(treeBytes(second.root), treeBytes(first.root), `${run}: not the same bytes twice`);
    }
  },
);

test(
  'the openrouter runs: the provider is the platform, the developer the next part, no credential written',
  { skip },
  async () => {
    const root = reference(`${SET}/JoelNiklaus__evaluate-idk__gpqa-diamond-idk-9-models`)!;
    const out = await convertInto([root]);
    assert.equal(out.written.length, 9);
    const ids = out.written.map((w) => load(out.root, w.record).aggregate.model_info.id).sort();
    assert.deepEqual(ids, [
      'anthropic/claude-sonnet-4',
      'deepseek/deepseek-v3.1-terminus',
      'google/gemini-2.5-flash',
      'google/gemini-2.5-pro',
      'openai/gpt-4.1',
      'openai/gpt-4.1-mini',
      'openai/gpt-5',
      'openai/gpt-5-mini',
      'openai/gpt-5-nano',
    ]);
    for (const [, bytes] of treeBytes(out.root))
      assert.ok(!bytes.includes('sk-or-v1'), 'an API key was written');
    const gpt5 = out.written.find((w) => w.record.aggregatePath.includes('/openai/gpt-5/'))!;
    const { aggregate, rows } = load(out.root, gpt5.record);
    assert.equal(aggregate.model_info.inference_platform, 'openrouter');
    assert.equal(aggregate.model_info.additional_details.deployment_type, 'externally_managed');
    // One result per metric with its stderr; results.all is not a benchmark.
    const results = aggregate.evaluation_results;
    assert.deepEqual(
      results.map((r: any) => r.evaluation_result_id),
      [
        'community|gpqa-diamond-idk|0/trad_score',
        'community|gpqa-diamond-idk|0/idk_score',
        'community|gpqa-diamond-idk|0/idk_freq',
        'community|gpqa-diamond-idk|0/extract_fail',
      ],
    );
    assert.equal(results[0].evaluation_name, 'gpqa-diamond-idk');
    assert.equal(results[0].score_details.score, 0.8282828282828283);
    assert.equal(results[0].score_details.uncertainty.standard_error.value, 0.02686971618742992);
    assert.equal(
      results[2].metric_config.lower_is_better,
      true,
      'idk_freq: higher_is_better false in config_tasks',
    );
    assert.equal(results[0].generation_config.generation_args.temperature, 0);
    // 198 docs × 4 metrics; a doc's rows share its hash across models.
    assert.equal(rows.length, 198 * 4);
    const other = load(
      out.root,
      out.written.find((w) => w.record.aggregatePath.includes('/gpt-4.1/'))!.record,
    ).rows;
    const hashes = (rs: any[]) => new Set(rs.map((r) => r.sample_hash));
    assert.deepEqual(hashes(other), hashes(rows));
    assert.equal(new Set(rows.map((r: any) => r.sample_id)).size, rows.length);
  },
);

test('a real results file without its details: headlines, not checkable, said so', { skip }, async () => {
  const src = reference(
    `${SET}/evaleval__every_eval_ever__lighteval-0.13.0-dummy-model-smoke/tests/data/lighteval_smoke/results/eee-smoke/dummy-model/results_2026-08-10T17-22-11.385681.json`,
  )!;
  const dir = join(tempRoot('evalkit-lighteval-'), 'results', 'm');
  mkdirSync(dir, { recursive: true });
  copyFileSync(src, join(dir, 'results_2026-08-10T17-22-11.385681.json'));
  const out = await convertInto([dir]);
  assert.equal(out.written.length, 1);
  const { record } = out.written[0];
  const { aggregate, rows } = load(out.root, record);
  assert.equal(rows.length, 0);
  assert.equal(record.samplesPath, undefined);
  assert.deepEqual(aggregate.evaluation_results.map(reconciliationOf), ['not_checkable', 'not_checkable']);
  assert.ok(record.notes.some((n) => n.includes('without a details file')));
  assert.ok(record.notes.some((n) => n.includes('limited to 2 sample(s)')));
});

// ---------------------------------------------------------------------------------------------------------------
// Generated runs

interface DocRow {
  id: string;
  query: string;
  choices: string[];
  gold: number;
  text: string[];
  metrics: Record<string, number>;
}

async function writeDetails(path: string, rows: DocRow[], rowGroupSize = 2): Promise<void> {
  const instance = await DuckDBInstance.create(':memory:');
  const db = await instance.connect();
  const q = (s: string) => `'${s.replace(/'/g, "''")}'`;
  const list = (xs: string[]) => `[${xs.map(q).join(', ')}]::VARCHAR[]`;
  const selects = rows.map(
    (r) =>
      `SELECT {'id': ${q(r.id)}, 'query': ${q(r.query)}, 'choices': ${list(r.choices)}, 'gold_index': ${r.gold}::BIGINT, 'task_name': 'x'} AS doc, ` +
      `{${Object.entries(r.metrics)
        .map(([k, v]) => `${q(k)}: ${v}::DOUBLE`)
        .join(', ')}} AS metric, ` +
      `{'text': ${list(r.text)}, 'logprobs': []::DOUBLE[], 'truncated_tokens_count': 0::BIGINT} AS model_response`,
  );
  await db.run(
    `COPY (${selects.join(' UNION ALL ')}) TO ${q(path)} (FORMAT parquet, ROW_GROUP_SIZE ${rowGroupSize})`,
  );
  db.closeSync();
  instance.closeSync();
}

const DATE = '2025-01-02T03-04-05.678901';

/** A lighteval output folder: results/<model>/results_<date>.json and details/<model>/<date>/ for the given tasks. */
async function lightevalRun(
  results: string,
  details: Record<string, DocRow[]>,
  model = 'org/model-7b',
): Promise<{ root: string; results: string }> {
  const root = tempRoot('evalkit-lighteval-');
  const resultsDir = join(root, 'results', ...model.split('/'));
  const detailsDir = join(root, 'details', ...model.split('/'), DATE);
  mkdirSync(resultsDir, { recursive: true });
  mkdirSync(detailsDir, { recursive: true });
  const resultsPath = join(resultsDir, `results_${DATE}.json`);
  writeFileSync(resultsPath, results);
  for (const [task, rows] of Object.entries(details))
    await writeDetails(join(detailsDir, `details_${task}_${DATE}.parquet`), rows);
  return { root, results: resultsPath };
}

const doc = (i: number, acc: number, extra: Record<string, number> = {}): DocRow => ({
  id: `d${i}`,
  query: `Question ${i}?`,
  choices: ['yes', 'no'],
  gold: i % 2,
  text: [acc === 1 ? (i % 2 ? 'no' : 'yes') : 'maybe'],
  metrics: { acc, ...extra },
});

/** A results file with an old-style key (suite|task|fewshot), a new-style one (task|fewshot) and `all`. */
function resultsJson(o: { arc: number; gsm: string; arcN?: number; gsmStderr?: string }): string {
  return `{
  "config_general": {"lighteval_sha": "abc", "max_samples": null, "model_name": "org/model-7b",
    "model_config": {"model_name": "org/model-7b", "generation_parameters": {"temperature": 0.6, "max_new_tokens": 256, "seed": 3}}},
  "results": {
    "leaderboard|arc:easy|25": {"acc": ${o.arc}, "acc_stderr": 0.1},
    "gsm8k|5": {"acc": ${o.gsm}, "acc_stderr": ${o.gsmStderr ?? 'Infinity'}, "weird": NaN},
    "all": {"acc": 0.5, "acc_stderr": 0.1}
  },
  "versions": {"leaderboard|arc:easy|25": 0},
  "config_tasks": {
    "leaderboard|arc:easy|25": {"name": "arc:easy", "hf_repo": "allenai/ai2_arc", "evaluation_splits": ["test"],
      "metrics": [{"metric_name": "acc", "higher_is_better": true, "corpus_level_fn": "mean"}]},
    "gsm8k|5": {"name": "gsm8k", "hf_repo": "openai/gsm8k",
      "metrics": [{"metric_name": "acc", "higher_is_better": true, "corpus_level_fn": "mean"}]}
  },
  "summary_tasks": {
    "leaderboard|arc:easy|25": {"truncated": 0, "non_truncated": ${o.arcN ?? 5}, "padded": 10, "non_padded": 0},
    "gsm8k|5": {"truncated": 0, "non_truncated": 0, "padded": 0, "non_padded": 0}
  },
  "summary_general": {}
}`;
}

const ARC = [doc(0, 1), doc(1, 0), doc(2, 1), doc(3, 1), doc(4, 0)]; // mean 0.6 over 5 docs, 3 row groups
const GSM = [doc(10, 1), doc(11, 1), doc(12, 0), doc(13, 0)]; // mean 0.5

test('a generated run: both task-key forms, NaN / Infinity, details read row group by row group, reconciled', async (t) => {
  const run = await lightevalRun(resultsJson({ arc: 0.6, gsm: '0.5' }), {
    'leaderboard|arc:easy|25': ARC,
    'gsm8k|5': GSM,
  });
  const out = await convertInto([run.root]);
  assert.deepEqual(
    out.failures.map((f) => f.error.message),
    [],
  );
  assert.equal(out.written.length, 1);
  const { record } = out.written[0];
  const { aggregate, rows } = load(out.root, record);
  await assertUpstreamValid(t, aggregate, rows);
  await assertValidTree(out.root);
  const results = aggregate.evaluation_results;
  assert.deepEqual(
    results.map((r: any) => [r.evaluation_result_id, r.evaluation_name]),
    [
      ['leaderboard|arc:easy|25/acc', 'arc:easy'],
      ['gsm8k|5/acc', 'gsm8k'],
    ],
  );
  // NaN made no result (kept as a string); an Infinity stderr is no standard error.
  assert.equal(aggregate.source_metadata.additional_details['non_finite_score.gsm8k|5/weird'], 'NaN');
  assert.equal(results[1].score_details.uncertainty, undefined);
  assert.equal(results[1].score_details.details.stderr, 'Infinity');
  assert.equal(results[0].score_details.uncertainty.standard_error.value, 0.1);
  assert.equal(results[0].source_data.additional_details.suite, 'leaderboard');
  assert.deepEqual(results[0].generation_config.generation_args, { temperature: 0.6, max_tokens: 256 });
  assert.equal(results[0].generation_config.additional_details.num_fewshots, '25');
  assert.ok(!('all' in Object.fromEntries(results.map((r: any) => [r.evaluation_name, 1]))));
  // Rows: one per doc, gold and prediction, the metric value as the score.
  assert.equal(rows.length, ARC.length + GSM.length);
  const r1 = rows.find((r: any) => r.sample_id === 'd1')!;
  assert.deepEqual(r1.input.reference, ['no']);
  assert.deepEqual(r1.output.raw, ['maybe']);
  assert.equal(r1.evaluation.score, 0);
  // arc: count from summary_tasks and mean; gsm8k: lighteval left its counts at 0, so the mean only.
  assert.equal(reconciliationOf(results[0]), 'reconciled');
  assert.match(results[0].score_details.details.evalkit_reconciliation_note, /n 5 stored = 5 declared/);
  assert.equal(reconciliationOf(results[1]), 'reconciled');
  assert.match(results[1].score_details.details.evalkit_reconciliation_note, /no sample count/);
  // The details file given alone is the same run.
  const again = await convertInto([join(run.root, 'details')]);
  assert.equal(again.written.length, 1);
  assert.equal(again.written[0].record.aggregatePath, record.aggregatePath);
});

test('a headline or a count its details contradict is a disagreement, not reconciled', async () => {
  const run = await lightevalRun(resultsJson({ arc: 0.8, gsm: '0.5', arcN: 7 }), {
    'leaderboard|arc:easy|25': ARC,
    'gsm8k|5': GSM,
  });
  const out = await convertInto([run.results]);
  const { aggregate } = load(out.root, out.written[0].record);
  assert.equal(reconciliationOf(aggregate.evaluation_results[0]), 'count_mismatch');
  assert.match(
    aggregate.evaluation_results[0].score_details.details.evalkit_reconciliation_note,
    /headline 0\.8/,
  );
  assert.equal(reconciliationOf(aggregate.evaluation_results[1]), 'reconciled');
});

test('a task without its details file: its results are headlines, the run says which', async () => {
  const run = await lightevalRun(resultsJson({ arc: 0.6, gsm: '0.5' }), { 'leaderboard|arc:easy|25': ARC });
  const out = await convertInto([run.results]);
  const { record } = out.written[0];
  const { aggregate, rows } = load(out.root, record);
  assert.equal(rows.length, ARC.length);
  assert.deepEqual(aggregate.evaluation_results.map(reconciliationOf), ['reconciled', 'not_checkable']);
  assert.ok(record.notes.some((n) => n.includes('without a details file') && n.includes('gsm8k|5')));
});

test('details without their results file are refused, saying what is missing', async () => {
  const run = await lightevalRun(resultsJson({ arc: 0.6, gsm: '0.5' }), { 'gsm8k|5': GSM });
  const details = join(run.root, 'details', 'org', 'model-7b', DATE, `details_gsm8k|5_${DATE}.parquet`);
  const lone = join(tempRoot('evalkit-lighteval-'), 'details', 'm', DATE);
  mkdirSync(lone, { recursive: true });
  copyFileSync(details, join(lone, `details_gsm8k|5_${DATE}.parquet`));
  const out = await convertInto([join(lone, `details_gsm8k|5_${DATE}.parquet`)]);
  assert.equal(out.written.length, 0);
  assert.equal((out.failures[0].error as any).code, 'convert.lighteval.details-alone');
  assert.match(out.failures[0].error.message, /without its results file/);
});

test('a results file that is not JSON is refused with its line and column', async () => {
  const run = await lightevalRun(resultsJson({ arc: 0.6, gsm: '0.5' }), {});
  writeFileSync(run.results, readFileSync(run.results, 'utf8').replace('"versions"', '"versions" oops'));
  const out = await convertInto([run.results]);
  assert.equal(out.failures.length, 1);
  assert.match(out.failures[0].error.message, /results_.*\.json:\d+:\d+/);
});

test('a details file of several row groups: every row read, in order, one group at a time', async () => {
  const run = await lightevalRun(resultsJson({ arc: 0.6, gsm: String(1667 / 5000), arcN: 5 }), {
    'leaderboard|arc:easy|25': ARC,
  });
  const path = join(run.root, 'details', 'org', 'model-7b', DATE, `details_gsm8k|5_${DATE}.parquet`);
  const instance = await DuckDBInstance.create(':memory:');
  const db = await instance.connect();
  await db.run('SET threads = 1');
  await db.run(
    `COPY (SELECT {'id': 'g' || range, 'query': 'Q ' || range, 'choices': ['a', 'b'], 'gold_index': range % 2} AS doc,
      {'acc': (range % 3 = 0)::DOUBLE} AS metric, {'text': ['a']} AS model_response FROM range(5000))
      TO '${path}' (FORMAT parquet, ROW_GROUP_SIZE 2048)`,
  );
  db.closeSync();
  instance.closeSync();
  const { asyncBufferFromFile, parquetMetadataAsync } = await import('hyparquet');
  assert.equal((await parquetMetadataAsync(await asyncBufferFromFile(path))).row_groups.length, 3);
  const out = await convertInto([run.results]);
  const { aggregate, rows } = load(out.root, out.written[0].record);
  const gsm = rows.filter((r: any) => r.evaluation_name === 'gsm8k');
  assert.equal(gsm.length, 5000);
  assert.deepEqual(
    gsm.slice(2046, 2050).map((r: any) => r.sample_id),
    ['g2046', 'g2047', 'g2048', 'g2049'],
  );
  assert.equal(reconciliationOf(aggregate.evaluation_results[1]), 'reconciled');
});

test('a run as pushed to the Hub (the date folder beside the results file), counted by effective_num_docs', async () => {
  const root = tempRoot('evalkit-lighteval-');
  const model = join(root, 'details_org__model-7b');
  mkdirSync(join(model, DATE), { recursive: true });
  const results = resultsJson({ arc: 0.6, gsm: '0.5' })
    .replace('"lighteval_sha": "abc"', '"lighteval_sha": "abc", "lighteval_version": "0.8.0"')
    .replace('"name": "gsm8k", "hf_repo"', '"name": "gsm8k", "effective_num_docs": 4, "hf_repo"');
  writeFileSync(join(model, `results_${DATE}.json`), results);
  await writeDetails(join(model, DATE, `details_gsm8k|5_${DATE}.parquet`), GSM);
  const out = await convertInto([root]);
  assert.deepEqual(
    out.failures.map((f) => f.error.message),
    [],
  );
  assert.equal(out.written.length, 1);
  assert.deepEqual(
    out.skipped.map((s) => s.reason.startsWith('the same record as from')),
    [true],
  );
  const { aggregate, rows } = load(out.root, out.written[0].record);
  assert.equal(aggregate.eval_library.version, '0.8.0');
  assert.equal(rows.length, GSM.length);
  const gsm = aggregate.evaluation_results[1];
  assert.equal(reconciliationOf(gsm), 'reconciled');
  assert.match(gsm.score_details.details.evalkit_reconciliation_note, /n 4 stored = 4 declared/);
});

test('a 2024 run: config_tasks keyed without the few-shot count, flat details columns, log-likelihood predictions', async () => {
  const root = tempRoot('evalkit-lighteval-');
  const resultsDir = join(root, 'results', 'meta-llama', 'Llama-2-7b-hf');
  const detailsDir = join(root, 'details', 'meta-llama', 'Llama-2-7b-hf', DATE);
  mkdirSync(resultsDir, { recursive: true });
  mkdirSync(detailsDir, { recursive: true });
  const key = 'leaderboard|arc:challenge|25';
  writeFileSync(
    join(resultsDir, `results_${DATE}.json`),
    JSON.stringify({
      config_general: {
        lighteval_sha: 'f00',
        model_name: 'meta-llama/Llama-2-7b-hf',
        model_sha: 'abc123',
        model_dtype: 'torch.float16',
      },
      results: {
        [key]: { acc: 2 / 3, acc_stderr: 0.2, acc_norm: 1 / 3, acc_norm_stderr: 0.2 },
        all: { acc: 2 / 3, acc_stderr: 0.2 },
      },
      versions: { [key]: 0, all: 0 },
      config_tasks: {
        'leaderboard|arc:challenge': {
          name: 'arc:challenge',
          hf_repo: 'ai2_arc',
          hf_subset: 'ARC-Challenge',
          metric: ['loglikelihood_acc', 'loglikelihood_acc_norm_nospace'],
          evaluation_splits: ['test'],
          original_num_docs: 1172,
          effective_num_docs: 3,
        },
      },
      summary_tasks: {
        [key]: { truncated: 0, non_truncated: 3, padded: 12, non_padded: 0, effective_few_shots: 25.0 },
      },
      summary_general: {},
    }),
  );
  const instance = await DuckDBInstance.create(':memory:');
  const db = await instance.connect();
  const path = join(detailsDir, `details_${key}_${DATE}.parquet`);
  await db.run(
    `COPY (SELECT 'Q' || range AS example, 'shots... Q' || range AS full_prompt, ['A', 'B']::VARCHAR[] AS choices,
      ['B']::VARCHAR[] AS gold, 1::BIGINT AS gold_index,
      CASE WHEN range < 2 THEN [[-2.0, 0], [-1.0, 1]]::DOUBLE[][] ELSE [[-0.5, 1], [-3.0, 0]]::DOUBLE[][] END AS predictions,
      {'acc': CASE WHEN range < 2 THEN 1 ELSE 0 END, 'acc_norm': CASE WHEN range = 0 THEN 1 ELSE 0 END} AS metrics
      FROM range(3)) TO '${path}' (FORMAT parquet)`,
  );
  db.closeSync();
  instance.closeSync();
  const out = await convertInto([root]);
  assert.deepEqual(
    out.failures.map((f) => f.error.message),
    [],
  );
  const { aggregate, rows } = load(out.root, out.written[0].record);
  assert.deepEqual(aggregate.evaluation_results.map(reconciliationOf), ['reconciled', 'reconciled']);
  assert.match(
    aggregate.evaluation_results[0].score_details.details.evalkit_reconciliation_note,
    /n 3 stored = 3 declared; mean/,
  );
  assert.equal(aggregate.evaluation_results[0].source_data.hf_repo, 'ai2_arc');
  assert.equal(aggregate.model_info.additional_details.model_sha, 'abc123');
  assert.equal(rows.length, 6);
  const first = rows.find((r: any) => r.sample_id === '0@leaderboard|arc:challenge|25/acc')!;
  assert.equal(first.input.raw, 'Q0');
  assert.equal(first.input.formatted, 'shots... Q0');
  assert.deepEqual(first.input.reference, ['B']);
  assert.deepEqual(first.output.raw, ['B'], 'the choice of highest log-likelihood');
  const last = rows.find((r: any) => r.sample_id === '2@leaderboard|arc:challenge|25/acc')!;
  assert.deepEqual(last.output.raw, ['A']);
});
