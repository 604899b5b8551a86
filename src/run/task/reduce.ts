/** Reducing one item's epoch values to its value, and the task's score over items (mean, standard error, CI). */
import { mean, standardDeviation } from '../../metrics/stats/descriptive.js';
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
  /** Normal-approximation 95 % interval, clipped to [0, 1]. */
  ci?: { lower: number; upper: number };
}

export function itemStatistics(values: readonly number[]): ItemStatistics | undefined {
  if (values.length === 0) return undefined;
  const score = mean(values);
  if (values.length < 2) return { n: values.length, score };
  const standardError = standardDeviation(values) / Math.sqrt(values.length);
  const half = 1.959963984540054 * standardError;
  return {
    n: values.length,
    score,
    standardError,
    ci: { lower: Math.max(0, score - half), upper: Math.min(1, score + half) },
  };
}
