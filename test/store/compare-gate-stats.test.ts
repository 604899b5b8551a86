// The CI gate's statistics against values worked here independently (issue 39's mutants): the verdict comes from
// Holm's adjusted p, not the raw one; the lower bound of "worse by" is one-sided (1 − α, not 1 − α/2); with
// --cluster-by the gate uses the clustered t (C − 1 df), not the plain paired t. Student's t by numerical
// integration of its density (and its quantile by bisection on that), the clustered SE by its formula.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../src/store/db.js';
import { compareModels } from '../../src/store/compare.js';
import { freshStore, insertRecord, type FixtureSample } from './stats-fixture.js';

function simpson(f: (x: number) => number, a: number, b: number, n = 20_000): number {
  const h = (b - a) / n;
  let s = f(a) + f(b);
  for (let i = 1; i < n; i++) s += (i % 2 ? 4 : 2) * f(a + i * h);
  return (s * h) / 3;
}
/** P(T ≥ t), Student's t with ν df. */
function tUpper(t: number, nu: number): number {
  const f = (x: number) => Math.pow(1 + (x * x) / nu, -(nu + 1) / 2);
  const half = simpson(f, 0, 400);
  return t >= 0 ? simpson(f, t, 400) / (2 * half) : 1 - simpson(f, -t, 400) / (2 * half);
}
/** The q with P(T ≥ q) = p, by bisection. */
function tQuantileUpper(p: number, nu: number): number {
  let [lo, hi] = [0, 50];
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (tUpper(mid, nu) > p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}
const close = (actual: number | null | undefined, expected: number, what: string, tol = 1e-6) =>
  assert.ok(
    actual !== null &&
      actual !== undefined &&
      Math.abs(actual - expected) <= tol * Math.max(1, Math.abs(expected)),
    `${what}: ${actual} ≠ ${expected}`,
  );
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs: number[]) => Math.sqrt(xs.reduce((s, x) => s + (x - mean(xs)) ** 2, 0) / (xs.length - 1));

const rows = (
  name: string,
  scores: number[],
  metadata?: (i: number) => Record<string, unknown>,
): FixtureSample[] =>
  scores.map((score, i) => ({
    evaluation_name: name,
    sample_id: `q${i}`,
    score,
    ...(metadata ? { metadata: metadata(i) } : {}),
  }));

// Holm: two benchmarks, each 5 items the baseline gets right and the candidate wrong (sign test p = 2⁻⁵ each).
const RIGHT = [1, 1, 1, 1, 1];
const WRONG = [0, 0, 0, 0, 0];
// Lower bound: 12 continuous paired values.
const BASE = [0.61, 0.52, 0.7, 0.44, 0.58, 0.66, 0.49, 0.73, 0.55, 0.62, 0.47, 0.68];
const CAND = BASE.map((x, i) => x - 0.03 + 0.02 * Math.sin(i * 1.7));
// Clusters: 4 categories of 10 items; the candidate loses 0.3, 0.3, −0.1 (gains) and 0.2 by category, plus a little
// noise, so the plain t sees a sure regression and the clustered t (3 df) does not.
const EFFECT = [0.3, 0.3, -0.1, 0.2];
const CL_BASE = Array.from({ length: 40 }, (_, i) => 0.4 + 0.2 * Math.abs(Math.sin(i * 2.3)));
const CL_CAND = CL_BASE.map((x, i) => x - EFFECT[i % 4]! - 0.01 * Math.cos(i * 1.1));
const category = (i: number) => ({ category: `c${i % 4}` });

describe('the gate: Holm, one-sided bounds, the clustered t', () => {
  let store: Store;
  let done: () => void;
  before(async () => {
    ({ store, done } = await freshStore());
    const add = (key: string, results: { name: string; scores: number[]; se?: number }[], meta = false) =>
      insertRecord(store, {
        record_key: key,
        model_id: `org/${key}`,
        results: results.map((r) => ({
          evaluation_name: r.name,
          score: r.scores.length ? mean(r.scores) : key === 'z-base' ? 0.8 : 0.74,
          standard_error: r.se ?? null,
        })),
        samples: results.flatMap((r) => rows(r.name, r.scores, meta ? category : undefined)),
      });
    await add('h-base', [
      { name: 'one', scores: RIGHT },
      { name: 'two', scores: RIGHT },
    ]);
    await add('h-cand', [
      { name: 'one', scores: WRONG },
      { name: 'two', scores: WRONG },
    ]);
    await add('lb-base', [{ name: 'cont', scores: BASE }]);
    await add('lb-cand', [{ name: 'cont', scores: CAND }]);
    // No instance rows: the z test on the two standard errors.
    await add('z-base', [{ name: 'headline', scores: [], se: 0.02 }]);
    await add('z-cand', [{ name: 'headline', scores: [], se: 0.03 }]);
    await add('cl-base', [{ name: 'clus', scores: CL_BASE }], true);
    await add('cl-cand', [{ name: 'clus', scores: CL_CAND }], true);
  });
  after(() => done());

  test('the verdict is Holm’s: raw p 2⁻⁵ = 0.03125 < 0.05 twice, Holm 0.0625: not worse', async () => {
    const report = await compareModels(store, 'org/h-base', 'org/h-cand', {
      gate: { margin: 0, alpha: 0.05, min_pairs: 5 },
    });
    for (const c of report.comparisons) {
      assert.equal(c.gate!.test, 'sign-exact');
      close(c.gate!.p_value, 2 ** -5, `${c.benchmark} raw p`, 1e-12);
      close(c.gate!.p_holm, 2 * 2 ** -5, `${c.benchmark} Holm p`, 1e-12);
      assert.equal(c.gate!.verdict, 'not-worse');
    }
    assert.equal(report.gate!.failed, false);
    // Variant: α = 0.07 puts Holm's 0.0625 below it: both worse.
    const looser = await compareModels(store, 'org/h-base', 'org/h-cand', {
      gate: { margin: 0, alpha: 0.07, min_pairs: 5 },
    });
    assert.ok(looser.comparisons.every((c) => c.gate!.verdict === 'worse'));
  });

  test('lower_bound is the one-sided (1 − α) bound: worse_by − t(1 − α, n − 1)·SE', async () => {
    const d = BASE.map((a, i) => a - CAND[i]!);
    const se = sd(d) / Math.sqrt(d.length);
    for (const alpha of [0.05, 0.1]) {
      const report = await compareModels(store, 'org/lb-base', 'org/lb-cand', {
        gate: { margin: 0, alpha, min_pairs: 10 },
      });
      const g = report.comparisons[0]!.gate!;
      const q = tQuantileUpper(alpha, d.length - 1);
      if (alpha === 0.05) assert.equal(q.toFixed(3), '1.796'); // the t table: t(0.95, 11) = 1.796
      close(g.worse_by, mean(d), 'worse_by', 1e-12);
      close(g.lower_bound, mean(d) - q * se, `lower bound at α = ${alpha}`);
      close(g.p_value, tUpper(mean(d) / se, d.length - 1), 'one-sided p');
    }
  });

  test('unpaired: the z lower bound is one-sided too, worse_by − z(1 − α)·SE', async () => {
    const report = await compareModels(store, 'org/z-base', 'org/z-cand', {
      gate: { margin: 0, alpha: 0.05, allow_untested: true },
    });
    const g = report.comparisons[0]!.gate!;
    const se = Math.sqrt(0.02 ** 2 + 0.03 ** 2);
    assert.equal(g.test, 'z');
    close(g.worse_by, 0.06, 'worse_by', 1e-12);
    // z(0.95) = 1.6448536269514722 (published); z(0.975) would be 1.959963984540054.
    close(g.lower_bound, 0.06 - 1.6448536269514722 * se, 'z lower bound', 1e-9);
  });

  test('--cluster-by: the clustered t with C − 1 df, whose verdict differs from the plain t here', async () => {
    const d = CL_BASE.map((a, i) => a - CL_CAND[i]!);
    const n = d.length;
    const dbar = mean(d);
    const sums = [0, 1, 2, 3].map((c) => d.filter((_, i) => i % 4 === c).reduce((s, x) => s + (x - dbar), 0));
    const se = Math.sqrt((4 / 3) * sums.reduce((s, x) => s + x * x, 0)) / n;
    const clustered = await compareModels(store, 'org/cl-base', 'org/cl-cand', {
      clusterBy: 'category',
      gate: { margin: 0, alpha: 0.05 },
    });
    const g = clustered.comparisons[0]!.gate!;
    assert.equal(g.test, 'clustered-t');
    close(g.p_value, tUpper(dbar / se, 3), 'clustered one-sided p');
    close(g.lower_bound, dbar - tQuantileUpper(0.05, 3) * se, 'clustered lower bound');
    assert.ok(g.p_value! > 0.05);
    assert.equal(g.verdict, 'not-worse');
    // The plain paired t on the same data finds it worse.
    const plain = await compareModels(store, 'org/cl-base', 'org/cl-cand', {
      gate: { margin: 0, alpha: 0.05 },
    });
    const pg = plain.comparisons[0]!.gate!;
    assert.equal(pg.test, 't');
    close(pg.p_value, tUpper(dbar / (sd(d) / Math.sqrt(n)), n - 1), 'plain one-sided p');
    assert.equal(pg.verdict, 'worse');
  });
});
