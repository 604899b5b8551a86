/**
 * Cross-run comparison and the validity guards of the infereval reference (`comparison.py`, `guards.py`):
 * two evaluations of the same items under configurations that differ on one axis (question form, template,
 * premise order), compared by the per-item total-variation distance between their sample verdict distributions
 * and by Cohen's κ between their model verdicts over the items substantive in both (reported as insufficient
 * overlap when that intersection is below a coverage floor).
 *
 * The guards are one gate, read three ways: `distribution` (the plain gate), `template` (two templates over the
 * same items and model must agree within noise) and `shuffle` (shuffled premise order must not move the
 * verdict). The gate passes when no item's TV reaches the threshold (0.10) and every item has at least
 * `nFloor` (30) counted samples in both runs.
 *
 * Where evalkit differs: an item whose every sample failed in a run has no distribution. The reference gives it
 * a TV of 0.5 against anything (or 0 against another such item); here its TV is null, it is listed as an
 * instrument failure, left out of the mean and the maximum, and it fails the gate as under-powered.
 */
import { DataError } from '../../errors.js';
import { isJsonObject } from '../../io/json-value.js';
import { cohensKappaResult } from '../stats/kappa.js';
import { isInstrumentFailure, isSubstantive, type ItemLike, type Verdict } from './model.js';
import { verdictDistribution } from './vote.js';

export const GUARDS = ['distribution', 'template', 'shuffle'] as const;
export type Guard = (typeof GUARDS)[number];

export interface RunLike {
  id?: string;
  benchmark_id?: string;
  model?: { provider: string; model_id: string; params?: Record<string, unknown> };
  endorsement_config?: Record<string, unknown> | object;
  paraphrase_variant?: number;
  items: readonly ItemLike[];
}

export interface CompareOptions {
  /** Per-item TV at or above this fails the gate (default 0.10). */
  threshold?: number;
  /** Counted samples per item needed in both runs (default 30). */
  nFloor?: number;
  /** Below this share of both-substantive items, κ is reported as insufficient overlap (default 0.5). */
  coverageFloor?: number;
  /** Skip the same-model, same-sampler check (the reference's require_same_setup=False). */
  allowDifferentSetup?: boolean;
  /** Evaluate the gate under this reading. */
  guard?: Guard;
}

export interface RunComparison {
  run_a: string | null;
  run_b: string | null;
  n_items: number;
  n_both_substantive: number;
  intersection_fraction: number;
  coverage_a: number;
  coverage_b: number;
  coverage_floor: number;
  insufficient_overlap: boolean;
  cross_run_kappa: number | null;
  mean_tv_distance: number;
  per_item: {
    item_id: string;
    tv: number | null;
    verdict_a: Verdict;
    verdict_b: Verdict;
    n_a: number;
    n_b: number;
  }[];
  instrument_failures: { run_a: string[]; run_b: string[] };
  /** What differs between the two runs' setups (the axis under test), field by field. */
  differences: Record<string, { a: unknown; b: unknown }>;
  guard: {
    name: Guard;
    passed: boolean;
    threshold: number;
    n_floor: number;
    max_tv: number;
    offenders: { item_id: string; tv: number }[];
    under_powered: string[];
    summary: string;
  } | null;
  warnings: string[];
  undefined_reasons: Record<string, string>;
}

type Distribution = { good: number; bad: number; abstain: number; n: number } | null;

function distributionOf(item: ItemLike): Distribution {
  if (isInstrumentFailure(item)) return null;
  const d = verdictDistribution(item);
  const n = d.good + d.bad + d.abstain;
  return n === 0 ? null : { good: d.good / n, bad: d.bad / n, abstain: d.abstain / n, n };
}

/** 0.5 · Σ_v |a_v − b_v| over good, bad, abstain. */
export function totalVariationDistance(
  a: { good: number; bad: number; abstain: number },
  b: { good: number; bad: number; abstain: number },
): number {
  return 0.5 * (Math.abs(a.good - b.good) + Math.abs(a.bad - b.bad) + Math.abs(a.abstain - b.abstain));
}

const stable = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    isJsonObject(x)
      ? Object.fromEntries(Object.entries(x).sort(([p], [q]) => (p < q ? -1 : p > q ? 1 : 0)))
      : x,
  ) ?? 'null';

function setupDifferences(a: RunLike, b: RunLike): RunComparison['differences'] {
  const out: RunComparison['differences'] = {};
  const ca = (a.endorsement_config ?? {}) as Record<string, unknown>;
  const cb = (b.endorsement_config ?? {}) as Record<string, unknown>;
  for (const key of [...new Set([...Object.keys(ca), ...Object.keys(cb)])].sort())
    if (stable(ca[key]) !== stable(cb[key]))
      out[`endorsement_config.${key}`] = { a: ca[key] ?? null, b: cb[key] ?? null };
  if ((a.paraphrase_variant ?? 0) !== (b.paraphrase_variant ?? 0))
    out.paraphrase_variant = { a: a.paraphrase_variant ?? 0, b: b.paraphrase_variant ?? 0 };
  return out;
}

/** The reference's §12.1 guard: same model snapshot and identical sampler parameters. */
function assertSameSetup(a: RunLike, b: RunLike): void {
  const ma = a.model;
  const mb = b.model;
  if (!ma || !mb) return;
  if (ma.provider !== mb.provider || ma.model_id !== mb.model_id) {
    throw new DataError(
      'compare.mismatch.model',
      `a cross-run comparison needs the same model: ${ma.provider}:${ma.model_id} vs ${mb.provider}:${mb.model_id}`,
    );
  }
  if (stable(ma.params ?? {}) !== stable(mb.params ?? {})) {
    const keys = [...new Set([...Object.keys(ma.params ?? {}), ...Object.keys(mb.params ?? {})])]
      .sort()
      .filter((k) => stable(ma.params?.[k]) !== stable(mb.params?.[k]));
    throw new DataError(
      'compare.mismatch.params',
      `a cross-run comparison needs identical sampler parameters; they differ in ${keys.map((k) => `${k} (${stable(ma.params?.[k])} vs ${stable(mb.params?.[k])})`).join(', ')}`,
    );
  }
}

const GUARD_AXIS: Record<Guard, { keys: string[]; what: string }> = {
  distribution: { keys: [], what: '' },
  template: {
    keys: [
      'endorsement_config.verification_prompt_id',
      'endorsement_config.question_form',
      'endorsement_config.coherence_frame_id',
    ],
    what: 'the template (verification prompt, question form or coherence frame)',
  },
  shuffle: {
    keys: ['endorsement_config.context_builder_premise_id'],
    what: 'the premise context builder (the order of the premises)',
  },
};

/** Compares two runs of the same items; `options.guard` adds the pass/fail gate. */
export function compareRuns(a: RunLike, b: RunLike, options: CompareOptions = {}): RunComparison {
  const threshold = options.threshold ?? 0.1;
  const nFloor = options.nFloor ?? 30;
  const coverageFloor = options.coverageFloor ?? 0.5;
  if (a.benchmark_id !== undefined && b.benchmark_id !== undefined && a.benchmark_id !== b.benchmark_id) {
    throw new DataError(
      'compare.mismatch.benchmark-id',
      `the runs are of different benchmarks: ${JSON.stringify(a.benchmark_id)} vs ${JSON.stringify(b.benchmark_id)}`,
    );
  }
  const byIdB = new Map(b.items.map((it) => [it.id, it]));
  const missing = a.items.filter((it) => !byIdB.has(it.id)).map((it) => it.id);
  if (missing.length > 0) {
    throw new DataError(
      'compare.missing-items',
      `run B lacks ${missing.length} item(s) of run A: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''}`,
    );
  }
  if (!options.allowDifferentSetup) assertSameSetup(a, b);

  const perItem: RunComparison['per_item'] = [];
  const va: Verdict[] = [];
  const vb: Verdict[] = [];
  let both = 0;
  for (const ia of a.items) {
    const ib = byIdB.get(ia.id)!;
    const da = distributionOf(ia);
    const db = distributionOf(ib);
    perItem.push({
      item_id: ia.id,
      tv: da && db ? totalVariationDistance(da, db) : null,
      verdict_a: ia.model_verdict,
      verdict_b: ib.model_verdict,
      n_a: da?.n ?? 0,
      n_b: db?.n ?? 0,
    });
    va.push(ia.model_verdict);
    vb.push(ib.model_verdict);
    if (isSubstantive(ia.model_verdict) && isSubstantive(ib.model_verdict)) both++;
  }
  const n = a.items.length;
  const fraction = n === 0 ? 0 : both / n;
  const insufficient = fraction < coverageFloor;
  const reasons: Record<string, string> = {};
  let kappa: number | null = null;
  if (insufficient)
    reasons.cross_run_kappa = `insufficient overlap: ${both} of ${n} items are substantive in both runs (${(fraction * 100).toFixed(1)}% < coverage floor ${(coverageFloor * 100).toFixed(0)}%)`;
  else {
    const r = cohensKappaResult(va, vb);
    kappa = r.value;
    if (r.reason) reasons.cross_run_kappa = r.reason;
  }
  const tvs = perItem.flatMap((p) => (p.tv === null ? [] : [p.tv]));
  const coverage = (vs: Verdict[]) => (vs.length === 0 ? 0 : vs.filter(isSubstantive).length / vs.length);
  const differences = setupDifferences(a, b);
  const warnings: string[] = [];
  let guard: RunComparison['guard'] = null;
  if (options.guard) {
    const axis = GUARD_AXIS[options.guard];
    if (axis.keys.length > 0 && !axis.keys.some((k) => k in differences))
      warnings.push(
        `the ${options.guard} guard compares runs that should differ in ${axis.what}, but the two runs record the same one`,
      );
    const offenders = perItem
      .flatMap((p) => (p.tv !== null && p.tv >= threshold ? [{ item_id: p.item_id, tv: p.tv }] : []))
      .sort((x, y) => y.tv - x.tv);
    const under = perItem.filter((p) => p.n_a < nFloor || p.n_b < nFloor).map((p) => p.item_id);
    const maxTv = Math.max(0, ...tvs);
    const passed = offenders.length === 0 && under.length === 0;
    guard = {
      name: options.guard,
      passed,
      threshold,
      n_floor: nFloor,
      max_tv: maxTv,
      offenders,
      under_powered: under,
      summary: `${passed ? 'PASS' : 'FAIL'}: max TV=${maxTv.toFixed(3)} (threshold ${threshold}), ${offenders.length} over threshold, ${under.length} under-powered (n<${nFloor})`,
    };
  }
  return {
    run_a: a.id ?? null,
    run_b: b.id ?? null,
    n_items: n,
    n_both_substantive: both,
    intersection_fraction: fraction,
    coverage_a: coverage(va),
    coverage_b: coverage(vb),
    coverage_floor: coverageFloor,
    insufficient_overlap: insufficient,
    cross_run_kappa: kappa,
    mean_tv_distance: tvs.length === 0 ? 0 : tvs.reduce((s, x) => s + x, 0) / tvs.length,
    per_item: perItem,
    instrument_failures: {
      run_a: a.items.filter(isInstrumentFailure).map((it) => it.id),
      run_b: b.items
        .filter((it) => isInstrumentFailure(it) && a.items.some((x) => x.id === it.id))
        .map((it) => it.id),
    },
    differences,
    guard,
    warnings,
    undefined_reasons: reasons,
  };
}
