/** The settings both official SDK clients (OpenAI, Anthropic) are made with: our retries, our fetch, one timeout. */
import { createNodeHttpFetch } from '../../io/net/http-fetch.js';

export interface SdkClientSettings {
  apiKey: string;
  baseURL?: string;
  timeoutMs?: number;
  /** Largest response body read (default DEFAULT_MAX_RESPONSE_BYTES). */
  maxResponseBytes?: number;
}

export function sdkClientOptions(settings: SdkClientSettings) {
  return {
    apiKey: settings.apiKey,
    baseURL: settings.baseURL,
    maxRetries: 0, // the retry policy is ours (io/net/retry.ts)
    fetch: createNodeHttpFetch({ maxResponseBytes: settings.maxResponseBytes }),
    timeout: settings.timeoutMs ?? 600_000,
  };
}
