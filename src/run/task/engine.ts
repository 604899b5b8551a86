/**
 * The task run: every (sample, epoch) of a task through one model with the run engine's parts — the providers,
 * bounded concurrency, the rate limiter, our retry policy, the journal and its lock — then each answer scored, judge
 * scorers through their own judge model. Every call (answer or judge verdict) is journaled before it counts; a rerun
 * with the same journal sends only what is missing, so no request is paid twice. Scores are computed from the
 * journaled answers at the end, so a resumed run gives the same result as an uninterrupted one.
 */
import { randomUUID, createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { DataError, UsageError } from '../../errors.js';
import { canonicalJson } from '../../io/canonical.js';
import { withLock } from '../../io/lock.js';
import { redactUrl } from '../../io/net/redact.js';
import { withRetry } from '../../io/net/retry.js';
import { openJournal } from '../journal.js';
import type { CompletionRequest, Provider, ProviderMessage } from '../providers/provider.js';
import { createRateLimiter } from '../rate-limit.js';
import { nullRunLog } from '../run-log.js';
import { DEFAULT_MAX_CONSECUTIVE_FAILURES, type RunControl } from '../runner.js';
import { checkUsage } from '../usage.js';
import { WorkerPool } from '../workers.js';
import { agentLoop, trajectoryOf, transcriptText, type AgentTrace, type ToolsRecord } from './agent.js';
import { buildMessages } from './prompt.js';
import { toolDeclarations, type ToolRunContext } from './tools.js';
import { toolEnvironment } from './command-tool.js';
import { callCost, callsCost, roundUsd, type ModelPrice } from './prices.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  CallRecord,
  ChatMessage,
  GenerationConfig,
  JudgeScorer,
  Score,
  Task,
  TaskSample,
} from './types.js';

export type { CallRecord } from './types.js';

/** A model behind a provider, as a run names it. */
export interface RunModel {
  providerName: string;
  model: string;
  baseUrl?: string;
  provider: Provider;
}

export interface TaskRunOptions extends RunControl {
  task: Task;
  target: RunModel;
  /** The judge of each model_graded scorer, by scorer name. */
  judges?: Map<string, RunModel>;
  journalPath: string;
  /** Only the first N samples. */
  limit?: number;
  /** The environment command tools run with (default this process's, without credentials). */
  toolEnv?: NodeJS.ProcessEnv;
  /**
   * The prices of the model and of each judge (by scorer name), US dollars per million tokens: each sample's cost
   * is computed from its journaled usage. A model without a price has no cost; `limits.cost_limit_usd` needs it.
   */
  prices?: RunPrices;
}

export interface RunPrices {
  target?: ModelPrice;
  judges?: Record<string, ModelPrice>;
}

export interface EpochResult {
  epoch: number;
  /** The answer call; for an agent task, its final answer with the turns' usage and latency summed. */
  answer: CallRecord;
  /** An agent task's turns, tool results and stop reason. */
  agent?: AgentTrace;
  /** By scorer name; absent when the answer failed (an error is not scored). */
  scores: Record<string, Score>;
  /** The judge calls, by scorer name. */
  judged: Record<string, CallRecord>;
  /**
   * What the model's calls of this epoch cost in US dollars (an agent's turns summed); null without a price, when
   * no call answered, or when one that answered reported no usage.
   */
  cost: number | null;
  /** What each judge's call cost, by scorer name (null as for cost). */
  judgeCost: Record<string, number | null>;
}

export interface SampleResult {
  sample: TaskSample;
  messages: ChatMessage[];
  epochs: EpochResult[];
}

export interface TaskRunSummary {
  runId: string;
  resumed: boolean;
  samples: number;
  epochs: number;
  /** Calls made in this run (answers and judge verdicts), and taken from the journal. */
  called: number;
  reused: number;
  retries: number;
  /** Answers that finally failed (left out of n), and judge verdicts that did. */
  failed: number;
  judgeFailed: number;
  /**
   * Scores a scorer could not give (a user's regex over its time bound, JSON nested too deep): that metric has no
   * value for the sample, with the reason and its code in the row's error.
   */
  scorerFailed: number;
  failuresByKind: Record<string, number>;
  inputTokens: number;
  outputTokens: number;
  /** The epochs' costs summed (those with a cost; null when none has one), the judges' apart. */
  costUsd: number | null;
  judgeCostUsd: number | null;
  elapsedMs: number;
}

export interface TaskRun {
  task: Task;
  target: Omit<RunModel, 'provider'>;
  judges: Record<string, Omit<RunModel, 'provider'>>;
  startedAt: string;
  finishedAt: string;
  /** The generation arguments sent with every answer request. */
  generation: GenerationConfig;
  results: SampleResult[];
  summary: TaskRunSummary;
  /** The prices the costs were computed at (absent: none). */
  prices?: RunPrices;
}

const answerKey = (sample: TaskSample): string => `answer/${sample.id}`;
const turnKey = (sample: TaskSample, turn: number): string => `turn/${sample.id}/${turn}`;
const toolsKey = (sample: TaskSample, turn: number): string => `tools/${sample.id}/${turn}`;

/** An agent sample's answer as one call: the final answer, the turns' usage and latency summed. */
function agentAnswer(trace: AgentTrace, epoch: number): CallRecord {
  const calls = trace.turns.map((t) => t.call);
  const sum = (f: (c: CallRecord) => number | null | undefined): number | null =>
    calls.every((c) => Number.isInteger(f(c))) ? calls.reduce((n, c) => n + f(c)!, 0) : null;
  const failed = calls.find((c) => c.error !== undefined);
  const input = sum((c) => c.usage?.input_tokens);
  const output = sum((c) => c.usage?.output_tokens);
  const cached = calls.filter((c) => typeof c.usage?.cached_input_tokens === 'number');
  const cachedSum = cached.reduce((n, c) => n + c.usage!.cached_input_tokens!, 0);
  return {
    sample_index: epoch,
    text: failed ? null : trace.answer,
    ...(failed ? { error: failed.error } : {}),
    finish_reason: calls.at(-1)?.finish_reason ?? null,
    usage:
      input === null || output === null
        ? null
        : {
            input_tokens: input,
            output_tokens: output,
            ...(cached.length > 0 ? { cached_input_tokens: cachedSum } : {}),
          },
    latency_ms: calls.reduce((n, c) => n + c.latency_ms, 0),
    request_id: calls.at(-1)?.request_id ?? null,
    attempts: calls.reduce((n, c) => n + c.attempts, 0),
  };
}
const judgeKey = (scorer: string, sample: TaskSample): string => `judge/${scorer}/${sample.id}`;
const describe = (m: RunModel) => ({
  provider: m.providerName,
  model: m.model,
  base_url: m.baseUrl === undefined ? null : redactUrl(m.baseUrl),
});

/** What decides what each call is; the journal refuses to continue under another. */
export function taskConfigKey(
  task: Task,
  target: RunModel,
  judges: Map<string, RunModel>,
): Record<string, unknown> {
  return {
    task: task.digest,
    ...describe(target),
    judges: Object.fromEntries([...judges].map(([name, m]) => [name, describe(m)])),
  };
}

function request(
  model: RunModel,
  messages: ChatMessage[],
  generation: GenerationConfig,
  sampleId: string,
  epoch: number,
): CompletionRequest {
  const system = messages[0]?.role === 'system' ? messages[0].content : null;
  const turns = messages.filter((m, i) => !(i === 0 && m.role === 'system'));
  const user = [...turns].reverse().find((m) => m.role === 'user')?.content ?? '';
  const single = turns.length === 1 && turns[0].role === 'user';
  return {
    model: model.model,
    system,
    user,
    ...(single
      ? {}
      : {
          messages: turns.map((m) => ({
            role: m.role === 'assistant' ? 'assistant' : 'user',
            content: m.content,
          })),
        }),
    temperature: generation.temperature,
    maxTokens: generation.max_tokens,
    topP: generation.top_p,
    seed: generation.seed,
    stop: generation.stop,
    sampleId,
    sampleIndex: epoch,
  };
}

/** The judge's generation: deterministic, room for a short rationale. */
export const JUDGE_GENERATION: GenerationConfig = { temperature: 0, max_tokens: 512, stop: [] };

export function runTask(options: TaskRunOptions): Promise<TaskRun> {
  return withLock(options.journalPath, 'run', () => runTaskUnlocked(options));
}

async function runTaskUnlocked(options: TaskRunOptions): Promise<TaskRun> {
  const { task, target } = options;
  const judges = options.judges ?? new Map<string, RunModel>();
  const judgeScorers = task.scorers.filter((s): s is JudgeScorer => s.kind === 'judge');
  for (const s of judgeScorers)
    if (!judges.has(s.name))
      throw new DataError(
        'run.no-judge',
        `scorer "${s.name}" needs a judge model (--judge-provider/--judge-model or its judge: in the task)`,
      );
  const log = options.log ?? nullRunLog;
  const now = options.now ?? (() => new Date());
  const signal = options.signal ?? new AbortController().signal;
  setMaxListeners(0, signal);
  const samples = task.samples.slice(0, options.limit ?? task.samples.length);
  const epochs = task.epochs;
  const prices = options.prices ?? {};
  const costLimit = task.limits?.cost_limit_usd;
  if (costLimit !== undefined && prices.target === undefined)
    throw new UsageError(
      'run.cost-limit-without-price',
      `task "${task.name}" has limits.cost_limit_usd ${costLimit}: it needs the price of the model ${target.model} (--prices FILE with an entry for it)`,
    );
  // Under a cost limit the price decides where a sample stops: a journal made at another price is refused.
  const configKey = {
    ...taskConfigKey(task, target, judges),
    ...(costLimit !== undefined ? { price: prices.target } : {}),
  };
  const journal = await openJournal<CallRecord | ToolsRecord>(options.journalPath, {
    run_id: randomUUID(),
    config_hash: createHash('sha256').update(canonicalJson(configKey)).digest('hex').slice(0, 16),
    config: configKey,
    started_at: now().toISOString(),
  });
  const runId = journal.header.run_id;
  const limiter = createRateLimiter(options.rateLimit);
  const t0 = performance.now();
  const summary: TaskRunSummary = {
    runId,
    resumed: journal.resumed,
    samples: samples.length,
    epochs,
    called: 0,
    reused: 0,
    retries: 0,
    failed: 0,
    judgeFailed: 0,
    scorerFailed: 0,
    failuresByKind: {},
    inputTokens: 0,
    outputTokens: 0,
    costUsd: null,
    judgeCostUsd: null,
    elapsedMs: 0,
  };
  log.event('run', {
    run_id: runId,
    resumed: journal.resumed,
    task: task.name,
    ...configKey,
    samples: samples.length,
    epochs,
  });

  const results: SampleResult[] = samples.map((sample) => ({
    sample,
    messages: buildMessages(task, sample),
    epochs: [],
  }));
  const maxStreak = options.maxConsecutiveFailures ?? DEFAULT_MAX_CONSECUTIVE_FAILURES;
  let streak = { kind: '', count: 0 };
  const pool = new WorkerPool(options.concurrency, signal);
  let unitsDone = 0;
  let itemsDone = 0;
  const progress = (): void =>
    options.onProgress?.({
      itemsDone,
      itemsTotal: samples.length,
      samplesDone: unitsDone,
      samplesTotal: samples.length * epochs,
      samplesFailed: summary.failed,
      tokens: summary.inputTokens + summary.outputTokens,
      elapsedMs: performance.now() - t0,
    });

  const count = (r: CallRecord): void => {
    summary.inputTokens += r.usage?.input_tokens ?? 0;
    summary.outputTokens += r.usage?.output_tokens ?? 0;
  };
  /** The journaled call, or a new one (its journal line tracked by the pool: the run ends only once it is on disk). */
  const call = async (
    key: string,
    epoch: number,
    model: RunModel,
    req: CompletionRequest,
  ): Promise<CallRecord> => {
    const prior = journal.done.get(key)?.get(epoch) as CallRecord | undefined;
    if (prior !== undefined && !(options.retryFailed && prior.error !== undefined)) {
      summary.reused++;
      count(prior);
      return prior;
    }
    await limiter.acquire(signal);
    const result = await withRetry((s) => model.provider.complete(req, s), options.retry, signal, {
      onRetry: (info) => {
        summary.retries++;
        log.event('retry', {
          key,
          epoch,
          attempt: info.attempt,
          delay_ms: info.delayMs,
          error: info.error.kind,
          status: info.error.status ?? null,
        });
      },
    });
    if (signal.aborted) throw signal.reason;
    let record: CallRecord;
    if (result.value !== undefined) {
      const usage = checkUsage(result.value.usage).usage;
      record = {
        sample_index: epoch,
        text: result.value.text,
        ...(result.value.toolCalls !== undefined && result.value.toolCalls.length > 0
          ? { tool_calls: result.value.toolCalls }
          : {}),
        finish_reason: result.value.finishReason,
        usage: usage
          ? {
              input_tokens: usage.input_tokens ?? null,
              output_tokens: usage.output_tokens ?? null,
              ...(typeof usage.cached_input_tokens === 'number'
                ? { cached_input_tokens: usage.cached_input_tokens }
                : {}),
            }
          : null,
        latency_ms: Math.round(result.lastAttemptMs),
        request_id: result.value.requestId,
        attempts: result.attempts,
      };
    } else {
      const error = result.error!;
      record = {
        sample_index: epoch,
        text: null,
        error: `${error.kind}: ${error.message} (after ${result.attempts} attempt${result.attempts === 1 ? '' : 's'})`,
        finish_reason: null,
        usage: null,
        latency_ms: Math.round(result.lastAttemptMs),
        request_id: null,
        attempts: result.attempts,
      };
    }
    // The call counts once its journal line is on disk. The worker does not wait for that: it goes on while the
    // journal syncs (group commit), so the disk never throttles the requests; the run ends only when all are synced.
    pool.track(
      journal.append(key, record).then(() => {
        summary.called++;
        count(record);
      }),
    );
    log.event('sample', {
      key,
      epoch,
      attempts: result.attempts,
      latency_ms: record.latency_ms,
      error: record.error ?? null,
    });
    // The same failure on every call in a row means nothing will answer: stop rather than pay for every retry.
    if (record.error === undefined) streak = { kind: '', count: 0 };
    else {
      const kind = result.error!.kind;
      streak = kind === streak.kind ? { kind, count: streak.count + 1 } : { kind, count: 1 };
      if (maxStreak > 0 && streak.count >= maxStreak)
        pool.fail(
          new DataError(
            'run.stopped-early',
            `stopped after ${streak.count} calls in a row failed the same way (${record.error}); every finished call is journaled in ${options.journalPath} — fix the cause and run the same command again (with --retry-failed to send the failed ones again)`,
          ),
        );
    }
    return record;
  };

  /** A score, or the scorer error a bounded check raised on this answer (its code first in the message). */
  const bounded = (score: () => Score): Score => {
    try {
      return score();
    } catch (error) {
      if (!(error instanceof DataError)) throw error;
      summary.scorerFailed++;
      return { value: null, error: `${error.code}: ${error.message}`, code: error.code };
    }
  };

  /** An agent sample: turn after turn through the agent loop, each turn and its tool results journaled. */
  const toolEnv = options.toolEnv ?? toolEnvironment(process.env, []);
  const runAgent = async (r: SampleResult, epoch: number): Promise<AgentTrace> => {
    const tools = task.tools!;
    const system = r.messages[0]?.role === 'system' ? r.messages[0].content : null;
    // Command tools run in a fresh folder per sample, made on first use and removed when the sample ends.
    let folder: Promise<string> | undefined;
    const toolContext: ToolRunContext = {
      cwd: () => (folder ??= mkdtemp(join(tmpdir(), 'evalkit-tool-'))),
      env: toolEnv,
      signal,
    };
    try {
      return await agentLoop({
        toolContext,
        tools,
        limits: task.limits!,
        cost: prices.target === undefined ? undefined : (usage) => callCost(usage, prices.target!) ?? 0,
        messages: r.messages,
        epoch,
        request: (messages: ProviderMessage[], turn: number): CompletionRequest => ({
          model: target.model,
          system,
          user: [...messages].reverse().find((m) => m.role === 'user')?.content ?? '',
          messages: [...messages],
          tools: toolDeclarations(tools),
          temperature: task.generation.temperature,
          maxTokens: task.generation.max_tokens,
          topP: task.generation.top_p,
          seed: task.generation.seed,
          stop: task.generation.stop,
          sampleId: `${runId}:${r.sample.id}:epoch-${epoch + 1}:turn-${turn + 1}`,
          sampleIndex: epoch,
        }),
        call: (turn, req) => call(turnKey(r.sample, turn), epoch, target, req),
        journaledTools: (turn) =>
          journal.done.get(toolsKey(r.sample, turn))?.get(epoch) as ToolsRecord | undefined,
        saveTools: (turn, record) => {
          // A tool stopped by Ctrl-C has no result to keep: the resumed run runs it again.
          if (signal.aborted) throw signal.reason;
          pool.track(journal.append(toolsKey(r.sample, turn), record));
        },
      });
    } finally {
      if (folder !== undefined) await rm(await folder, { recursive: true, force: true });
    }
  };

  const runUnit = async (r: SampleResult, epoch: number): Promise<void> => {
    const agent = task.tools !== undefined ? await runAgent(r, epoch) : undefined;
    const answer =
      agent !== undefined
        ? agentAnswer(agent, epoch)
        : await call(
            answerKey(r.sample),
            epoch,
            target,
            request(target, r.messages, task.generation, `${runId}:${r.sample.id}:epoch-${epoch + 1}`, epoch),
          );
    const trajectory = agent !== undefined ? trajectoryOf(agent) : undefined;
    const cost = callsCost(agent !== undefined ? agent.turns.map((t) => t.call) : [answer], prices.target);
    const result: EpochResult = {
      epoch,
      answer,
      ...(agent ? { agent } : {}),
      scores: {},
      judged: {},
      cost,
      judgeCost: {},
    };
    if (cost !== null) summary.costUsd = (summary.costUsd ?? 0) + cost;
    if (answer.error !== undefined) {
      summary.failed++;
      const kind = answer.error.split(':')[0];
      summary.failuresByKind[kind] = (summary.failuresByKind[kind] ?? 0) + 1;
    } else {
      const scorers = r.sample.scorers ?? task.scorers;
      for (const scorer of scorers) {
        if (scorer.kind === 'derived') continue;
        if (scorer.kind === 'local') {
          result.scores[scorer.name] = bounded(() => scorer.score(answer.text!, r.sample, trajectory));
          continue;
        }
        const judge = judges.get(scorer.name)!;
        const verdict = await call(
          judgeKey(scorer.name, r.sample),
          epoch,
          judge,
          request(
            judge,
            scorer.prompt(
              answer.text!,
              r.sample,
              agent !== undefined ? transcriptText(r.messages, agent) : undefined,
            ),
            JUDGE_GENERATION,
            `${runId}:${r.sample.id}:epoch-${epoch + 1}:judge-${scorer.name}`,
            epoch,
          ),
        );
        result.judged[scorer.name] = verdict;
        const judgeCost = callsCost([verdict], prices.judges?.[scorer.name]);
        result.judgeCost[scorer.name] = judgeCost;
        if (judgeCost !== null) summary.judgeCostUsd = (summary.judgeCostUsd ?? 0) + judgeCost;
        const score =
          verdict.error !== undefined
            ? { value: null, error: `judge failed: ${verdict.error}` }
            : bounded(() => scorer.grade(verdict.text!));
        if (score.value === null && score.code === undefined) summary.judgeFailed++;
        result.scores[scorer.name] = score;
      }
      for (const scorer of scorers)
        if (scorer.kind === 'derived') result.scores[scorer.name] = scorer.derive(result.scores);
    }
    r.epochs.push(result);
    unitsDone++;
    if (r.epochs.length === epochs) itemsDone++;
    progress();
  };

  function* units(): Generator<[SampleResult, number]> {
    for (const r of results) for (let e = 0; e < epochs; e++) yield [r, e];
  }
  try {
    await pool.run(units(), ([r, epoch]) => runUnit(r, epoch));
  } finally {
    await journal.close();
  }
  for (const r of results) r.epochs.sort((a, b) => a.epoch - b.epoch);
  summary.elapsedMs = performance.now() - t0;
  // Dollars as the record states them (no float noise from summing).
  if (summary.costUsd !== null) summary.costUsd = roundUsd(summary.costUsd);
  if (summary.judgeCostUsd !== null) summary.judgeCostUsd = roundUsd(summary.judgeCostUsd);
  log.event('finish', { ...summary });
  return {
    task,
    target: { providerName: target.providerName, model: target.model, baseUrl: target.baseUrl },
    judges: Object.fromEntries(
      [...judges].map(([n, m]) => [n, { providerName: m.providerName, model: m.model, baseUrl: m.baseUrl }]),
    ),
    startedAt: journal.header.started_at,
    finishedAt: now().toISOString(),
    generation: task.generation,
    results,
    summary,
    ...(prices.target !== undefined || prices.judges !== undefined ? { prices } : {}),
  };
}
