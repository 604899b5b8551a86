/**
 * The settings of a run (evaluate and sweep share them), declared once with their types and checked once, at the
 * boundary: every combination that cannot run is a UsageError before the benchmark's first request.
 */
import { resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { coherenceFrame } from '../formats/infereval/coherence-frames.js';
import { redactUrl } from '../io/net/redact.js';
import { DEFAULT_RETRY, type RetryPolicy } from '../io/net/retry.js';
import type { RunConfig } from './runner.js';
import { providerAcceptsSeed, type LoadedBenchmark, type ProviderName, type ProviderSetup } from './setup.js';
import type { QuestionForm, TieBreak } from './types.js';

/** What decides what is sent and how: the options `evalkit evaluate` and `evalkit sweep` both take. */
export interface RunOptions {
  provider: ProviderName;
  model?: string;
  baseUrl?: string;
  httpReferer?: string;
  xTitle?: string;
  apiKeyEnv?: string;
  nSamples: number;
  temperature: number;
  maxTokens: number;
  topP?: number;
  seed?: number;
  stop?: string[];
  tieBreak: TieBreak;
  questionForm: QuestionForm;
  coherenceFrame?: string;
  paraphraseVariant: number;
  paraphraseCycle?: boolean;
  stripTex?: boolean;
  concurrency: number;
  rateLimit?: number;
  maxAttempts: number;
  timeoutMs: number;
  retryBaseMs: number;
  maxRetryAfterMs: number;
  maxResponseBytes: number;
  maxConsecutiveFailures: number;
  retryFailed?: boolean;
  record?: string;
  replayFrom?: string;
  runId?: string;
}

export interface RunSettings {
  config: RunConfig;
  concurrency: number;
  rateLimit?: number;
  retry: RetryPolicy;
  providerSetup: ProviderSetup;
  runId?: string;
  retryFailed: boolean;
  maxConsecutiveFailures: number;
  /** Run every paraphrase variant in turn. */
  cycle: boolean;
}

export interface SettingsContext {
  env: NodeJS.ProcessEnv;
  /** Fixture paths are resolved against it. */
  cwd: string;
  /** A setting that is kept but has no effect (or is not sent) is said here. */
  warn: (message: string) => void;
}

/** Checks the options and turns them into the settings of a run of `loaded`. */
export function runSettingsFrom(
  opts: RunOptions,
  context: SettingsContext,
  loaded: LoadedBenchmark,
): RunSettings {
  const provider = opts.provider;
  if (opts.model === undefined) throw new UsageError('usage.missing-option', '--model <id> is required');
  if (opts.provider === 'replay' && opts.replayFrom === undefined) {
    throw new UsageError('usage.missing-option', '--provider replay needs --replay-from FIXTURE.jsonl');
  }
  if (opts.baseUrl !== undefined && !URL.canParse(opts.baseUrl)) {
    throw new UsageError(
      'usage.bad-option',
      `--base-url must be an absolute URL such as http://localhost:8000/v1, got "${redactUrl(opts.baseUrl)}"`,
    );
  }
  if (opts.paraphraseCycle && opts.paraphraseVariant !== 0) {
    throw new UsageError('usage.conflict', 'use --paraphrase-variant K or --paraphrase-cycle, not both');
  }
  if (opts.seed !== undefined && !providerAcceptsSeed(provider)) {
    context.warn(
      `--provider ${provider} does not accept a sampling seed; --seed ${opts.seed} is recorded in the η params but not sent`,
    );
  }
  if (opts.coherenceFrame !== undefined) coherenceFrame(opts.coherenceFrame); // an unknown id fails before any call
  if (opts.coherenceFrame !== undefined && opts.questionForm !== 'coherence') {
    context.warn(
      `--coherence-frame ${opts.coherenceFrame} only changes the prompt of --question-form coherence; it is recorded, the support prompt is unchanged`,
    );
  }
  if (
    (opts.httpReferer !== undefined || opts.xTitle !== undefined) &&
    provider !== 'openrouter' &&
    provider !== 'openai'
  ) {
    throw new UsageError(
      'usage.conflict',
      '--http-referer and --x-title are headers of OpenAI-compatible servers (openrouter, openai)',
    );
  }
  return {
    config: {
      providerName: provider,
      model: opts.model,
      baseUrl: opts.baseUrl,
      params: {
        temperature: opts.temperature,
        max_tokens: opts.maxTokens,
        ...(opts.topP !== undefined ? { top_p: opts.topP } : {}),
        ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
        stop: opts.stop ?? [],
      },
      nSamples: opts.nSamples,
      tieBreak: opts.tieBreak,
      prompts: {
        questionForm: opts.questionForm,
        coherenceFrameId: opts.coherenceFrame ?? loaded.benchmark.coherence_frame_id ?? 'thin-v1',
        paraphraseVariant: opts.paraphraseVariant,
        stripTex: opts.stripTex !== false,
      },
    },
    concurrency: opts.concurrency,
    rateLimit: opts.rateLimit,
    retry: {
      ...DEFAULT_RETRY,
      maxAttempts: opts.maxAttempts,
      timeoutMs: opts.timeoutMs,
      baseDelayMs: opts.retryBaseMs,
      maxRetryAfterMs: opts.maxRetryAfterMs,
    },
    providerSetup: {
      provider,
      baseUrl: opts.baseUrl,
      apiKeyEnv: opts.apiKeyEnv,
      env: context.env,
      timeoutMs: opts.timeoutMs,
      maxResponseBytes: opts.maxResponseBytes,
      replayFrom: opts.replayFrom === undefined ? undefined : resolve(context.cwd, opts.replayFrom),
      record: opts.record === undefined ? undefined : resolve(context.cwd, opts.record),
      httpReferer: opts.httpReferer,
      xTitle: opts.xTitle,
    },
    runId: opts.runId,
    retryFailed: Boolean(opts.retryFailed),
    maxConsecutiveFailures: opts.maxConsecutiveFailures,
    cycle: Boolean(opts.paraphraseCycle),
  };
}

/** The part of the settings that governs how requests are sent, as `runEvaluation` and `runSweep` take it. */
export function requestControls(
  settings: RunSettings,
): Pick<RunSettings, 'concurrency' | 'rateLimit' | 'retry' | 'retryFailed' | 'maxConsecutiveFailures'> {
  const { concurrency, rateLimit, retry, retryFailed, maxConsecutiveFailures } = settings;
  return { concurrency, rateLimit, retry, retryFailed, maxConsecutiveFailures };
}
