// The shapes the second corpus of real outputs brought (issue 30, item 7 and defect 3), each on its real file in
// ../shared/reference/peers-wild-2 (skipped, saying so, when absent) and on a variant of the shape written here:
// a HELM run folder without scenario.json, promptfoo's Node API output ({version, results} at the top), an Inspect
// log written by R (every scalar boxed in a one-element array), an lm-eval run whose only headline is Infinity.
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { NON_FINITE_REASON } from '../../src/convert/record.js';
import { reference, skipWithoutReference } from '../helpers/shared.js';
import {
  assertUpstreamValid,
  assertValidTree,
  convertInto,
  resultById,
  withRoot,
  type Obj,
  type Written,
} from './sources-helpers.js';

const W2 = 'peers-wild-2';
const real = (path: string) => ({ skip: skipWithoutReference(`${W2}/${path}`) });

async function convertChecked(t: TestContext, root: string, paths: string[]): Promise<Written[]> {
  const written = await convertInto(join(root, 'out'), paths);
  await assertUpstreamValid(t, written);
  await assertValidTree(join(root, 'out'));
  return written;
}

// ---------------------------------------------------------------------------------------------------------------
// HELM without scenario.json

const HELM_GPT2 = 'helm/mkeohane01__LLMresearch__mmlu_philosophy_gpt2';

test(
  'HELM run folder without scenario.json (real): run_spec.json names the scenario',
  real(HELM_GPT2),
  async (t) => {
    await withRoot(async (root) => {
      const [w, ...more] = await convertChecked(t, root, [reference(`${W2}/${HELM_GPT2}`)!]);
      assert.equal(more.length, 0);
      assert.equal(w.aggregate.evaluation_results[0].evaluation_name, 'mmlu');
      assert.ok(w.rows.length > 0);
      assert.ok(w.record.notes.includes('scenario.json is missing from the run folder'));
      assert.ok(
        w.record.fields.some((f) => f.fate === 'inferred' && f.field === 'run_spec.json name'),
        'the evaluation name is reported as inferred from the run name',
      );
    });
  },
);

test('HELM run folder without scenario.json (generated): converts, named after its run', async (t) => {
  await withRoot(async (root) => {
    const run = join(root, 'runs', 'v1', 'quiz:topic=x,model=acme_tiny');
    await mkdir(run, { recursive: true });
    const stat = (name: string, mean: number) => ({
      name: { name, split: 'test' },
      count: 1,
      sum: mean,
      sum_squared: mean * mean,
      min: mean,
      max: mean,
      mean,
    });
    const files: Record<string, unknown> = {
      'run_spec.json': {
        name: 'quiz:topic=x,model=acme_tiny',
        scenario_spec: { class_name: 'x.Quiz', args: { topic: 'x' } },
        adapter_spec: { method: 'generation', model: 'acme/tiny', max_tokens: 4 },
        metric_specs: [],
        groups: ['quiz'],
      },
      'stats.json': [stat('exact_match', 0.5)],
      'per_instance_stats.json': [
        { instance_id: 'i1', train_trial_index: 0, stats: [stat('exact_match', 1)] },
        { instance_id: 'i2', train_trial_index: 0, stats: [stat('exact_match', 0)] },
      ],
      'scenario_state.json': {
        adapter_spec: {},
        request_states: ['i1', 'i2'].map((id) => ({
          instance: { id, input: { text: `Q ${id}` }, references: [], split: 'test' },
          train_trial_index: 0,
          request: { prompt: `Q ${id}` },
          result: { success: true, completions: [{ text: 'a' }] },
        })),
      },
    };
    for (const [name, value] of Object.entries(files))
      await writeFile(join(run, name), JSON.stringify(value));
    const [w] = await convertChecked(t, root, [run]);
    assert.equal(resultById(w.aggregate, 'exact_match/test').evaluation_name, 'quiz');
    assert.equal(resultById(w.aggregate, 'exact_match/test').score_details.score, 0.5);
    assert.equal(w.rows.length, 2);
    assert.ok(w.record.notes.includes('scenario.json is missing from the run folder'));
  });
});

// ---------------------------------------------------------------------------------------------------------------
// promptfoo Node API output

const PF_NODE = 'promptfoo/h-k-nyosu__promptfoo-practice__node-package-v2-toplevel/output.json';

/** The records of a promptfoo file by provider id and prompt label. */
const byProviderPrompt = (written: Written[]) =>
  new Map(
    written.map((w) => {
      const d = w.aggregate.source_metadata.additional_details;
      return [`${d.provider}|${d.prompt}`, w];
    }),
  );

test(
  "promptfoo Node API output (real): {version, results} at the top, the table's summaries per provider",
  real(PF_NODE),
  async (t) => {
    await withRoot(async (root) => {
      const path = reference(`${W2}/${PF_NODE}`)!;
      const doc = JSON.parse(await readFile(path, 'utf8'));
      const written = await convertChecked(t, root, [path]);
      const records = byProviderPrompt(written);
      // Every summary of the table has its record (its provider read from the `[provider] prompt` display).
      for (const p of doc.table.head.prompts) {
        const provider = /^\[([^\]]+)\] /.exec(p.display)![1];
        const w = records.get(`${provider}|${p.display}`);
        assert.ok(w, `no record for ${p.display}`);
        const m = p.metrics;
        assert.equal(
          resultById(w.aggregate, 'test_pass_rate').score_details.score,
          m.testPassCount / (m.testPassCount + m.testFailCount),
        );
        // The test pass rate's rows are the tests (one each, beside the assertions' rows): their count and pass rate
        // are promptfoo's own, and the record says they reconcile.
        const tests = w.rows.filter((r) => r.evaluation_result_id === 'test_pass_rate');
        assert.equal(tests.length, m.testPassCount + m.testFailCount + (m.testErrorCount ?? 0));
        assert.equal(tests.filter((r) => r.evaluation.is_correct).length, m.testPassCount);
        assert.equal(
          resultById(w.aggregate, 'test_pass_rate').score_details.details.evalkit_reconciliation,
          'reconciled',
        );
        assert.equal(
          w.aggregate.source_metadata.source_name,
          'promptfoo Node API evaluate() output (results version 2)',
        );
        assert.equal(w.aggregate.score_details, undefined);
      }
      assert.equal(written.length, doc.table.head.prompts.length);
      // Every test result is a row of its test and one per assertion.
      const assertions = doc.results.reduce(
        (n: number, r: { gradingResult?: { componentResults?: unknown[] } }) =>
          n + (r.gradingResult?.componentResults?.length ?? 0),
        0,
      );
      assert.ok(assertions > 0, 'the file has assertions');
      assert.equal(
        written.reduce((n, w) => n + w.rows.length, 0),
        doc.results.length + assertions,
      );
      assert.ok(written.every((w) => !w.record.notes.some((n) => /no promptfoo summary/.test(n))));
    });
  },
);

test('promptfoo Node API output (generated): a version-3 results object without the wrapper converts', async (t) => {
  await withRoot(async (root) => {
    const result = (testIdx: number, pass: boolean) => ({
      provider: { id: 'openai:gpt-4o-mini' },
      prompt: { raw: `Say ${testIdx}`, label: 'Say {{n}}' },
      promptId: 'p1',
      promptIdx: 0,
      testIdx,
      vars: { n: testIdx },
      response: { output: String(testIdx) },
      success: pass,
      score: pass ? 1 : 0,
      namedScores: {},
      gradingResult: {
        pass,
        score: pass ? 1 : 0,
        componentResults: [
          { pass, score: pass ? 1 : 0, assertion: { type: 'equals', value: String(testIdx) } },
        ],
      },
    });
    const path = join(root, 'node-api.json');
    await writeFile(
      path,
      JSON.stringify({
        version: 3,
        timestamp: '2025-01-02T03:04:05.000Z',
        results: [result(0, true), result(1, false), result(2, true)],
        prompts: [
          {
            raw: 'Say {{n}}',
            label: 'Say {{n}}',
            id: 'p1',
            provider: 'openai:gpt-4o-mini',
            metrics: { score: 2, testPassCount: 2, testFailCount: 1, assertPassCount: 2, assertFailCount: 1 },
          },
        ],
        stats: { successes: 2, failures: 1 },
      }),
    );
    const [w, ...more] = await convertChecked(t, root, [path]);
    assert.equal(more.length, 0);
    assert.equal(resultById(w.aggregate, 'test_pass_rate').score_details.score, 2 / 3);
    // A row per test (its pass) and a row per assertion, each reconciled with the summary's counts.
    assert.deepEqual(
      w.rows.map((r) => `${r.sample_id} ${r.evaluation_result_id} ${r.evaluation.is_correct}`),
      [
        'test0 test_pass_rate true',
        'test0#a0 assertion_pass_rate true',
        'test1 test_pass_rate false',
        'test1#a0 assertion_pass_rate false',
        'test2 test_pass_rate true',
        'test2#a0 assertion_pass_rate true',
      ],
    );
    for (const id of ['test_pass_rate', 'assertion_pass_rate'])
      assert.equal(
        resultById(w.aggregate, id).score_details.details.evalkit_reconciliation,
        'reconciled',
        id,
      );
    assert.ok(w.record.fields.some((f) => f.field === 'prompts[0].metrics.testPassCount'));
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Inspect log written by R

const R_LOG =
  'inspect_ai/simonpcouch__rinspect__An-R-Eval-boxed-scalars/2025-03-20T16-06-37-05-00_An-R-Eval_gerYtPwCQEmNA8cxxNuGyY.json';

const gradeValue = (v: unknown): number => ({ C: 1, P: 0.5, I: 0 })[String(v)] ?? NaN;

test(
  'Inspect log written by R (real): scalars unboxed, the scorer without metrics computed',
  real(R_LOG),
  async (t) => {
    await withRoot(async (root) => {
      const path = reference(`${W2}/${R_LOG}`)!;
      const doc = JSON.parse(await readFile(path, 'utf8'));
      const [w] = await convertChecked(t, root, [path]);
      assert.equal(w.aggregate.evaluation_results[0].evaluation_name, 'An R Eval');
      assert.equal(w.aggregate.model_info.name, 'claude-3-7-sonnet-20250219');
      const values: number[] = doc.samples.map((s: Obj) => gradeValue(s.scores.model_graded_qa.value[0]));
      const r = resultById(w.aggregate, 'model_graded_qa/mean');
      assert.equal(r.score_details.score, values.reduce((a, b) => a + b, 0) / values.length);
      assert.equal(w.rows.length, doc.samples.length);
      assert.equal(typeof w.rows[0].input.raw, 'string');
      assert.ok(w.record.notes.some((n) => /written by R/.test(n)));
    });
  },
);

/** Every scalar of a value boxed as R's jsonlite writes it without auto_unbox. */
function box(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(box);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, box(v)]));
  return [value];
}

test('Inspect log written by R (generated): a boxed log converts as its unboxed twin does', async (t) => {
  await withRoot(async (root) => {
    const sample = (id: number, value: string) => ({
      id,
      epoch: 1,
      input: `question ${id}`,
      target: `answer ${id}`,
      choices: ['only one'],
      messages: [
        { role: 'user', content: `question ${id}` },
        { role: 'assistant', content: `reply ${id}` },
      ],
      output: { model: 'm', choices: [{ message: { role: 'assistant', content: `reply ${id}` } }] },
      scores: { match: { value, answer: `reply ${id}` } },
    });
    const log = {
      version: 2,
      status: 'success',
      eval: {
        run_id: 'r1',
        task_id: 't1',
        task: 'boxed',
        created: '2025-01-02T03:04:05+00:00',
        model: 'anthropic/claude-3-5-haiku-latest',
        dataset: { samples: 3, sample_ids: [1, 2, 3] },
      },
      results: {
        total_samples: 3,
        completed_samples: 3,
        scores: [{ name: 'match', scorer: 'match', metrics: {} }],
      },
      samples: [sample(1, 'C'), sample(2, 'I'), sample(3, 'C')],
    };
    await mkdir(join(root, 'plain'));
    await mkdir(join(root, 'boxed'));
    await writeFile(join(root, 'plain', 'log.json'), JSON.stringify(log));
    await writeFile(join(root, 'boxed', 'log.json'), JSON.stringify(box(log)));
    const [plain] = await convertChecked(t, join(root, 'a'), [join(root, 'plain', 'log.json')]);
    const [boxed] = await convertChecked(t, join(root, 'b'), [join(root, 'boxed', 'log.json')]);
    assert.equal(resultById(boxed.aggregate, 'match/mean').score_details.score, 2 / 3);
    assert.deepEqual(boxed.aggregate.evaluation_results, plain.aggregate.evaluation_results);
    assert.deepEqual(boxed.rows, plain.rows);
    // A list that holds one value stays a list: the sample's one choice.
    assert.deepEqual(boxed.rows[0].input.choices, ['only one']);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// lm-eval: the only headline is Infinity

const LM_INF = 'lm-eval-harness/harness-tgpred-gpt4omini';

function assertNonFiniteRecord(w: Written, resultId: string, finiteRows: number, skipped: number): void {
  assert.deepEqual(w.aggregate.evaluation_results, []);
  const details = w.aggregate.source_metadata.additional_details;
  assert.equal(details[`non_finite_score.${resultId}`], 'Infinity');
  assert.equal(details.non_finite_score_reason, NON_FINITE_REASON);
  assert.equal(w.rows.length, finiteRows);
  for (const row of w.rows) {
    assert.ok(Number.isFinite(row.evaluation.score));
    assert.equal(row.evaluation_result_id, undefined);
  }
  assert.ok(
    w.record.fields.some(
      (f) =>
        f.fate === 'not-mapped' &&
        f.reason?.startsWith(`${skipped} line(s) whose metric value is NaN or ±Infinity`),
    ),
    `the field report names the ${skipped} non-finite lines`,
  );
  assert.ok(w.record.notes.some((n) => n.startsWith('no finite headline')));
}

test(
  'lm-eval run whose only headline is Infinity (real): written, 7 finite rows, the 17 others reported',
  real(LM_INF),
  async (t) => {
    await withRoot(async (root) => {
      const [w] = await convertChecked(t, root, [reference(`${W2}/${LM_INF}`)!]);
      assertNonFiniteRecord(w, 'polymer_tg_prediction/mae,none', 7, 17);
    });
  },
);

test('lm-eval run whose only headline is Infinity (generated): one task, the finite rows written', async (t) => {
  await withRoot(async (root) => {
    const dir = join(root, 'run');
    await mkdir(dir);
    const ts = '2025-01-02T03-04-05.000001';
    // Python's json writes bare Infinity / NaN.
    await writeFile(
      join(dir, `results_${ts}.json`),
      `{"results": {"reg": {"alias": "reg", "mae,none": Infinity, "mae_stderr,none": NaN}},
        "configs": {"reg": {"task": "reg", "output_type": "generate_until",
                     "metric_list": [{"metric": "mae", "aggregation": "mean", "higher_is_better": false}]}},
        "higher_is_better": {"reg": {"mae": false}}, "n-samples": {"reg": {"original": 3, "effective": 3}},
        "config": {"model": "openai-chat-completions", "model_args": "model=gpt-4o-mini"},
        "model_name": "gpt-4o-mini", "date": 1735787045.0, "lm_eval_version": "0.4.8"}`,
    );
    const line = (id: number, mae: string) =>
      `{"doc_id": ${id}, "doc": {"q": "q${id}"}, "target": "1", "arguments": [["q${id}", {}]], "resps": [["2"]], "filtered_resps": ["2"], "filter": "none", "metrics": ["mae"], "mae": ${mae}}`;
    await writeFile(
      join(dir, `samples_reg_${ts}.jsonl`),
      [line(0, 'Infinity'), line(1, '0.5'), line(2, 'Infinity')].join('\n') + '\n',
    );
    const [w] = await convertChecked(t, root, [join(dir, `results_${ts}.json`)]);
    assertNonFiniteRecord(w, 'reg/mae,none', 1, 2);
    assert.equal(w.rows[0].evaluation.score, 0.5);
  });
});
