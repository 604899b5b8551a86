/** The one small interface every model provider implements, and its typed failure. */

export interface CompletionRequest {
  model: string;
  system: string | null;
  user: string;
  /**
   * The whole conversation after the system message (user and assistant turns), when it is more than one user
   * message (`evalkit run` tasks with few-shot `messages`); `user` is then its last user message.
   */
  messages?: ProviderMessage[];
  /** The tools the model may call (an agent task): each function's name, description and JSON Schema of arguments. */
  tools?: { name: string; description: string; parameters: Record<string, unknown> }[];
  temperature: number;
  maxTokens: number;
  topP?: number;
  seed?: number;
  stop: string[];
  /** Stable id of this sample (`run:item:sample-k`); sent as a header so server logs can be correlated. */
  sampleId: string;
  /** Which of the item's n samples this call is (identical prompts are told apart by it when replaying). */
  sampleIndex: number;
}

/** A tool call as the model made it: `arguments` is the JSON text it sent (not necessarily valid JSON). */
export interface ProviderToolCall {
  id: string;
  name: string;
  arguments: string;
}

export type ProviderMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; tool_calls?: ProviderToolCall[] }
  /** A tool's result; `is_error` when it is an error result (Anthropic's tool_result says so, OpenAI's has no field). */
  | { role: 'tool'; content: string; tool_call_id: string; is_error?: boolean };

export interface CompletionUsage {
  input_tokens: number | null;
  output_tokens: number | null;
  reasoning_tokens?: number | null;
  /** Input tokens served from the provider's prompt cache (a part of input_tokens), when it says. */
  cached_input_tokens?: number | null;
}

export interface Completion {
  text: string;
  /** The tools the model called in this turn (absent or empty: a final answer). */
  toolCalls?: ProviderToolCall[];
  finishReason: string | null;
  usage: CompletionUsage | null;
  /** The provider's id for the call (response id or x-request-id), when it gives one. */
  requestId: string | null;
}

export interface Provider {
  readonly name: string;
  complete(request: CompletionRequest, signal: AbortSignal): Promise<Completion>;
}

// The failed-call error and HTTP status helpers are shared with every client of a remote service (io/net).
export { ProviderError, isTransientStatus, retryAfterMs, httpError } from '../../io/net/call-error.js';
