import { test } from 'node:test';
import assert from 'node:assert/strict';
import { binomial } from '../../src/metrics/eee/binomial.js';
import { meanBootstrap, scoreUncertainty } from '../../src/metrics/eee/uncertainty.js';
import { addUncertainty } from '../../src/metrics/eee/record-uncertainty.js';
import { aggregateJudgeScores, majorityVote, median, weightedAverage } from '../../src/metrics/eee/judges.js';
import { createRng } from '../../src/metrics/stats/rng.js';

/** Exact binomial pmf by the recursion pmf(k+1) = pmf(k)·(n−k)/(k+1)·p/q. */
function binomialPmf(n: number, p: number): number[] {
  const pmf = [Math.pow(1 - p, n)];
  for (let k = 0; k < n; k++) pmf.push((pmf[k] * (n - k) * p) / ((k + 1) * (1 - p)));
  return pmf;
}

/** Pearson χ² of `draws` samples against the exact pmf, over cells with expected count ≥ 5 (others pooled). */
function chiSquare(n: number, p: number, draws: number, seed: number): { chi2: number; dof: number } {
  const rng = createRng(seed);
  const observed = new Array(n + 1).fill(0);
  for (let i = 0; i < draws; i++) observed[binomial(rng, n, p)]++;
  const pmf = binomialPmf(n, p);
  let chi2 = 0;
  let dof = -1;
  let pooledObs = 0;
  let pooledExp = 0;
  for (let k = 0; k <= n; k++) {
    const e = pmf[k] * draws;
    if (e >= 5) {
      chi2 += (observed[k] - e) ** 2 / e;
      dof++;
    } else {
      pooledObs += observed[k];
      pooledExp += e;
    }
  }
  if (pooledExp > 0) {
    chi2 += (pooledObs - pooledExp) ** 2 / pooledExp;
    dof++;
  }
  return { chi2, dof };
}

test('binomial draws follow the exact pmf (BTPE branch, inversion branch, p > 0.5)', () => {
  for (const [n, p] of [
    [200, 0.4], // n·p = 80: BTPE
    [1000, 0.05], // n·p = 50: BTPE, skewed
    [20, 0.3], // inversion
    [300, 0.9], // mirrored
  ]) {
    const { chi2, dof } = chiSquare(n, p, 100_000, 7);
    // χ² has mean dof and sd √(2·dof); 6 sd above the mean would be a clear failure, a wrong tail is far beyond.
    assert.ok(chi2 < dof + 6 * Math.sqrt(2 * dof), `n=${n} p=${p}: χ²=${chi2.toFixed(1)} on ${dof} dof`);
  }
  assert.equal(binomial(createRng(1), 10, 0), 0);
  assert.equal(binomial(createRng(1), 10, 1), 10);
});

test('mean bootstrap of binary scores agrees with the normal-approximation interval at large n', () => {
  const n = 50_000;
  const values = Float64Array.from({ length: n }, (_, i) => (i % 4 === 0 ? 1 : 0)); // p = 0.25
  const r = meanBootstrap(values, { iterations: 4000, seed: 3 });
  const se = Math.sqrt((0.25 * 0.75) / n);
  assert.ok(Math.abs(r.lower - (0.25 - 1.959964 * se)) < 0.15 * se, `lower ${r.lower}`);
  assert.ok(Math.abs(r.upper - (0.25 + 1.959964 * se)) < 0.15 * se, `upper ${r.upper}`);
  // Same seed, same interval; another seed, a (slightly) different one.
  assert.deepEqual(meanBootstrap(values, { iterations: 4000, seed: 3 }), r);
  assert.notDeepEqual(meanBootstrap(values, { iterations: 4000, seed: 4 }), r);
});

test('mean bootstrap with many distinct values (direct resampling) brackets the mean like sd/√n', () => {
  const rng = createRng(11);
  const values = Array.from({ length: 2000 }, () => rng() * 10);
  const u = scoreUncertainty(values, { iterations: 2000, seed: 1 });
  assert.equal(u.binary, false);
  assert.equal(u.wilson, undefined);
  const width = u.bootstrap.upper - u.bootstrap.lower;
  const expectedWidth = 2 * 1.959964 * u.standard_error!;
  assert.ok(Math.abs(width / expectedWidth - 1) < 0.1, `width ${width} vs ${expectedWidth}`);
  assert.ok(u.bootstrap.lower < u.mean && u.mean < u.bootstrap.upper);
});

test('scoreUncertainty on 7 of 10 correct: sd, SE and Wilson by hand', () => {
  const values = [1, 1, 1, 0, 1, 0, 1, 1, 0, 1];
  const u = scoreUncertainty(values, { iterations: 1000, seed: 2 });
  assert.equal(u.mean, 0.7);
  // sample variance = 10·0.7·0.3 / 9 = 0.2333…
  assert.ok(Math.abs(u.standard_deviation! - Math.sqrt(2.1 / 9)) < 1e-12);
  assert.ok(Math.abs(u.standard_error! - Math.sqrt(2.1 / 9) / Math.sqrt(10)) < 1e-12);
  // Wilson 95% for 7/10 (z = 1.959964): centre (0.7 + z²/20)/(1 + z²/10), half-width z·√(0.021 + z²/400)/(1 + z²/10)
  // = [0.3967781, 0.8922087] (computed with python3: standard library only).
  assert.ok(u.binary);
  assert.ok(Math.abs(u.wilson!.lower - 0.3967781) < 1e-6, String(u.wilson!.lower));
  assert.ok(Math.abs(u.wilson!.upper - 0.8922087) < 1e-6, String(u.wilson!.upper));
  // A bootstrap percentile of a mean of 10 binary values only takes values k/10.
  assert.ok(Number.isInteger(Math.round(u.bootstrap.lower * 10)));
});

test('addUncertainty fills score_details.uncertainty per result and reports rows it cannot place', () => {
  const aggregate = {
    schema_version: '0.3.0',
    evaluation_results: [
      { evaluation_result_id: 'a', evaluation_name: 'A', score_details: { score: 0.5 } },
      { evaluation_result_id: 'b', evaluation_name: 'B', score_details: { score: 90 } },
      { evaluation_result_id: 'c', evaluation_name: 'C', score_details: { score: 1 } },
    ],
  };
  const row = (id: string | undefined, name: string, score: number) => ({
    ...(id ? { evaluation_result_id: id } : {}),
    evaluation_name: name,
    evaluation: { score, is_correct: score > 0 },
  });
  const rows = [
    row('a', 'A', 1),
    row('a', 'A', 0),
    row(undefined, 'A', 1), // matched by name
    row(undefined, 'A', 0),
    row('b', 'B', 0.9),
    row('b', 'B', 0.8),
    row('zzz', 'Z', 1), // unknown result
  ].map((value, i) => ({ value, line: i + 1 }));
  const out = addUncertainty(aggregate, rows, { iterations: 500, seed: 9 });
  assert.equal(
    aggregate.evaluation_results[0].score_details.hasOwnProperty('uncertainty'),
    false,
    'input untouched',
  );
  const results = out.record.evaluation_results as any[];
  const ua = results[0].score_details.uncertainty;
  assert.equal(ua.num_samples, 4);
  assert.equal(ua.num_bootstrap_samples, 500);
  assert.equal(ua.confidence_interval.method, 'percentile_bootstrap');
  assert.equal(ua.confidence_interval.confidence_level, 0.95);
  assert.equal(ua.standard_error.method, 'analytic');
  assert.ok(Math.abs(ua.standard_deviation - Math.sqrt(1 / 3)) < 1e-12); // var of [1,0,1,0] with n−1 = 1/3
  assert.equal(results[0].score_details.details.bootstrap_seed, '9');
  assert.ok(typeof results[0].score_details.details.wilson_ci_lower === 'string');
  assert.equal(results[1].score_details.details.wilson_ci_lower, undefined, 'not binary');
  assert.equal(results[2].score_details.uncertainty, undefined, 'no rows: left alone');
  const codes = out.diagnostics.map((d) => `${d.code}@${d.line}`).sort();
  assert.deepEqual(codes, [
    'eee.stats.no-instances@0',
    'eee.stats.score-mismatch@0',
    'eee.stats.unknown-result@7',
  ]);
});

test('judge aggregation: majority vote with ties, averages, median', () => {
  assert.equal(majorityVote([1, 0, 1]), 1);
  assert.equal(majorityVote([1, 0]), null);
  assert.equal(majorityVote([1, 0], 'lowest'), 0);
  assert.equal(majorityVote([0.5, 1, 1, 0.5], 'highest'), 1);
  assert.equal(majorityVote([0.5, 1, 1, 0.5], 'first'), 0.5);
  assert.equal(aggregateJudgeScores('average', [1, 2, 6]), 3);
  assert.equal(weightedAverage([1, 0], [3, 1]), 0.75);
  assert.equal(aggregateJudgeScores('weighted_average', [2, 4]), 3);
  assert.equal(median([5, 1, 3]), 3);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.throws(() => median([]), RangeError);
  assert.throws(() => weightedAverage([1], [0]), /sum to 0/);
  assert.throws(() => weightedAverage([1, 2], [1]), /2 scores but 1 weights/);
});
