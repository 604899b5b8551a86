// Majority vote over a item's samples and the dispersion of its verdict distribution.
import type { TieBreak } from '../../formats/infereval/types.js';
import {
  sampleFailed,
  type ItemLike,
  type MajorityVoteLike,
  type Verdict,
  type VoteCounts,
} from './model.js';

export type { TieBreak };

/**
 * The collapsed verdict of one item's sample verdicts (failed samples already left out).
 * None → abstain (not tie-broken). A unique maximum wins. A tie that includes abstain → abstain (tie-broken).
 * A good/bad tie → `tieBreak`: abstain, good, bad, or first (the first sample whose verdict is in the tie).
 */
export function majorityVote(verdicts: readonly Verdict[], tieBreak: TieBreak = 'abstain'): MajorityVoteLike {
  const counts: VoteCounts = { good: 0, bad: 0, abstain: 0 };
  for (const v of verdicts) counts[v]++;
  if (verdicts.length === 0) return { ...counts, verdict: 'abstain', tie_broken: false };
  const top = Math.max(counts.good, counts.bad, counts.abstain);
  const leaders = (['good', 'bad', 'abstain'] as const).filter((v) => counts[v] === top);
  if (leaders.length === 1) return { ...counts, verdict: leaders[0]!, tie_broken: false };
  if (leaders.includes('abstain')) return { ...counts, verdict: 'abstain', tie_broken: true };
  let verdict: Verdict;
  if (tieBreak === 'first') verdict = verdicts.find((v) => v === 'good' || v === 'bad') ?? 'abstain';
  else verdict = tieBreak;
  return { ...counts, verdict, tie_broken: true };
}

export interface Dispersion {
  n: number;
  /** Shannon entropy of the good/bad/abstain distribution divided by ln 3 (0 when there are no samples). */
  entropy: number;
  /** (top − second) / n: the plurality margin (0 when there are no samples). */
  margin: number;
}

export function dispersion(counts: VoteCounts): Dispersion {
  const n = counts.good + counts.bad + counts.abstain;
  if (n === 0) return { n, entropy: 0, margin: 0 };
  let h = 0;
  if (counts.good > 0) h -= (counts.good / n) * Math.log(counts.good / n);
  if (counts.bad > 0) h -= (counts.bad / n) * Math.log(counts.bad / n);
  if (counts.abstain > 0) h -= (counts.abstain / n) * Math.log(counts.abstain / n);
  const { good, bad, abstain } = counts;
  const top = Math.max(good, bad, abstain);
  const second = good + bad + abstain - top - Math.min(good, bad, abstain);
  return { n, entropy: h / Math.log(3), margin: (top - second) / n };
}

/** The per-item record the reference reports under `verdict_distributions`. */
export interface VerdictDistribution extends VoteCounts {
  n_samples: number;
  verdict: Verdict;
  tie_broken: boolean;
  entropy: number;
  margin: number;
}

/** Counts from the recorded majority vote, else from the samples that did not fail. */
export function verdictDistribution(item: ItemLike): VerdictDistribution {
  let counts: VoteCounts;
  let tieBroken = false;
  if (item.majority_vote) {
    const mv = item.majority_vote;
    counts = { good: mv.good, bad: mv.bad, abstain: mv.abstain };
    tieBroken = mv.tie_broken;
  } else {
    counts = { good: 0, bad: 0, abstain: 0 };
    for (const s of item.samples ?? []) {
      if (sampleFailed(s)) continue;
      counts[s.parsed_verdict === 'good' ? 'good' : s.parsed_verdict === 'bad' ? 'bad' : 'abstain']++;
    }
  }
  const d = dispersion(counts);
  return {
    good: counts.good,
    bad: counts.bad,
    abstain: counts.abstain,
    n_samples: d.n,
    verdict: item.model_verdict,
    tie_broken: tieBroken,
    entropy: d.entropy,
    margin: d.margin,
  };
}

/** The margin weight of an item (its plurality margin), used by the margin-weighted κ variants. */
export function marginWeight(item: ItemLike): number {
  return verdictDistribution(item).margin;
}
