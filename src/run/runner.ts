/**
 * The evaluation runner: every (item, sample) of a benchmark through one provider with bounded concurrency,
 * a rate limit and our retry policy; each finished sample is journaled before it counts; items are voted and
 * written in benchmark order. Re-running with the same journal continues where a run stopped.
 */
import { createHash, randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { DataError } from '../errors.js';
import { canonicalJson } from '../io/canonical.js';
import { acquireLock } from '../io/lock.js';
import { coherenceFrame } from '../formats/infereval/coherence-frames.js';
import { openEtaWriter } from './eta-writer.js';
import { openJournal } from './journal.js';
import { parseCoherence, parseVerdict } from './parse.js';
import {
  planPrompts,
  type Prompt,
  type PromptOptions,
  type PromptPlan,
} from '../formats/infereval/prompts.js';
import type { Completion, CompletionRequest, Provider } from './providers/provider.js';
import { createRateLimiter } from './rate-limit.js';
import { withRetry, type RetryHooks, type RetryPolicy } from '../io/net/retry.js';
import { redactUrl } from '../io/net/redact.js';
import { nullRunLog, type RunLog } from './run-log.js';
import { checkUsage } from './usage.js';
import type {
  BenchmarkItemLike,
  BenchmarkLike,
  MajorityVote,
  SampleRecord,
  TieBreak,
  Verdict,
} from './types.js';
import { majorityVote } from './vote.js';
import { WorkerPool } from './workers.js';

export const FRAMEWORK_VERSION = 'evalkit-0.1.0';

/** A run stops after this many samples in a row failed the same way (a dead server, a wrong key, a stale fixture). */
export const DEFAULT_MAX_CONSECUTIVE_FAILURES = 20;

export interface DecodingParams {
  temperature: number;
  max_tokens: number;
  top_p?: number;
  seed?: number;
  stop: string[];
}

export interface RunConfig {
  providerName: string;
  model: string;
  /** Part of the journal key: a different server may serve a different model under the same name. */
  baseUrl?: string;
  params: DecodingParams;
  nSamples: number;
  tieBreak: TieBreak;
  prompts: PromptOptions;
}

export interface RunOptions extends RunControl {
  benchmark: BenchmarkLike;
  benchmarkHash?: string;
  config: RunConfig;
  provider: Provider;
  outputPath: string;
  journalPath: string;
  runId?: string;
  /** The η id when it must differ from the journal's run id (sweep runs sharing one journal). */
  etaId?: string;
  retryHooks?: RetryHooks;
  /** Take the lock beside the output (default true; a caller that holds it already passes false). */
  lock?: boolean;
}

/** How a run sends its requests and reports, the same for `evaluate`'s runner and `run`'s task engine. */
export interface RunControl {
  concurrency: number;
  rateLimit?: number;
  retry: RetryPolicy;
  /** Re-send samples the journal holds as failed. */
  retryFailed?: boolean;
  /**
   * Stop once this many finished samples in a row failed with the same kind of error (default
   * DEFAULT_MAX_CONSECUTIVE_FAILURES; 0 never stops). What is journaled is kept; `evaluate` writes no η then.
   */
  maxConsecutiveFailures?: number;
  log?: RunLog;
  signal?: AbortSignal;
  onProgress?: (progress: RunProgress) => void;
  now?: () => Date;
}

export interface RunProgress {
  itemsDone: number;
  itemsTotal: number;
  samplesDone: number;
  samplesTotal: number;
  samplesFailed: number;
  tokens: number;
  elapsedMs: number;
}

export interface RunSummary {
  runId: string;
  outputPath: string;
  resumed: boolean;
  items: number;
  samples: number;
  /** Samples taken from the journal of an earlier, interrupted run. */
  reused: number;
  /** Provider calls that produced a sample in this run (not counting retries). */
  called: number;
  retries: number;
  failed: number;
  failuresByKind: Record<string, number>;
  statuses: Record<string, number>;
  verdicts: Record<Verdict, number>;
  /** Items whose every sample failed (their vote is abstain in the η, but the model never answered). */
  itemsAllFailed: number;
  /** Samples whose provider usage had fields that were not sane counts (dropped, see the run log). */
  usageDropped: number;
  inputTokens: number;
  outputTokens: number;
  elapsedMs: number;
  samplesPerSecond: number;
}

/**
 * Everything that decides what a sample is (not n_samples or tie_break, which only decide the vote), by setting;
 * the journal keeps it so that a changed setting can be named. The base URL is kept without credentials.
 */
export function sampleConfigKey(
  benchmark: BenchmarkLike,
  config: RunConfig,
  plan: PromptPlan,
): Record<string, unknown> {
  return {
    benchmark: createHash('sha256')
      .update(
        canonicalJson({
          bearers: benchmark.bearers,
          items: benchmark.items.map(promptPart),
          cb: benchmark.context_builders ?? null,
          vp: benchmark.verification_prompt ?? null,
        }),
      )
      .digest('hex'),
    provider: config.providerName,
    base_url: config.baseUrl === undefined ? null : redactUrl(config.baseUrl),
    model: config.model,
    params: config.params,
    prompts: config.prompts,
    prompt_id: plan.promptId,
    parse_regex: plan.parseRegex,
    // The coherence form's system prompt is the frame's text (none was sent before frames existed): a journal made
    // under other text must not be resumed. Support runs keep the key they had.
    ...(config.prompts.questionForm === 'coherence'
      ? {
          coherence_system: createHash('sha256')
            .update(coherenceFrame(config.prompts.coherenceFrameId).system)
            .digest('hex'),
        }
      : {}),
  };
}

/** The hash of the sample configuration (`sampleConfigKey`). */
export function sampleConfigHash(benchmark: BenchmarkLike, config: RunConfig, plan: PromptPlan): string {
  return configKeyHash(sampleConfigKey(benchmark, config, plan));
}

const configKeyHash = (key: Record<string, unknown>): string =>
  createHash('sha256').update(canonicalJson(key)).digest('hex').slice(0, 16);

function promptPart(item: BenchmarkItemLike): unknown {
  return { id: item.id, premises: item.premises, conclusions: item.conclusions };
}

export function sampleId(runId: string, itemId: string, index: number): string {
  return `${runId}:${itemId}:sample-${index}`;
}

export function buildRequest(
  plan: PromptPlan,
  config: RunConfig,
  item: BenchmarkItemLike,
  runId: string,
  index: number,
  prompt: Prompt = plan.build(item),
): CompletionRequest {
  return {
    model: config.model,
    system: prompt.system,
    user: prompt.user,
    temperature: config.params.temperature,
    maxTokens: config.params.max_tokens,
    topP: config.params.top_p,
    seed: config.params.seed,
    stop: config.params.stop,
    sampleId: sampleId(runId, item.id, index),
    sampleIndex: index,
  };
}

export function sampleFromCompletion(
  plan: PromptPlan,
  index: number,
  id: string,
  completion: Completion,
  wallMs: number,
): SampleRecord {
  const parsed =
    plan.parseMode === 'first'
      ? parseCoherence(completion.text, plan.parseRegex, completion.finishReason)
      : parseVerdict(completion.text, plan.parseRegex, completion.finishReason);
  const usage = checkUsage(completion.usage).usage;
  const record: SampleRecord = {
    sample_index: index,
    raw_response: completion.text,
    parsed_verdict: parsed.verdict,
    parse_status: parsed.status,
    request_id: id,
    wall_time_ms: wallMs,
    usage: usage ? { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens } : null,
    finish_reason: completion.finishReason,
  };
  if (usage?.reasoning_tokens != null) record.reasoning_tokens = usage.reasoning_tokens;
  return record;
}

/** The η fields before the items, and the item record. Shared with sweep (which re-votes journaled samples). */
export function etaHead(options: {
  runId: string;
  benchmark: BenchmarkLike;
  benchmarkHash?: string;
  config: RunConfig;
  plan: PromptPlan;
  startedAt: string;
}): Record<string, unknown> {
  const { config, plan } = options;
  const params: Record<string, unknown> = {
    temperature: config.params.temperature,
    max_tokens: config.params.max_tokens,
  };
  if (config.params.top_p !== undefined) params.top_p = config.params.top_p;
  if (config.params.seed !== undefined) params.seed = config.params.seed;
  params.stop = config.params.stop;
  const head: Record<string, unknown> = {
    schema_version: '1.0',
    id: options.runId,
    benchmark_id: options.benchmark.id,
  };
  if (options.benchmarkHash !== undefined) head.benchmark_hash = options.benchmarkHash;
  Object.assign(head, {
    model: { provider: config.providerName, model_id: config.model, params },
    endorsement_config: {
      n_samples: config.nSamples,
      tie_break: config.tieBreak,
      verification_prompt_id: plan.promptId,
      context_builder_premise_id: plan.premiseBuilderId,
      context_builder_conclusion_id: plan.conclusionBuilderId,
      question_form: config.prompts.questionForm,
      coherence_frame_id: config.prompts.coherenceFrameId,
    },
    framework_version: FRAMEWORK_VERSION,
    started_at: options.startedAt,
  });
  return head;
}

export function etaItem(
  item: BenchmarkItemLike,
  samples: SampleRecord[],
  vote: MajorityVote,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: item.id,
    premises: item.premises,
    conclusions: item.conclusions,
    analyst_verdicts: item.analyst_verdicts,
  };
  if (item.analyst_rationales != null) out.analyst_rationales = item.analyst_rationales;
  Object.assign(out, {
    model_verdict: vote.verdict,
    samples,
    majority_vote: vote,
    tags: item.tags ?? [],
    references: item.references ?? [],
  });
  return out;
}

interface ItemState {
  index: number;
  item: BenchmarkItemLike;
  samples: (SampleRecord | undefined)[];
  remaining: number;
  /** Built once for the item's samples. */
  prompt?: Prompt;
}

/**
 * Runs an evaluation under an exclusive lock beside its output (`<η>.lock`): a second run with the same output is
 * refused (IoError `io.locked`, naming the owner) instead of truncating the journal and sending every request twice.
 */
export async function runEvaluation(options: RunOptions): Promise<RunSummary> {
  const lock = options.lock === false ? undefined : await acquireLock(options.outputPath, 'evaluate');
  try {
    return await runEvaluationUnlocked(options);
  } finally {
    lock?.release();
  }
}

async function runEvaluationUnlocked(options: RunOptions): Promise<RunSummary> {
  const { benchmark, config, provider } = options;
  const log = options.log ?? nullRunLog;
  const now = options.now ?? (() => new Date());
  const signal = options.signal ?? new AbortController().signal;
  setMaxListeners(0, signal); // one listener per request in flight
  const plan = planPrompts(benchmark, config.prompts);
  for (const item of benchmark.items) plan.build(item); // every prompt can be built before anything is sent

  const configKey = sampleConfigKey(benchmark, config, plan);
  const configHash = configKeyHash(configKey);
  const journal = await openJournal(options.journalPath, {
    run_id: options.runId ?? randomUUID(),
    config_hash: configHash,
    config: configKey,
    started_at: now().toISOString(),
  });
  const runId = journal.header.run_id;
  const n = config.nSamples;
  const itemsTotal = benchmark.items.length;
  const writer = await openEtaWriter(
    options.outputPath,
    etaHead({
      runId: options.etaId ?? runId,
      benchmark,
      benchmarkHash: options.benchmarkHash,
      config,
      plan,
      startedAt: journal.header.started_at,
    }),
  );
  const limiter = createRateLimiter(options.rateLimit);
  const t0 = performance.now();
  const summary: RunSummary = {
    runId,
    outputPath: options.outputPath,
    resumed: journal.resumed,
    items: itemsTotal,
    samples: 0,
    reused: 0,
    called: 0,
    retries: 0,
    failed: 0,
    failuresByKind: {},
    statuses: {},
    verdicts: { good: 0, bad: 0, abstain: 0 },
    itemsAllFailed: 0,
    usageDropped: 0,
    inputTokens: 0,
    outputTokens: 0,
    elapsedMs: 0,
    samplesPerSecond: 0,
  };
  let itemsDone = 0;
  const progress = (): void =>
    options.onProgress?.({
      itemsDone,
      itemsTotal,
      samplesDone: summary.samples,
      samplesTotal: itemsTotal * n,
      samplesFailed: summary.failed,
      tokens: summary.inputTokens + summary.outputTokens,
      elapsedMs: performance.now() - t0,
    });

  log.event('run', {
    run_id: runId,
    resumed: journal.resumed,
    benchmark_id: benchmark.id,
    provider: config.providerName,
    model: config.model,
    base_url: config.baseUrl === undefined ? null : redactUrl(config.baseUrl),
    params: config.params,
    n_samples: n,
    tie_break: config.tieBreak,
    prompts: config.prompts,
    concurrency: options.concurrency,
    rate_limit: options.rateLimit ?? null,
    items: itemsTotal,
    config_hash: configHash,
  });

  const count = (s: SampleRecord): void => {
    summary.samples++;
    summary.statuses[s.parse_status] = (summary.statuses[s.parse_status] ?? 0) + 1;
    if (s.parse_status === 'sample_failed') {
      summary.failed++;
      const kind = (s.provider_error ?? 'error').split(':')[0];
      summary.failuresByKind[kind] = (summary.failuresByKind[kind] ?? 0) + 1;
    }
    summary.inputTokens += s.usage?.input_tokens ?? 0;
    summary.outputTokens += s.usage?.output_tokens ?? 0;
  };

  const completeItem = async (state: ItemState): Promise<void> => {
    const samples = state.samples as SampleRecord[];
    const vote = majorityVote(samples, config.tieBreak);
    summary.verdicts[vote.verdict]++;
    if (samples.every((s) => s.parse_status === 'sample_failed')) summary.itemsAllFailed++;
    itemsDone++;
    state.prompt = undefined;
    log.event('item', {
      item: state.item.id,
      verdict: vote.verdict,
      good: vote.good,
      bad: vote.bad,
      abstain: vote.abstain,
      tie_broken: vote.tie_broken,
    });
    await writer.add(state.index, etaItem(state.item, samples, vote));
  };

  // Work: one task per sample not yet journaled, generated lazily in benchmark order.
  const seenIds = new Set<string>();
  function* tasks(): Generator<{ state: ItemState; index: number } | { complete: ItemState }> {
    for (let i = 0; i < itemsTotal; i++) {
      const item = benchmark.items[i];
      if (seenIds.has(item.id)) throw new Error(`duplicate item id "${item.id}"`);
      seenIds.add(item.id);
      const journaled = journal.done.get(item.id);
      journal.done.delete(item.id);
      const state: ItemState = { index: i, item, samples: new Array(n).fill(undefined), remaining: 0 };
      const todo: number[] = [];
      for (let k = 0; k < n; k++) {
        const prior = journaled?.get(k);
        if (prior !== undefined && !(options.retryFailed && prior.parse_status === 'sample_failed')) {
          state.samples[k] = prior;
          summary.reused++;
          count(prior);
        } else todo.push(k);
      }
      state.remaining = todo.length;
      if (todo.length === 0) yield { complete: state };
      for (const k of todo) yield { state, index: k };
    }
  }

  const runSample = async (state: ItemState, index: number): Promise<void> => {
    state.prompt ??= plan.build(state.item);
    const request = buildRequest(plan, config, state.item, runId, index, state.prompt);
    await limiter.acquire(signal);
    const result = await withRetry((s) => provider.complete(request, s), options.retry, signal, {
      ...options.retryHooks,
      onRetry: (info) => {
        summary.retries++;
        log.event('retry', {
          item: state.item.id,
          sample_index: index,
          attempt: info.attempt,
          delay_ms: info.delayMs,
          ...(info.retryAfterMs === undefined
            ? {}
            : { retry_after_ms: info.retryAfterMs, retry_after_capped: info.retryAfterCapped === true }),
          error: info.error.kind,
          status: info.error.status ?? null,
          message: info.error.message,
        });
        options.retryHooks?.onRetry?.(info);
      },
    });
    let sample: SampleRecord;
    let usageDropped: string[] = [];
    if (result.value !== undefined) {
      usageDropped = checkUsage(result.value.usage).dropped;
      sample = sampleFromCompletion(plan, index, request.sampleId, result.value, result.lastAttemptMs);
    } else {
      const error = result.error!;
      sample = {
        sample_index: index,
        raw_response: '',
        parsed_verdict: 'abstain',
        parse_status: 'sample_failed',
        request_id: request.sampleId,
        wall_time_ms: result.lastAttemptMs,
        usage: null,
        finish_reason: null,
        provider_error: `${error.kind}: ${error.message} (after ${result.attempts} attempt${result.attempts === 1 ? '' : 's'})`,
      };
    }
    // The sample counts once its journal line is on disk. The worker does not wait for that: it takes the next
    // sample while the journal syncs (group commit), so the disk never throttles the request pipeline.
    const durable = journal.append(state.item.id, sample).then(async () => {
      summary.called++;
      count(sample);
      if (usageDropped.length > 0) summary.usageDropped++;
      noteFailureStreak(sample, result.error?.kind);
      log.event('sample', {
        item: state.item.id,
        sample_index: index,
        status: sample.parse_status,
        verdict: sample.parsed_verdict,
        attempts: result.attempts,
        wall_time_ms: sample.wall_time_ms,
        usage: sample.usage,
        finish_reason: sample.finish_reason,
        provider_request_id: result.value?.requestId ?? null,
        provider_error: sample.provider_error ?? null,
        ...(usageDropped.length > 0 ? { usage_dropped: usageDropped } : {}),
      });
      state.samples[index] = sample;
      state.remaining--;
      if (state.remaining === 0) await completeItem(state);
      progress();
    });
    pool.track(durable);
  };

  // Stopping early: the same failure on every sample in a row means nothing will answer; waiting out every retry
  // of every sample would only delay that news (and, with a paid provider, pay for it).
  const maxStreak = options.maxConsecutiveFailures ?? DEFAULT_MAX_CONSECUTIVE_FAILURES;
  let streak = { kind: '', count: 0, example: '' };
  const noteFailureStreak = (sample: SampleRecord, kind: string | undefined): void => {
    if (sample.parse_status !== 'sample_failed' || kind === undefined) {
      streak = { kind: '', count: 0, example: '' };
      return;
    }
    streak =
      kind === streak.kind
        ? { ...streak, count: streak.count + 1 }
        : { kind, count: 1, example: sample.provider_error ?? kind };
    if (maxStreak > 0 && streak.count >= maxStreak && !pool.stopped) {
      pool.fail(
        new DataError(
          'run.stopped-early',
          `stopped after ${streak.count} samples in a row failed the same way (${streak.example}); ` +
            `the ${summary.samples} finished samples are journaled in ${options.journalPath} and no evaluation was written — ` +
            'fix the cause and run the same command again (sending the failed samples again) to resume',
        ),
      );
      log.event('finish', { stopped_early: true, reason: streak.example, ...summary });
    }
  };

  const source = tasks();
  const pool = new WorkerPool(options.concurrency, signal);
  try {
    await pool.run(source, async (next) => {
      if ('complete' in next) {
        await completeItem(next.complete);
        progress();
      } else await runSample(next.state, next.index);
    });
    await journal.close();
    summary.elapsedMs = performance.now() - t0;
    summary.samplesPerSecond = summary.called / Math.max(summary.elapsedMs / 1000, 1e-9);
    await writer.finish({
      references: benchmark.references ?? [],
      paraphrase_variant: config.prompts.paraphraseVariant,
      finished_at: now().toISOString(),
    });
  } catch (error) {
    await writer.abort();
    await journal.close().catch(() => undefined);
    throw error;
  }
  log.event('finish', { ...summary });
  return summary;
}
