// Wilson only for proportions (issue 39, item 12): every sample's value 0 or 1 on a metric declared on [0, 1]. A
// metric without bounds (HELM's logprob, all 0 on a run) or on another scale, and a metric whose values are only
// partly 0/1, get the interval their values support: mean ± z·sd/√n, clipped to the metric's bounds when it has
// them. Both ways the store computes it (from the stored item sets, and from the rows when a record has none).
// Expected values are worked here with z = 1.959963984540054 (the published 97.5% normal quantile).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../src/store/db.js';
import { leaderboards } from '../../src/store/leaderboard.js';
import { freshStore, insertRecord, type FixtureResult } from './stats-fixture.js';

const Z = 1.959963984540054;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs: number[]) => Math.sqrt(xs.reduce((a, x) => a + (x - mean(xs)) ** 2, 0) / (xs.length - 1));
function wilson(x: number, n: number): [number, number] {
  const p = x / n;
  const centre = p + (Z * Z) / (2 * n);
  const spread = Z * Math.sqrt((p * (1 - p)) / n + (Z * Z) / (4 * n * n));
  return [(centre - spread) / (1 + (Z * Z) / n), (centre + spread) / (1 + (Z * Z) / n)];
}
const clt = (xs: number[]): [number, number] => [
  mean(xs) - (Z * sd(xs)) / Math.sqrt(xs.length),
  mean(xs) + (Z * sd(xs)) / Math.sqrt(xs.length),
];
const close = (a: [number, number] | null, b: [number, number], what: string) =>
  assert.ok(
    a !== null && Math.abs(a[0] - b[0]) < 1e-9 && Math.abs(a[1] - b[1]) < 1e-9,
    `${what}: ${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`,
  );

const BITS = [1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1];
// Mostly 0/1 with one 0.5: not a proportion.
const SOME = [...BITS.slice(0, 19), 0.5];
// Near the top: the normal interval's upper end is above 1 and is clipped.
const HIGH = [1, 1, 1, 1, 1, 1, 1, 1, 1, 0.5];
const ZEROS = Array.from({ length: 20 }, () => 0);

const RESULTS: [string, number[], Partial<FixtureResult>][] = [
  ['proportion', BITS, { min_score: 0, max_score: 1 }],
  ['some', SOME, { min_score: 0, max_score: 1 }],
  ['high', HIGH, { min_score: 0, max_score: 1 }],
  ['logprob', ZEROS, {}],
  ['unbounded', BITS, {}],
  ['percent', BITS, { min_score: 0, max_score: 100 }],
];

for (const items of [true, false])
  describe(`interval methods (${items ? 'from item sets' : 'from the rows'})`, () => {
    let store: Store;
    let done: () => void;
    before(async () => {
      ({ store, done } = await freshStore());
      await insertRecord(
        store,
        {
          record_key: 'k',
          model_id: 'lab/m',
          results: RESULTS.map(([name, xs, extra]) => ({ evaluation_name: name, score: mean(xs), ...extra })),
          samples: RESULTS.flatMap(([name, xs]) =>
            xs.map((score, i) => ({ evaluation_name: name, sample_id: `q${i}`, score })),
          ),
        },
        { items },
      );
    });
    after(() => done());

    const row = async (name: string) =>
      (await leaderboards(store, { benchmark: name })).leaderboards[0]!.rows[0]!;

    test('0/1 values of a metric on [0, 1]: Wilson, at 95%', async () => {
      const r = await row('proportion');
      assert.equal(r.ci_method, 'wilson');
      close(r.ci, wilson(16, 20), 'proportion');
    });

    test('only some values 0/1: the normal interval, not Wilson', async () => {
      const r = await row('some');
      assert.equal(r.ci_method, 'clt');
      close(r.ci, clt(SOME), 'some');
    });

    test('the normal interval is clipped at the bound and marked', async () => {
      const r = await row('high');
      assert.equal(r.ci_method, 'clt');
      const [lo, hi] = clt(HIGH);
      assert.ok(hi > 1);
      close(r.ci, [lo, 1], 'high');
      assert.equal(r.ci_clipped, true);
    });

    test('a metric without bounds (logprob all 0; 0/1 values) and one on 0–100: no Wilson', async () => {
      const logprob = await row('logprob');
      assert.equal(logprob.ci_method, 'clt');
      assert.deepEqual(logprob.ci, [0, 0]);
      const unbounded = await row('unbounded');
      assert.equal(unbounded.ci_method, 'clt');
      close(unbounded.ci, clt(BITS), 'unbounded');
      assert.equal(unbounded.ci_clipped, false);
      const percent = await row('percent');
      assert.equal(percent.ci_method, 'clt');
      close(percent.ci, clt(BITS), 'percent');
    });
  });
