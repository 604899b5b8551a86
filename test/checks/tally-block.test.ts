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
