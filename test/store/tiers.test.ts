// Tiers do not chain (issue 39, item 13): a model shares a tier only with models not significantly different from
// the tier's top. Three (four) models 0.900, 0.825, 0.750 (, 0.675) on 40 paired items: each neighbour gap is not
// significant, the top against the third is. The p-values are worked here independently: Student's t tail by
// numerical integration of its density, the normal tail likewise, Holm by its definition.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../src/store/db.js';
import { leaderboards, tierAssignment } from '../../src/store/leaderboard.js';
import { freshStore, insertRecord } from './stats-fixture.js';

function simpson(f: (x: number) => number, a: number, b: number, n = 20_000): number {
  const h = (b - a) / n;
  let s = f(a) + f(b);
  for (let i = 1; i < n; i++) s += (i % 2 ? 4 : 2) * f(a + i * h);
  return (s * h) / 3;
}
/** Two-sided p of Student's t with ν df, the density integrated numerically. */
function tTwoSided(t: number, nu: number): number {
  const f = (x: number) => Math.pow(1 + (x * x) / nu, -(nu + 1) / 2);
  return simpson(f, Math.abs(t), 400) / simpson(f, 0, 400);
}
const zTwoSided = (z: number) =>
  2 * simpson((x) => Math.exp((-x * x) / 2) / Math.sqrt(2 * Math.PI), Math.abs(z), 40);
/** The paired t p of 0/1 lists that differ on `k` of n items (A right, B wrong). */
function pairedP(k: number, n: number): number {
  const m = k / n;
  const v = (k * (1 - m) ** 2 + (n - k) * m ** 2) / (n - 1);
  return tTwoSided(m / Math.sqrt(v / n), n - 1);
}
function holm(ps: number[]): number[] {
  const order = ps.map((p, i) => [p, i] as const).sort((x, y) => x[0] - y[0]);
  const out: number[] = [];
  let run = 0;
  order.forEach(([p, i], r) => {
    run = Math.max(run, Math.min(1, (ps.length - r) * p));
    out[i] = run;
  });
  return out;
}

const N = 40;
// Right on the first `right` items: neighbours differ on 3 items, the top and the third on 6.
const bits = (right: number) => Array.from({ length: N }, (_, i) => (i < right ? 1 : 0));
const MODELS: [string, number][] = [
  ['lab/a', 36],
  ['lab/b', 33],
  ['lab/c', 30],
  ['lab/d', 27],
];

test('the independent p-values: neighbours not significant, the top against the third is (after Holm)', () => {
  const neighbour = pairedP(3, N);
  const twoApart = pairedP(6, N);
  assert.ok(neighbour > 0.05 && twoApart < 0.05);
  // Chained, Holm over the neighbour gaps: one tier. Against the tier's top: c starts tier 2.
  assert.ok(holm([neighbour, neighbour]).every((p) => p > 0.05));
  assert.ok(holm([neighbour, twoApart])[1]! < 0.05);
});

test('tierAssignment: against the tier top; Holm over the tests that placed the models', () => {
  const table = (entries: Record<string, number | null>) => (top: number, model: number) =>
    entries[`${top}:${model}`];
  // 0 ~ 1 ~ 2 but 0 ≠ 2: [1, 1, 2].
  assert.deepEqual(tierAssignment(3, table({ '0:1': 0.2, '1:2': 0.2, '0:2': 0.001 })), { tiers: [1, 1, 2] });
  // Unknown pairs are asked for.
  assert.deepEqual(tierAssignment(3, table({ '0:1': 0.2, '1:2': 0.2 })), { need: [[0, 2]] });
  // With the same top's later pairs, so a tier settles in one round.
  assert.deepEqual(tierAssignment(4, table({ '0:1': 0.2, '1:2': 0.2, '2:3': 0.2 })), {
    need: [
      [0, 2],
      [0, 3],
    ],
  });
  // Four: 1 differs from 0 (tier 2, its top); 2 ~ 1; 3 ≠ 1 though 3 ~ 2: [1, 2, 2, 3].
  assert.deepEqual(tierAssignment(4, table({ '0:1': 0.001, '1:2': 0.3, '2:3': 0.3, '1:3': 0.002 })), {
    tiers: [1, 2, 2, 3],
  });
  // Holm, not the raw p: two tests at 0.03 each (raw < 0.05, Holm 0.06): one tier.
  assert.deepEqual(tierAssignment(3, table({ '0:1': 0.03, '1:2': 0.5, '0:2': 0.03 })), { tiers: [1, 1, 1] });
  // An impossible test (null) shares the tier.
  assert.deepEqual(tierAssignment(2, table({ '0:1': null })), { tiers: [1, 1] });
});

for (const items of [true, false])
  describe(`tiers do not chain (${items ? 'from item sets' : 'from the rows'})`, () => {
    let store: Store;
    let done: () => void;
    before(async () => {
      ({ store, done } = await freshStore());
      for (const [id, right] of MODELS) {
        const values = bits(right);
        await insertRecord(
          store,
          {
            record_key: id,
            model_id: id,
            results: [
              ...(id === 'lab/d' ? (['four'] as const) : (['three', 'four'] as const)).map((name) => ({
                evaluation_name: name,
                score: right / N,
                min_score: 0,
                max_score: 1,
              })),
              // No instance rows: the z test on the standard errors.
              { evaluation_name: 'headline', score: 0.9 - (36 - right) / 75, standard_error: 0.02 },
            ],
            samples: (['three', 'four'] as const).flatMap((name) =>
              id === 'lab/d' && name === 'three'
                ? []
                : values.map((score, i) => ({
                    evaluation_name: name,
                    sample_id: `q${i}`,
                    sample_hash: `h${i}`,
                    score,
                  })),
            ),
          },
          { items },
        );
      }
    });
    after(() => done());

    const tiers = async (benchmark: string, models = 4) =>
      (await leaderboards(store, { benchmark })).leaderboards[0]!.rows.slice(0, models).map((r) => [
        r.model_id,
        r.tier,
      ]);

    test('three models: the third differs from the top, so it starts tier 2', async () => {
      const rows = (await leaderboards(store, { benchmark: 'three' })).leaderboards[0]!.rows;
      assert.deepEqual(
        rows.map((r) => [r.model_id, r.tier]),
        [
          ['lab/a', 1],
          ['lab/b', 1],
          ['lab/c', 2],
        ],
      );
    });

    test('four models: d ~ c (the new top) keeps tier 2 — Holm over a~b, a≠c, c~d', async () => {
      const [n, two] = [pairedP(3, N), pairedP(6, N)];
      const adjusted = holm([n, two, n]);
      assert.ok(adjusted[1]! < 0.05 && adjusted[2]! > 0.05);
      assert.deepEqual(await tiers('four'), [
        ['lab/a', 1],
        ['lab/b', 1],
        ['lab/c', 2],
        ['lab/d', 2],
      ]);
    });

    test('no instance rows: z tests on the standard errors, against the tier top', async () => {
      // Scores 0.90, 0.86, 0.82, 0.78, SE 0.02 each: neighbours z = 1.414, two apart z = 2.828.
      const [n, two] = [zTwoSided(0.04 / Math.sqrt(0.0008)), zTwoSided(0.08 / Math.sqrt(0.0008))];
      assert.ok(holm([n, n]).every((p) => p > 0.05));
      const adjusted = holm([n, two, n]);
      assert.ok(adjusted[1]! < 0.05 && adjusted[2]! > 0.05);
      assert.deepEqual(await tiers('headline'), [
        ['lab/a', 1],
        ['lab/b', 1],
        ['lab/c', 2],
        ['lab/d', 2],
      ]);
    });
  });
