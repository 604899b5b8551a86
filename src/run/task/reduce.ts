/** Reducing one item's epoch values to its value, and the task's score over items (mean, standard error, CI). */
import { mean, standardDeviation } from '../../metrics/stats/descriptive.js';
import { wilsonInterval } from '../../metrics/stats/intervals.js';
import type { Reducer } from './types.js';

/** Chen et al.'s unbiased pass@k over n scored epochs, c of them correct (value ≥ 1). */
export function passAtK(n: number, c: number, k: number): number {
  if (n - c < k) return 1;
  let fail = 1;
  for (let i = n - c + 1; i <= n; i++) fail *= 1 - k / i;
  return 1 - fail;
}

/** One item's value from its epochs' values (missing ones already left out); undefined when none is left. */
export function reduceEpochs(values: readonly number[], reducer: Reducer): number | undefined {
  if (values.length === 0) return undefined;
  switch (reducer.name) {
    case 'mean':
      return mean(values);
    case 'max':
      return Math.max(...values);
    case 'min':
      return Math.min(...values);
    case 'mode': {
      // The most frequent value; a tie goes to the value seen first (by epoch).
      const counts = new Map<number, number>();
      for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
      let best = values[0];
      for (const [v, c] of counts) if (c > counts.get(best)!) best = v;
      return best;
    }
    case 'pass_at_k': {
      const k = reducer.k ?? 1;
      if (values.length < k) return undefined;
      return passAtK(values.length, values.filter((v) => v >= 1).length, k);
    }
  }
}

/** The reducer as EEE / Inspect name it (`pass_at_3`), for metric_config.additional_details.epoch_reducer. */
export const reducerLabel = (r: Reducer): string => (r.name === 'pass_at_k' ? `pass_at_${r.k}` : r.name);

export interface ItemStatistics {
  n: number;
  score: number;
  /** Sample standard deviation over items / √n (undefined below 2 items). */
  standardError?: number;
  /**
   * The 95 % interval: Wilson's score interval when every item is 0 or 1 (it never collapses to a point at 0/n or
   * n/n, nor leaves [0, 1]); otherwise the normal approximation, clipped to [0, 1] (from 2 items).
   */
  ci?: { lower: number; upper: number; method: string };
}

const WILSON_METHOD = 'Wilson score interval over samples (every value 0 or 1)';
const NORMAL_METHOD = 'normal approximation, clipped to [0, 1]';

export function itemStatistics(values: readonly number[]): ItemStatistics | undefined {
  if (values.length === 0) return undefined;
  const n = values.length;
  const score = mean(values);
  const standardError = n < 2 ? undefined : standardDeviation(values) / Math.sqrt(n);
  if (values.every((v) => v === 0 || v === 1)) {
    const successes = values.filter((v) => v === 1).length;
    return { n, score, standardError, ci: { ...wilsonInterval(successes, n), method: WILSON_METHOD } };
  }
  if (standardError === undefined) return { n, score };
  const half = 1.959963984540054 * standardError;
  return {
    n,
    score,
    standardError,
    ci: { lower: Math.max(0, score - half), upper: Math.min(1, score + half), method: NORMAL_METHOD },
  };
}
