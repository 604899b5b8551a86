/** Shapes shared by the evaluation runner. Field names follow the infereval evaluation (η) document. */

export type Verdict = 'good' | 'bad' | 'abstain';
export type TieBreak = 'abstain' | 'good' | 'bad' | 'first';
export type ParseStatus = 'ok' | 'unparseable' | 'sample_failed' | 'budget_clipped';

export interface SampleUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  [key: string]: unknown;
}

export interface SampleRecord {
  sample_index: number;
  raw_response: string;
  parsed_verdict: Verdict;
  parse_status: ParseStatus;
  request_id?: string | null;
  wall_time_ms?: number | null;
  usage?: SampleUsage | null;
  finish_reason?: string | null;
  reasoning_tokens?: number | null;
  provider_error?: string | null;
}

export interface MajorityVote {
  good: number;
  bad: number;
  abstain: number;
  verdict: Verdict;
  tie_broken: boolean;
}

export type {
  BenchmarkBearer,
  BenchmarkItemLike,
  BenchmarkLike,
  QuestionForm,
  TemplateBuilder,
} from '../formats/infereval/prompts.js';
