/** Turns an error thrown by the openai or @anthropic-ai/sdk client into a ProviderError (both SDKs share a shape). */
import * as AnthropicSdk from '@anthropic-ai/sdk';
import * as OpenAISdk from 'openai';
import { ProviderError, httpError } from './provider.js';

const isConnection = (e: unknown): boolean =>
  e instanceof OpenAISdk.APIConnectionError || e instanceof AnthropicSdk.APIConnectionError;

interface SdkLikeError {
  name?: string;
  message?: string;
  status?: unknown;
  headers?: { get(name: string): string | null };
  error?: unknown;
}

export function fromSdkError(error: unknown): ProviderError {
  if (error instanceof ProviderError) return error;
  // Our fetch's own verdicts (a body over the size limit) reach us as the cause of the SDK's connection error.
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (cause instanceof ProviderError) return cause;
  const e = (error ?? {}) as SdkLikeError;
  const message = e.message ?? String(error);
  if (e.name === 'APIConnectionTimeoutError')
    return new ProviderError('timeout', 'request timed out', { transient: true });
  if (isConnection(error) || e.name === 'APIConnectionError') {
    return new ProviderError('connection', `connection failed: ${message}`, { transient: true });
  }
  if (typeof e.status === 'number') {
    const headers = e.headers && typeof e.headers.get === 'function' ? e.headers : undefined;
    return httpError(e.status, message, headers);
  }
  if (error instanceof SyntaxError) {
    return new ProviderError('bad-json', `malformed JSON in the response: ${message}`, { transient: true });
  }
  const code = (error as { code?: string })?.code;
  if (code === 'ECONNRESET' || code === 'ECONNREFUSED' || code === 'EPIPE' || code === 'UND_ERR_SOCKET') {
    return new ProviderError('connection', `connection failed: ${message}`, { transient: true });
  }
  return new ProviderError('error', message, { transient: false });
}

export function emptyBody(): ProviderError {
  return new ProviderError('empty-body', 'the response had no completion', { transient: true });
}
