import { test } from 'node:test';
import assert from 'node:assert/strict';
import { entityCoverage, rankingMetrics } from '../../src/metrics/retrieval/ranking.js';
import { rankingMetricNames, scoreResults } from '../../src/metrics/retrieval/score.js';
import { verdictsFor, type Threshold } from '../../src/metrics/retrieval/thresholds.js';
import { createRng } from '../../src/metrics/stats/rng.js';

// scoreResults fills rows without going through rankingMetrics (no per-row Set or objects); this checks that the
// rows it writes are exactly what the plain definition gives: rankingMetrics on a Set of the expected ids, keys in
// the order "input metrics, then per K precision/recall/nDCG/MRR, then cov_entities", then verdicts.
test('scored rows equal the plain construction on 500 random cases (duplicates, long gold lists, own metrics)', () => {
  const rng = createRng(5);
  const pick = (n: number) => `d${Math.floor(rng() * n)}`;
  const ks = [3, 10];
  const thresholds: Threshold[] = [
    { metric: 'p_at_3', threshold: 0.3, direction: 'higher' },
    { metric: 'ndcg_10', threshold: 0.5, direction: 'higher' },
  ];
  const gold = [];
  const results = [];
  for (let c = 0; c < 500; c++) {
    const universe = 3 + Math.floor(rng() * 30);
    // Up to 24 expected ids, so both short lists (searched directly) and long ones (a Set) occur, with repeats.
    const expected = Array.from({ length: Math.floor(rng() * 25) }, () => pick(universe));
    const entities =
      rng() < 0.5 ? [] : Array.from({ length: 1 + Math.floor(rng() * 3) }, () => pick(universe));
    gold.push({ value: { id: `q${c}`, expected_ids: expected, entities }, line: c + 1 });
    const metrics = rng() < 0.3 ? { p_at_3: 9, own: c } : {};
    results.push({
      value: {
        id: `q${c}`,
        request_id: `r${c}`,
        retrieved_ids: Array.from({ length: Math.floor(rng() * 14) }, () => pick(universe)),
        metrics,
      },
      line: c + 1,
    });
  }
  const outcome = scoreResults(gold, results, { ks, thresholds });
  assert.equal(outcome.scored, 500);
  for (let c = 0; c < 500; c++) {
    const input = results[c].value;
    const g = gold[c].value;
    const want: Record<string, unknown> = { ...input.metrics };
    const ranking = rankingMetrics(input.retrieved_ids, new Set(g.expected_ids), ks);
    ks.forEach((k, j) => {
      const n = rankingMetricNames(k);
      want[n.precision] = ranking[j].precision;
      if (ranking[j].recall !== null) want[n.recall] = ranking[j].recall;
      if (ranking[j].ndcg !== null) want[n.ndcg] = ranking[j].ndcg;
      want[n.mrr] = ranking[j].mrr;
    });
    const coverage = entityCoverage(input.retrieved_ids, g.entities);
    if (coverage !== null) want.cov_entities = coverage;
    const row = outcome.rows[c];
    assert.equal(JSON.stringify(row.metrics), JSON.stringify(want), `case ${c}`);
    assert.deepEqual(row.verdicts, verdictsFor(want, thresholds));
    assert.deepEqual(Object.keys(row), ['id', 'request_id', 'retrieved_ids', 'metrics', 'verdicts']);
    assert.notEqual(row, input, 'the input row is copied, not changed');
  }
});

test('a result row with an own "__proto__" key keeps it as data', () => {
  const gold = [{ value: JSON.parse('{"id":"a","expected_ids":["x"]}'), line: 1 }];
  const input = JSON.parse('{"id":"a","request_id":"r","retrieved_ids":["x"],"__proto__":{"p":1}}');
  const [row] = scoreResults(gold, [{ value: input, line: 1 }], { ks: [1] }).rows;
  assert.equal(Object.getPrototypeOf(row), Object.prototype);
  assert.equal(
    JSON.stringify(row),
    '{"id":"a","request_id":"r","retrieved_ids":["x"],"__proto__":{"p":1},"metrics":{"p_at_1":1,"recall_at_1":1,"ndcg_1":1,"mrr_1":1}}',
  );
});
