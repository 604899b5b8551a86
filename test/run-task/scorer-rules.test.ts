// The rules of the numeric scorer and of promptfoo's test pass, each checked on answers chosen so that a plausible
// slip gives another value: the first number instead of the last, `relative` ignored, a dropped absolute value;
// assertion weights ignored, `>=` read as `>`, `threshold: 0` read as a real threshold. Expected values are derived
// here from the documented rules (docs/run.md), not from the code under test.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileAssertion, passScorer, type Assertion } from '../../src/run/task/promptfoo-asserts.js';
import { scorerDefinition } from '../../src/run/task/scorers.js';
import type { LocalScorer, Score, TaskSample } from '../../src/run/task/types.js';

const sample = (target: string): TaskSample => ({
  id: 's',
  where: 'x:1',
  row: {},
  input: 'q',
  targets: [target],
});

function numeric(options: Record<string, unknown> = {}): (answer: string, target: string) => number | null {
  const scorer = scorerDefinition('numeric')!.compile(options, {
    dir: '.',
    where: 'task.yaml',
  }) as LocalScorer;
  return (answer, target) => scorer.score(answer, sample(target)).value;
}

test('numeric: the last number of the answer counts', () => {
  const score = numeric();
  assert.equal(score('I first thought 12, but the answer is 42', '42'), 1);
  assert.equal(score('I first thought 12, but the answer is 42', '12'), 0);
  assert.equal(score('Step 1: 3 + 4 = 7', '7'), 1);
  assert.equal(score('Step 1: 3 + 4 = 7', '1'), 0);
  assert.equal(score('1,234 apples and then 5', '5'), 1);
});

test('numeric: an absolute tolerance is symmetric; below the target is as far as above', () => {
  const exact = numeric();
  // An answer far below the target is wrong (|10 − 42| = 32 > 0), as one far above is.
  assert.equal(exact('10', '42'), 0);
  assert.equal(exact('74', '42'), 0);
  assert.equal(exact('-5', '5'), 0);
  const loose = numeric({ tolerance: 0.5 });
  // |41.6 − 42| = 0.4 ≤ 0.5 and |42.4 − 42| = 0.4; |41.4 − 42| = 0.6 > 0.5.
  assert.equal(loose('41.6', '42'), 1);
  assert.equal(loose('42.4', '42'), 1);
  assert.equal(loose('41.4', '42'), 0);
  assert.equal(loose('0', '42'), 0);
  // Rounding of binary floating point is no difference: 0.1 + 0.2 is 0.3.
  assert.equal(exact(String(0.1 + 0.2), '0.3'), 1);
  // The same verdicts for a target and its negative (the rounding allowance scales with |target|).
  for (const [answer, target] of [
    ['1000000000000000.5', '1000000000000000'],
    ['200.0000000001', '200'],
    ['7.25', '7'],
  ])
    assert.equal(exact(answer, target), exact(`-${answer}`, `-${target}`), `${answer} vs ${target}`);
});

test('numeric: relative: true scales the tolerance by |target|', () => {
  const relative = numeric({ tolerance: 0.1, relative: true });
  // 10 % of 200 is 20: 215 and 185 are within, 225 is not; read as absolute (0.1) all three would be wrong.
  assert.equal(relative('215', '200'), 1);
  assert.equal(relative('185', '200'), 1);
  assert.equal(relative('225', '200'), 0);
  // 10 % of |−200| is 20 too.
  assert.equal(relative('-215', '-200'), 1);
  assert.equal(relative('-225', '-200'), 0);
  // relative: false (the default) is absolute: 200.05 is within 0.1 of 200, 215 is not.
  const absolute = numeric({ tolerance: 0.1, relative: false });
  assert.equal(absolute('200.05', '200'), 1);
  assert.equal(absolute('215', '200'), 0);
});

/**
 * promptfoo's test pass as docs/run.md states it: with a threshold (a threshold of 0 is none, as in promptfoo, whose
 * check is `if (test.threshold)`), the weight-averaged score of the assertions is at least the threshold; without
 * one, every assertion passes.
 */
function expectedPass(
  results: { pass: boolean; score: number; weight: number }[],
  threshold?: number,
): number {
  if (threshold) {
    let total = 0;
    let weighted = 0;
    for (const r of results) {
      total += r.weight;
      weighted += r.weight * r.score;
    }
    return weighted / total >= threshold ? 1 : 0;
  }
  return results.every((r) => r.pass) ? 1 : 0;
}

/** The test's pass as evalkit derives it from the assertions scored on `answer`. */
function actualPass(assertions: Assertion[], answer: string, threshold?: number): Score {
  const compiled = assertions.map((a, i) => compileAssertion(a, `${a.type}#${i}`, (s) => s, 'test'));
  const scores = Object.fromEntries(
    compiled.map((c) => [c.scorer.name, (c.scorer as LocalScorer).score(answer, sample(''))]),
  );
  return passScorer(compiled, threshold).derive(scores);
}

test("promptfoo: a test's pass weighs its assertions, is reached at the threshold, and threshold 0 is none", () => {
  const answer = 'Paris is the capital of France';
  const yes = (weight?: number): Assertion => ({
    type: 'contains',
    value: 'Paris',
    ...(weight ? { weight } : {}),
  });
  const no = (weight?: number): Assertion => ({
    type: 'contains',
    value: 'Rome',
    ...(weight ? { weight } : {}),
  });
  const cases: { assertions: Assertion[]; threshold?: number; results: [boolean, number][] }[] = [
    // Weighted 1·1 + 3·0 = 0.25 < 0.5: fails (unweighted it would be 0.5, a pass).
    {
      assertions: [yes(1), no(3)],
      threshold: 0.5,
      results: [
        [true, 1],
        [false, 3],
      ],
    },
    // Weighted 3·1 + 1·0 = 0.75 ≥ 0.7: passes (unweighted 0.5 would fail).
    {
      assertions: [yes(3), no(1)],
      threshold: 0.7,
      results: [
        [true, 3],
        [false, 1],
      ],
    },
    // Exactly at the threshold passes: 0.5 ≥ 0.5, and 0.75 ≥ 0.75.
    {
      assertions: [yes(), no()],
      threshold: 0.5,
      results: [
        [true, 1],
        [false, 1],
      ],
    },
    {
      assertions: [yes(), yes(), yes(), no()],
      threshold: 0.75,
      results: [
        [true, 1],
        [true, 1],
        [true, 1],
        [false, 1],
      ],
    },
    // Threshold 0 is no threshold: every assertion must pass (as a threshold, 0 ≥ 0 would pass).
    { assertions: [no()], threshold: 0, results: [[false, 1]] },
    {
      assertions: [yes(), no(2)],
      threshold: 0,
      results: [
        [true, 1],
        [false, 2],
      ],
    },
    {
      assertions: [yes(), yes(5)],
      threshold: 0,
      results: [
        [true, 1],
        [true, 5],
      ],
    },
    // No threshold: every assertion passes, whatever the weights.
    {
      assertions: [yes(9), no(1)],
      results: [
        [true, 9],
        [false, 1],
      ],
    },
    {
      assertions: [yes(), { type: 'not-contains', value: 'Rome' }],
      results: [
        [true, 1],
        [true, 1],
      ],
    },
  ];
  for (const c of cases) {
    const want = expectedPass(
      c.results.map(([pass, weight]) => ({ pass, score: pass ? 1 : 0, weight })),
      c.threshold,
    );
    const got = actualPass(c.assertions, answer, c.threshold);
    assert.equal(got.value, want, JSON.stringify(c));
    assert.equal(got.extracted, want === 1 ? 'pass' : 'fail');
  }
  // The cases' expected verdicts themselves (so that the reference above is not silently wrong).
  assert.deepEqual(
    cases.map((c) =>
      expectedPass(
        c.results.map(([pass, weight]) => ({ pass, score: pass ? 1 : 0, weight })),
        c.threshold,
      ),
    ),
    [0, 1, 1, 1, 0, 0, 1, 0, 1],
  );
});
