// No variance in the paired differences: the t test is undefined (SE 0 is not infinite evidence). compare says so
// and gives the exact test (McNemar's on 0/1 scores, the sign test otherwise); the leaderboard's tiers follow. One
// cluster gives no bootstrap interval; the bootstrap resample count is bounded. Expected p-values are exact
// binomial sums computed here (scipy.stats.binomtest(3, 3).pvalue = 0.25 agrees).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../src/store/db.js';
import { compareModels } from '../../src/store/compare.js';
import { leaderboards } from '../../src/store/leaderboard.js';
import { freshStore, insertRecord, type FixtureSample } from './stats-fixture.js';
import { runInProcess } from '../metrics/inproc.js';

const rows = (name: string, scores: number[], topic?: string) =>
  scores.map((score, i): FixtureSample => ({
    evaluation_name: name,
    sample_id: `s${i}`,
    sample_hash: `${name}-h${i}`,
    score,
    ...(topic ? { metadata: { topic } } : {}),
  }));

const close = (actual: number | null | undefined, expected: number) =>
  assert.ok(
    actual !== null && actual !== undefined && Math.abs(actual - expected) <= 1e-12,
    `${actual} ≠ ${expected}`,
  );

/** Two-sided exact binomial test of k successes in n at 1/2: min(1, 2·Σ_{j ≤ min(k, n−k)} C(n, j)/2^n). */
function binomialTwoSided(k: number, n: number): number {
  const comb = (m: number, j: number) => {
    let r = 1;
    for (let i = 1; i <= j; i++) r = (r * (m - j + i)) / i;
    return r;
  };
  const lo = Math.min(k, n - k);
  if (2 * lo === n) return 1;
  let sum = 0;
  for (let j = 0; j <= lo; j++) sum += comb(n, j);
  return Math.min(1, (2 * sum) / 2 ** n);
}

describe('zero variance in the paired differences', () => {
  let store: Store;
  let path: string;
  let done: () => void;
  before(async () => {
    ({ store, path, done } = await freshStore());
    // binary: A always right, B always wrong on 3 samples; all in one topic (one cluster)
    await insertRecord(store, {
      record_key: 'a1',
      model_id: 'org/a',
      results: [
        { evaluation_name: 'bin', score: 1 },
        { evaluation_name: 'cont', score: 0.75 },
      ],
      samples: [...rows('bin', [1, 1, 1], 'algebra'), ...rows('cont', [0.75, 0.5, 1], 'algebra')],
    });
    await insertRecord(store, {
      record_key: 'b1',
      model_id: 'org/b',
      results: [
        { evaluation_name: 'bin', score: 0 },
        { evaluation_name: 'cont', score: 0.5 },
      ],
      samples: [...rows('bin', [0, 0, 0], 'algebra'), ...rows('cont', [0.5, 0.25, 0.75], 'algebra')],
    });
  });
  after(() => done());

  test("0/1 scores: exact McNemar p, no t p-value, no interval from SE 0 (Newcombe's instead)", async () => {
    const report = await compareModels(store, 'org/a', 'org/b', { benchmark: 'bin' });
    const c = report.comparisons[0]!;
    assert.equal(c.n_paired, 3);
    assert.equal(c.se, 0);
    // Not the t interval of SE 0 (a point): Newcombe's for the table (0, 3, 0, 0), worked in Python from the
    // formula of Newcombe 1998, method 10 (issue 39).
    assert.equal(c.ci_method, 'newcombe');
    close(c.ci![0], 0.20592328245977842);
    assert.equal(c.ci![1], 1);
    assert.equal(c.test, 'mcnemar-exact');
    close(c.p_value, binomialTwoSided(3, 3));
    close(c.mcnemar!.p_value, 0.25);
    assert.match(c.note ?? '', /t test is undefined/);
  });

  test('continuous scores, every difference 0.25: the exact sign test', async () => {
    const c = (await compareModels(store, 'org/a', 'org/b', { benchmark: 'cont' })).comparisons[0]!;
    assert.equal(c.se, 0);
    assert.equal(c.test, 'sign-exact');
    close(c.p_value, binomialTwoSided(3, 3));
    assert.equal(c.mcnemar, null);
  });

  test('evalkit compare text: says the t test is undefined, never p < 1e-16, verdict not significant', async () => {
    const out = await runInProcess(['compare', 'org/a', 'org/b', '--db', path, '--benchmark', 'bin']);
    assert.equal(out.code, 0, out.stderr);
    assert.doesNotMatch(out.stdout, /1e-16/);
    assert.match(out.stdout, /no variance, the t test is undefined/);
    assert.match(out.stdout, /p 0\.250 \(exact McNemar\)/);
    assert.match(out.stdout, /no significant difference/);
  });

  test('leaderboard: the two models share a tier (exact p 0.25, not p ≈ 0 from SE 0)', async () => {
    const { leaderboards: boards } = await leaderboards(store, { benchmark: 'bin' });
    assert.deepEqual(
      boards[0]!.rows.map((r) => [r.model_id, r.tier]),
      [
        ['org/a', 1],
        ['org/b', 1],
      ],
    );
  });

  test('one cluster with --bootstrap: no zero-width interval, n/a with the reason, like the clustered SE', async () => {
    const c = (
      await compareModels(store, 'org/a', 'org/b', {
        benchmark: 'cont',
        clusterBy: 'topic',
        bootstrap: 1000,
        seed: 1,
      })
    ).comparisons[0]!;
    assert.equal(c.clustered, null);
    assert.match(c.clustered_reason ?? '', /fewer than 2 clusters/);
    assert.equal(c.bootstrap!.ci, null);
    assert.match(c.bootstrap!.reason ?? '', /fewer than 2 clusters/);
    const out = await runInProcess([
      'compare',
      'org/a',
      'org/b',
      '--db',
      path,
      '--benchmark',
      'cont',
      '--cluster-by',
      'topic',
      '--bootstrap',
      '1000',
    ]);
    assert.equal(out.code, 0, out.stderr);
    assert.match(
      out.stdout,
      /bootstrap: 1000 resamples of clusters, seed 0, 95% CI n\/a \(fewer than 2 clusters/,
    );
  });

  test('--bootstrap 1 and --bootstrap above 100000 are refused with a clear message', async () => {
    for (const n of ['1', '99', '100001', '100000000']) {
      const out = await runInProcess(['compare', 'org/a', 'org/b', '--db', path, '--bootstrap', n]);
      assert.equal(out.code, 2, `--bootstrap ${n}`);
      assert.match(out.stderr, /--bootstrap expects a resample count in \[100, 100000\]/);
    }
    await assert.rejects(compareModels(store, 'org/a', 'org/b', { bootstrap: 1 }), /resample count/);
    const ok = await runInProcess(['compare', 'org/a', 'org/b', '--db', path, '--bootstrap', '100']);
    assert.equal(ok.code, 0, ok.stderr);
  });
});
