// Inspect score values: only what Inspect itself reads as a number becomes a score; a free-text value such as
// "G:50.0 : T:100.0" is never a wrong 0: its metadata's number under a result's metric name is that metric's row,
// else there is no row and the field report says why. The log's epoch reducer is written on every result.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { inspectValueToFloat } from '../../src/convert/sources/inspect.js';
import {
  assertUpstreamValid,
  assertValidTree,
  convertInto,
  resultById,
  withRoot,
  type Obj,
} from './sources-helpers.js';

function log(): Obj {
  const samples: Obj[] = [];
  for (const id of [1, 2])
    for (const epoch of [1, 2, 3])
      samples.push({
        id,
        epoch,
        input: `Task ${id}`,
        target: 'done',
        messages: [
          { role: 'user', content: `Task ${id}`, source: 'input' },
          { role: 'assistant', content: 'done', source: 'generate' },
        ],
        output: {
          model: 'claude-3-5-sonnet-20241022',
          choices: [{ message: { role: 'assistant', content: 'done' }, stop_reason: 'stop' }],
        },
        scores: {
          match: { value: epoch === 3 && id === 2 ? 'I' : 'C', answer: 'done' },
          grade:
            id === 1
              ? { value: 'G:50.0 : T:100.0', explanation: 'graded', metadata: { G: 50.0, T: 100.0 } }
              : { value: 'the grader could not decide', metadata: { note: 'n/a' } },
        },
        metadata: {},
      });
  return {
    version: 2,
    status: 'success',
    eval: {
      eval_id: 'Vk3Tq9LmZ2xR8bN4cW6yPd',
      run_id: 'Hs5Jd2Kp8Qw3Ze7Xc1Vb4N',
      created: '2025-02-11T16:40:02+00:00',
      task: 'sandbag',
      task_id: 'Lm4Nq8Rt2Vw6Yz1Bc5Df9G',
      task_version: 0,
      dataset: { name: 'sandbag', samples: 2 },
      model: 'anthropic/claude-3-5-sonnet-20241022',
      model_args: {},
      config: { epochs: 3, epochs_reducer: ['at_least_2'] },
      packages: { inspect_ai: '0.3.63' },
    },
    plan: { name: 'plan', steps: [{ solver: 'generate', params: {} }], config: {} },
    results: {
      total_samples: 6,
      completed_samples: 6,
      scores: [
        {
          name: 'match',
          scorer: 'match',
          reducer: 'at_least_2',
          params: {},
          scored_samples: 2,
          metrics: { accuracy: { name: 'accuracy', value: 1.0, params: {} } },
        },
        {
          name: 'grade',
          scorer: 'grade',
          reducer: 'at_least_2',
          params: {},
          scored_samples: 2,
          metrics: { G: { name: 'G', value: 50.0, params: {} }, T: { name: 'T', value: 100.0, params: {} } },
        },
      ],
    },
    stats: {
      started_at: '2025-02-11T16:40:02+00:00',
      completed_at: '2025-02-11T16:41:10+00:00',
      model_usage: {},
    },
    samples,
  };
}

test("Inspect's value_to_float: numbers, booleans, C/I/P/N, yes/no, numeric strings; free text is no number", () => {
  assert.equal(inspectValueToFloat('C'), 1);
  assert.equal(inspectValueToFloat('P'), 0.5);
  assert.equal(inspectValueToFloat(true), 1);
  assert.equal(inspectValueToFloat(' 0.75 '), 0.75);
  assert.equal(inspectValueToFloat('G:50.0 : T:100.0'), undefined);
  assert.equal(inspectValueToFloat(Number.NaN), undefined);
});

test('free-text scores: a metric value from the score metadata, else no row (reported); epoch_reducer on every result', async (t) => {
  await withRoot(async (root) => {
    const path = join(root, '2025-02-11T16-40-02+00-00_sandbag_Vk3Tq9LmZ2xR8bN4cW6yPd.json');
    await writeFile(path, JSON.stringify(log(), null, 2));
    const [w] = await convertInto(join(root, 'out'), [path]);
    for (const r of w.aggregate.evaluation_results)
      assert.equal(r.metric_config.additional_details?.epoch_reducer, 'at_least_2', r.evaluation_result_id);
    assert.equal(resultById(w.aggregate, 'grade/G').score_details.score, 50);

    const grade = w.rows.filter((r) => r.metadata.scorer === 'grade');
    assert.equal(grade.length, 3, "sample 1's three epochs; sample 2's free text makes no row");
    for (const r of grade) {
      assert.equal(r.evaluation_result_id, 'grade/G');
      assert.equal(r.evaluation.score, 50, 'the number under the metric name, never a made-up 0');
    }
    assert.equal(
      w.rows.filter((r) => r.metadata.scorer === 'match').length,
      6,
      'one row per (sample, epoch)',
    );
    assert.ok(!w.rows.some((r) => r.evaluation.score === 0 && r.metadata.scorer === 'grade'));
    assert.ok(
      w.record.fields.some(
        (f) =>
          f.fate === 'not-mapped' &&
          /^3 score\(s\) without a row: the score value is not one Inspect reads as a number/.test(
            f.reason ?? '',
          ),
      ),
      JSON.stringify(w.record.fields.filter((f) => f.fate === 'not-mapped')),
    );
    await assertUpstreamValid(t, [w]);
    await assertValidTree(join(root, 'out'));
    const [again] = await convertInto(join(root, 'out2'), [path]);
    assert.equal(again.bytes, w.bytes, 'byte-identical on a second run');
  });
});
