// `compare BASELINE CANDIDATE --fail-if-worse` on a real DuckDB store holding generated paired data where the answer
// is known: a candidate clearly worse, one worse by less than the margin, one that differs from the baseline by
// noise only. The one-sided p-values are checked against values computed here independently: Student's t tail by
// numerical integration of its density (not the incomplete beta the library uses), the normal tail likewise, the
// sign test's binomial sum with exact integers, and Holm's step-down by hand.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../src/store/db.js';
import { compareModels, type Comparison } from '../../src/store/compare.js';
import { freshStore, insertRecord, type FixtureSample } from './stats-fixture.js';
import { cli } from '../helpers/cli.js';

/** A seeded generator (mulberry32), so the data is the same on every run. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const gauss = (r: () => number) => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());

// --- independent references -----------------------------------------------------------------------------------

/** ∫ f over [a, b] by composite Simpson with n (even) steps. */
function simpson(f: (x: number) => number, a: number, b: number, n = 20_000): number {
  const h = (b - a) / n;
  let s = f(a) + f(b);
  for (let i = 1; i < n; i++) s += (i % 2 ? 4 : 2) * f(a + i * h);
  return (s * h) / 3;
}
/** P(T ≥ t) for Student's t with ν df: the unnormalised density integrated numerically, over its own total. */
function tUpperTail(t: number, nu: number): number {
  const f = (x: number) => Math.pow(1 + (x * x) / nu, -(nu + 1) / 2);
  const total = 2 * simpson(f, 0, 200);
  return t >= 0 ? simpson(f, t, 200) / total : 1 - simpson(f, -t, 200) / total;
}
/** P(Z ≥ z), the normal density integrated numerically. */
const zUpperTail = (z: number): number =>
  z >= 0 ? simpson((x) => Math.exp((-x * x) / 2) / Math.sqrt(2 * Math.PI), z, 40) : 1 - zUpperTail(-z);
/** P(X ≥ k), X ~ Binomial(n, 1/2), with exact integers. */
function binomUpper(k: number, n: number): number {
  let c = 1n;
  let sum = 0n;
  for (let j = 0; j <= n; j++) {
    if (j >= k) sum += c;
    c = (c * BigInt(n - j)) / BigInt(j + 1);
  }
  return Number(sum) / 2 ** n;
}
/** Holm by its definition: sorted ascending, (m − i)·p running maximum, capped at 1. */
function holm(ps: number[]): number[] {
  const order = ps.map((p, i) => [p, i] as const).sort((x, y) => x[0] - y[0]);
  const out = new Array<number>(ps.length);
  let run = 0;
  order.forEach(([p, i], rank) => {
    run = Math.max(run, Math.min(1, (ps.length - rank) * p));
    out[i] = run;
  });
  return out;
}
/** The one-sided t p of "worse by more than margin", computed from the raw paired scores. */
function expectedT(base: number[], cand: number[], lowerIsBetter: boolean, margin: number): number {
  const w = base.map((a, i) => (lowerIsBetter ? cand[i]! - a : a - cand[i]!));
  const n = w.length;
  const mean = w.reduce((s, x) => s + x, 0) / n;
  const sd = Math.sqrt(w.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1));
  return tUpperTail((mean - margin) / (sd / Math.sqrt(n)), n - 1);
}

const rel = (actual: number | null | undefined, expected: number, what: string, tol = 1e-6) =>
  assert.ok(
    actual !== null &&
      actual !== undefined &&
      Math.abs(actual - expected) <= tol * Math.max(expected, 1e-300),
    `${what}: ${actual} ≠ ${expected}`,
  );

// --- the data ---------------------------------------------------------------------------------------------------

type Scores = Record<'qa' | 'score' | 'loss' | 'exact', number[]>;

const N = 300;
const r = rng(34);
const base: Scores = {
  qa: Array.from({ length: N }, () => (r() < 0.75 ? 1 : 0)),
  score: Array.from({ length: N }, () => r()),
  loss: Array.from({ length: N }, () => 1 + 2 * r()),
  exact: Array.from({ length: 12 }, () => 1),
};
const candidates: Record<string, Scores> = {
  // Clearly worse: a quarter of the right answers turned wrong, 0.1 off the score, 0.3 on the loss, every exact item lost.
  worse: {
    qa: base.qa.map((x) => (x === 1 && r() < 0.25 ? 0 : x)),
    score: base.score.map((x) => x - 0.1 + 0.05 * gauss(r)),
    loss: base.loss.map((x) => x + 0.3 + 0.05 * gauss(r)),
    exact: base.exact.map(() => 0),
  },
  // Worse by less than the margin (0.05): about 0.01 on each metric.
  within: {
    qa: base.qa.map((x) => (x === 1 && r() < 0.013 ? 0 : x)),
    score: base.score.map((x) => x - 0.01 + 0.05 * gauss(r)),
    loss: base.loss.map((x) => x + 0.01 + 0.05 * gauss(r)),
    exact: base.exact.slice(),
  },
  // Noise: answers redrawn from the same rate, zero-mean jitter.
  noise: {
    qa: base.qa.map((x) => (r() < 0.1 ? (r() < 0.75 ? 1 : 0) : x)), // a tenth redrawn from the same rate
    score: base.score.map((x) => x + 0.05 * gauss(r)),
    loss: base.loss.map((x) => x + 0.05 * gauss(r)),
    exact: base.exact.slice(),
  },
};
const LOWER = new Set(['loss']);
// A benchmark with results only (no instance rows): the unpaired z test on score and standard error.
const unpaired: Record<string, number> = { base: 0.7, worse: 0.6, within: 0.69, noise: 0.7 };

function samples(s: Scores): FixtureSample[] {
  return (Object.keys(s) as (keyof Scores)[]).flatMap((name) =>
    s[name].map((score, i) => ({
      evaluation_name: name,
      sample_id: `${name}-${i}`,
      sample_hash: `${name}-h${i}`,
      score,
    })),
  );
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
async function insert(store: Store, key: string, s: Scores): Promise<void> {
  await insertRecord(store, {
    record_key: key,
    model_id: `org/${key}`,
    results: [
      ...(Object.keys(s) as (keyof Scores)[]).map((name) => ({
        evaluation_name: name,
        score: mean(s[name]),
        lower_is_better: LOWER.has(name),
      })),
      { evaluation_name: 'leaderboard-only', score: unpaired[key]!, standard_error: 0.01 },
    ],
    samples: samples(s),
  });
}

describe('compare --fail-if-worse', () => {
  let store: Store;
  let path: string;
  let done: () => void;
  before(async () => {
    ({ store, path, done } = await freshStore());
    await insert(store, 'base', base);
    for (const [key, s] of Object.entries(candidates)) await insert(store, key, s);
  });
  after(() => done());

  const byName = (cs: Comparison[], name: string) => cs.find((c) => c.benchmark === name)!;

  /** Every comparison's one-sided p and Holm p against the independent references. */
  function checkAgainstReference(comparisons: Comparison[], cand: Scores, margin: number, key: string): void {
    const expected: Record<string, number> = {};
    for (const name of ['qa', 'score', 'loss'] as const)
      expected[name] = expectedT(base[name], cand[name], LOWER.has(name), margin);
    // Every exact difference is equal: the sign test over the items whose effect differs from the margin.
    const exactEffects = base.exact.map((a, i) => a - cand.exact[i]!);
    const above = exactEffects.filter((w) => w > margin).length;
    const differing = exactEffects.filter((w) => w !== margin).length;
    expected.exact = differing === 0 ? 1 : binomUpper(above, differing);
    expected['leaderboard-only'] = zUpperTail(
      (unpaired.base! - unpaired[key]! - margin) / Math.sqrt(2 * 0.01 ** 2),
    );
    const names = Object.keys(expected);
    const adjusted = holm(names.map((n) => expected[n]!));
    names.forEach((name, i) => {
      const g = byName(comparisons, name).gate!;
      rel(g.p_value, expected[name]!, `${key} ${name} one-sided p`);
      rel(g.p_holm, adjusted[i]!, `${key} ${name} Holm p`);
    });
    assert.equal(byName(comparisons, 'exact').gate!.test, 'sign-exact');
    assert.equal(byName(comparisons, 'leaderboard-only').gate!.test, 'z');
    assert.equal(byName(comparisons, 'qa').gate!.test, 't');
  }

  test('clearly worse: every metric fails, p-values as computed independently', async () => {
    const report = await compareModels(store, 'org/base', 'org/worse', {
      gate: { margin: 0.02, alpha: 0.05 },
    });
    checkAgainstReference(report.comparisons, candidates.worse!, 0.02, 'worse');
    assert.equal(report.gate?.failed, true);
    for (const c of report.comparisons) assert.equal(c.gate?.verdict, 'worse', c.benchmark);
    // The loss went up (lower is better): worse_by is positive.
    assert.ok(byName(report.comparisons, 'loss').gate!.worse_by > 0.25);
    rel(byName(report.comparisons, 'exact').gate!.p_value, 2 ** -12, 'exact sign test', 1e-12);
  });

  test('worse by less than the margin passes; the same data fails with no margin', async () => {
    // leaderboard-only pairs no sample: the gate counts it untested (too few pairs) and fails on it unless
    // allow_untested (issue 39: a gate never passes on nothing).
    const within = await compareModels(store, 'org/base', 'org/within', {
      gate: { margin: 0.05, alpha: 0.05, allow_untested: true },
    });
    checkAgainstReference(within.comparisons, candidates.within!, 0.05, 'within');
    assert.equal(within.gate?.failed, false);
    assert.equal(byName(within.comparisons, 'leaderboard-only').gate!.reason, 'too few pairs');
    const counted = await compareModels(store, 'org/base', 'org/within', {
      gate: { margin: 0.05, alpha: 0.05 },
    });
    assert.equal(counted.gate?.failed, true);
    assert.deepEqual(counted.gate?.reasons, ['too few pairs']);
    const strict = await compareModels(store, 'org/base', 'org/within', { gate: { margin: 0, alpha: 0.05 } });
    checkAgainstReference(strict.comparisons, candidates.within!, 0, 'within');
    assert.equal(strict.gate?.failed, true);
    assert.ok(strict.comparisons.some((c) => c.gate?.verdict === 'worse'));
  });

  test('noise passes', async () => {
    const report = await compareModels(store, 'org/base', 'org/noise', {
      gate: { margin: 0, alpha: 0.05, allow_untested: true },
    });
    checkAgainstReference(report.comparisons, candidates.noise!, 0, 'noise');
    assert.equal(report.gate?.failed, false);
    for (const c of report.comparisons) assert.notEqual(c.gate?.verdict, 'worse', c.benchmark);
  });

  test('a better candidate passes: the test is one-sided', async () => {
    const report = await compareModels(store, 'org/worse', 'org/base', {
      gate: { margin: 0, alpha: 0.05, allow_untested: true },
    });
    assert.equal(report.gate?.failed, false);
    for (const c of report.comparisons) assert.ok(c.gate!.p_value! > 0.5, c.benchmark);
  });

  test('the CLI: exit 1 naming the worse metrics, 0 when it passes, Markdown and GitHub annotations', async () => {
    const failed = await cli([
      'compare',
      'org/base',
      'org/worse',
      '--fail-if-worse',
      '--margin',
      '0.02',
      '--db',
      path,
    ]);
    assert.equal(failed.code, 1, failed.stderr);
    assert.match(failed.stdout, /gate failed: .* by more than 0\.02 .* on .*qa · accuracy/);
    const unpaired = await cli(['compare', 'org/base', 'org/noise', '--fail-if-worse', '--db', path]);
    assert.equal(unpaired.code, 1, unpaired.stderr);
    assert.match(
      unpaired.stdout,
      /gate failed: not everything .* too few pairs: leaderboard-only · accuracy/,
    );
    const passed = await cli([
      'compare',
      'org/base',
      'org/noise',
      '--fail-if-worse',
      '--allow-untested',
      '--db',
      path,
    ]);
    assert.equal(passed.code, 0, passed.stderr);
    assert.match(
      passed.stdout,
      /gate passed: .* on any of 4 tested .*--allow-untested: not counted — too few pairs/,
    );

    const md = await cli([
      'compare',
      'org/base',
      'org/worse',
      '--fail-if-worse',
      '--margin',
      '0.02',
      '--format',
      'markdown',
      '--db',
      path,
    ]);
    assert.equal(md.code, 1);
    const tableRows = md.stdout.split('\n').filter((l) => l.startsWith('| '));
    assert.equal(tableRows.length, 2 + 5, md.stdout); // header, rule, five comparisons
    assert.match(md.stdout, /\| qa \| accuracy \(higher is better\) \|/);
    assert.match(md.stdout, /❌ worse by more than 0\.02/);

    const gh = await cli([
      'compare',
      'org/base',
      'org/within',
      '--fail-if-worse',
      '--margin',
      '0.05',
      '--allow-untested',
      '--format',
      'github',
      '--db',
      path,
    ]);
    assert.equal(gh.code, 0);
    const lines = gh.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 6);
    // The four paired comparisons pass; leaderboard-only (nothing pairs) is a warning.
    assert.equal(
      lines.filter((l) => l.startsWith('::notice title=evalkit compare%3A ')).length,
      4,
      gh.stdout,
    );
    assert.match(
      lines.find((l) => l.startsWith('::warning '))!,
      /leaderboard-only .*too few pairs/,
    );
    assert.match(lines[5]!, /^::notice title=evalkit gate::gate passed/);
    const ghFail = await cli([
      'compare',
      'org/base',
      'org/worse',
      '--fail-if-worse',
      '--format',
      'github',
      '--db',
      path,
    ]);
    assert.equal(ghFail.stdout.split('\n').filter((l) => l.startsWith('::error ')).length, 6);

    const json = await cli([
      'compare',
      'org/base',
      'org/worse',
      '--fail-if-worse',
      '--format',
      'json',
      '--db',
      path,
    ]);
    const parsed = JSON.parse(json.stdout) as { gate: { failed: boolean; margin: number; alpha: number } };
    assert.deepEqual(parsed.gate, {
      margin: 0,
      alpha: 0.05,
      min_pairs: 10,
      allow_untested: false,
      failed: true,
      reasons: ['worse'],
      missing: [],
    });

    const usage = await cli(['compare', 'org/base', 'org/worse', '--margin', '0.1', '--db', path]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--margin, --alpha, --min-pairs and --allow-untested need --fail-if-worse/);
    const badAlpha = await cli([
      'compare',
      'org/base',
      'org/worse',
      '--fail-if-worse',
      '--alpha',
      '1',
      '--db',
      path,
    ]);
    assert.equal(badAlpha.code, 2);
  });
});
