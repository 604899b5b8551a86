// compare A B where a side is a run (an evaluation id, exact or a unique prefix): two runs of one model compare
// paired on their common samples, with the JSON of a model comparison; ambiguity is an error listing the
// candidates. Expected statistics are computed here from the rows.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../src/store/db.js';
import { compareModels, disagreements } from '../../src/store/compare.js';
import { freshStore, insertRecord, type FixtureSample } from './stats-fixture.js';
import { runInProcess } from '../metrics/inproc.js';

const rows = (bits: string, first: number): FixtureSample[] =>
  [...bits].map((bit, i) => ({
    evaluation_name: 'gsm8k',
    sample_id: `q${first + i}`,
    sample_hash: `h${first + i}`,
    score: Number(bit),
  }));

// Run 1 has q0..q9, run 2 has q2..q11: 8 common samples.
const RUN1 = '1111011110';
const RUN2 = '0110101011';

describe('compare two runs of one model', () => {
  let store: Store;
  let path: string;
  let done: () => void;
  before(async () => {
    ({ store, path, done } = await freshStore());
    // the fixture names each record's evaluation id eval/<record_key>
    const record = (key: string, bits: string, first: number, t: string) =>
      insertRecord(store, {
        record_key: key,
        model_id: 'moonshot/kimi',
        retrieved_timestamp: t,
        results: [
          { evaluation_name: 'gsm8k', score: [...bits].filter((b) => b === '1').length / bits.length },
        ],
        samples: rows(bits, first),
      });
    await record('k1', RUN1, 0, '1700000000');
    await record('k2', RUN2, 2, '1700000100');
    await insertRecord(store, {
      record_key: 'other',
      model_id: 'org/other',
      results: [{ evaluation_name: 'gsm8k', score: 0.5 }],
      samples: rows('1010101010', 0),
    });
  });
  after(() => done());

  test('the same model on both sides is refused, naming its runs', async () => {
    await assert.rejects(
      compareModels(store, 'moonshot/kimi', 'moonshot/kimi', {}),
      /both sides are the model moonshot\/kimi; to compare two of its runs give their evaluation ids .*eval\/k1, eval\/k2/,
    );
  });

  test('two runs by exact evaluation id: paired on the 8 common samples', async () => {
    const report = await compareModels(store, 'eval/k1', 'eval/k2', {});
    assert.equal(report.model_a, 'moonshot/kimi');
    assert.equal(report.model_b, 'moonshot/kimi');
    assert.deepEqual(report.a, { kind: 'run', model_id: 'moonshot/kimi', evaluation_id: 'eval/k1' });
    const c = report.comparisons[0]!;
    assert.equal(c.paired, true);
    assert.deepEqual([c.n_paired, c.n_unpaired_a, c.n_unpaired_b], [8, 2, 2]);
    // by hand: common q2..q9
    const a = [...RUN1.slice(2)].map(Number);
    const b = [...RUN2.slice(0, 8)].map(Number);
    const d = a.map((x, i) => x - b[i]!);
    const dbar = d.reduce((s, x) => s + x, 0) / d.length;
    const se = Math.sqrt(d.reduce((s, x) => s + (x - dbar) ** 2, 0) / (d.length - 1) / d.length);
    assert.ok(Math.abs(c.difference - dbar) < 1e-12);
    assert.ok(Math.abs(c.se! - se) < 1e-12);
    const aOnly = d.filter((x) => x === 1).length;
    const bOnly = d.filter((x) => x === -1).length;
    assert.deepEqual([c.mcnemar!.a_only, c.mcnemar!.b_only], [aOnly, bOnly]);
  });

  test('unique prefixes work; an ambiguous prefix lists the candidates; a run against a model', async () => {
    const byPrefix = await compareModels(store, 'eval/k1', 'eval/k2', {});
    const viaPrefix = await compareModels(store, 'eval/k1', 'eval/k', {}).catch((e: Error) => e);
    assert.ok(viaPrefix instanceof Error);
    assert.match(
      viaPrefix.message,
      /"eval\/k" is the prefix of several evaluation ids: eval\/k1 \(moonshot\/kimi\), eval\/k2 \(moonshot\/kimi\)/,
    );
    const short = await compareModels(store, 'eval/k1', 'eval/o', {});
    assert.equal(short.b.evaluation_id, 'eval/other');
    const mixed = await compareModels(store, 'eval/k2', 'org/other', {});
    assert.deepEqual([mixed.a.kind, mixed.b.kind, mixed.comparisons[0]!.n_paired], ['run', 'model', 8]);
    assert.equal(byPrefix.comparisons.length, 1);
    const page = await disagreements(store, 'eval/k1', 'eval/k2', 'gsm8k', 'accuracy', {
      offset: 0,
      limit: 50,
    });
    assert.equal(
      page.total,
      byPrefix.comparisons[0]!.mcnemar!.a_only + byPrefix.comparisons[0]!.mcnemar!.b_only,
    );
  });

  test('evalkit compare RUN RUN: same JSON keys as a model comparison, text names the runs', async () => {
    const runs = await runInProcess(['compare', 'eval/k1', 'eval/k2', '--db', path, '--format', 'json']);
    assert.equal(runs.code, 0, runs.stderr);
    const models = await runInProcess([
      'compare',
      'moonshot/kimi',
      'org/other',
      '--db',
      path,
      '--format',
      'json',
    ]);
    const r = JSON.parse(runs.stdout);
    const m = JSON.parse(models.stdout);
    assert.deepEqual(Object.keys(r), Object.keys(m));
    assert.deepEqual(Object.keys(r.comparisons[0]), Object.keys(m.comparisons[0]));
    const text = await runInProcess(['compare', 'eval/k1', 'eval/k2', '--db', path]);
    assert.match(text.stdout, /^moonshot\/kimi @ run eval\/k1 \(A\) vs moonshot\/kimi @ run eval\/k2 \(B\)/);
    const ambiguous = await runInProcess(['compare', 'eval/k', 'org/other', '--db', path]);
    assert.equal(ambiguous.code, 2);
    assert.match(ambiguous.stderr, /prefix of several evaluation ids/);
  });
});
