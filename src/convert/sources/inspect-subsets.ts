/**
 * Inspect scorers whose metrics cover some samples only. A custom metric often averages a scorer's values over the
 * samples a boolean in the score's metadata selects (`attack_success_rate` over the attacked samples,
 * `utility_clean` over the clean ones), while every sample carries a value for the scorer. The log does not say
 * which samples a metric covers, but its headline does: where the mean over every sample is not the headline, the
 * subset a boolean field of the score's (or the sample's) metadata selects whose mean is the headline, to 1e-9
 * relative, is the metric's. Its samples are the result's `num_samples`, and only they get a row for it.
 *
 * Only metrics Inspect does not define (a custom name) are looked at: `accuracy`, `mean` and the uncertainty
 * metrics always cover every scored sample.
 */
import { isObj, type Obj } from '../source-json.js';

/** Inspect's own metrics, over every scored sample. */
export const ALL_SAMPLES_METRICS = new Set([
  'accuracy',
  'mean',
  'stderr',
  'bootstrap_stderr',
  'std',
  'var',
  'max',
  'min',
]);

/** The samples one metric covers: those whose `field` (a dotted path into the sample) equals `equals`. */
export interface MetricSubset {
  field: string;
  equals: boolean;
  /** The sample keys (`id`, or `id#epoch` with several epochs) in the subset. */
  keys: Set<string>;
  /** Distinct samples in the subset, and in all. */
  samples: number;
  of: number;
}

/** One sample's value for a scorer and the boolean fields that may select it. */
export interface ScoredSample {
  key: string;
  sampleId: string;
  value: number;
  flags: Map<string, boolean>;
}

/** The boolean fields of a score's and a sample's metadata, by dotted path. */
export function booleanFlags(score: Obj | undefined, sample: Obj): Map<string, boolean> {
  const flags = new Map<string, boolean>();
  for (const [prefix, meta] of [
    ['score.metadata', score?.metadata],
    ['sample.metadata', sample.metadata],
  ] as const)
    if (isObj(meta))
      for (const [k, v] of Object.entries(meta)) if (typeof v === 'boolean') flags.set(`${prefix}.${k}`, v);
  return flags;
}

const close = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

/** The mean per distinct sample (epochs averaged first), over the samples `keep` accepts. */
function sampleMean(values: ScoredSample[], keep: (s: ScoredSample) => boolean): { mean: number; n: number } {
  const bySample = new Map<string, { sum: number; count: number }>();
  for (const s of values)
    if (keep(s)) {
      const e = bySample.get(s.sampleId) ?? { sum: 0, count: 0 };
      e.sum += s.value;
      e.count++;
      bySample.set(s.sampleId, e);
    }
  let sum = 0;
  for (const e of bySample.values()) sum += e.sum / e.count;
  return { mean: bySample.size > 0 ? sum / bySample.size : NaN, n: bySample.size };
}

/**
 * The subset of the scored samples whose mean is `headline`, when the mean over all of them is not; undefined when
 * the metric covers every sample, or no boolean field explains the headline (fields tried in name order, `true`
 * before `false`, the score's metadata before the sample's; a subset as large as the whole, or whose values are all
 * equal, is never chosen).
 */
export function metricSubset(values: ScoredSample[], headline: number): MetricSubset | undefined {
  const all = sampleMean(values, () => true);
  if (all.n === 0 || close(all.mean, headline)) return undefined;
  // The score's own metadata first, then the sample's; by name within each.
  const fields = [...new Set(values.flatMap((s) => [...s.flags.keys()]))].sort(
    (a, b) =>
      Number(a.startsWith('sample.')) - Number(b.startsWith('sample.')) || (a < b ? -1 : a > b ? 1 : 0),
  );
  for (const field of fields)
    for (const equals of [true, false]) {
      const keep = (s: ScoredSample) => s.flags.get(field) === equals;
      const { mean, n } = sampleMean(values, keep);
      // A subset whose values are all one number explains any headline equal to it (a rate of 0 computed from
      // something else): no evidence, not chosen.
      const varied = new Set(values.filter(keep).map((s) => s.value)).size > 1;
      if (n > 0 && n < all.n && varied && close(mean, headline))
        return {
          field,
          equals,
          keys: new Set(values.filter(keep).map((s) => s.key)),
          samples: n,
          of: all.n,
        };
    }
  return undefined;
}
