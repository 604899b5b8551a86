// Newcombe's hybrid score interval for the difference of paired proportions (method 10 of Newcombe 1998), against
// published values and against the formula worked here from first principles (its own Wilson limits, z = the
// published 97.5% normal quantile 1.959963984540054), not with the library's code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newcombePairedInterval, pairedTable } from '../../src/metrics/stats/paired-proportions.js';

const Z975 = 1.959963984540054;

/** Wilson's score limits of x/n, written out (Wilson 1927). */
function wilson(x: number, n: number, z = Z975): [number, number] {
  const p = x / n;
  const centre = p + (z * z) / (2 * n);
  const spread = z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  const scale = 1 + (z * z) / n;
  return [(centre - spread) / scale, (centre + spread) / scale];
}

/** Newcombe (1998), method 10, from the paper's definitions: table e (1,1), f (1,0), g (0,1), h (0,0). */
function reference(e: number, f: number, g: number, h: number, z = Z975): [number, number] {
  const n = e + f + g + h;
  const [p1, p2] = [(e + f) / n, (e + g) / n];
  const [l1, u1] = wilson(e + f, n, z);
  const [l2, u2] = wilson(e + g, n, z);
  const product = (e + f) * (g + h) * (e + g) * (f + h);
  const A = e * h - f * g;
  const C = product === 0 ? 0 : A > n / 2 ? A - n / 2 : A < 0 ? A : 0;
  const phi = product === 0 ? 0 : C / Math.sqrt(product);
  const d = p1 - p2;
  return [
    d - Math.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2),
    d + Math.sqrt((p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2),
  ];
}

const table = (both: number, aOnly: number, bOnly: number, neither: number) => ({
  both,
  aOnly,
  bOnly,
  neither,
});

test('published values: Newcombe 1998 example (36, 12, 2, 0); Fagerland, Lydersen & Laake 2014 (Bentur, Cavo)', () => {
  // Newcombe (1998) Table II, example (a): θ̂ = 0.2, method 10: 0.0569 to 0.3404.
  const a = newcombePairedInterval(table(36, 12, 2, 0));
  assert.equal(a.lower.toFixed(4), '0.0569');
  assert.equal(a.upper.toFixed(4), '0.3404');
  // Bentur et al. 2009 (1, 1, 7, 12), Newcombe square-and-add: −0.507 to −0.026.
  const b = newcombePairedInterval(table(1, 1, 7, 12));
  assert.equal(b.lower.toFixed(3), '-0.507');
  assert.equal(b.upper.toFixed(3), '-0.026');
  // Cavo et al. 2012 (59, 6, 16, 80): −0.119 to −0.005.
  const c = newcombePairedInterval(table(59, 6, 16, 80));
  assert.equal(c.lower.toFixed(3), '-0.119');
  assert.equal(c.upper.toFixed(3), '-0.005');
});

test('every 2×2 table up to n = 12: the formula worked here, inside [−1, 1], containing the estimate; 95% not 90%', () => {
  for (let n = 1; n <= 12; n++)
    for (let e = 0; e <= n; e++)
      for (let f = 0; e + f <= n; f++)
        for (let g = 0; e + f + g <= n; g++) {
          const h = n - e - f - g;
          const got = newcombePairedInterval(table(e, f, g, h));
          const [lo, hi] = reference(e, f, g, h);
          const d = (f - g) / n;
          assert.ok(
            Math.abs(got.lower - Math.max(-1, lo)) < 1e-12,
            `${e},${f},${g},${h} lower ${got.lower} vs ${lo}`,
          );
          assert.ok(
            Math.abs(got.upper - Math.min(1, hi)) < 1e-12,
            `${e},${f},${g},${h} upper ${got.upper} vs ${hi}`,
          );
          assert.ok(got.lower >= -1 && got.upper <= 1 && got.lower <= d + 1e-12 && d <= got.upper + 1e-12);
        }
  // At 90% the interval is narrower: the default is 95%.
  const z90 = 1.6448536269514722;
  const [lo90] = reference(36, 12, 2, 0, z90);
  assert.notEqual(newcombePairedInterval(table(36, 12, 2, 0)).lower.toFixed(6), lo90.toFixed(6));
  assert.equal(newcombePairedInterval(table(36, 12, 2, 0), 0.9).lower.toFixed(12), lo90.toFixed(12));
});

test('pairedTable counts the four cells and refuses values other than 0 and 1', () => {
  assert.deepEqual(pairedTable([1, 1, 0, 0, 1], [1, 0, 1, 0, 0]), table(1, 2, 1, 1));
  assert.equal(pairedTable([1, 0.5], [1, 0]), null);
  assert.equal(pairedTable([1, 0], [1, 2]), null);
  assert.throws(() => newcombePairedInterval(table(0, 0, 0, 0)), RangeError);
});
