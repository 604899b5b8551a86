// The parts of an infereval evaluation (η) and benchmark (β) the metrics read. The normalised `Evaluation` /
// `Benchmark` from formats/infereval satisfy these; tests and callers may pass smaller objects of the same shape.
import type {
  Benchmark,
  EvaluationItem,
  Evaluation,
  SampleRecord,
  Verdict,
} from '../../formats/infereval/types.js';

export type { Verdict };

export type SampleLike = Pick<SampleRecord, 'parsed_verdict'> &
  Partial<Pick<SampleRecord, 'raw_response' | 'parse_status' | 'wall_time_ms' | 'provider_error'>>;

export interface VoteCounts {
  good: number;
  bad: number;
  abstain: number;
}

export interface MajorityVoteLike extends VoteCounts {
  verdict: Verdict;
  tie_broken: boolean;
}

export type ItemLike = Pick<EvaluationItem, 'id' | 'analyst_verdicts' | 'model_verdict'> & {
  tags?: readonly string[];
  samples?: readonly SampleLike[];
  majority_vote?: MajorityVoteLike | null;
  premises?: readonly string[];
  conclusions?: readonly string[];
};

export type EvaluationLike = { items: readonly ItemLike[] } & Partial<
  Pick<Evaluation, 'id' | 'benchmark_id' | 'benchmark_hash' | 'paraphrase_variant'>
> & { endorsement_config?: Evaluation['endorsement_config'] };

export type BenchmarkLike = Pick<Benchmark, 'analysts'> & {
  id?: string;
  primary_panel?: string | null;
  items: readonly Pick<
    Benchmark['items'][number],
    | 'id'
    | 'rsr_target'
    | 'monotonicity_step'
    | 'ladder'
    | 'premises'
    | 'conclusions'
    | 'tags'
    | 'factor_levels'
  >[];
};

export const isSubstantive = (v: string): boolean => v === 'good' || v === 'bad';

/** The analysts' consensus c_i: good / bad by strict majority of the substantive votes, else abstain. */
export function consensusVerdict(verdicts: readonly string[]): Verdict {
  let good = 0;
  let bad = 0;
  for (const v of verdicts) {
    if (v === 'good') good++;
    else if (v === 'bad') bad++;
  }
  return good > bad ? 'good' : bad > good ? 'bad' : 'abstain';
}

/** A sample that did not reach the model: the provider failed (or the runner marked it sample_failed). */
export function sampleFailed(sample: SampleLike): boolean {
  return (
    (sample.provider_error !== undefined && sample.provider_error !== null) ||
    sample.parse_status === 'sample_failed'
  );
}

/**
 * Instrument failure: the item has samples and every one of them failed, so its model verdict is no decision of
 * the model's at all (the reference records such items as abstain).
 */
export function isInstrumentFailure(item: ItemLike): boolean {
  const samples = item.samples ?? [];
  return samples.length > 0 && samples.every(sampleFailed);
}
