/**
 * Paired percentile bootstrap of the mean difference d̄: resample items (or whole clusters, when items share a
 * cluster) with replacement, seeded; type-7 quantiles at α/2 and 1 − α/2.
 */
import { meanBootstrap } from '../eee/uncertainty.js';
import { bootstrapPercentile } from './intervals.js';

export interface PairedBootstrap {
  resamples: number;
  seed: number;
  ci: [number, number] | null;
  /** Why ci is null. */
  reason?: string;
}

export function pairedBootstrap(
  d: ArrayLike<number>,
  options: { iterations: number; seed: number; clusters?: ArrayLike<string | number>; confidence?: number },
): PairedBootstrap {
  const { iterations, seed } = options;
  const confidence = options.confidence ?? 0.95;
  if (d.length < 2)
    return { resamples: iterations, seed, ci: null, reason: `fewer than 2 items (${d.length})` };
  if (!options.clusters) {
    // Items: the exact multinomial shortcut of meanBootstrap when d takes few values (binary scores: −1, 0, 1).
    const r = meanBootstrap(d, { iterations, seed, confidence });
    return { resamples: iterations, seed, ci: [r.lower, r.upper] };
  }
  const totals = new Map<string | number, { sum: number; count: number }>();
  for (let i = 0; i < d.length; i++) {
    const key = options.clusters[i]!;
    const t = totals.get(key) ?? { sum: 0, count: 0 };
    t.sum += d[i]!;
    t.count += 1;
    totals.set(key, t);
  }
  // One cluster resampled is always itself: a zero-width interval that would claim certainty.
  if (totals.size < 2)
    return {
      resamples: iterations,
      seed,
      ci: null,
      reason: `fewer than 2 clusters (${totals.size}): resampling one cluster gives no interval`,
    };
  const r = bootstrapPercentile(
    [...totals.values()],
    (sample) => {
      let sum = 0;
      let count = 0;
      for (const c of sample) {
        sum += c.sum;
        count += c.count;
      }
      return sum / count;
    },
    { iterations, seed, confidence },
  );
  return {
    resamples: iterations,
    seed,
    ci: r.lower === null || r.upper === null ? null : [r.lower, r.upper],
  };
}
