/**
 * The task model of `evalkit run`: a parsed task (its samples, prompt templates, scorers, epochs and reducer).
 * Any front end that produces this model (a task file, a promptfoo config) runs through the same engine
 * (engine.ts) and the same EEE writer (convert/task-record.ts).
 */
import type { ScorerType } from '../../formats/evalkit/task.js';
import type { ProviderToolCall } from '../providers/provider.js';
import type { CommandSpec } from './command-tool.js';

export type { ScorerType };

export type Row = Record<string, unknown>;

/** One dataset row as the task sees it. Its id and prompt depend on the task and the row only. */
export interface TaskSample {
  /** The sample id: the row's id field, else its 1-based row number. */
  id: string;
  /** Where the row is (`file:line`), for messages. */
  where: string;
  row: Row;
  input: string;
  /** The accepted answers (a target list, or one target). */
  targets: string[];
  choices?: string[];
  /** The sample's own messages (a promptfoo prompt rendered with the test's vars), instead of the task's templates. */
  messages?: ChatMessage[];
  /** The sample's own scorers (a promptfoo test's assertions), instead of the task's; their names are among the task's. */
  scorers?: TaskScorer[];
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface GenerationConfig {
  temperature: number;
  max_tokens: number;
  top_p?: number;
  seed?: number;
  stop: string[];
}

export type ReducerName = 'mean' | 'mode' | 'max' | 'min' | 'pass_at_k';

export interface Reducer {
  name: ReducerName;
  /** pass_at_k's k. */
  k?: number;
}

/** A judge model as a task names it (what is absent comes from the command line). */
export interface JudgeSpec {
  provider?: 'openai' | 'anthropic' | 'openrouter' | 'replay';
  model?: string;
  baseUrl?: string | null;
  apiKeyEnv?: string;
}

/** What one scorer says about one answer. `value` null: no value (a judge failed), kept out of the mean. */
export interface Score {
  value: number | null;
  /** What was compared (the extracted letter, number, group), when the scorer extracts. */
  extracted?: string;
  /** Why there is no value. */
  error?: string;
  /** The stable code of a scorer error (`run.regex-timeout`, `run.json-depth`). */
  code?: string;
}

/** One tool call of a recorded trajectory: the tool's name and its arguments (null when they were no JSON object). */
export interface TrajectoryCall {
  name: string;
  /** The model turn (0-based) that made the call. */
  turn: number;
  arguments: Record<string, unknown> | null;
}

/** What an agent sample did, as trajectory scorers read it from the recorded messages. */
export interface Trajectory {
  /** Every tool call, in order (parallel calls of one turn in the order the model gave them). */
  calls: TrajectoryCall[];
  /** The model's turns (assistant messages). */
  turns: number;
}

/** A scorer that needs no model: a pure function of the answer and the sample (and the trajectory, for agents). */
export interface LocalScorer {
  kind: 'local';
  type: ScorerType | `promptfoo:${string}`;
  name: string;
  /** A trajectory scorer reads the tool calls: only an agent task (with `tools:`) can use it. */
  trajectory?: boolean;
  score(answer: string, sample: TaskSample, trajectory?: Trajectory): Score;
  /** Facts for metric_config.additional_details. */
  details: Record<string, string>;
}

/** A scorer that asks a judge model: the prompt it sends and how it reads the reply. */
export interface JudgeScorer {
  kind: 'judge';
  type: 'model_graded';
  name: string;
  judge: JudgeSpec;
  /** The template's text and where it came from. */
  template: { text: string; source: string };
  grades: Record<string, number>;
  /** `transcript`: an agent sample's whole conversation as text (`{{transcript}}` in the template). */
  prompt(answer: string, sample: TaskSample, transcript?: string): ChatMessage[];
  grade(reply: string): Score;
  details: Record<string, string>;
}

/** A scorer whose value follows from the sample's other scores (promptfoo's test pass), computed after them. */
export interface DerivedScorer {
  kind: 'derived';
  type: `promptfoo:${string}`;
  name: string;
  derive(scores: Record<string, Score>): Score;
  details: Record<string, string>;
}

export type TaskScorer = LocalScorer | JudgeScorer | DerivedScorer;

export interface Task {
  name: string;
  description?: string;
  /** The task file (absolute), or what stands for it in another front end. */
  source: string;
  dataset: { path: string; fields: { id: string; input: string; target: string; choices?: string } };
  samples: TaskSample[];
  system?: string;
  messages?: ChatMessage[];
  /** The prompt templates as the record states them, when the samples carry their own messages (a promptfoo config). */
  promptTemplate?: string;
  scorers: TaskScorer[];
  epochs: number;
  reducer: Reducer;
  generation: GenerationConfig;
  /** An agent task's tools: the model may call them, turn after turn, within `limits`. */
  tools?: TaskTool[];
  limits?: TaskLimits;
  /** sha256 of what decides the requests and the scores (the task as parsed and the rows). */
  digest: string;
}

export type ToolKind = 'table' | 'command' | 'calculator' | 'submit';

export interface TaskTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments (sent to the model as the function's parameters). */
  parameters: Record<string, unknown>;
  kind: ToolKind;
  /** A table tool's file (relative to the task file, as written) and its results by canonical arguments. */
  table?: { source: string; results: Map<string, unknown> };
  /** A command tool's executable and bounds (`source`: the command as the task file writes it). */
  command?: CommandSpec & { source: string[]; sha256: string | null };
  validate: ((value: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] | null };
}

export type TaskLimits = {
  max_turns: number;
  max_tool_calls?: number;
  token_limit?: number;
  time_limit_s?: number;
  /** Most US dollars per sample, summed over turns at the model's price (needs --prices). */
  cost_limit_usd?: number;
};

/** One provider call as the journal keeps it: the answer (or the judge's reply), or why there is none. */
export interface CallRecord {
  /** The epoch (0-based). */
  sample_index: number;
  text: string | null;
  /** The tools the model called in this turn (an agent task). */
  tool_calls?: ProviderToolCall[];
  error?: string;
  finish_reason: string | null;
  /** `cached_input_tokens` (a part of the input tokens, served from the provider's cache) only when reported. */
  usage: {
    input_tokens: number | null;
    output_tokens: number | null;
    cached_input_tokens?: number | null;
  } | null;
  latency_ms: number;
  request_id: string | null;
  attempts: number;
}
