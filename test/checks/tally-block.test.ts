// tallyBlock reads each row's facts from the block's bytes, decoding only the parts that hold them: on generated
// rows of every layout the writer may meet (evalkit's row order with and without epochs, escaped and non-ASCII ids,
// rows of another key order, a last line without its newline) they are what lineFacts reads from the row's text. And
// the tally, which keeps them a column each, reconciles a result whose rows come both by its id and by its name.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lineFacts, reconcileResult, RowTally, rowFacts } from '../../src/checks/reconciliation.js';
import { blockFacts } from '../helpers/row-facts.js';

/** A row in evalkit's layout (record.ts: ids first, then input, output, evaluation, metadata). */
function row(i: number): Record<string, unknown> {
  const out: Record<string, unknown> = {
    schema_version: '0.3.0',
    evaluation_id: 'e',
    model_id: 'm',
    evaluation_name: i % 5 === 0 ? `tâsk "${i % 3}"` : 'task',
    ...(i % 7 === 0 ? {} : { evaluation_result_id: `task/acc,${i % 2 ? 'none' : 'strict\\match'}` }),
    sample_id: i % 4 === 0 ? `q-${i}#epoch${i % 3}` : `q-${i} 🙂`,
    ...(i % 6 === 0 ? {} : { sample_hash: (i % 50).toString(16).padStart(64, '0') }),
    input: {
      raw: `Question ${i}: "epoch":"9" ,"evaluation":{ ,"input":{ ${'é'.repeat(i % 40)}`,
      reference: ['x'],
    },
    output: { raw: ['y,"metadata":{"epoch":"3"}'] },
    evaluation: i % 9 === 0 ? { is_correct: i % 2 === 0 } : { score: (i % 4) / 4, is_correct: i % 4 === 0 },
  };
  const metadata: Record<string, string> = { doc: `{"epoch":"${i}"}` };
  if (i % 4 === 0) metadata.epoch = String(i % 3);
  if (i % 3 === 1) out.metadata = metadata;
  return out;
}

test('tallyBlock: the facts of each row of a generated block are those lineFacts reads from its text', () => {
  const rows = Array.from({ length: 400 }, (_, i) => row(i));
  // Rows of another layout (keys sorted; the metadata before the evaluation) are read as lineFacts reads them.
  for (let i = 0; i < 20; i++) rows.push(Object.fromEntries(Object.entries(row(i)).sort()));
  for (let i = 1; i < 60; i += 3) {
    const { evaluation, metadata, ...rest } = row(i);
    rows.push({ ...rest, metadata, evaluation });
  }
  // Messages whose objects hold an `evaluation` and a `metadata` of their own, in rows without a metadata.
  for (let i = 0; i < 10; i++) {
    const { metadata: _metadata, evaluation, ...rest } = row(i);
    const messages = [{ role: 'user', x: 1, evaluation: { score: 9 }, metadata: { epoch: '5' } }];
    rows.push({ ...rest, messages, evaluation });
  }
  const lines = rows.map((r) => JSON.stringify(r));
  // What lineFacts reads from each line's text; for the rows in evalkit's layout, the facts of the parsed row.
  const expected = lines.map(lineFacts);
  assert.deepEqual(expected.slice(0, 400), rows.slice(0, 400).map(rowFacts));
  assert.deepEqual(blockFacts(Buffer.from(`${lines.join('\n')}\n`)), expected);
  // Without the last newline, and with blank lines between.
  assert.deepEqual(blockFacts(Buffer.from(lines.join('\n\n'))), expected);
  // A block of which no row has the layout.
  const sorted = lines.slice(400, 420);
  assert.deepEqual(blockFacts(Buffer.from(sorted.join('\n'))), expected.slice(400, 420));
  // The nested objects are not the row's (lineFacts reads the last evaluation of the line).
  assert.deepEqual(expected.slice(-10), rows.slice(-10).map(rowFacts));
});

test('the tally: a sample whose epochs come both with the result id and without it is one sample', () => {
  const tally = new RowTally();
  const add = (id: string | null, sample: string, epoch: number, value: number) =>
    tally.add({
      evaluation_result_id: id,
      evaluation_name: 't',
      sample_hash: sample,
      sample_id: sample,
      epoch,
      value,
    });
  add('r', 'a', 1, 1);
  add('r', 'b', 1, 0);
  add(null, 'a', 2, 0);
  add(null, 'c', 1, 1);
  const result = (score: number, reducer: string) => ({
    evaluation_result_id: 'r',
    evaluation_name: 't',
    metric_config: { metric_name: 'accuracy', additional_details: { epoch_reducer: reducer } },
    score_details: { score },
  });
  // a: epochs 1 and 2 (1, 0), b: 0, c: 1.
  const mean = reconcileResult(result(0.5, 'mean'), tally, { n: 3, headline: 'mean' });
  assert.deepEqual([mean.outcome, mean.note], ['reconciled', 'n 3 stored = 3 declared; mean 0.5 = headline']);
  const max = reconcileResult(result(2 / 3, 'max'), tally, { n: 3, headline: 'mean' });
  assert.equal(max.outcome, 'reconciled', max.note);
  // Another epoch 2 of a (the second part's rows): a collision.
  add(null, 'a', 2, 1);
  const collided = reconcileResult(result(0.5, 'mean'), tally, { n: 3, headline: 'mean' });
  assert.match(
    collided.note,
    /^3 rows share 1 sample_hash value\(s\) without being epochs of one sample \(5 rows, 3 distinct keys\)/,
  );
});

// Issue 39 (mutants): the test above derives its expected facts with the code under test (lineFacts calls
// rowFacts), so a bug in rowFacts went unnoticed. Here the expected facts are written by hand, from rows written
// here: rowFacts, lineFacts and tallyBlock must each give exactly these values.
/** A row with its keys in evalkit's order (the layout lineFacts and tallyBlock read: ids before the input). */
const ORDER = [
  'schema_version',
  'evaluation_id',
  'model_id',
  'evaluation_name',
  'evaluation_result_id',
  'sample_id',
  'sample_hash',
  'input',
  'output',
  'evaluation',
  'metadata',
];
const inOrder = (row: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(ORDER.filter((k) => k in row).map((k) => [k, row[k]]));
const base = {
  schema_version: '0.3.0',
  evaluation_id: 'e',
  model_id: 'm',
  input: { raw: 'q', reference: ['a'] },
};
const HAND: { row: Record<string, unknown>; facts: Record<string, unknown> }[] = [
  {
    // A score and is_correct: the value is the score, correct the flag; the epoch a string of digits.
    row: {
      ...base,
      evaluation_name: 'arith',
      evaluation_result_id: 'arith/acc',
      sample_id: 's1',
      sample_hash: 'h1',
      output: { raw: ['x'] },
      evaluation: { score: 0.25, is_correct: false },
      metadata: { epoch: '2' },
    },
    facts: {
      evaluation_result_id: 'arith/acc',
      evaluation_name: 'arith',
      sample_hash: 'h1',
      sample_id: 's1',
      epoch: 2,
      value: 0.25,
      correct: 0,
    },
  },
  {
    // is_correct only: the value is 1; no metadata, no hash, no result id.
    row: {
      ...base,
      evaluation_name: 'arith',
      sample_id: 's2',
      output: { raw: ['y'] },
      evaluation: { is_correct: true },
    },
    facts: {
      evaluation_result_id: null,
      evaluation_name: 'arith',
      sample_hash: null,
      sample_id: 's2',
      epoch: null,
      value: 1,
      correct: 1,
    },
  },
  {
    // A score of 0 with is_correct true: the score wins (0, not 1); epoch "0" is epoch 0.
    row: {
      ...base,
      evaluation_name: 'arith',
      evaluation_result_id: 'arith/acc',
      sample_id: 's3',
      sample_hash: 'h3',
      output: { raw: ['z'] },
      evaluation: { score: 0, is_correct: true },
      metadata: { other: '7', epoch: '0' },
    },
    facts: {
      evaluation_result_id: 'arith/acc',
      evaluation_name: 'arith',
      sample_hash: 'h3',
      sample_id: 's3',
      epoch: 0,
      value: 0,
      correct: 1,
    },
  },
  {
    // No value at all; an epoch that is not digits, and one of ten digits: no epoch.
    row: {
      ...base,
      evaluation_name: 'arith',
      evaluation_result_id: 'arith/acc',
      sample_id: 's4',
      output: { raw: ['w'] },
      evaluation: {},
      metadata: { epoch: '3x' },
    },
    facts: {
      evaluation_result_id: 'arith/acc',
      evaluation_name: 'arith',
      sample_hash: null,
      sample_id: 's4',
      epoch: null,
      value: null,
      correct: null,
    },
  },
  {
    row: {
      ...base,
      evaluation_name: 'arith',
      evaluation_result_id: 'arith/acc',
      sample_id: 's5',
      sample_hash: 'h5',
      output: { raw: ['v'] },
      evaluation: { score: 0.75 },
      metadata: { epoch: '1234567890' },
    },
    facts: {
      evaluation_result_id: 'arith/acc',
      evaluation_name: 'arith',
      sample_hash: 'h5',
      sample_id: 's5',
      epoch: null,
      value: 0.75,
      correct: null,
    },
  },
];

test('rowFacts, lineFacts and tallyBlock give the hand-written facts of hand-written rows', () => {
  for (const { row, facts } of HAND) {
    assert.deepEqual(rowFacts(row), facts, `rowFacts of ${row.sample_id}`);
    assert.deepEqual(lineFacts(JSON.stringify(inOrder(row))), facts, `lineFacts of ${row.sample_id}`);
  }
  const block = Buffer.from(HAND.map((h) => `${JSON.stringify(inOrder(h.row))}\n`).join(''));
  assert.deepEqual(
    blockFacts(block),
    HAND.map((h) => h.facts),
  );
  // A score too large for a double (1e400 reads as Infinity) is no value; a numeric epoch counts in a parsed row.
  const huge = `{"evaluation_name":"t","sample_id":"s","evaluation":{"score":1e400,"is_correct":true}}`;
  assert.equal(lineFacts(huge).value, null);
  assert.equal(lineFacts(huge).correct, 1);
  assert.equal(rowFacts({ evaluation: { score: 0.5 }, metadata: { epoch: 4 } }).epoch, 4);
  // Tallied, the facts give the hand-computed outcome: arith/acc has samples s1 (0.25), s3 (0), s4 (no value)
  // and s5 (0.75) by id, and s2 (1) by name only: 5 samples (keyed by sample_id: s2 and s4 have no hash), the mean
  // of the 4 with a value (0.25 + 1 + 0 + 0.75) / 4 = 0.5.
  const tally = new RowTally();
  for (const f of blockFacts(block)) tally.add(f);
  const result = {
    evaluation_result_id: 'arith/acc',
    evaluation_name: 'arith',
    metric_config: { metric_name: 'accuracy' },
    score_details: { score: 0.5 },
  };
  const r = reconcileResult(result, tally, { n: 5, headline: 'mean' });
  assert.deepEqual([r.outcome, r.note], ['reconciled', 'n 5 stored = 5 declared; mean 0.5 = headline']);
  // The pass rate counts is_correct only: s1 0, s2 1, s3 1 (s4, s5 have none): 2/3.
  assert.equal(
    reconcileResult({ ...result, score_details: { score: 2 / 3 } }, tally, { headline: 'pass_rate' }).outcome,
    'reconciled',
  );
});
