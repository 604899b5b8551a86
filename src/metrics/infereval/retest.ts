// Test–retest reliability: two evaluations of the same benchmark under the same configuration, compared item by item.
import { DataError } from '../../errors.js';
import { compareCodePoints } from '../../io/canonical.js';
import { isJsonObject } from '../../io/json-value.js';
import { cohensKappaResult } from '../stats/kappa.js';
import { isInstrumentFailure, type BenchmarkLike, type EvaluationLike, type Verdict } from './model.js';
import { verdictDistribution } from './vote.js';

export type Stability = 'stable' | 'moderately stable' | 'substantively unstable' | 'undefined';

export interface RetestReport {
  schema_version: '1.0';
  benchmark_id: string | null;
  benchmark_hash: string | null;
  run_a_id: string | null;
  run_b_id: string | null;
  n_items: number;
  n_agreements: number;
  n_disagreements: number;
  agreement_rate: number;
  flip_rate: number;
  test_retest_kappa: number | null;
  stability_verdict: string;
  flipped_items: {
    item_id: string;
    verdict_a: Verdict;
    verdict_b: Verdict;
    factor_levels: Record<string, string> | null;
  }[];
  item_deltas: {
    item_id: string;
    verdict_a: Verdict;
    verdict_b: Verdict;
    entropy_a: number;
    entropy_b: number;
    entropy_delta: number;
    margin_a: number;
    margin_b: number;
    margin_delta: number;
  }[];
  stability: Stability;
  /** Items substantive in both runs (the κ's items). */
  n_substantive_both: number;
  only_in_a: string[];
  only_in_b: string[];
  /** Items whose every sample failed, per run (abstain in the figures above unless excluded). */
  instrument_failures: { run_a: string[]; run_b: string[]; excluded: boolean };
  undefined_reasons: Record<string, string>;
}

/** Stable sorted, comparable form of a value (object keys sorted) for configuration comparison. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    isJsonObject(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => compareCodePoints(a, b))) : v,
  );
}

/** Throws DataError (code retest.mismatch.*) when the two runs cannot be compared as a test–retest pair. */
export function checkRetestCompatibility(a: EvaluationLike, b: EvaluationLike): void {
  const A = a.id ?? 'A';
  const B = b.id ?? 'B';
  if (a.benchmark_id !== b.benchmark_id) {
    throw new DataError(
      'retest.mismatch.benchmark-id',
      `the runs are of different benchmarks: ${A} has benchmark_id ${JSON.stringify(a.benchmark_id)}, ${B} has ${JSON.stringify(b.benchmark_id)}`,
    );
  }
  if (a.benchmark_hash && b.benchmark_hash && a.benchmark_hash !== b.benchmark_hash) {
    throw new DataError(
      'retest.mismatch.benchmark-hash',
      `the benchmark changed between the runs: ${A} has benchmark_hash ${a.benchmark_hash}, ${B} has ${b.benchmark_hash}`,
    );
  }
  const ca = (a.endorsement_config ?? {}) as unknown as Record<string, unknown>;
  const cb = (b.endorsement_config ?? {}) as unknown as Record<string, unknown>;
  // A run elicited under another coherence frame (or question form) asked a different question: say so by name.
  for (const [key, what] of [
    ['question_form', 'question forms'],
    ['coherence_frame_id', 'coherence frames'],
  ] as const) {
    const fa = ca[key] ?? (key === 'question_form' ? 'support' : 'thin-v1');
    const fb = cb[key] ?? (key === 'question_form' ? 'support' : 'thin-v1');
    if (fa !== fb) {
      throw new DataError(
        key === 'question_form' ? 'retest.mismatch.question-form' : 'retest.mismatch.coherence-frame',
        `the runs were elicited under different ${what}: ${A} ${JSON.stringify(fa)}, ${B} ${JSON.stringify(fb)}; a retest compares identical instruments`,
      );
    }
  }
  const differing = [...new Set([...Object.keys(ca), ...Object.keys(cb)])]
    .sort(compareCodePoints)
    .filter((k) => stableJson(ca[k]) !== stableJson(cb[k]));
  if (differing.length > 0) {
    const detail = differing.map((k) => `${k}: ${stableJson(ca[k])} vs ${stableJson(cb[k])}`).join('; ');
    throw new DataError(
      'retest.mismatch.endorsement-config',
      `the runs used different endorsement configurations (${detail}); a retest compares identical setups — use sweep to study a parameter`,
    );
  }
  if ((a.paraphrase_variant ?? 0) !== (b.paraphrase_variant ?? 0)) {
    throw new DataError(
      'retest.mismatch.paraphrase-variant',
      `the runs used different paraphrase variants: ${A} ${a.paraphrase_variant ?? 0}, ${B} ${b.paraphrase_variant ?? 0}`,
    );
  }
}

export function stabilityOf(kappa: number | null): Stability {
  if (kappa === null) return 'undefined';
  return kappa >= 0.8 ? 'stable' : kappa >= 0.6 ? 'moderately stable' : 'substantively unstable';
}

function stabilitySentence(kappa: number | null, flipRate: number, reason: string | undefined): string {
  const pct = (flipRate * 100).toFixed(1);
  if (kappa === null) {
    return `test-retest κ is undefined on this comparison (${reason ?? 'degenerate agreement structure'}); reliability cannot be assessed from this run pair`;
  }
  const k = (kappa >= 0 ? '+' : '') + kappa.toFixed(3);
  const s = stabilityOf(kappa);
  if (s === 'stable') return `test-retest reliability is stable (κ = ${k}); verdict-flip rate ${pct}%.`;
  if (s === 'moderately stable') {
    return `test-retest reliability is moderately stable (κ = ${k}); ${pct}% of items flipped between runs.`;
  }
  return `test-retest reliability is substantively unstable (κ = ${k}); ${pct}% of items flipped between runs — the model's verdicts on this benchmark are not reliable enough for the headline κ_C to be read as signal.`;
}

export interface RetestOptions {
  benchmark?: BenchmarkLike;
  /** Leave out items that are an instrument failure (every sample failed) in either run. */
  excludeFailed?: boolean;
}

/** Compares two runs over the items they share (sorted by id). */
export function retest(a: EvaluationLike, b: EvaluationLike, options: RetestOptions = {}): RetestReport {
  checkRetestCompatibility(a, b);
  const benchmark = options.benchmark;
  const failedA = a.items.filter(isInstrumentFailure).map((it) => it.id);
  const failedB = b.items.filter(isInstrumentFailure).map((it) => it.id);
  const failed = new Set([...failedA, ...failedB]);
  const byIdA = new Map(a.items.map((it) => [it.id, it]));
  const byIdB = new Map(b.items.map((it) => [it.id, it]));
  const common = [...byIdA.keys()]
    .filter((id) => byIdB.has(id) && !(options.excludeFailed && failed.has(id)))
    .sort(compareCodePoints);
  const onlyA = [...byIdA.keys()].filter((id) => !byIdB.has(id)).sort(compareCodePoints);
  const onlyB = [...byIdB.keys()].filter((id) => !byIdA.has(id)).sort(compareCodePoints);
  const factorLevels = new Map<string, Record<string, string>>();
  for (const bi of benchmark?.items ?? []) {
    if (bi.factor_levels && Object.keys(bi.factor_levels).length > 0)
      factorLevels.set(bi.id, { ...bi.factor_levels });
  }
  const va: Verdict[] = [];
  const vb: Verdict[] = [];
  const flipped: RetestReport['flipped_items'] = [];
  const deltas: RetestReport['item_deltas'] = [];
  for (const id of common) {
    const ia = byIdA.get(id)!;
    const ib = byIdB.get(id)!;
    va.push(ia.model_verdict);
    vb.push(ib.model_verdict);
    if (ia.model_verdict !== ib.model_verdict) {
      flipped.push({
        item_id: id,
        verdict_a: ia.model_verdict,
        verdict_b: ib.model_verdict,
        factor_levels: factorLevels.get(id) ?? null,
      });
    }
    const da = verdictDistribution(ia);
    const db = verdictDistribution(ib);
    deltas.push({
      item_id: id,
      verdict_a: ia.model_verdict,
      verdict_b: ib.model_verdict,
      entropy_a: da.entropy,
      entropy_b: db.entropy,
      entropy_delta: Math.abs(da.entropy - db.entropy),
      margin_a: da.margin,
      margin_b: db.margin,
      margin_delta: Math.abs(da.margin - db.margin),
    });
  }
  const k = cohensKappaResult(va, vb);
  const n = common.length;
  const disagreements = flipped.length;
  const flipRate = n === 0 ? 0 : disagreements / n;
  const reasons: Record<string, string> = {};
  if (k.reason) reasons.test_retest_kappa = k.reason;
  return {
    schema_version: '1.0',
    benchmark_id: a.benchmark_id ?? null,
    benchmark_hash: a.benchmark_hash ?? null,
    run_a_id: a.id ?? null,
    run_b_id: b.id ?? null,
    n_items: n,
    n_agreements: n - disagreements,
    n_disagreements: disagreements,
    agreement_rate: n === 0 ? 0 : (n - disagreements) / n,
    flip_rate: flipRate,
    test_retest_kappa: k.value,
    stability_verdict: stabilitySentence(k.value, flipRate, k.reason),
    flipped_items: flipped,
    item_deltas: deltas,
    stability: stabilityOf(k.value),
    n_substantive_both: k.n,
    only_in_a: onlyA,
    only_in_b: onlyB,
    instrument_failures: { run_a: failedA, run_b: failedB, excluded: options.excludeFailed === true },
    undefined_reasons: reasons,
  };
}
