// OpenAI Evals API output items → EEE 0.3.0, on files written here in the API's documented shape (the
// `eval.run.output_item` and `eval.run` objects of the OpenAI API reference): two graders (a string check with 0/1
// scores, a score-model grader with a threshold), an errored item, the run object in the file or beside it, a
// list page, JSONL, two models in one file, a run whose declared counts differ from the file. No reference file of
// this source exists in ../shared/reference, so every input is generated.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { detectSource } from '../../src/convert/registry.js';
import { assertUpstreamValid, assertValidTree, convertInto, load, tempRoot, treeBytes } from './helpers.js';

const RUN_ID = 'evalrun_67abd54d60ec8190832b46859da808f7';
const EVAL_ID = 'eval_67abd54d9b0081909a86353f6fb9317a';

interface Spec {
  question: string;
  answer: string;
  output: string;
  exact: boolean;
  rubric: number;
}
const SPECS: Spec[] = [
  { question: 'Capital of France?', answer: 'Paris', output: 'Paris', exact: true, rubric: 7 },
  { question: 'Largest planet?', answer: 'Jupiter', output: 'Saturn', exact: false, rubric: 2 },
  { question: '2 + 2?', answer: '4', output: '4', exact: true, rubric: 6 },
  { question: 'Author of Hamlet?', answer: 'Shakespeare', output: 'Marlowe', exact: false, rubric: 5 },
  {
    question: 'Boiling point of water in °C?',
    answer: '100',
    output: '100 degrees',
    exact: false,
    rubric: 6.5,
  },
];
const THRESHOLD = 5.5;

function item(spec: Spec, i: number, model = 'gpt-4o-mini-2024-07-18'): Record<string, unknown> {
  const passed = spec.exact && spec.rubric >= THRESHOLD;
  return {
    object: 'eval.run.output_item',
    id: `outputitem_${i}`,
    run_id: RUN_ID,
    eval_id: EVAL_ID,
    created_at: 1739314509 + i,
    status: passed ? 'pass' : 'fail',
    datasource_item_id: i,
    datasource_item: { question: spec.question, reference: spec.answer },
    results: [
      {
        name: 'exact',
        type: 'string-check-grader',
        score: spec.exact ? 1 : 0,
        passed: spec.exact,
        sample: null,
      },
      {
        name: 'rubric',
        type: 'score_model',
        score: spec.rubric,
        passed: spec.rubric >= THRESHOLD,
        sample: { output: [{ role: 'assistant', content: String(spec.rubric) }] },
      },
    ],
    sample: {
      input: [
        { role: 'system', content: 'Answer briefly.' },
        { role: 'user', content: spec.question },
      ],
      output: [{ role: 'assistant', content: spec.output }],
      finish_reason: 'stop',
      model,
      usage: { total_tokens: 30 + i, completion_tokens: 3, prompt_tokens: 27 + i, cached_tokens: 0 },
      error: { code: '', message: '' },
      temperature: 1,
      max_completion_tokens: 256,
      top_p: 1,
      seed: 42,
    },
  };
}
const errored = (i: number): Record<string, unknown> => ({
  ...item(SPECS[0]!, i),
  status: 'fail',
  results: [],
  sample: {
    input: [{ role: 'user', content: 'What is the speed of light?' }],
    output: [],
    finish_reason: '',
    model: 'gpt-4o-mini-2024-07-18',
    usage: { total_tokens: 0, completion_tokens: 0, prompt_tokens: 0, cached_tokens: 0 },
    error: { code: 'rate_limit_exceeded', message: 'Rate limit reached for requests' },
    temperature: 1,
    max_completion_tokens: 256,
    top_p: 1,
    seed: 42,
  },
});

const items = (): Record<string, unknown>[] => [...SPECS.map((s, i) => item(s, i)), errored(SPECS.length)];

function runObject(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const exactPassed = SPECS.filter((s) => s.exact).length;
  const rubricPassed = SPECS.filter((s) => s.rubric >= THRESHOLD).length;
  const bothPassed = SPECS.filter((s) => s.exact && s.rubric >= THRESHOLD).length;
  return {
    object: 'eval.run',
    id: RUN_ID,
    eval_id: EVAL_ID,
    report_url: 'https://platform.openai.com/evaluations/eval_67abd54d9b0081909a86353f6fb9317a',
    status: 'completed',
    model: 'gpt-4o-mini',
    name: 'trivia-gpt-4o-mini',
    created_at: 1739314500,
    result_counts: { total: 6, errored: 1, failed: SPECS.length - bothPassed, passed: bothPassed },
    per_model_usage: [],
    per_testing_criteria_results: [
      { testing_criteria: 'exact-3d1e5c7a', passed: exactPassed, failed: SPECS.length - exactPassed },
      { testing_criteria: 'rubric-8b2f0a11', passed: rubricPassed, failed: SPECS.length - rubricPassed },
    ],
    data_source: { type: 'completions', source: { type: 'file_id', id: 'file-abc' } },
    metadata: {},
    error: null,
    ...overrides,
  };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

test('a JSON array of output items and its run: a result per grader and measure, a row per item and grader', async (t) => {
  const dir = tempRoot();
  const file = join(dir, 'items.json');
  writeFileSync(file, JSON.stringify([runObject(), ...items()], null, 2));
  assert.equal((await detectSource(file)).id, 'openai-evals-api');
  const { root, written, failures } = await convertInto([file], { root: join(dir, 'out') });
  assert.deepEqual(
    failures.map((f) => f.error.message),
    [],
  );
  assert.equal(written.length, 1);
  const { record } = written[0]!;
  const { aggregate, rows } = load(root, record);
  assert.equal(aggregate.model_info.id, 'openai/gpt-4o-mini-2024-07-18');
  assert.equal(aggregate.model_info.additional_details.deployment_type, 'externally_managed');
  const byId = new Map(aggregate.evaluation_results.map((r: any) => [r.evaluation_result_id, r]));
  const expected: Record<string, number> = {
    'exact/pass_rate': SPECS.filter((s) => s.exact).length / SPECS.length,
    'exact/mean_score': mean(SPECS.map((s) => (s.exact ? 1 : 0))),
    'rubric/pass_rate': SPECS.filter((s) => s.rubric >= THRESHOLD).length / SPECS.length,
    'rubric/mean_score': mean(SPECS.map((s) => s.rubric)),
  };
  assert.deepEqual([...byId.keys()].sort(), Object.keys(expected).sort());
  for (const [id, score] of Object.entries(expected)) {
    const r: any = byId.get(id);
    assert.equal(r.score_details.score, score, id);
    assert.equal(r.score_details.uncertainty.num_samples, SPECS.length, id);
    assert.equal(r.evaluation_name, id.split('/')[0]);
    assert.equal(r.source_data.dataset_name, 'trivia-gpt-4o-mini');
  }
  // The run's declared counts beside the rows' counts: they agree here, and no note says otherwise.
  const rubric: any = byId.get('rubric/pass_rate');
  assert.equal(
    rubric.score_details.details.declared_passed,
    String(SPECS.filter((s) => s.rubric >= THRESHOLD).length),
  );
  assert.equal(rubric.score_details.details.rows_passed, rubric.score_details.details.declared_passed);
  assert.equal(rubric.score_details.details.errored_items, '1');
  assert.equal(record.notes.filter((n) => /declares/.test(n)).length, 0, record.notes.join('\n'));
  assert.ok(record.notes.some((n) => /1 errored item\(s\) counted, not scored/.test(n)));
  assert.equal(aggregate.source_metadata.additional_details.items_errored, '1');

  // Rows: the errored item has none; each row holds its grader's score and pass.
  assert.equal(rows.length, SPECS.length * 2);
  for (const [i, spec] of SPECS.entries()) {
    const exact = rows.find((r) => r.sample_id === `${i}#exact`);
    const rub = rows.find((r) => r.sample_id === `${i}#rubric`);
    assert.equal(exact.evaluation.score, spec.exact ? 1 : 0);
    assert.equal(exact.evaluation.is_correct, spec.exact);
    assert.equal(rub.evaluation.score, spec.rubric);
    assert.equal(rub.evaluation.is_correct, spec.rubric >= THRESHOLD);
    assert.equal(rub.evaluation_result_id, 'rubric/mean_score');
    assert.equal(exact.input.raw, spec.question);
    assert.deepEqual(exact.input.reference, [spec.answer]);
    assert.deepEqual(exact.output.raw, [spec.output]);
    assert.equal(exact.token_usage.input_tokens, 27 + i);
    assert.equal(exact.metadata['item.question'], spec.question);
    // The same sample hashes under both graders: the item pairs with itself across runs.
    assert.equal(exact.sample_hash, rub.sample_hash);
  }
  await assertUpstreamValid(t, aggregate, rows);
  await assertValidTree(root);

  // Same input, same bytes.
  const again = await convertInto([file], { root: join(dir, 'out2') });
  assert.deepEqual(treeBytes(join(dir, 'out2')), treeBytes(root));
  assert.equal(again.written.length, 1);
});

test('JSONL with the run beside it (run.json), and a list page, give the same record', async () => {
  const dir = tempRoot();
  mkdirSync(join(dir, 'jsonl'));
  mkdirSync(join(dir, 'page'));
  writeFileSync(
    join(dir, 'jsonl', 'items.jsonl'),
    items()
      .map((x) => JSON.stringify(x))
      .join('\n') + '\n',
  );
  writeFileSync(join(dir, 'jsonl', 'run.json'), JSON.stringify(runObject()));
  writeFileSync(
    join(dir, 'page', 'items.json'),
    JSON.stringify({
      object: 'list',
      data: [runObject(), ...items()],
      first_id: 'x',
      last_id: 'y',
      has_more: false,
    }),
  );
  const a = await convertInto([join(dir, 'jsonl', 'items.jsonl')], { root: join(dir, 'a') });
  const b = await convertInto([join(dir, 'page', 'items.json')], { root: join(dir, 'b') });
  assert.deepEqual([...a.failures, ...b.failures], []);
  const ra = load(join(dir, 'a'), a.written[0]!.record);
  const rb = load(join(dir, 'b'), b.written[0]!.record);
  assert.deepEqual(ra.aggregate.evaluation_results, rb.aggregate.evaluation_results);
  assert.deepEqual(
    ra.rows.map((r) => [r.evaluation_name, r.sample_id, r.evaluation.score]),
    rb.rows.map((r) => [r.evaluation_name, r.sample_id, r.evaluation.score]),
  );
  assert.equal(ra.aggregate.source_metadata.additional_details.run_file, 'run.json');
  assert.equal(ra.aggregate.evaluation_results[0].score_details.details.declared_passed !== undefined, true);
});

test('declared counts that differ from the file are noted; no run object is noted too', async () => {
  const dir = tempRoot();
  const partial = join(dir, 'partial.json');
  writeFileSync(
    partial,
    JSON.stringify([
      runObject({ result_counts: { total: 9, errored: 1, failed: 5, passed: 3 } }),
      ...items(),
    ]),
  );
  const p = await convertInto([partial], { root: join(dir, 'p') });
  assert.deepEqual(p.failures, []);
  assert.ok(p.written[0]!.record.notes.some((n) => /the run declares 9 item\(s\).*the file holds 6/.test(n)));

  const bare = join(dir, 'bare.json');
  writeFileSync(bare, JSON.stringify(items()));
  const b = await convertInto([bare], { root: join(dir, 'b') });
  assert.ok(b.written[0]!.record.notes.some((n) => /no eval\.run object/.test(n)));
  const { aggregate } = load(join(dir, 'b'), b.written[0]!.record);
  assert.equal(aggregate.evaluation_results[0].score_details.details.declared_passed, undefined);
  assert.equal(aggregate.evaluation_results[0].source_data.dataset_name, EVAL_ID);
});

test('two models in one run: one record each', async () => {
  const dir = tempRoot();
  const file = join(dir, 'two.json');
  writeFileSync(
    file,
    JSON.stringify([...SPECS.map((s, i) => item(s, i)), ...SPECS.map((s, i) => item(s, i, 'gpt-4.1-nano'))]),
  );
  const { written, failures, root } = await convertInto([file], { root: join(dir, 'out') });
  assert.deepEqual(failures, []);
  assert.deepEqual(
    written
      .map((w) => w.record.aggregate.model_info as any)
      .map((m) => m.id)
      .sort(),
    ['openai/gpt-4.1-nano', 'openai/gpt-4o-mini-2024-07-18'],
  );
  await assertValidTree(root);
});

test('bad input: a clear error with the file, the place and a code', async () => {
  const dir = tempRoot();
  const noRun = join(dir, 'norun.json');
  const broken = items();
  delete broken[2]!.run_id;
  writeFileSync(noRun, JSON.stringify(broken));
  const a = await convertInto([noRun], { root: join(dir, 'a'), from: 'openai-evals-api' });
  assert.equal(a.failures.length, 1);
  assert.match(a.failures[0]!.error.message, /norun\.json: \[2\]: an output item needs a "run_id"/);
  assert.equal((a.failures[0]!.error as any).code, 'convert.openai-evals-api');

  const other = join(dir, 'other.jsonl');
  writeFileSync(other, `${JSON.stringify(items()[0])}\n{"object":"eval","id":"x"}\n`);
  const b = await convertInto([other], { root: join(dir, 'b'), from: 'openai-evals-api' });
  assert.match(
    b.failures[0]!.error.message,
    /other\.jsonl: line 2: expected an "eval\.run\.output_item" or "eval\.run" object, found "eval"/,
  );

  const truncated = join(dir, 'truncated.json');
  writeFileSync(truncated, JSON.stringify(items(), null, 2).slice(0, 500));
  const c = await convertInto([truncated], { root: join(dir, 'c'), from: 'openai-evals-api' });
  assert.match(c.failures[0]!.error.message, /truncated\.json:\d+:\d+: /);

  const allErrored = join(dir, 'errored.json');
  writeFileSync(allErrored, JSON.stringify([errored(0), errored(1)]));
  const d = await convertInto([allErrored], { root: join(dir, 'd') });
  assert.match(d.failures[0]!.error.message, /no graded item \(2 errored of 2\)/);
});

test('two runs of the same items, ingested, pair item by item in compare', async () => {
  const { openStore } = await import('../../src/store/db.js');
  const { ingestPaths } = await import('../../src/store/ingest.js');
  const { compareModels } = await import('../../src/store/compare.js');
  const dir = tempRoot();
  const second = SPECS.map((s, i) =>
    item({ ...s, exact: i % 2 === 0, rubric: 7 - i }, i, 'gpt-4.1-nano'),
  ).map((x) => ({ ...x, run_id: 'evalrun_second' }));
  writeFileSync(join(dir, 'a.json'), JSON.stringify(items()));
  writeFileSync(join(dir, 'b.json'), JSON.stringify(second));
  const store = await openStore(join(dir, 'store.duckdb'), { readOnly: false });
  try {
    const ingested = await ingestPaths(store, [join(dir, 'a.json'), join(dir, 'b.json')]);
    assert.equal(ingested.summary.records, 2, JSON.stringify(ingested.diagnostics));
    const report = await compareModels(store, 'openai/gpt-4o-mini-2024-07-18', 'openai/gpt-4.1-nano', {});
    const rubric = report.comparisons.find((c) => c.benchmark === 'rubric' && c.metric === 'mean score')!;
    assert.equal(rubric.paired, true);
    assert.equal(rubric.n_paired, SPECS.length);
    const a = SPECS.map((s) => s.rubric);
    const b = SPECS.map((_, i) => 7 - i);
    assert.equal(rubric.mean_a, mean(a));
    assert.equal(rubric.mean_b, mean(b));
    assert.ok(Math.abs(rubric.difference - (mean(a) - mean(b))) < 1e-12);
  } finally {
    store.close();
  }
});
