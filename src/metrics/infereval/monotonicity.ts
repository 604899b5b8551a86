// Monotonicity ladders: does the model's verdict move in the declared direction as an ordinal tier rises?
// Only good/bad are ordered (bad < good); abstain is a gap, neither satisfying nor violating the ladder.
import { compareCodePoints } from '../../io/canonical.js';
import {
  isInstrumentFailure,
  isSubstantive,
  type BenchmarkLike,
  type EvaluationLike,
  type Verdict,
} from './model.js';

export interface LadderStep {
  item_id: string;
  tier: string;
  tier_index: number;
  verdict: Verdict;
  /** Every sample of the item failed: a gap that is no abstention of the model's. */
  instrument_failure: boolean;
}

export type LadderStatus = 'monotone' | 'violated' | 'insufficient';

export interface LadderResult {
  ladder: string | null;
  family: string;
  fixed: string | null;
  expected: string;
  steps: LadderStep[];
  /** G / B / · (abstain) / × (instrument failure) per step in tier order. */
  sequence: string;
  n_gaps: number;
  /** Gaps that are instrument failures rather than abstentions. */
  n_instrument_failures: number;
  /** Adjacent strict inversions of the substantive subsequence: [earlier item, later item]. */
  violations: [string, string][];
  status: LadderStatus;
}

export interface MonotonicityReport {
  n_ladders: number;
  n_monotone: number;
  n_violated: number;
  n_insufficient: number;
  /** Ladder items with no verdict in the evaluation (skipped). */
  items_missing_from_evaluation: string[];
  /** Ladder items whose every sample failed. */
  instrument_failures: string[];
  ladders: LadderResult[];
}

const ORDER: Record<string, number> = { bad: 0, good: 1 };
const GLYPH: Record<Verdict, string> = { good: 'G', bad: 'B', abstain: '·' };

export function monotonicity(eta: EvaluationLike, benchmark: BenchmarkLike): MonotonicityReport {
  const verdictById = new Map(eta.items.map((it) => [it.id, it.model_verdict]));
  const failed = new Set(eta.items.filter(isInstrumentFailure).map((it) => it.id));
  const groups = new Map<
    string,
    { ladder: string | null; family: string; fixed: string | null; expected: string; steps: LadderStep[] }
  >();
  const missing: string[] = [];
  for (const item of benchmark.items) {
    const ms = item.monotonicity_step;
    if (!ms) continue;
    const verdict = verdictById.get(item.id);
    if (verdict === undefined) {
      missing.push(item.id);
      continue;
    }
    const key = JSON.stringify([item.ladder ?? null, ms.family, ms.fixed ?? null]);
    let group = groups.get(key);
    if (!group) {
      group = {
        ladder: item.ladder ?? null,
        family: ms.family,
        fixed: ms.fixed ?? null,
        expected: ms.expected ?? 'non_decreasing',
        steps: [],
      };
      groups.set(key, group);
    }
    group.steps.push({
      item_id: item.id,
      tier: ms.tier,
      tier_index: ms.tier_index,
      verdict,
      instrument_failure: failed.has(item.id),
    });
  }
  const ladders: LadderResult[] = [...groups.values()].map((g) => {
    const steps = g.steps.slice().sort((x, y) => x.tier_index - y.tier_index);
    const substantive = steps.filter((s) => isSubstantive(s.verdict));
    const violations: [string, string][] = [];
    for (let i = 1; i < substantive.length; i++) {
      const before = ORDER[substantive[i - 1]!.verdict]!;
      const after = ORDER[substantive[i]!.verdict]!;
      const inverted = g.expected === 'non_increasing' ? after > before : after < before;
      if (inverted) violations.push([substantive[i - 1]!.item_id, substantive[i]!.item_id]);
    }
    const status: LadderStatus =
      violations.length > 0 ? 'violated' : substantive.length < 2 ? 'insufficient' : 'monotone';
    return {
      ladder: g.ladder,
      family: g.family,
      fixed: g.fixed,
      expected: g.expected,
      steps,
      sequence: steps.map((s) => (s.instrument_failure ? '×' : GLYPH[s.verdict])).join(''),
      n_gaps: steps.length - substantive.length,
      n_instrument_failures: steps.filter((s) => s.instrument_failure).length,
      violations,
      status,
    };
  });
  ladders.sort(
    (x, y) =>
      compareCodePoints(x.ladder ?? '', y.ladder ?? '') ||
      compareCodePoints(x.family, y.family) ||
      compareCodePoints(x.fixed ?? '', y.fixed ?? ''),
  );
  return {
    n_ladders: ladders.length,
    n_monotone: ladders.filter((l) => l.status === 'monotone').length,
    n_violated: ladders.filter((l) => l.status === 'violated').length,
    n_insufficient: ladders.filter((l) => l.status === 'insufficient').length,
    items_missing_from_evaluation: missing,
    instrument_failures: ladders.flatMap((l) =>
      l.steps.filter((s) => s.instrument_failure).map((s) => s.item_id),
    ),
    ladders,
  };
}
