// Issue 39 (mutants): the epoch reducers and the headline tolerance of reconciliation, against values worked by hand.
// A median over an even number of epochs is the mean of the two middle values; the headline is compared to 1e-9
// relative with an absolute floor of 1e-9 (near zero a relative tolerance alone would reject the float noise of a
// mean of exact values), and no looser.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reconcileResult, RowTally, sameHeadline } from '../../src/checks/reconciliation.js';

/** A tally of one result `r`: each sample's epochs' values. */
function tallyOf(samples: Record<string, number[]>): RowTally {
  const tally = new RowTally();
  for (const [id, values] of Object.entries(samples))
    values.forEach((value, i) =>
      tally.add({
        evaluation_result_id: 'r',
        evaluation_name: 't',
        sample_id: id,
        sample_hash: id,
        epoch: i + 1,
        value,
      }),
    );
  return tally;
}

const result = (score: number, reducer: string) => ({
  evaluation_result_id: 'r',
  evaluation_name: 't',
  metric_config: { metric_name: 'score', additional_details: { epoch_reducer: reducer } },
  score_details: { score },
});

const outcome = (tally: RowTally, score: number, reducer: string): string =>
  reconcileResult(result(score, reducer), tally, { n: 2, headline: 'mean' }).outcome;

test('median over an even number of epochs: the mean of the two middle values', () => {
  // a: epochs 0.1, 0.9, 0.2, 0.6 → sorted 0.1 0.2 0.6 0.9 → median (0.2 + 0.6) / 2 = 0.4;
  // b: epochs 1, 0 → median 0.5. Headline (0.4 + 0.5) / 2 = 0.45.
  const even = tallyOf({ a: [0.1, 0.9, 0.2, 0.6], b: [1, 0] });
  assert.equal(outcome(even, 0.45, 'median'), 'reconciled');
  // The upper middle (0.6, 1 → 0.8) or the lower middle (0.2, 0 → 0.1) alone is not the median.
  assert.equal(outcome(even, 0.8, 'median'), 'headline_mismatch');
  assert.equal(outcome(even, 0.1, 'median'), 'headline_mismatch');
  // Odd counts: the middle value (a: 0.1 0.2 0.9 → 0.2; b: 1 → 1): 0.6.
  const odd = tallyOf({ a: [0.9, 0.1, 0.2], b: [1] });
  assert.equal(outcome(odd, 0.6, 'median'), 'reconciled');
  // The other reducers on the same rows: mean (0.45 + 0.5) / 2 = 0.475; max (0.9 + 1) / 2 = 0.95; min (0.1 + 0) / 2.
  assert.equal(outcome(even, 0.475, 'mean'), 'reconciled');
  assert.equal(outcome(even, 0.95, 'max'), 'reconciled');
  assert.equal(outcome(even, 0.05, 'min'), 'reconciled');
});

test('the headline tolerance: 1e-9 relative, with an absolute floor of 1e-9 near zero', () => {
  // Near zero the floor decides: 5e-10 from 0 agrees, 2e-9 does not (a floor removed would reject the first, a
  // floor raised would accept the second).
  assert.equal(sameHeadline(0, 5e-10), true);
  assert.equal(sameHeadline(1e-12, 0), true);
  assert.equal(sameHeadline(0, 2e-9), false);
  assert.equal(sameHeadline(0, 1e-6), false);
  // Away from zero it is relative: 1000 ± 5e-7 agrees (1e-9 × 1000 = 1e-6), 1000 ± 2e-6 does not.
  assert.equal(sameHeadline(1000, 1000 + 5e-7), true);
  assert.equal(sameHeadline(1000, 1000 + 2e-6), false);
  assert.equal(sameHeadline(0.5, 0.5 + 2e-9), false);
  // Through a result: rows 0.1, 0.2, -0.3 have the float mean 1.85e-17, not 0: the headline 0 reconciles (floor),
  // a headline of 1e-6 does not.
  const tally = tallyOf({ a: [0.1], b: [0.2], c: [-0.3] });
  const three = (score: number) =>
    reconcileResult(result(score, 'mean'), tally, { n: 3, headline: 'mean' }).outcome;
  assert.notEqual((0.1 + 0.2 - 0.3) / 3, 0);
  assert.equal(three(0), 'reconciled');
  assert.equal(three(1e-6), 'headline_mismatch');
});
