// OpenAI evals (oaieval) logs → EEE 0.3.0: the reference log converts with final_report's accuracy exactly, one row
// per scored sample joined with its sampling event, the same bytes twice; own fixtures cover bootstrap_std, a log
// without final_report, a truncated log.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { reference, skipWithoutReference, wildRunFolders } from '../helpers/shared.js';
import { assertUpstreamValid, assertValidTree, convertInto, load, tempRoot, treeBytes } from './helpers.js';

const skip = skipWithoutReference('peers-wild/openai-evals');

function referenceLogs(): string[] {
  const manifest = JSON.parse(readFileSync(reference('peers-wild/MANIFEST.json')!, 'utf8'));
  const wild = (manifest.files as any[])
    .filter((f) => f.tool === 'openai-evals')
    .map((f) => reference(`peers-wild/${f.file}`))
    .filter((p): p is string => p !== undefined);
  // peers-wild-2 (no JSON manifest): every log of its openai-evals runs.
  const wild2 = wildRunFolders('openai-evals')
    .filter((d) => d.includes('peers-wild-2'))
    .flatMap((d) => readdirSync(d).map((f) => join(d, f)));
  return [...wild, ...wild2];
}

test('every oaieval log of the reference data converts with the exact final_report', { skip }, async (t) => {
  const logs = referenceLogs();
  assert.ok(logs.length >= 1);
  for (const log of logs) {
    const { root, written, failures } = await convertInto([log]);
    assert.deepEqual(
      failures.map((f) => f.error.message),
      [],
    );
    assert.equal(written.length, 1);
    assert.equal(written[0].record.source, 'openai-evals');
    const { aggregate, rows } = load(root, written[0].record);
    const lines = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const report = lines.find((l) => l.final_report)!.final_report;
    for (const [key, value] of Object.entries(report)) {
      if (key.endsWith('_std')) continue;
      const r = aggregate.evaluation_results.find((x: any) => x.metric_config.metric_id === key);
      assert.equal(r.score_details.score, value, key);
    }
    const matches = lines.filter((l) => l.type === 'match');
    const sampleIds = new Set(matches.map((m) => m.sample_id));
    assert.equal(rows.length, sampleIds.size);
    assert.equal(
      rows.filter((r) => r.evaluation.is_correct).length,
      matches.filter((m) => m.data.correct === true).length,
    );
    // Each row carries its sampling event's completion and the match's expected answer.
    const sampling = new Map(lines.filter((l) => l.type === 'sampling').map((l) => [l.sample_id, l.data]));
    for (const row of rows) {
      const s = sampling.get(row.sample_id);
      // The earliest logs write one completion as a string, later ones a list.
      assert.deepEqual(row.output.raw, [s.sampled].flat());
      const m = matches.find((x) => x.sample_id === row.sample_id);
      assert.deepEqual(row.input.reference, [m.data.expected]);
    }
    assert.equal(aggregate.model_info.additional_details.deployment_type, 'externally_managed');
    await assertUpstreamValid(t, aggregate, rows);
    await assertValidTree(root);
    const again = await convertInto([log]);
    for (const [p, bytes] of treeBytes(root)) assert.ok(bytes.equals(treeBytes(again.root).get(p)!), p);
  }
});

const spec = {
  spec: {
    completion_fns: ['my-local-model'],
    eval_name: 'toy.dev.v0',
    base_eval: 'toy',
    split: 'dev',
    run_config: {
      eval_spec: { cls: 'evals.elsuite.basic.match:Match', args: { samples_jsonl: 'toy/samples.jsonl' } },
    },
    run_id: 'r1',
    created_at: '2024-01-02 03:04:05.000000',
  },
};
const event = (id: number, sample: string, type: string, data: object) =>
  JSON.stringify({
    run_id: 'r1',
    event_id: id,
    sample_id: sample,
    type,
    data,
    created_at: '2024-01-02 03:04:06+00:00',
  });

function writeLog(dir: string, withReport: boolean): string {
  const lines = [
    JSON.stringify(spec),
    event(0, 'toy.dev.1', 'sampling', { prompt: 'Say A', sampled: ['A'] }),
    event(1, 'toy.dev.1', 'match', { correct: true, expected: 'A', picked: 'A', sampled: 'A' }),
    event(2, 'toy.dev.2', 'sampling', { prompt: [{ role: 'user', content: 'Say B' }], sampled: ['C'] }),
    ...(withReport ? [JSON.stringify({ final_report: { accuracy: 0.5, boostrap_std: 0.35 } })] : []),
    event(3, 'toy.dev.2', 'match', { correct: false, expected: 'B', picked: null, sampled: 'C' }),
  ];
  const path = join(dir, withReport ? 'toy.jsonl' : 'unfinished.jsonl');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

test('own log: bootstrap_std is the standard error, chat prompts keep the whole chat, unknown model axes', async (t) => {
  const dir = tempRoot();
  const log = writeLog(dir, true);
  const { root, written } = await convertInto([log]);
  const { aggregate, rows } = load(root, written[0].record);
  const acc = aggregate.evaluation_results[0];
  assert.equal(acc.score_details.score, 0.5);
  assert.equal(acc.score_details.uncertainty.standard_error.value, 0.35);
  assert.match(acc.score_details.uncertainty.standard_error.method, /bootstrap/);
  assert.equal(aggregate.evaluation_results.length, 1, 'the std is not a result of its own');
  assert.equal(aggregate.retrieved_timestamp, String(Date.UTC(2024, 0, 2, 3, 4, 5) / 1000));
  assert.equal(aggregate.model_info.additional_details.deployment_type, 'unknown');
  assert.deepEqual(
    rows.map((r) => r.sample_id),
    ['toy.dev.1', 'toy.dev.2'],
  );
  assert.equal(rows[1].input.raw, 'Say B');
  assert.equal(rows[1].input.formatted, JSON.stringify([{ role: 'user', content: 'Say B' }]));
  assert.deepEqual(
    rows.map((r) => r.evaluation.score),
    [1, 0],
  );
  await assertUpstreamValid(t, aggregate, rows);
  await assertValidTree(root);
});

test('a log without final_report still converts, from its match events, and says so', async () => {
  const dir = tempRoot();
  const log = writeLog(dir, false);
  const { root, written } = await convertInto([log]);
  const { aggregate } = load(root, written[0].record);
  assert.equal(aggregate.evaluation_results[0].score_details.score, 0.5);
  assert.ok(written[0].record.notes.some((n) => /no final_report/.test(n)));
});

test('a truncated oaieval log fails with file and line; nothing is written', async () => {
  const dir = tempRoot();
  const log = writeLog(dir, true);
  const text = readFileSync(log, 'utf8');
  writeFileSync(log, text.slice(0, text.length - 30));
  const { root, written, failures } = await convertInto([log], { root: join(dir, 'out') });
  assert.equal(written.length, 0);
  assert.match(failures[0].error.message, /toy\.jsonl:6: not valid JSON/);
  assert.deepEqual([...treeBytes(dir).keys()], ['toy.jsonl']);
  void root;
});
