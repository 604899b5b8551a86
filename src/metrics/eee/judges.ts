/**
 * Aggregating the scores of several LLM judges (a jury) into one score, as EEE's
 * `llm_scoring.aggregation_method` names them: majority_vote, average, weighted_average, median.
 * Each throws RangeError on empty input or bad weights; none mutates its input.
 */
import { quantileType7 } from '../stats/descriptive.js';

export type AggregationMethod = 'majority_vote' | 'average' | 'weighted_average' | 'median';

export type JudgeTieBreak = 'none' | 'lowest' | 'highest' | 'first';

function nonEmpty(scores: readonly number[], what: string): void {
  if (scores.length === 0) throw new RangeError(`${what}: no judge scores`);
  for (const s of scores) if (!Number.isFinite(s)) throw new RangeError(`${what}: score ${s} is not finite`);
}

/**
 * The most frequent score. A tie between several scores is resolved by `tieBreak`: `none` (default) returns null,
 * `lowest` / `highest` the smallest / largest tied score, `first` the tied score given first.
 */
export function majorityVote(scores: readonly number[], tieBreak: JudgeTieBreak = 'none'): number | null {
  nonEmpty(scores, 'majority_vote');
  const counts = new Map<number, number>();
  for (const s of scores) counts.set(s, (counts.get(s) ?? 0) + 1);
  const top = Math.max(...counts.values());
  const tied = [...counts.entries()].filter(([, c]) => c === top).map(([s]) => s);
  if (tied.length === 1) return tied[0];
  switch (tieBreak) {
    case 'none':
      return null;
    case 'lowest':
      return Math.min(...tied);
    case 'highest':
      return Math.max(...tied);
    case 'first':
      return scores.find((s) => tied.includes(s))!;
  }
}

export function average(scores: readonly number[]): number {
  nonEmpty(scores, 'average');
  let total = 0;
  for (const s of scores) total += s;
  return total / scores.length;
}

/** Σ wᵢ·sᵢ / Σ wᵢ; weights must be finite, non-negative, one per score, not all zero (EEE judge `weight`). */
export function weightedAverage(scores: readonly number[], weights: readonly number[]): number {
  nonEmpty(scores, 'weighted_average');
  if (weights.length !== scores.length) {
    throw new RangeError(`weighted_average: ${scores.length} scores but ${weights.length} weights`);
  }
  let total = 0;
  let weight = 0;
  for (let i = 0; i < scores.length; i++) {
    const w = weights[i];
    if (!Number.isFinite(w) || w < 0)
      throw new RangeError(`weighted_average: weight ${w} is not a finite number ≥ 0`);
    total += w * scores[i];
    weight += w;
  }
  if (weight === 0) throw new RangeError('weighted_average: the weights sum to 0');
  return total / weight;
}

/** The median (mean of the two middle scores for an even count). */
export function median(scores: readonly number[]): number {
  nonEmpty(scores, 'median');
  return quantileType7(scores, 0.5);
}

/** Dispatch by EEE's method name; `weights` are needed for weighted_average only (default: all 1). */
export function aggregateJudgeScores(
  method: AggregationMethod,
  scores: readonly number[],
  options: { weights?: readonly number[]; tieBreak?: JudgeTieBreak } = {},
): number | null {
  switch (method) {
    case 'majority_vote':
      return majorityVote(scores, options.tieBreak);
    case 'average':
      return average(scores);
    case 'weighted_average':
      return weightedAverage(scores, options.weights ?? scores.map(() => 1));
    case 'median':
      return median(scores);
  }
}
