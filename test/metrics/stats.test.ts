import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  MersenneTwister,
  bootstrapPercentile,
  cohensKappa,
  cohensKappaResult,
  createRng,
  defaultSubsampleSize,
  fleissKappa,
  fleissKappaResult,
  mean,
  normalQuantile,
  quantileType7,
  roundHalfEven,
  standardDeviation,
  subsamplingCI,
  variance,
  wilsonInterval,
} from '../../src/metrics/stats/index.js';

const close = (actual: number | null, expected: number, tol = 1e-12): void => {
  assert.ok(actual !== null && Math.abs(actual - expected) <= tol, `${actual} ≉ ${expected}`);
};

test('mean, variance and standard deviation', () => {
  const xs = [2, 4, 4, 4, 5, 5, 7, 9];
  assert.equal(mean(xs), 5);
  close(variance(xs, 0), 4);
  close(variance(xs), 32 / 7);
  close(standardDeviation(xs, 0), 2);
  assert.ok(Number.isNaN(mean([])));
  assert.ok(Number.isNaN(variance([1])));
});

test('quantileType7 interpolates like numpy.quantile (linear)', () => {
  // h = (n−1)p: for [1,2,3,4] and p = 0.25, h = 0.75 → 1 + 0.75·1 = 1.75.
  close(quantileType7([4, 1, 3, 2], 0.25), 1.75);
  close(quantileType7([4, 1, 3, 2], 0.5), 2.5);
  assert.equal(quantileType7([10, 20, 30], 0), 10);
  assert.equal(quantileType7([10, 20, 30], 1), 30);
  close(quantileType7([10, 20, 30, 40, 50], 0.9), 46);
  assert.throws(() => quantileType7([1], 1.5), RangeError);
});

// Expected Mersenne Twister values were produced with CPython 3.11.7 on this machine, e.g.
//   python3 -c "import random; r=random.Random(42); print([r.getrandbits(32) for _ in range(5)])"
test('MersenneTwister reproduces CPython random.Random for integer seeds', () => {
  const r42 = new MersenneTwister(42);
  assert.deepEqual(
    Array.from({ length: 5 }, () => r42.getrandbits(32)),
    [2746317213, 478163327, 107420369, 3184935163, 1181241943],
  );
  const r0 = new MersenneTwister(0);
  assert.deepEqual(
    [r0.random(), r0.random(), r0.random()],
    [0.8444218515250481, 0.7579544029403025, 0.420571580830845],
  );
  const big = new MersenneTwister(2 ** 40 + 123);
  assert.deepEqual([big.random(), big.random()], [0.9437888222210947, 0.00375904797666915]);
  const neg = new MersenneTwister(-7);
  assert.deepEqual([neg.random(), neg.random()], [0.32383276483316237, 0.15084917392450192]);
  const bits = new MersenneTwister(12345);
  assert.deepEqual(
    [1, 7, 31, 33, 53].map((k) => bits.getrandbits(k)),
    [0, 93, 21838114, 7817590892, 2689911400921319],
  );
  assert.equal(new MersenneTwister(12345).getrandbitsBig(100), 1030771796917419777846831192455n);
  const below = new MersenneTwister(1);
  assert.deepEqual(
    [1, 2, 3, 10, 1000, 2 ** 31 + 5].map((n) => below.randbelow(n)),
    [0, 0, 1, 1, 507, 1930549411],
  );
  // Past the first 624-word twist.
  const r7 = new MersenneTwister(7);
  const draws = Array.from({ length: 700 }, () => r7.getrandbits(32));
  assert.deepEqual(draws.slice(-3), [1155017299, 4030181318, 72291700]);
});

// python3 -c "import random; r=random.Random(2024); print(r.sample(list(range(20)),7))" and likewise.
test('MersenneTwister.sample follows CPython (pool and set strategies)', () => {
  const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
  // n = 20 ≤ setsize: pool strategy.
  assert.deepEqual(new MersenneTwister(2024).sample(range(20), 7), [15, 5, 9, 6, 13, 12, 11]);
  // n = 500 > setsize (21 + 4^ceil(log4 36) = 85): set strategy.
  assert.deepEqual(
    new MersenneTwister(2024).sample(range(500), 12),
    [240, 93, 372, 296, 155, 102, 454, 370, 209, 387, 366, 388],
  );
  const r = new MersenneTwister(99);
  assert.deepEqual(r.sample(range(30), 5), [12, 6, 19, 5, 7]);
  assert.deepEqual(r.sample(range(30), 5), [7, 4, 24, 2, 8]);
  assert.throws(() => r.sample(range(3), 4), RangeError);
});

test('createRng is deterministic per seed, uniform-looking and in [0, 1)', () => {
  const a = createRng(17);
  const b = createRng(17);
  const c = createRng(18);
  const xs = Array.from({ length: 20000 }, () => a());
  assert.deepEqual(
    xs.slice(0, 5),
    Array.from({ length: 5 }, () => b()),
  );
  assert.notEqual(xs[0], c());
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  assert.ok(Math.abs(mean(xs) - 0.5) < 0.01);
});

// python3 -c "import statistics; print(repr(statistics.NormalDist().inv_cdf(0.975)))" and likewise.
test('normalQuantile matches statistics.NormalDist().inv_cdf', () => {
  const cases: [number, number][] = [
    [0.975, 1.9599639845400536],
    [0.5, 0],
    [0.01, -2.3263478740408408],
    [1e-10, -6.361340902404056],
    [0.3, -0.5244005127080407],
    [0.999999, 4.753424308817089],
  ];
  for (const [p, q] of cases) close(normalQuantile(p), q, 1e-14);
  assert.equal(normalQuantile(0), -Infinity);
  assert.throws(() => normalQuantile(2), RangeError);
});

test('wilsonInterval by hand: 8 of 10 at 95 %', () => {
  // z = 1.959963984540054; centre = (0.8 + z²/20)/(1 + z²/10); half = z·√(0.016 + z²/400)/(1 + z²/10).
  const z = 1.959963984540054;
  const d = 1 + (z * z) / 10;
  const centre = (0.8 + (z * z) / 20) / d;
  const half = (z * Math.sqrt(0.016 + (z * z) / 400)) / d;
  const w = wilsonInterval(8, 10);
  close(w.lower, centre - half, 1e-12);
  close(w.upper, centre + half, 1e-12);
  // Published value for 8/10 at 95 %: (0.4902, 0.9433).
  close(w.lower, 0.4902, 1e-4);
  close(w.upper, 0.9433, 1e-4);
  assert.deepEqual(wilsonInterval(0, 0), { lower: 0, upper: 1 });
});

test('cohensKappa over verdicts: textbook 2×2 and undefined cases', () => {
  // 50 items: both good 20, a good/b bad 5, a bad/b good 10, both bad 15 → p_o = 0.7,
  // p_e = 0.5·0.6 + 0.5·0.4 = 0.5, κ = 0.4.
  const a: string[] = [];
  const b: string[] = [];
  const push = (x: string, y: string, count: number): void => {
    for (let i = 0; i < count; i++) (a.push(x), b.push(y));
  };
  push('good', 'good', 20);
  push('good', 'bad', 5);
  push('bad', 'good', 10);
  push('bad', 'bad', 15);
  push('abstain', 'good', 7); // never counted
  close(cohensKappa(a, b), 0.4);
  assert.equal(cohensKappaResult(a, b).n, 50);
  assert.equal(cohensKappa(['abstain'], ['good']), null);
  assert.match(cohensKappaResult(['abstain'], ['good']).reason ?? '', /no item/);
  assert.match(cohensKappaResult(['good', 'good'], ['good', 'good']).reason ?? '', /p_e = 1/);
  // Weights: doubling every weight changes nothing; zeroing the disagreements gives perfect agreement.
  close(
    cohensKappa(
      a,
      b,
      a.map(() => 2),
    ),
    0.4,
  );
  const zeroDisagree = a.map((x, i) => (x === b[i] ? 1 : 0));
  close(cohensKappa(a, b, zeroDisagree), 1);
});

test('fleissKappa: Fleiss (1971)-style worked example on two categories', () => {
  // 4 items × 3 raters. P_i: [1, 1/3, 1/3, 1]; P̄ = 2/3; p_good = p_bad = 6/12; P̄_e = 1/2; κ = 1/3.
  const rows = [
    ['good', 'good', 'good'],
    ['good', 'good', 'bad'],
    ['good', 'bad', 'bad'],
    ['bad', 'bad', 'bad'],
    ['good', 'abstain', 'good'], // dropped: not all substantive
  ];
  close(fleissKappa(rows), 1 / 3, 1e-15);
  assert.equal(fleissKappaResult(rows).n, 4);
  assert.equal(fleissKappa([['good', 'good']]), null);
  assert.match(fleissKappaResult([['good']]).reason ?? '', /fewer than 2/);
  assert.equal(fleissKappa([]), null);
});

test('roundHalfEven and the default subsample size follow Python round()', () => {
  assert.equal(roundHalfEven(2.5), 2);
  assert.equal(roundHalfEven(3.5), 4);
  assert.equal(roundHalfEven(2.4), 2);
  assert.equal(defaultSubsampleSize(10), 5); // 10^0.7 = 5.01
  assert.equal(defaultSubsampleSize(100), 25); // 25.12
  assert.equal(defaultSubsampleSize(1), 2);
});

test('subsamplingCI: Python-compatible draws on a simple statistic', () => {
  // Statistic: mean of xs[i] = i² over the subsample. Expected produced with CPython 3.11.7:
  // rng = random.Random(5); vals = sorted(mean(i*i for i in rng.sample(range(12), 5)) for _ in range(200)) …
  const xs = Array.from({ length: 12 }, (_, i) => i * i);
  const stat = (idx: readonly number[]): number => mean(idx.map((i) => xs[i]!));
  const r = subsamplingCI(12, stat, { iterations: 200, seed: 5 });
  assert.equal(r.subsampleSize, 6); // round(12^0.7 = 5.69)
  assert.equal(r.defined, 200);
  close(r.estimate, 42.166666666666664);
  close(r.lower, 26.684563692587204, 1e-12);
  close(r.upper, 59.80073127815719, 1e-12);
  const small = subsamplingCI(9, stat, { seed: 1 });
  assert.equal(small.lower, null);
  assert.match(small.reason ?? '', /at least 10/);
  assert.throws(() => subsamplingCI(12, stat, { subsampleSize: 12 }), RangeError);
});

test('bootstrapPercentile is seeded and brackets the mean', () => {
  const xs = Array.from({ length: 50 }, (_, i) => (i * 7919) % 101);
  const a = bootstrapPercentile(xs, (s) => mean(s), { iterations: 500, seed: 3 });
  const b = bootstrapPercentile(xs, (s) => mean(s), { iterations: 500, seed: 3 });
  assert.deepEqual(a, b);
  assert.ok(a.lower! < a.estimate! && a.estimate! < a.upper!);
  assert.equal(a.defined, 500);
});
