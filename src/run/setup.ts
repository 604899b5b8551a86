/** Building a run from plain options: the benchmark (validated, normalised, hashed) and the provider. */
import { benchmarkHash } from '../formats/infereval/hash.js';
import { loadInfereval } from '../validate/infereval.js';
import type { Benchmark } from '../formats/infereval/types.js';
import { UsageError } from '../errors.js';
import type { Provider } from './providers/provider.js';
import { createReplayProvider, recordingProvider } from './providers/replay.js';
import { createRedactor, urlSecrets } from '../io/net/redact.js';
import { redactingProvider } from './redact.js';
import type { BenchmarkLike } from './types.js';

export const PROVIDERS = ['openai', 'anthropic', 'openrouter', 'replay'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export interface LoadedBenchmark {
  benchmark: BenchmarkLike;
  normalised: Benchmark;
  hash: string;
}

export async function loadBenchmarkForRun(path: string): Promise<LoadedBenchmark> {
  const normalised = await loadInfereval(path, 'benchmark');
  return {
    benchmark: normalised as unknown as BenchmarkLike,
    normalised,
    hash: benchmarkHash(normalised as unknown as Record<string, unknown>),
  };
}

export interface ProviderSetup {
  provider: ProviderName;
  baseUrl?: string;
  /** Name of the environment variable holding the API key (default OPENAI_API_KEY / ANTHROPIC_API_KEY). */
  apiKeyEnv?: string;
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Largest response body read from the provider (default DEFAULT_MAX_RESPONSE_BYTES). */
  maxResponseBytes?: number;
  replayFrom?: string;
  record?: string;
  /** OpenRouter attribution headers (HTTP-Referer, X-Title). */
  httpReferer?: string;
  xTitle?: string;
}

/** OpenRouter: an OpenAI-compatible endpoint, reached through the same client with its own URL and key. */
export const OPENROUTER_BASE_URL = 'https://openrouter.ai/api/v1';

export function defaultApiKeyEnv(provider: ProviderName): string {
  return provider === 'anthropic'
    ? 'ANTHROPIC_API_KEY'
    : provider === 'openrouter'
      ? 'OPENROUTER_API_KEY'
      : 'OPENAI_API_KEY';
}

/**
 * Whether the provider's API takes a sampling seed. Anthropic's Messages API has none: the seed is recorded in the
 * η (as the reference does) but not sent, and the caller should say so.
 */
export function providerAcceptsSeed(provider: ProviderName): boolean {
  return provider !== 'anthropic';
}

/** An environment variable's name (the key itself given by mistake must not be echoed back). */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The provider, its answers and errors redacted of the API key and URL credentials, wrapped for recording when
 * asked. `close()` flushes a recording.
 */
export async function createProvider(
  setup: ProviderSetup,
): Promise<{ provider: Provider; close(): Promise<void> }> {
  let provider: Provider;
  if (setup.provider === 'replay' || setup.replayFrom !== undefined) {
    if (setup.replayFrom === undefined) {
      throw new UsageError(
        'run.replay-needs-fixture',
        'the replay provider needs a recorded fixture (JSONL)',
      );
    }
    provider = await createReplayProvider(setup.replayFrom);
  } else {
    const envName = setup.apiKeyEnv ?? defaultApiKeyEnv(setup.provider);
    if (!ENV_NAME.test(envName)) {
      throw new UsageError(
        'run.api-key-env-name',
        'the API key environment variable must be named by its name (letters, digits, _), not given as a value; ' +
          'the value given is not repeated here in case it is the key itself',
      );
    }
    let apiKey = setup.env[envName];
    if (apiKey === undefined || apiKey === '') {
      // A local OpenAI-compatible server (vLLM, Ollama, llama.cpp) usually wants no key.
      if (setup.provider === 'openai' && setup.baseUrl !== undefined && setup.apiKeyEnv === undefined)
        apiKey = 'none';
      else {
        throw new UsageError(
          'run.api-key-missing',
          `the API key is read from the environment variable ${envName}, which is not set`,
        );
      }
    }
    const headers: Record<string, string> = {};
    if (setup.httpReferer !== undefined) headers['HTTP-Referer'] = setup.httpReferer;
    if (setup.xTitle !== undefined) headers['X-Title'] = setup.xTitle;
    const options = {
      apiKey,
      baseURL: setup.baseUrl ?? (setup.provider === 'openrouter' ? OPENROUTER_BASE_URL : undefined),
      timeoutMs: setup.timeoutMs,
      headers,
      name: setup.provider,
      maxResponseBytes: setup.maxResponseBytes,
    };
    // The SDKs are loaded only when a run needs one (they are large; every other command starts faster).
    provider =
      setup.provider === 'anthropic'
        ? (await import('./providers/anthropic.js')).createAnthropicProvider(options)
        : (await import('./providers/openai.js')).createOpenAIProvider(options);
    provider = redactingProvider(provider, createRedactor([apiKey, ...urlSecrets(setup.baseUrl)]));
  }
  if (setup.record !== undefined) {
    const recording = await recordingProvider(provider, setup.record);
    return { provider: recording, close: () => recording.close() };
  }
  return { provider, close: async () => {} };
}
