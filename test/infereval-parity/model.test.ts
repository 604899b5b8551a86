// `evalkit model`: the factor-effects logistic regression. Expected values come from outside the implementation:
// closed forms (a single binary factor's MLE is the 2×2 table's log odds ratio, and its clustered sandwich has a
// closed form derived by hand below), and an independent stdlib-only Python implementation (Gauss–Jordan Newton,
// math.erfc p-values, χ²₂ survival = exp(−x/2)) run once on examples/infereval/model, its digits written here
// (scripts/python/infereval_factor_model_reference.py prints them).
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DataError } from '../../src/errors.js';
import {
  fitFactorModel,
  panelPlurality,
  type FactorModelBenchmark,
  type FactorModelEvaluation,
} from '../../src/metrics/infereval/factor-model.js';
import { chiSquareSf, lnGamma, normalTwoSidedP } from '../../src/metrics/stats/special.js';
import { projectRoot } from '../helpers/shared.js';
import { cli as runInProcess } from '../helpers/cli.js';

const close = (actual: number, expected: number, rel = 1e-9, label = ''): void =>
  assert.ok(
    Math.abs(actual - expected) <= rel * Math.max(1, Math.abs(expected)),
    `${label}: ${actual} differs from ${expected}`,
  );

const EXAMPLE = join(projectRoot, 'examples/infereval/model');
const load = (name: string): any => JSON.parse(readFileSync(join(EXAMPLE, name), 'utf8'));

describe('special functions', () => {
  it('normal two-sided p-values and χ² survival match closed forms', () => {
    close(normalTwoSidedP(1.959963984540054), 0.05, 1e-13, 'z 0.975');
    close(normalTwoSidedP(0), 1, 1e-15, 'z 0');
    close(normalTwoSidedP(4.932159349969273), 8.132552779593316e-7, 1e-10, 'z 4.93');
    for (const x of [0.1, 1, 5.5, 23.919027795436953, 80])
      close(chiSquareSf(x, 2), Math.exp(-x / 2), 1e-12, `χ²₂(${x})`);
    close(chiSquareSf(3.841458820694124, 1), 0.05, 1e-12, 'χ²₁ 0.95 quantile');
    close(chiSquareSf(11.070497693516351, 5), 0.05, 1e-12, 'χ²₅ 0.95 quantile');
    close(lnGamma(10), Math.log(362880), 1e-14, 'lnΓ(10)');
    close(lnGamma(0.5), Math.log(Math.sqrt(Math.PI)), 1e-14, 'lnΓ(1/2)');
  });
});

describe('fitFactorModel on the example (independent Python implementation)', () => {
  const fit = fitFactorModel(load('evaluation.json'), load('benchmark.json'));

  it('builds the rows as the reference does, counting failures apart from abstentions', () => {
    assert.equal(fit.n_observations, 79);
    assert.equal(fit.n_parameters, 4);
    assert.equal(fit.n_items, 17); // one item's analysts split: its consensus abstains, all its samples drop
    assert.deepEqual(fit.dropped, { model_abstain: 5, reference_abstain: 5, sample_failed: 1 });
    assert.equal(fit.n_dropped_abstain, 10);
  });

  it('gives the MLE, clustered SEs, z, p and intervals of the independent fit', () => {
    const expected: [string, number, number, number, number, number, number][] = [
      [
        '(intercept)',
        2.7709037434284314,
        0.5618033698456426,
        4.932159349969273,
        8.132552779593316e-7,
        1.6697893721377361,
        3.8720181147191264,
      ],
      [
        'irrelevant',
        -1.191094608132168,
        0.6211688479543427,
        -1.917505380468977,
        0.055173758089304296,
        -2.4085631784409163,
        0.02637396217658039,
      ],
      [
        'defeating',
        -2.3591382470600633,
        0.5166965019047957,
        -4.5658103710072115,
        4.975684096819807e-6,
        -3.371844781731294,
        -1.3464317123888323,
      ],
      [
        'technical',
        -1.1332766998697807,
        0.36270231065068426,
        -3.124536752569053,
        0.0017808527324205414,
        -1.8441601658545803,
        -0.4223932338849812,
      ],
    ];
    const rows = [fit.intercept, ...fit.effects];
    assert.deepEqual(
      fit.effects.map((e) => [e.factor, e.level, e.baseline]),
      [
        ['modification', 'irrelevant', 'none'],
        ['modification', 'defeating', 'none'],
        ['register', 'technical', 'plain'],
      ],
    );
    expected.forEach(([label, coef, se, z, p, lo, hi], i) => {
      close(rows[i].coef, coef, 1e-9, `${label} coef`);
      close(rows[i].std_err, se, 1e-9, `${label} se`);
      close(rows[i].z_value, z, 1e-9, `${label} z`);
      close(rows[i].p_value, p, 1e-8, `${label} p`);
      close(rows[i].conf_int_low, lo, 1e-9, `${label} lo`);
      close(rows[i].conf_int_high, hi, 1e-9, `${label} hi`);
      close(rows[i].odds_ratio, Math.exp(coef), 1e-9, `${label} OR`);
    });
    close(fit.deviance, 81.75203576789465, 1e-10, 'deviance');
    close(fit.null_deviance, 98.61869241743773, 1e-12, 'null deviance');
    close(fit.pseudo_r2!, 0.1710290030834024, 1e-9, 'pseudo-R²');
    assert.deepEqual(
      fit.factor_wald.map((w) => [w.factor, w.df, w.kind]),
      [
        ['modification', 2, 'substantive'],
        ['register', 1, 'experimentally_controlled'],
      ],
    );
    close(fit.factor_wald[0].chi2, 23.919027795436953, 1e-9, 'Wald modification');
    close(fit.factor_wald[0].p_value, 6.398071777763405e-6, 1e-8, 'Wald modification p');
    close(fit.factor_wald[1].chi2, 9.762729918154761, 1e-9, 'Wald register');
    close(fit.factor_wald[1].p_value, fit.effects[2].p_value, 1e-10, 'one-df Wald p = coefficient p');
  });
});

// ---- synthetic data built in the test ----

interface Cell {
  level: string;
  /** Per item: [agreeing samples, disagreeing samples]. */
  items: [number, number][];
}

function synthetic(
  cells: Cell[],
  levels = cells.map((c) => c.level),
): {
  eta: FactorModelEvaluation;
  bench: FactorModelBenchmark;
} {
  const benchItems: FactorModelBenchmark['items'][number][] = [];
  const etaItems: FactorModelEvaluation['items'][number][] = [];
  for (const cell of cells)
    cell.items.forEach(([agree, disagree], k) => {
      const id = `${cell.level}-${k}`;
      benchItems.push({ id, analyst_verdicts: ['good'], factor_levels: { f: cell.level } });
      const samples = [
        ...Array.from({ length: agree }, () => ({ parsed_verdict: 'good' as const })),
        ...Array.from({ length: disagree }, () => ({ parsed_verdict: 'bad' as const })),
      ];
      etaItems.push({ id, samples });
    });
  return {
    eta: { id: 'eta', benchmark_id: 'b', items: etaItems },
    bench: { id: 'b', analysts: [{ id: 'a' }], factors: { f: levels }, items: benchItems },
  };
}

describe('fitFactorModel: one binary factor, closed forms', () => {
  // Level A (baseline): items with (agree, disagree) counts; level B likewise.
  const A: [number, number][] = [
    [3, 2],
    [4, 1],
    [2, 3],
    [5, 1],
  ];
  const B: [number, number][] = [
    [1, 4],
    [2, 3],
    [3, 3],
  ];
  const { eta, bench } = synthetic([
    { level: 'A', items: A },
    { level: 'B', items: B },
  ]);
  const fit = fitFactorModel(eta, bench);
  const totals = (cell: [number, number][]) => {
    const agree = cell.reduce((s, [a]) => s + a, 0);
    const n = cell.reduce((s, [a, d]) => s + a + d, 0);
    return { agree, n, p: agree / n };
  };
  const ta = totals(A);
  const tb = totals(B);
  const logit = (p: number) => Math.log(p / (1 - p));

  it('intercept = logit of the baseline share, coefficient = log odds ratio', () => {
    close(fit.intercept.coef, logit(ta.p), 1e-10, 'intercept');
    close(fit.effects[0].coef, logit(tb.p) - logit(ta.p), 1e-10, 'log OR');
    close(fit.effects[0].odds_ratio, tb.p / (1 - tb.p) / (ta.p / (1 - ta.p)), 1e-10, 'OR');
  });

  it('clustered SEs equal the hand-derived sandwich', () => {
    // H⁻¹ = [[a, −a], [−a, a + b]] with a = 1/(n_A w_A), b = 1/(n_B w_B), w = p(1 − p); items nest in levels,
    // so with e_g = Σ_{i∈g}(y_i − p̂) and S_L = Σ_{g∈L} e_g²: Var(β₀) = c a² S_A, Var(β₁) = c (a² S_A + b² S_B),
    // c = G/(G−1) · (N−1)/(N−K).
    const a = 1 / (ta.n * ta.p * (1 - ta.p));
    const b = 1 / (tb.n * tb.p * (1 - tb.p));
    const s = (cell: [number, number][], p: number) =>
      cell.reduce((sum, [ag, d]) => sum + (ag - p * (ag + d)) ** 2, 0);
    const sA = s(A, ta.p);
    const sB = s(B, tb.p);
    const G = A.length + B.length;
    const N = ta.n + tb.n;
    const c = (G / (G - 1)) * ((N - 1) / (N - 2));
    close(fit.intercept.std_err, Math.sqrt(c * a * a * sA), 1e-9, 'SE intercept');
    close(fit.effects[0].std_err, Math.sqrt(c * (a * a * sA + b * b * sB)), 1e-9, 'SE effect');
    // One-df Wald = z².
    close(fit.factor_wald[0].chi2, fit.effects[0].z_value ** 2, 1e-9, 'Wald = z²');
    // Null deviance from the pooled share.
    const p0 = (ta.agree + tb.agree) / N;
    close(fit.null_deviance, -2 * N * (p0 * Math.log(p0) + (1 - p0) * Math.log(1 - p0)), 1e-12, 'null');
  });

  it('dummy-codes against the first declared level, not the alphabetically first', () => {
    const swapped = synthetic(
      [
        { level: 'A', items: A },
        { level: 'B', items: B },
      ],
      ['B', 'A'],
    );
    const f2 = fitFactorModel(swapped.eta, swapped.bench);
    assert.equal(f2.effects[0].level, 'A');
    assert.equal(f2.effects[0].baseline, 'B');
    close(f2.effects[0].coef, -fit.effects[0].coef, 1e-10, 'sign flips');
  });
});

describe('fitFactorModel: errors instead of garbage numbers', () => {
  const code = (fn: () => unknown): string => {
    try {
      fn();
    } catch (error) {
      assert.ok(error instanceof DataError, String(error));
      return `${error.code}: ${error.message}`;
    }
    assert.fail('expected a DataError');
  };

  it('separation names the level whose observations all agree', () => {
    const { eta, bench } = synthetic([
      {
        level: 'A',
        items: [
          [3, 2],
          [2, 2],
        ],
      },
      {
        level: 'B',
        items: [
          [5, 0],
          [4, 0],
        ],
      },
    ]);
    const msg = code(() => fitFactorModel(eta, bench));
    assert.match(msg, /^model\.separation: /);
    assert.match(msg, /f=B \(9 observations, all agree\)/);
  });

  it('separation by a combination of levels (no single level pure) is caught by non-convergence', () => {
    // (A,X) all disagree and (B,Y) all agree while (A,Y) and (B,X) are mixed: every level is mixed, yet
    // β = (−t, t, t) separates the data as t → ∞ (η = −t on (A,X), +t on (B,Y), 0 on the mixed cells).
    const build = (pureBY: boolean) => {
      const items: FactorModelBenchmark['items'][number][] = [];
      const etaItems: FactorModelEvaluation['items'][number][] = [];
      const cells: [string, string, number, number][] = [
        ['A', 'X', 0, 3],
        ['A', 'X', 0, 4],
        ['A', 'Y', 1, 3],
        ['A', 'Y', 2, 2],
        ['B', 'X', 1, 3],
        ['B', 'X', 2, 2],
        ['B', 'Y', 4, pureBY ? 0 : 1],
        ['B', 'Y', 5, 0],
      ];
      cells.forEach(([f, g, ag, d], i) => {
        items.push({ id: `i${i}`, analyst_verdicts: ['good'], factor_levels: { f, g } });
        etaItems.push({
          id: `i${i}`,
          samples: [
            ...Array.from({ length: ag }, () => ({ parsed_verdict: 'good' as const })),
            ...Array.from({ length: d }, () => ({ parsed_verdict: 'bad' as const })),
          ],
        });
      });
      return {
        eta: { items: etaItems },
        bench: { id: 'b', analysts: [{ id: 'a' }], factors: { f: ['A', 'B'], g: ['X', 'Y'] }, items },
      };
    };
    const separated = build(true);
    const msg = code(() => fitFactorModel(separated.eta, separated.bench));
    assert.match(msg, /^model\.separation: /);
    assert.match(msg, /the cell f=A, g=X/);
    // One disagreement in (B,Y) breaks the separation: the same design then fits to finite numbers.
    const mixed = build(false);
    const fit = fitFactorModel(mixed.eta, mixed.bench);
    assert.ok(fit.effects.every((e) => Number.isFinite(e.coef) && Number.isFinite(e.std_err)));
  });

  it('rank deficiency: a declared level nobody uses, confounded factors', () => {
    const unused = synthetic(
      [
        {
          level: 'A',
          items: [
            [3, 2],
            [2, 2],
          ],
        },
        {
          level: 'B',
          items: [
            [1, 3],
            [2, 2],
          ],
        },
      ],
      ['A', 'B', 'C'],
    );
    assert.match(
      code(() => fitFactorModel(unused.eta, unused.bench)),
      /^model\.rank-deficient: .*f=C has no observations/,
    );

    const items = [0, 1, 2, 3].map((i) => ({
      id: `i${i}`,
      analyst_verdicts: ['good' as const],
      factor_levels: { f: i < 2 ? 'A' : 'B', g: i < 2 ? 'X' : 'Y' },
    }));
    const etaItems = items.map((it, i) => ({
      id: it.id,
      samples: [
        { parsed_verdict: 'good' as const },
        { parsed_verdict: i % 2 ? ('bad' as const) : ('good' as const) },
        { parsed_verdict: 'bad' as const },
      ],
    }));
    const bench = { id: 'b', analysts: [{ id: 'a' }], factors: { f: ['A', 'B'], g: ['X', 'Y'] }, items };
    assert.match(
      code(() => fitFactorModel({ items: etaItems }, bench)),
      /g=Y is confounded/,
    );
  });

  it('no factors, nothing substantive', () => {
    const { eta, bench } = synthetic([{ level: 'A', items: [[1, 1]] }]);
    assert.match(
      code(() => fitFactorModel(eta, { ...bench, factors: {} })),
      /^model\.no-factors/,
    );
    const abstaining = {
      ...eta,
      items: eta.items.map((it) => ({ ...it, samples: [{ parsed_verdict: 'abstain' as const }] })),
    };
    assert.match(
      code(() => fitFactorModel(abstaining, bench)),
      /^model\.no-observations/,
    );
  });

  it("the consensus is the reference model's plurality (abstain counted, ties abstain)", () => {
    assert.equal(panelPlurality(['good', 'abstain', 'abstain']), 'abstain');
    assert.equal(panelPlurality(['good', 'bad']), 'abstain');
    assert.equal(panelPlurality(['bad', 'bad', 'good']), 'bad');
  });
});

describe('evalkit model (CLI)', () => {
  it('prints the table and the JSON', async () => {
    const args = [
      'model',
      'examples/infereval/model/evaluation.json',
      '-b',
      'examples/infereval/model/benchmark.json',
    ];
    const text = await runInProcess(args);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /modification {2}substantive {16}23\.919 {3}2 {2}< 0\.001 \*\*\*/);
    assert.match(text.stdout, /not a GLMM/);
    const out = await runInProcess([...args, '--format', 'json', '--reference', 'analyst:ben']);
    assert.equal(out.code, 0, out.stderr);
    const fit = JSON.parse(out.stdout);
    assert.equal(fit.reference, 'analyst:ben');
    assert.equal(fit.dropped.reference_abstain, 0); // ben has a verdict on every item
  });

  it('exits 1 with one line on a model that cannot be fitted', async () => {
    const out = await runInProcess([
      'model',
      'examples/infereval/evaluation.json',
      '-b',
      'examples/infereval/benchmark.json',
    ]);
    assert.equal(out.code, 1);
    assert.match(out.stderr, /model\.rank-deficient: .*modification=reinstating has no observations/);
    assert.equal(out.stderr.trim().split('\n').length, 1);
  });
});
