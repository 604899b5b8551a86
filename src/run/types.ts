/** Shapes shared by the evaluation runner. Field names follow the infereval evaluation (η) document. */

export type Verdict = 'good' | 'bad' | 'abstain';
export type TieBreak = 'abstain' | 'good' | 'bad' | 'first';
export type QuestionForm = 'support' | 'coherence';
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

/** The part of a benchmark the runner reads (the full type lives in formats/infereval). */
export interface BenchmarkBearer {
  expression: string;
  paraphrases?: string[];
}

export interface TemplateBuilder {
  kind?: 'template';
  template?: string;
  joiner?: string;
}

export interface BenchmarkLike {
  id: string;
  bearers: Record<string, BenchmarkBearer>;
  analysts: unknown[];
  items: BenchmarkItemLike[];
  context_builders?: {
    premise?: TemplateBuilder | { kind: 'plugin'; plugin: string };
    conclusion?: TemplateBuilder | { kind: 'plugin'; plugin: string };
  } | null;
  verification_prompt?: {
    template: string;
    system?: string | null;
    parse_regex?: string | null;
    id?: string | null;
  } | null;
  coherence_frame_id?: string | null;
  references?: unknown[];
}

export interface BenchmarkItemLike {
  id: string;
  premises: string[];
  conclusions: string[];
  analyst_verdicts: Verdict[];
  analyst_rationales?: string[] | null;
  tags?: string[];
  references?: unknown[];
}
