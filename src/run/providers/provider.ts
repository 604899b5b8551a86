/** The one small interface every model provider implements, and its typed failure. */

export interface CompletionRequest {
  model: string;
  system: string | null;
  user: string;
  /**
   * The whole conversation after the system message (user and assistant turns), when it is more than one user
   * message (`evalkit run` tasks with few-shot `messages`); `user` is then its last user message.
   */
  messages?: { role: 'user' | 'assistant'; content: string }[];
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

export interface CompletionUsage {
  input_tokens: number | null;
  output_tokens: number | null;
  reasoning_tokens?: number | null;
}

export interface Completion {
  text: string;
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
