// An unscored row (`metadata.score_missing: "true"` beside the placeholder score 0 EEE requires, as `evalkit run`
// writes a failed answer or a judge without a verdict) has no value for reconciliation, whichever reader takes it
// (rowFacts from the object, lineFacts from its text, tallyBlock from the bytes), as the store takes it (NULL
// score). Expected values are written here, not derived with the code under test.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lineFacts, rowFacts } from '../../src/checks/reconciliation.js';
import { blockFacts } from '../helpers/row-facts.js';

const row = (score: number, metadata: Record<string, string>) => ({
  schema_version: '0.3.0',
  evaluation_id: 'e',
  model_id: 'm',
  evaluation_name: 'task',
  evaluation_result_id: 'task.judge',
  sample_id: 'q1/judge#epoch2',
  input: { raw: 'Question?', reference: ['x'] },
  output: { raw: [''] },
  evaluation: { score, is_correct: score === 1 },
  metadata,
});

const CASES: [string, ReturnType<typeof row>, number | null][] = [
  ['unscored', row(0, { sample: 'q1', epoch: '2', score_missing: 'true' }), null],
  ['unscored, the mark first', row(0, { score_missing: 'true', epoch: '2' }), null],
  ['scored', row(1, { sample: 'q1', epoch: '2' }), 1],
  ['scored 0', row(0, { sample: 'q1', epoch: '2' }), 0],
  // The mark's text inside a value (a judge's reply) is no mark; nor is "false".
  ['a reply quoting the mark', row(0.5, { judge_reply: '{"score_missing":"true"}', epoch: '2' }), 0.5],
  ['a key ending in the name', row(0.5, { not_score_missing: 'true', epoch: '2' }), 0.5],
  ['marked false', row(1, { score_missing: 'false', epoch: '2' }), 1],
];

test('an unscored row has no value in rowFacts, lineFacts and tallyBlock alike; a scored one keeps its score', () => {
  for (const [what, r, value] of CASES) {
    const text = JSON.stringify(r);
    for (const [reader, facts] of [
      ['rowFacts', rowFacts(r)],
      ['lineFacts', lineFacts(text)],
      ['tallyBlock', blockFacts(Buffer.from(`${text}\n`))[0]],
    ] as const) {
      assert.equal(facts.value, value, `${what}: ${reader}`);
      assert.equal(facts.epoch, 2, `${what}: ${reader}`);
    }
  }
});
