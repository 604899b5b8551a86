/** The item's vote as the runner records it: the shared majority vote (metrics) over the samples that did not fail. */
import { sampleFailed } from '../metrics/infereval/model.js';
import { majorityVote as voteVerdicts } from '../metrics/infereval/vote.js';
import type { MajorityVote, SampleRecord, TieBreak } from './types.js';

export function majorityVote(
  samples: readonly Pick<SampleRecord, 'parsed_verdict' | 'provider_error' | 'parse_status'>[],
  tieBreak: TieBreak,
): MajorityVote {
  const verdicts = samples.filter((s) => !sampleFailed(s)).map((s) => s.parsed_verdict);
  const vote = voteVerdicts(verdicts, tieBreak);
  return {
    good: vote.good,
    bad: vote.bad,
    abstain: vote.abstain,
    verdict: vote.verdict,
    tie_broken: vote.tie_broken,
  };
}
