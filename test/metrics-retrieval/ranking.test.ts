import { test } from 'node:test';
import assert from 'node:assert/strict';
import { entityCoverage, idealDcg, rankingMetrics } from '../../src/metrics/retrieval/ranking.js';

// Expected values were obtained independently of this code:
// - counts (precision, recall, MRR) by hand, written next to each case;
// - nDCG with this Python 3.11 standard-library script (the same formula as scikit-learn's
//   `ndcg_score(y_true, y_score, k=K)` when every expected id is among the candidates, which holds for case A at
//   K = 10; sklearn itself is not installed here):
//     import math
//     def ndcg(ret, exp, k):
//         seen = set(); dcg = 0
//         for r, i in enumerate(ret[:k], 1):
//             if i in exp and i not in seen: dcg += 1 / math.log2(r + 1); seen.add(i)
//         return dcg / sum(1 / math.log2(r + 1) for r in range(1, min(k, len(exp)) + 1))
//   printed with repr().

const close = (actual: number | null, expected: number, eps = 1e-12) =>
  assert.ok(actual !== null && Math.abs(actual - expected) < eps, `${actual} ≉ ${expected}`);

test('case A: relevant at ranks 1, 3, 6, 10 of 10, four expected ids', () => {
  const retrieved = ['d1', 'x', 'd2', 'y', 'z', 'd3', 'w', 'v', 'u', 'd4'];
  const expected = new Set(['d1', 'd2', 'd3', 'd4']);
  const [at5, at10] = rankingMetrics(retrieved, expected, [5, 10]);
  // top 5 holds d1, d2: 2/5 and 2/4.
  assert.equal(at5.precision, 0.4);
  assert.equal(at5.recall, 0.5);
  close(at5.ndcg, 0.5855700749881525);
  assert.equal(at5.mrr, 1);
  // top 10 holds all four: 4/10 and 4/4.
  assert.equal(at10.precision, 0.4);
  assert.equal(at10.recall, 1);
  close(at10.ndcg, 0.8374713958478633); // = sklearn ndcg_score([[1,0,1,0,0,1,0,0,0,1]], [[10,9,8,7,6,5,4,3,2,1]], k=10)
});

test('a duplicate id keeps its slot but gains once', () => {
  const [m] = rankingMetrics(['a', 'a', 'b'], new Set(['a', 'b']), [2]);
  assert.equal(m.precision, 0.5); // only one distinct relevant id in the top 2
  assert.equal(m.recall, 0.5);
  close(m.ndcg, 0.6131471927654584);
  assert.equal(m.mrr, 1);
});

test('missing slots count against precision; nDCG uses min(K, |expected|) ideal hits', () => {
  const [m] = rankingMetrics(['a'], new Set(['a']), [5]);
  assert.equal(m.precision, 0.2);
  assert.equal(m.recall, 1);
  assert.equal(m.ndcg, 1);
  const [late] = rankingMetrics(['x', 'y', 'a'], new Set(['a', 'b', 'c']), [5]);
  close(late.ndcg, 0.23463936301137822);
  close(late.mrr, 1 / 3);
});

test('MRR@K is 0 when the first relevant id lies beyond K', () => {
  const retrieved = ['q', 'w', 'e', 'r', 't', 'hit'];
  const [at5, at10] = rankingMetrics(retrieved, new Set(['hit']), [5, 10]);
  assert.equal(at5.mrr, 0);
  close(at10.mrr, 1 / 6);
});

test('nothing retrieved gives zeros; nothing expected makes recall and nDCG undefined', () => {
  const [none] = rankingMetrics([], new Set(['a']), [5]);
  assert.deepEqual(none, { k: 5, precision: 0, recall: 0, ndcg: 0, mrr: 0 });
  const [empty] = rankingMetrics(['a', 'b'], new Set(), [5]);
  assert.equal(empty.recall, null);
  assert.equal(empty.ndcg, null);
  assert.equal(empty.precision, 0);
});

test('ideal DCG by hand: 1 + 1/log2(3) + 1/2', () => {
  close(idealDcg(3, 10), 1 + 1 / Math.log2(3) + 0.5);
  assert.equal(idealDcg(5, 0), 0);
});

test('entity coverage: exact and case-folded matching, undefined without entities', () => {
  assert.equal(entityCoverage(['Paris', 'x'], ['Paris', 'France']), 0.5);
  assert.equal(entityCoverage(['paris', 'FRANCE'], ['Paris', 'France']), 0);
  assert.equal(entityCoverage(['paris', 'FRANCE'], ['Paris', 'France'], 'casefold'), 1);
  assert.equal(entityCoverage(['a'], []), null);
  // Duplicate gold entities count once.
  assert.equal(entityCoverage(['a'], ['a', 'a', 'b']), 0.5);
  // Long lists take the Set path: same answers.
  const many = Array.from({ length: 300 }, (_, i) => `e${i}`);
  assert.equal(entityCoverage(many, ['e7', 'e7', 'E299', 'x']), 1 / 3);
  assert.equal(entityCoverage(many, ['e7', 'e7', 'E299', 'x'], 'casefold'), 2 / 3);
});

test('the one-pass implementation equals a literal reading of the definitions on 2,000 random cases', async () => {
  const { createRng } = await import('../../src/metrics/stats/rng.js');
  const rng = createRng(99);
  const pick = (n: number) => `d${Math.floor(rng() * n)}`;
  // Literal: walk the top K, a slot gains 1 when its id is expected and not seen before in the list.
  const literal = (retrieved: string[], expected: Set<string>, k: number) => {
    const top = retrieved.slice(0, k);
    const gains = top.map((id, i) => (expected.has(id) && top.indexOf(id) === i ? 1 : 0));
    const hits = gains.reduce((a: number, b) => a + b, 0);
    const dcg = gains.reduce((a: number, g, i) => a + g / Math.log2(i + 2), 0);
    let idcg = 0;
    for (let i = 0; i < Math.min(k, expected.size); i++) idcg += 1 / Math.log2(i + 2);
    const first = gains.indexOf(1);
    return {
      k,
      precision: hits / k,
      recall: expected.size ? hits / expected.size : null,
      ndcg: expected.size ? dcg / idcg : null,
      mrr: first >= 0 ? 1 / (first + 1) : 0,
    };
  };
  for (let c = 0; c < 2000; c++) {
    const universe = 3 + Math.floor(rng() * 15);
    const retrieved = Array.from({ length: Math.floor(rng() * 14) }, () => pick(universe));
    const expected = new Set(Array.from({ length: Math.floor(rng() * 6) }, () => pick(universe)));
    const ks = [1 + Math.floor(rng() * 12), 1 + Math.floor(rng() * 12)];
    const got = rankingMetrics(retrieved, expected, ks);
    ks.forEach((k, j) => {
      const want = literal(retrieved, expected, k);
      for (const key of ['precision', 'recall', 'ndcg', 'mrr'] as const) {
        const a = got[j][key];
        const b = want[key];
        assert.ok(
          a === b || (a !== null && b !== null && Math.abs(a - b) < 1e-12),
          `case ${c} k=${k} ${key}: ${a} vs ${b}`,
        );
      }
    });
  }
});
