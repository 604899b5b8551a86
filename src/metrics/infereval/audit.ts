// Audit of an evaluation's samples: silent failures (a "verdict" that never came from the model) found and
// removed, coverage and κ_C recomputed. Instrument failure is never reported as the model's abstention.
import { cohensKappaResult } from '../stats/kappa.js';
import { consensusVerdict, type EvaluationLike, type SampleLike, type Verdict } from './model.js';
import { majorityVote } from './vote.js';

export interface SilentFailure {
  item_id: string;
  sample_index: number;
  reasons: string[];
}

export interface AuditReport {
  evaluation_id: string | null;
  n_items: number;
  n_samples: number;
  n_silent_failures: number;
  silent_failures: SilentFailure[];
  /** Items with at least one silent failure. */
  n_items_affected: number;
  /** Items left with no genuine sample: instrument failures, left out of the recomputed figures. */
  instrument_failure_items: string[];
  original: { n: number; coverage: number; cohens_kappa_consensus: number | null };
  recomputed: { n: number; coverage: number; cohens_kappa_consensus: number | null };
  /** Items whose collapsed verdict changes once the silent failures are removed. */
  verdict_changes: { item_id: string; recorded: Verdict; recomputed: Verdict }[];
  undefined_reasons: Record<string, string>;
}

/** Why a sample is a silent failure, or [] when it is a genuine model response. */
export function silentFailureReasons(s: SampleLike): string[] {
  const reasons: string[] = [];
  if (s.provider_error !== undefined && s.provider_error !== null)
    reasons.push(`provider error: ${s.provider_error}`);
  if (s.parsed_verdict === 'abstain') {
    if ((s.raw_response ?? '').trim() === '') reasons.push('abstain with an empty response');
    if (s.wall_time_ms === undefined || s.wall_time_ms === null)
      reasons.push('abstain with no wall time recorded');
    else if (s.wall_time_ms === 0) reasons.push('abstain with a zero wall time');
  }
  return reasons;
}

const coverage = (vs: readonly string[]): number =>
  vs.length === 0 ? 0 : vs.filter((v) => v !== 'abstain').length / vs.length;

export function audit(eta: EvaluationLike): AuditReport {
  const tieBreak = eta.endorsement_config?.tie_break ?? 'abstain';
  const failures: SilentFailure[] = [];
  const instrumentFailures: string[] = [];
  const changes: AuditReport['verdict_changes'] = [];
  const keptModel: Verdict[] = [];
  const keptConsensus: Verdict[] = [];
  let nSamples = 0;
  let affected = 0;
  for (const item of eta.items) {
    const samples = item.samples ?? [];
    nSamples += samples.length;
    const genuine: Verdict[] = [];
    let silentHere = 0;
    samples.forEach((s, idx) => {
      const reasons = silentFailureReasons(s);
      if (reasons.length > 0) {
        silentHere++;
        failures.push({
          item_id: item.id,
          sample_index: (s as { sample_index?: number }).sample_index ?? idx,
          reasons,
        });
      } else {
        genuine.push(s.parsed_verdict);
      }
    });
    if (silentHere > 0) affected++;
    if (samples.length > 0 && genuine.length === 0) {
      instrumentFailures.push(item.id);
      continue;
    }
    const verdict = silentHere > 0 ? majorityVote(genuine, tieBreak).verdict : item.model_verdict;
    if (verdict !== item.model_verdict)
      changes.push({ item_id: item.id, recorded: item.model_verdict, recomputed: verdict });
    keptModel.push(verdict);
    keptConsensus.push(consensusVerdict(item.analyst_verdicts));
  }
  const allModel = eta.items.map((it) => it.model_verdict);
  const allConsensus = eta.items.map((it) => consensusVerdict(it.analyst_verdicts));
  const before = cohensKappaResult(allModel, allConsensus);
  const after = cohensKappaResult(keptModel, keptConsensus);
  const reasons: Record<string, string> = {};
  if (before.reason) reasons['original.cohens_kappa_consensus'] = before.reason;
  if (after.reason) reasons['recomputed.cohens_kappa_consensus'] = after.reason;
  return {
    evaluation_id: eta.id ?? null,
    n_items: eta.items.length,
    n_samples: nSamples,
    n_silent_failures: failures.length,
    silent_failures: failures,
    n_items_affected: affected,
    instrument_failure_items: instrumentFailures,
    original: { n: eta.items.length, coverage: coverage(allModel), cohens_kappa_consensus: before.value },
    recomputed: { n: keptModel.length, coverage: coverage(keptModel), cohens_kappa_consensus: after.value },
    verdict_changes: changes,
    undefined_reasons: reasons,
  };
}
