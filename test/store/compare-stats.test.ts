// The statistics behind `compare` and `leaderboard` (src/metrics/stats), against values computed independently:
// closed forms of Student's t for 1 and 2 df, published t tables, exact binomial sums (Python's math.comb and
// fractions), Python's statistics module for means, sds and correlations, a Simpson integration of the t density
// for p-values at other df, and a clustered case worked by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  studentTCdf,
  studentTQuantile,
  studentTTwoSided,
  normalCdf,
} from '../../src/metrics/stats/student-t.js';
import {
  clusteredInference,
  minimumDetectableEffect,
  pairedTTest,
  unpairedComparison,
} from '../../src/metrics/stats/paired.js';
import { mcnemarExact } from '../../src/metrics/stats/mcnemar.js';
import { holmAdjust } from '../../src/metrics/stats/holm.js';
import { pairedBootstrap } from '../../src/metrics/stats/paired-bootstrap.js';
import { cltInterval } from '../../src/metrics/stats/mean-interval.js';

const close = (actual: number | null | undefined, expected: number, tol = 1e-9, what = '') =>
  assert.ok(
    actual !== null && actual !== undefined && Math.abs(actual - expected) <= tol,
    `${what} ${actual} ≠ ${expected} (±${tol})`,
  );

test('Student t CDF: closed forms at 1 df (Cauchy) and 2 df', () => {
  for (const t of [-7.5, -1.3, -0.2, 0, 0.4, 1.3, 3, 25]) {
    close(studentTCdf(t, 1), 0.5 + Math.atan(t) / Math.PI, 1e-13, `cdf(${t}, 1)`);
    close(studentTCdf(t, 2), 0.5 + t / (2 * Math.sqrt(2 + t * t)), 1e-13, `cdf(${t}, 2)`);
  }
  // Simpson integration of the density (Python, 200,000 steps).
  close(studentTCdf(1.7, 7), 0.9335355516087291, 1e-10);
  close(studentTCdf(0.6, 3), 0.7045993959730025, 1e-10);
  close(studentTCdf(-0.6, 3), 1 - 0.7045993959730025, 1e-10);
  close(normalCdf(1.96), 0.9750021048517795, 1e-14); // statistics.NormalDist().cdf
  close(normalCdf(-3), 0.0013498980316301035, 1e-15);
});

test('Student t quantiles match the published table (0.975 and 0.8) and invert the CDF', () => {
  const table: [number, number][] = [
    [1, 12.706204736174707],
    [2, 4.302652729749464],
    [3, 3.182446305284263],
    [5, 2.570581835636314],
    [7, 2.364624251592785],
    [10, 2.228138851986274],
    [30, 2.042272456301238],
    [120, 1.979930405052777],
  ];
  for (const [df, q] of table) close(studentTQuantile(0.975, df), q, 1e-9, `t(0.975, ${df})`);
  close(studentTQuantile(0.8, 1), Math.tan(0.3 * Math.PI), 1e-12);
  close(studentTQuantile(0.025, 5), -2.570581835636314, 1e-9);
  close(studentTQuantile(0.975, Infinity), 1.959963984540054, 1e-12);
  for (const df of [1.5, 4, 9, 60, 1000])
    for (const p of [0.001, 0.1, 0.6, 0.95, 0.9999])
      close(studentTCdf(studentTQuantile(p, df), df), p, 1e-11, `cdf(q(${p}, ${df}))`);
});

test('two-sided t p-values (Simpson integration of the density)', () => {
  const expected: [number, number][] = [
    [3, 0.0877066470080603],
    [4, 0.06676654481200917],
    [7, 0.04099221858573587],
    [9, 0.033861827682997614],
  ];
  for (const [df, p] of expected) close(studentTTwoSided(2.5, df), p, 1e-10, `p(2.5, ${df})`);
  close(studentTTwoSided(-2, 2), 1 - 2 / Math.sqrt(6), 1e-13);
});

test('paired t test = scipy ttest_rel on continuous scores (mean, SE, t, p, CI, correlation, MDE)', () => {
  const a = [0.9, 0.7, 0.8, 0.6, 1.0, 0.5, 0.75, 0.85];
  const b = [0.8, 0.72, 0.6, 0.55, 0.9, 0.52, 0.7, 0.6];
  const r = pairedTTest(a, b);
  // Python: statistics.mean/stdev/correlation; p by integrating the t density with 7 df.
  close(r.mean_a, 0.7625, 1e-12);
  close(r.mean_b, 0.67375, 1e-12);
  close(r.difference, 0.08875, 1e-12);
  close(r.se, 0.034144519535142304, 1e-12);
  close(r.t, 2.599245829441428, 1e-10);
  close(r.p_value, 0.03546407897153392, 1e-10);
  close(r.correlation, 0.8029407312544429, 1e-12);
  assert.equal(r.df, 7);
  close(r.ci![0], 0.08875 - 2.364624251592785 * 0.034144519535142304, 1e-9);
  close(r.ci![1], 0.08875 + 2.364624251592785 * 0.034144519535142304, 1e-9);
  close(r.mde, 2.801585218112968 * 0.034144519535142304, 1e-12);
});

test('paired t test on 0/1 scores and edge cases (one pair, no variance)', () => {
  const a = [...'1111011110'].map(Number);
  const b = [...'1010101010'].map(Number);
  const r = pairedTTest(a, b);
  close(r.difference, 0.3, 1e-15);
  close(r.se, 0.21343747458109494, 1e-14);
  close(r.p_value, 0.1934220596033085, 1e-10);
  close(r.correlation, 0, 1e-15);
  const one = pairedTTest([1], [0]);
  assert.equal(one.se, null);
  assert.equal(one.p_value, null);
  // No variance in the differences: the t test is undefined (no p, no interval), never p = 0 from SE = 0.
  const constant = pairedTTest([1, 1, 1], [0, 0, 0]);
  assert.equal(constant.se, 0);
  assert.equal(constant.p_value, null);
  assert.equal(constant.ci, null);
  assert.equal(pairedTTest([1, 0, 1], [1, 0, 1]).p_value, null);
});

test('McNemar exact two-sided p = exact binomial sums (Python math.comb with fractions)', () => {
  const cases: [number, number, number][] = [
    [4, 1, 0.375],
    [10, 3, 0.09228515625],
    [25, 40, 0.08168153394154005],
    [0, 7, 0.015625],
    [300, 360, 0.02157234823197102],
  ];
  for (const [b, c, p] of cases) {
    close(mcnemarExact(b, c), p, 1e-12, `mcnemar(${b}, ${c})`);
    close(mcnemarExact(c, b), p, 1e-12, `mcnemar(${c}, ${b})`);
  }
  assert.equal(mcnemarExact(0, 0), 1);
  assert.equal(mcnemarExact(6, 6), 1);
  assert.throws(() => mcnemarExact(-1, 2), RangeError);
});

test('clustered SE, worked by hand', () => {
  // d = 1 0 | 1 −1 | 0 1 in clusters x, y, z: d̄ = 1/3; residual sums per cluster 1/3, −2/3, 1/3;
  // Σ² = 2/3; C/(C−1) = 3/2 → √1 / n = 1/6; t = 2 with 2 df: p = 1 − 2/√6; CI = 1/3 ± t(0.975, 2)/6.
  const c = clusteredInference([1, 0, 1, -1, 0, 1], ['x', 'x', 'y', 'y', 'z', 'z'])!;
  assert.equal(c.clusters, 3);
  assert.equal(c.df, 2);
  close(c.se, 1 / 6, 1e-15);
  close(c.p_value, 1 - 2 / Math.sqrt(6), 1e-13);
  close(c.ci[0], 1 / 3 - 4.302652729749464 / 6, 1e-12);
  close(c.ci[1], 1 / 3 + 4.302652729749464 / 6, 1e-12);
  // One item per cluster: the clustered SE is √(n/(n−1))·√(Σ(d−d̄)²)/n = sd/√n, the paired SE.
  const d = [0.3, -0.1, 0.25, 0.4, 0];
  const each = clusteredInference(d, [1, 2, 3, 4, 5])!;
  close(each.se, pairedTTest(d, [0, 0, 0, 0, 0]).se!, 1e-15);
  assert.equal(clusteredInference([1, 2], ['a', 'a']), null);
});

test('Holm adjustment: step-down maxima, capped at 1, nulls left out', () => {
  // m = 4: sorted 0.01, 0.02, 0.03, 0.04 → 0.04, 0.06, 0.06 (monotone), 0.06
  assert.deepEqual(
    holmAdjust([0.03, 0.01, null, 0.04, 0.02]).map((p) => p && Number(p.toFixed(12))),
    [0.06, 0.04, null, 0.06, 0.06],
  );
  assert.deepEqual(holmAdjust([0.5, 0.4]), [0.8, 0.8]);
  assert.deepEqual(holmAdjust([0.9, 0.6, 0.01]), [1, 1, 0.03]);
  assert.deepEqual(holmAdjust([]), []);
});

test('unpaired z comparison and the CLT interval', () => {
  const u = unpairedComparison(0.5, 0.03, 0.4, 0.04);
  close(u.se, 0.05, 1e-15);
  close(u.p_value, 2 * (1 - 0.9772498680518208), 1e-12); // z = 2: NormalDist().cdf(2)
  close(u.ci![0], 0.1 - 1.959963984540054 * 0.05, 1e-12);
  assert.deepEqual(unpairedComparison(0.5, null, 0.4, 0.04), {
    difference: 0.09999999999999998,
    se: null,
    ci: null,
    p_value: null,
  });
  const clt = cltInterval(0.6, 0.2, 16)!;
  close(clt.se, 0.05, 1e-15);
  close(clt.lower, 0.6 - 1.959963984540054 * 0.05, 1e-12);
  assert.equal(cltInterval(0.6, 0.2, 1), null);
  close(minimumDetectableEffect(1), 2.801585218112968, 1e-12);
});

test('paired bootstrap: seeded, reproducible, brackets d̄; clusters resample whole clusters', () => {
  const d = Array.from({ length: 200 }, (_, i) => ((i * 7919) % 13) / 13 - 0.3);
  const mean = d.reduce((s, x) => s + x, 0) / d.length;
  const r1 = pairedBootstrap(d, { iterations: 2000, seed: 5 });
  const r2 = pairedBootstrap(d, { iterations: 2000, seed: 5 });
  const r3 = pairedBootstrap(d, { iterations: 2000, seed: 6 });
  assert.deepEqual(r1, r2);
  assert.notDeepEqual(r1.ci, r3.ci);
  assert.ok(r1.ci![0] < mean && mean < r1.ci![1]);
  // Its width is close to the t interval's (±2·1.96·SE within 15%).
  const se = pairedTTest(d, new Array(200).fill(0)).se!;
  assert.ok(Math.abs(r1.ci![1] - r1.ci![0] - 2 * 1.96 * se) < 0.15 * 2 * 1.96 * se);
  // Clusters of identical items: each resample picks clusters, so the CI is that of 4 cluster means.
  const clustered = pairedBootstrap([1, 1, 0, 0, 1, 1, 0, 0], {
    iterations: 500,
    seed: 1,
    clusters: ['a', 'a', 'b', 'b', 'c', 'c', 'd', 'd'],
  });
  for (const bound of clustered.ci!) assert.ok([0, 0.25, 0.5, 0.75, 1].includes(bound), `bound ${bound}`);
  assert.equal(clustered.resamples, 500);
  assert.equal(clustered.seed, 1);
});
