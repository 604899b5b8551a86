// The paired-difference CI of a bounded metric stays in the range a difference can take (issue 39, item 11), and
// names its method: Newcombe's hybrid score interval for paired 0/1 scores, else the paired t interval clipped to
// [min − max, max − min] and marked. Expected values are worked here from first principles: Newcombe's formula with
// its own Wilson limits, and the t interval with the published quantile t(0.975, 5) = 2.570581835636314.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../src/store/db.js';
import { compareModels } from '../../src/store/compare.js';
import { freshStore, insertRecord, type FixtureResult } from './stats-fixture.js';
import { cli } from '../helpers/cli.js';

const Z975 = 1.959963984540054;
const T975_5 = 2.570581835636314;
function wilson(x: number, n: number): [number, number] {
  const p = x / n;
  const centre = p + (Z975 * Z975) / (2 * n);
  const spread = Z975 * Math.sqrt((p * (1 - p)) / n + (Z975 * Z975) / (4 * n * n));
  return [(centre - spread) / (1 + (Z975 * Z975) / n), (centre + spread) / (1 + (Z975 * Z975) / n)];
}
/** Newcombe 1998 method 10 for the table e (1,1), f (A only), g (B only), h (0,0). */
function newcombe(e: number, f: number, g: number, h: number): [number, number] {
  const n = e + f + g + h;
  const [p1, p2] = [(e + f) / n, (e + g) / n];
  const [l1, u1] = wilson(e + f, n);
  const [l2, u2] = wilson(e + g, n);
  const product = (e + f) * (g + h) * (e + g) * (f + h);
  const A = e * h - f * g;
  const phi = product === 0 ? 0 : (A > n / 2 ? A - n / 2 : A < 0 ? A : 0) / Math.sqrt(product);
  return [
    p1 - p2 - Math.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2),
    p1 - p2 + Math.sqrt((p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2),
  ];
}
const close = (actual: number | undefined, expected: number, what: string) =>
  assert.ok(actual !== undefined && Math.abs(actual - expected) < 1e-9, `${what}: ${actual} ≠ ${expected}`);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

// name → [A's scores, B's scores, bounds]
const CASES: Record<string, [number[], number[], { min_score?: number; max_score?: number }]> = {
  // The quick start: demo-large 6/6, demo-small 2/6 (the paired t gave [+0.1247, +1.2086]).
  quick: [[1, 1, 1, 1, 1, 1], [1, 0, 0, 1, 0, 0], { min_score: 0, max_score: 1 }],
  // The viewer's 5 pairs (the paired t gave [−0.2801, 1.0801]).
  five: [[1, 1, 1, 0, 1], [0, 0, 1, 0, 1], { min_score: 0, max_score: 1 }],
  // 0/1 scores of a metric that declares no bounds: still proportions, still Newcombe.
  nobounds: [[1, 1, 1, 0, 1], [0, 0, 1, 0, 1], {}],
  // Continuous scores on [0, 1]: the t interval leaves [−1, 1] above and is clipped.
  cont: [[1, 1, 1, 1, 0.9, 1], [0.2, 0, 0.3, 1, 0, 0.1], { min_score: 0, max_score: 1 }],
  // The same shape on 0–100: clipped to [−100, 100].
  pct: [[100, 100, 100, 100, 90, 100], [20, 0, 30, 100, 0, 10], { min_score: 0, max_score: 100 }],
  // No bounds: the t interval as it is.
  free: [[1, 1, 1, 1, 0.9, 1], [0.2, 0, 0.3, 1, 0, 0.1], {}],
};

describe('compare: the CI of a paired difference stays in its range and names its method', () => {
  let store: Store;
  let path: string;
  let done: () => void;
  before(async () => {
    ({ store, path, done } = await freshStore());
    for (const [side, index] of [
      ['a', 0],
      ['b', 1],
    ] as const)
      await insertRecord(store, {
        record_key: side,
        model_id: `org/${side}`,
        results: Object.entries(CASES).map(([name, c]): FixtureResult => ({
          evaluation_name: name,
          score: mean(c[index]),
          ...c[2],
        })),
        samples: Object.entries(CASES).flatMap(([name, c]) =>
          c[index].map((score, i) => ({ evaluation_name: name, sample_id: `q${i}`, score })),
        ),
      });
  });
  after(() => done());

  test('paired 0/1 scores: Newcombe, inside [−1, 1] (the quick start and the viewer case)', async () => {
    const { comparisons } = await compareModels(store, 'org/a', 'org/b', {});
    const by = (name: string) => comparisons.find((c) => c.benchmark === name)!;
    for (const [name, table] of [
      ['quick', [2, 4, 0, 0]],
      ['five', [2, 2, 0, 1]],
      ['nobounds', [2, 2, 0, 1]],
    ] as const) {
      const c = by(name);
      const [lo, hi] = newcombe(table[0], table[1], table[2], table[3]);
      assert.equal(c.ci_method, 'newcombe', name);
      close(c.ci?.[0], lo, `${name} lower`);
      close(c.ci?.[1], Math.min(1, hi), `${name} upper`);
      assert.ok(c.ci![0] >= -1 && c.ci![1] <= 1, name);
    }
    // The quick start's CI is now [+0.1311, +0.9032].
    assert.deepEqual(
      by('quick').ci!.map((x) => x.toFixed(4)),
      ['0.1311', '0.9032'],
    );
  });

  test('continuous scores of a bounded metric: the t interval clipped to the range and marked', async () => {
    const { comparisons } = await compareModels(store, 'org/a', 'org/b', {});
    const by = (name: string) => comparisons.find((c) => c.benchmark === name)!;
    for (const [name, scale] of [
      ['cont', 1],
      ['pct', 100],
      ['free', 1],
    ] as const) {
      const [a, b] = CASES[name]!;
      const d = a.map((x, i) => x - b[i]!);
      const m = mean(d);
      const se = Math.sqrt(d.reduce((s, x) => s + (x - m) ** 2, 0) / (d.length - 1) / d.length);
      const c = by(name);
      assert.equal(c.ci_method, 't', name);
      close(c.ci?.[0], m - T975_5 * se, `${name} lower`);
      if (name === 'free') {
        close(c.ci?.[1], m + T975_5 * se, `${name} upper (unbounded: not clipped)`);
        assert.equal(c.ci_clipped, false);
        assert.equal(c.difference_bounds, null);
      } else {
        assert.ok(m + T975_5 * se > scale, 'the t interval leaves the range');
        assert.equal(c.ci?.[1], scale, `${name} upper clipped`);
        assert.equal(c.ci_clipped, true);
        assert.deepEqual(c.difference_bounds, [-scale, scale]);
      }
    }
  });

  test('the text and JSON name the method and the clipping', async () => {
    const text = await cli(['compare', 'org/a', 'org/b', '--db', path]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /95% CI \[\+0\.1311, \+0\.9032\] \(Newcombe hybrid score, paired 0\/1\)/);
    assert.match(
      text.stdout,
      /95% CI \[\+0\.\d{4}, \+1\.0000\] \(t, 5 df, clipped to \[-1\.0000, \+1\.0000\]\)/,
    );
    assert.match(
      text.stdout,
      /95% CI \[\+\d+\.\d{2}, \+100\.00\] \(t, 5 df, clipped to \[-100\.00, \+100\.00\]\)/,
    );
    const json = JSON.parse(
      (await cli(['compare', 'org/a', 'org/b', '--format', 'json', '--db', path])).stdout,
    );
    const quick = json.comparisons.find((c: { benchmark: string }) => c.benchmark === 'quick');
    assert.equal(quick.ci_method, 'newcombe');
    assert.equal(quick.ci_clipped, false);
  });
});
