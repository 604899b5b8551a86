/**
 * A run's provider with its secrets kept out: one redactor per run (io/net/redact.ts) knows the secret values (the
 * API key, a password in the base URL) and is applied where provider text enters (completions, error messages).
 */
import {
  ProviderError,
  type Completion,
  type CompletionRequest,
  type Provider,
} from './providers/provider.js';
import type { Redactor } from '../io/net/redact.js';

/**
 * A provider whose completions and errors carry no secret: what the server sends back (an echoed key in an error,
 * a completion quoting it) is redacted before the runner journals, logs or records it.
 */
export function redactingProvider(inner: Provider, redactor: Redactor): Provider {
  return {
    name: inner.name,
    async complete(request: CompletionRequest, signal: AbortSignal): Promise<Completion> {
      let completion: Completion;
      try {
        completion = await inner.complete(request, signal);
      } catch (error) {
        throw redactError(error, redactor);
      }
      return {
        ...completion,
        text: redactor.text(completion.text),
        // A tool call's name and arguments are model text too (they are journaled, sent back and recorded).
        ...(completion.toolCalls !== undefined
          ? {
              toolCalls: completion.toolCalls.map((c) => ({
                id: redactor.text(c.id),
                name: redactor.text(c.name),
                arguments: redactor.text(c.arguments),
              })),
            }
          : {}),
        finishReason: completion.finishReason === null ? null : redactor.text(completion.finishReason),
        requestId: completion.requestId === null ? null : redactor.text(completion.requestId),
      };
    },
  };
}

function redactError(error: unknown, redactor: Redactor): unknown {
  if (error instanceof ProviderError) {
    return new ProviderError(error.kind, redactor.text(error.message), {
      transient: error.transient,
      retryAfterMs: error.retryAfterMs,
      status: error.status,
    });
  }
  if (error instanceof Error) {
    // An abort keeps its identity (the runner tells a user's interrupt from a failure by it).
    if (error.name === 'AbortError') return error;
    const copy = new Error(redactor.text(error.message));
    copy.name = error.name;
    return copy;
  }
  return typeof error === 'string' ? redactor.text(error) : error;
}
