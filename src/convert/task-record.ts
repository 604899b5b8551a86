/**
 * `evalkit run`: a finished task run as an Every Eval Ever 0.3.0 record, through the converters' record driver (the
 * same identity rules, results builder, row maker and writer). One result per scorer: the mean over samples of each
 * sample's value after the epoch reducer, with its standard error and normal 95 % interval; one instance row per
 * (sample, epoch, scorer). An answer that failed is a row with its error and no score, and is left out of n; a judge
 * that failed leaves that scorer's value missing for the epoch. Ids derive from the journal's run id, so a resumed
 * run writes the same record as an uninterrupted one.
 */
import { basename, dirname, relative, sep } from 'node:path';
import type { DeclaredFacts } from '../checks/reconciliation.js';
import { FRAMEWORK_VERSION } from '../run/runner.js';
import { DEFAULT_CHOICE_TEMPLATE, DEFAULT_USER_TEMPLATE, promptText } from '../run/task/prompt.js';
import { itemStatistics, reduceEpochs, reducerLabel } from '../run/task/reduce.js';
import type { EpochResult, RunModel, SampleResult, TaskRun } from '../run/task/engine.js';
import { JUDGE_GENERATION } from '../run/task/engine.js';
import type { TaskScorer } from '../run/task/types.js';
import { RecordDriver } from './driver.js';
import { buildModel, epochSeconds, FieldReport, rowMaker, stringMap, type BuiltModel } from './record.js';
import { parseArguments } from '../run/task/tools.js';
import { roundUsd } from '../run/task/prices.js';
import type { AgentTrace } from '../run/task/agent.js';
import type { ChatMessage } from '../run/task/types.js';
import type { ConvertedRecord, ConvertOverrides } from './types.js';

type Obj = Record<string, unknown>;

export const RUN_COLLECTION = 'evalkit-run';

/** The facts of a model behind a provider: the official APIs are externally managed closed weights. */
function modelFacts(m: Omit<RunModel, 'provider'>, field: string) {
  const official = (m.providerName === 'openai' || m.providerName === 'anthropic') && m.baseUrl === undefined;
  return {
    name: m.model,
    field,
    ...(m.providerName === 'replay' ? {} : { inferencePlatform: m.providerName }),
    ...(official
      ? {
          deployment: {
            deploymentType: 'externally_managed' as const,
            modelAvailability: 'closed_weights' as const,
            reason: `provider ${m.providerName} through its official API`,
          },
        }
      : {}),
  };
}

/** The model a run's records name (its id, developer and name), as taskRecord builds it. */
export function runModelOf(target: Omit<RunModel, 'provider'>, overrides: ConvertOverrides = {}): BuiltModel {
  return buildModel(modelFacts(target, '--model'), overrides, new FieldReport());
}

/** The sample id of a row: the row's id, `/scorer` when the task has several, `#epochN` when it has several epochs. */
export function rowSampleId(run: TaskRun, sample: string, scorer: string, epoch: number): string {
  const byScorer = run.task.scorers.length > 1 ? `/${scorer}` : '';
  const byEpoch = run.task.epochs > 1 ? `#epoch${epoch + 1}` : '';
  return `${sample}${byScorer}${byEpoch}`;
}

/** Each sample's reduced value for one scorer (samples without any value left out). */
export function reducedValues(run: TaskRun, scorer: string): number[] {
  const out: number[] = [];
  for (const r of run.results) {
    const values = r.epochs
      .map((e) => e.scores[scorer]?.value)
      .filter((v): v is number => typeof v === 'number');
    const v = reduceEpochs(values, run.task.reducer);
    if (v !== undefined) out.push(v);
  }
  return out;
}

/** A path as the record keeps it: relative to the task's folder, with `/` between its parts. */
const taskRelative = (taskFile: string, path: string): string =>
  relative(dirname(taskFile), path).split(sep).join('/');

/** The reduced values' count, and why the rest of the samples have none (each reason with its count). */
export function missingValues(run: TaskRun, scorer: string): { samples: number; reasons: string[] } {
  const reasons = new Map<string, number>();
  let samples = 0;
  for (const r of run.results) {
    if (!(r.sample.scorers ?? run.task.scorers).some((s) => s.name === scorer)) continue;
    const values = r.epochs
      .map((e) => e.scores[scorer]?.value)
      .filter((v): v is number => typeof v === 'number');
    if (reduceEpochs(values, run.task.reducer) !== undefined) continue;
    samples++;
    for (const e of r.epochs) {
      const score = e.scores[scorer];
      if (typeof score?.value === 'number') continue;
      // The kind of failure, not its every detail (a judge's reply or a server's message differs per sample).
      const why =
        e.answer.error !== undefined
          ? `the answer failed (${e.answer.error.split(':')[0]})`
          : (score?.error ?? 'no value').split('\n')[0].slice(0, 160);
      reasons.set(why, (reasons.get(why) ?? 0) + 1);
    }
    if (values.length > 0)
      reasons.set(`fewer epochs with a value than ${reducerLabel(run.task.reducer)} needs`, 1);
  }
  return {
    samples,
    reasons: [...reasons].sort((a, b) => b[1] - a[1]).map(([why, count]) => `${count} × ${why}`),
  };
}

export interface TaskRecordOptions {
  /** The task file's sha256 (of its bytes as read for the run). */
  taskFileSha256?: string;
}

export function taskRecord(
  run: TaskRun,
  overrides: ConvertOverrides = {},
  options: TaskRecordOptions = {},
): ConvertedRecord {
  const { task } = run;
  // Every scorer's value lies in [0, 1], higher is better; the score is a mean of them.
  const facts = Object.fromEntries(
    task.scorers.map((s) => [
      s.name,
      { lower_is_better: false, min_score: 0, max_score: 1, score_type: 'continuous' as const },
    ]),
  );
  const d = new RecordDriver('evalkit-run', task.source, {
    overrides: { ...overrides, metricFacts: { ...facts, ...overrides.metricFacts } },
  });
  const model = d.model(modelFacts(run.target, '--model'));
  const ids = d.ids({
    digest: task.digest,
    defaultCollection: RUN_COLLECTION,
    seed: `evalkit-run:${run.summary.runId}:${task.name}:${run.target.model}`,
  });
  const sourceData: Obj = {
    dataset_name: task.name,
    source_type: 'other',
    additional_details: {
      // Relative to the task's folder: a record says which task it ran, not where a user keeps it.
      task_file: basename(task.source),
      ...(options.taskFileSha256 !== undefined ? { task_file_sha256: options.taskFileSha256 } : {}),
      dataset: taskRelative(task.source, task.dataset.path),
      task_digest: task.digest,
      samples: String(run.results.length),
    },
  };
  const generationArgs: Obj = {
    temperature: run.generation.temperature,
    max_tokens: run.generation.max_tokens,
  };
  if (run.generation.top_p !== undefined) generationArgs.top_p = run.generation.top_p;
  if (task.tools !== undefined) {
    const limits = task.limits!;
    generationArgs.agentic_eval_config = {
      available_tools: task.tools.map((t) => ({
        name: t.name,
        description: t.description,
        parameters: {
          kind: t.kind,
          json_schema: JSON.stringify(t.parameters),
          ...(t.table ? { table: t.table.source } : {}),
          ...(t.command
            ? {
                command: JSON.stringify(t.command.source),
                ...(t.command.sha256 !== null ? { sha256: t.command.sha256 } : {}),
                timeout_ms: String(t.command.timeoutMs),
                max_output_bytes: String(t.command.maxOutputBytes),
              }
            : {}),
        },
      })),
      additional_details: stringMap({
        max_turns: limits.max_turns,
        ...(limits.max_tool_calls !== undefined ? { max_tool_calls: limits.max_tool_calls } : {}),
      }),
    };
    generationArgs.eval_limits = {
      ...(limits.time_limit_s !== undefined ? { time_limit: limits.time_limit_s } : {}),
      ...(limits.token_limit !== undefined ? { token_limit: limits.token_limit } : {}),
    };
  }
  const generationDetails: Record<string, string> = { epochs: String(task.epochs) };
  if (run.generation.seed !== undefined) generationDetails.seed = String(run.generation.seed);
  if (run.generation.stop.length > 0) generationDetails.stop = JSON.stringify(run.generation.stop);
  Object.assign(generationDetails, costDetails(run));
  // The prompt's templates as the task gives them (the default single user message when it gives none).
  const promptTemplate =
    task.promptTemplate ??
    JSON.stringify([
      ...(task.system !== undefined ? [{ role: 'system', content: task.system }] : []),
      ...(task.messages ?? [
        {
          role: 'user',
          content:
            task.dataset.fields.choices !== undefined ? DEFAULT_CHOICE_TEMPLATE : DEFAULT_USER_TEMPLATE,
        },
      ]),
    ]);
  const timestamp = epochSeconds(run.startedAt);

  for (const scorer of task.scorers) {
    const values = reducedValues(run, scorer.name);
    const stats = itemStatistics(values);
    const missing = missingValues(run, scorer.name);
    // The samples run for this scorer: each has its rows (scored or not), whatever became of its answers.
    const ran = run.results.filter((r) =>
      (r.sample.scorers ?? task.scorers).some((s) => s.name === scorer.name),
    ).length;
    const declared: DeclaredFacts = {
      n: ran,
      nFrom: 'evalkit run: the samples run for this scorer',
      headline: 'mean',
    };
    // A metric no sample has a value for is still a result of the record (its rows name it): EEE 0.3.0 requires a
    // number as the score, so it holds the placeholder 0 the rows hold, marked missing with its reason (as an
    // unscored row is, `metadata.score_missing`); the store's leaderboard and compare leave it out.
    const noValue =
      stats === undefined
        ? {
            score_missing: 'true',
            score_missing_reason:
              ran === 0
                ? 'no sample was run for this scorer'
                : `no sample has a value: ${missing.reasons.join('; ')}`,
          }
        : {};
    d.results.add({
      evaluationName: task.name,
      metric: scorer.name,
      metricId: `${task.name}.${scorer.name}`,
      metricName: scorer.name,
      resultId: `${task.name}.${scorer.name}`,
      field: `scorers (${scorer.name})`,
      score: stats?.score ?? 0,
      description: `${scorer.type} scorer: mean over samples of each sample's ${reducerLabel(task.reducer)} over ${task.epochs} epoch${task.epochs === 1 ? '' : 's'}`,
      lowerIsBetter: { value: false, field: `${scorer.type} scorer definition` },
      sourceData,
      ...(stats?.standardError !== undefined
        ? {
            standardError: {
              value: stats.standardError,
              method: 'sample standard deviation over samples / sqrt(n)',
            },
          }
        : {}),
      ...(stats?.ci !== undefined
        ? {
            confidenceInterval: {
              ...stats.ci,
              confidenceLevel: 0.95,
            },
          }
        : {}),
      numSamples: stats?.n ?? 0,
      details: {
        samples_without_value: missing.samples,
        scorer_type: scorer.type,
        ...noValue,
        ...(scorer.kind === 'judge' ? judgeCostDetails(run, scorer.name) : {}),
      },
      declared,
      generationConfig: {
        generation_args: { ...generationArgs, prompt_template: promptTemplate },
        additional_details: generationDetails,
      },
      ...(timestamp ? { evaluationTimestamp: timestamp } : {}),
      ...(scorer.kind === 'judge' ? { llmScoring: llmScoring(run, scorer) } : {}),
      configDetails: { scorer: scorer.type, epoch_reducer: reducerLabel(task.reducer), ...scorer.details },
    });
  }
  d.run({
    sourceRunId: run.summary.runId,
    status: run.results.length === run.task.samples.length ? 'complete' : 'partial',
    // Every epoch's answer counts (as Inspect counts samples × epochs): a rerun with more epochs, or more samples,
    // is the more complete copy of the run, which the store keeps (store/supersede.ts) and the writer writes.
    scoredSamples: run.results.reduce(
      (n, r) => n + r.epochs.filter((e) => e.answer.error === undefined).length,
      0,
    ),
  });
  const aggregate = d.aggregate({
    sourceName: 'evalkit run',
    organization: { name: 'evalkit', field: 'evalkit run' },
    evaluatorRelationship: { value: 'third_party', field: 'evalkit run' },
    sourceDetails: {
      run_id: run.summary.runId,
      provider: run.target.providerName,
      ...(task.description !== undefined ? { task_description: task.description } : {}),
    },
    evalLibrary: { name: 'evalkit', version: FRAMEWORK_VERSION.replace(/^evalkit-/, '') },
    retrievedTimestamp: timestamp ? { value: timestamp, field: 'journal started_at' } : undefined,
    evaluationTimestamp: timestamp ? { value: timestamp, field: 'journal started_at' } : undefined,
    hasRows: run.results.length > 0,
  });
  const makeRow = rowMaker(ids.evaluationId, model.id);
  async function* rows(): AsyncGenerator<Obj> {
    for (const r of run.results)
      for (const e of r.epochs) for (const s of r.sample.scorers ?? task.scorers) yield row(r, e, s);
  }
  const row = (r: SampleResult, e: EpochResult, scorer: TaskScorer): Obj => {
    const score = e.scores[scorer.name];
    const usage = e.answer.usage;
    const judged = e.judged[scorer.name];
    const error = e.answer.error ?? (score?.value === null ? score.error : undefined);
    const agent = e.agent !== undefined ? agentMessages(r.messages, e.agent) : undefined;
    return makeRow({
      evaluationName: task.name,
      evaluationResultId: `${task.name}.${scorer.name}`,
      sampleId: rowSampleId(run, r.sample.id, scorer.name, e.epoch),
      input: {
        raw: promptText(r.messages),
        formatted: JSON.stringify(r.messages),
        reference: r.sample.targets,
        ...(r.sample.choices ? { choices: r.sample.choices } : {}),
      },
      // A single-turn row needs an output: a failed request's is empty (its reason is in `error`). An agentic row
      // has none (EEE 0.3.0 wants its output null): the whole conversation is in `messages`.
      ...(agent !== undefined
        ? { interactionType: 'agentic' as const, messages: agent.messages }
        : { output: { raw: [e.answer.text ?? ''] } }),
      answerAttribution:
        agent !== undefined
          ? e.answer.error !== undefined
            ? []
            : [
                {
                  turn_idx: agent.answerTurn,
                  source: agent.answerSource,
                  extracted_value: score?.extracted ?? e.answer.text ?? '',
                  extraction_method: scorer.type,
                  is_terminal: true,
                },
              ]
          : score?.extracted !== undefined
            ? [
                {
                  turn_idx: 0,
                  source: 'output.raw',
                  extracted_value: score.extracted,
                  extraction_method: scorer.type,
                  is_terminal: true,
                },
              ]
            : [],
      evaluation: {
        score: score?.value ?? 0,
        is_correct: score?.value === 1,
        ...(agent !== undefined
          ? { num_turns: Math.max(1, agent.modelTurns), tool_calls_count: e.agent!.toolCalls }
          : {}),
      },
      tokenUsage:
        usage && Number.isInteger(usage.input_tokens) && Number.isInteger(usage.output_tokens)
          ? {
              input_tokens: usage.input_tokens,
              output_tokens: usage.output_tokens,
              total_tokens: usage.input_tokens! + usage.output_tokens!,
              ...(typeof usage.cached_input_tokens === 'number'
                ? { input_tokens_cache_read: usage.cached_input_tokens }
                : {}),
            }
          : undefined,
      performance: { latency_ms: e.answer.latency_ms },
      error: error ?? undefined,
      metadata: {
        sample: r.sample.id,
        epoch: e.epoch + 1,
        scorer: scorer.name,
        finish_reason: e.answer.finish_reason ?? '',
        ...(score?.value === null || e.answer.error !== undefined ? { score_missing: 'true' } : {}),
        ...(judged?.text ? { judge_reply: judged.text } : {}),
        // US dollars (EEE has no cost field): the model's calls, the judge's apart (see costDetails).
        ...(e.cost !== null ? { cost: roundUsd(e.cost) } : {}),
        ...(typeof e.judgeCost[scorer.name] === 'number'
          ? { judge_cost: roundUsd(e.judgeCost[scorer.name]!) }
          : {}),
        ...(e.agent !== undefined ? { stop_reason: e.agent.stop, final_answer: e.answer.text ?? '' } : {}),
      },
    });
  };
  return d.record({ aggregate, rows: run.results.length > 0 ? rows : undefined });
}

/**
 * An agent sample's conversation as EEE 0.3.0 messages: the prompt, then each model turn (its text, its tool calls
 * with the arguments as EEE wants them — a map of strings — and the exact JSON text the model sent beside them in
 * `arguments_json`) and each tool result (`tool_call_id`, and `error` with its code when the call failed). Where the
 * final answer is: the last model turn's content, or the `submit` call's `answer` argument.
 */
export function agentMessages(
  prompt: ChatMessage[],
  trace: AgentTrace,
): { messages: Obj[]; answerTurn: number; answerSource: string; modelTurns: number } {
  const messages: Obj[] = prompt.map((m, i) => ({ turn_idx: i, role: m.role, content: m.content }));
  let answerTurn = Math.max(0, messages.length - 1);
  let answerSource = 'messages[-1].content';
  let modelTurns = 0;
  for (const turn of trace.turns) {
    if (turn.call.error !== undefined) continue;
    modelTurns++;
    const idx = messages.length;
    const calls = turn.call.tool_calls ?? [];
    messages.push({
      turn_idx: idx,
      role: 'assistant',
      content: turn.call.text === '' || turn.call.text === null ? null : turn.call.text,
      ...(calls.length > 0
        ? {
            tool_calls: calls.map((c) => {
              const args = parseArguments(c.arguments);
              return {
                id: c.id,
                name: c.name,
                arguments: args.ok ? stringMap(args.value) : null,
                arguments_json: c.arguments,
              };
            }),
          }
        : {}),
    });
    answerTurn = idx;
    answerSource = `messages[${idx}].content`;
    calls.forEach((c, j) => {
      const result = turn.results?.[j];
      if (result === undefined) return;
      if (result.submitted !== undefined) {
        answerTurn = idx;
        answerSource = `messages[${idx}].tool_calls[${j}].arguments.answer`;
      }
      messages.push({
        turn_idx: messages.length,
        role: 'tool',
        content: result.content,
        tool_call_id: [c.id],
        ...(result.error !== undefined ? { error: result.error } : {}),
      });
    });
  }
  return { messages, answerTurn, answerSource, modelTurns };
}

/**
 * The run's cost in each result's `generation_config.additional_details` (where upstream EEE records of HAL keep
 * theirs): `total_cost_usd` the epochs' costs of the model's calls summed (judges apart), `cost_samples` how many
 * epochs had a cost, `price_usd_per_million` the price used. Nothing when the model had no price.
 */
function costDetails(run: TaskRun): Record<string, string> {
  const price = run.prices?.target;
  if (price === undefined) return {};
  const epochs = run.results.flatMap((r) => r.epochs);
  const priced = epochs.filter((e) => e.cost !== null);
  if (priced.length === 0) return { cost_samples: '0', price_usd_per_million: JSON.stringify(price) };
  return {
    total_cost_usd: String(roundUsd(priced.reduce((n, e) => n + e.cost!, 0))),
    cost_samples: String(priced.length),
    price_usd_per_million: JSON.stringify(price),
  };
}

/** A judge scorer's own cost (its result's score_details.details), when the judge had a price. */
function judgeCostDetails(run: TaskRun, scorer: string): Record<string, string> {
  if (run.prices?.judges?.[scorer] === undefined) return {};
  const costs = run.results
    .flatMap((r) => r.epochs.map((e) => e.judgeCost[scorer]))
    .filter((c): c is number => typeof c === 'number');
  return costs.length === 0 ? {} : { judge_cost_usd: String(roundUsd(costs.reduce((a, b) => a + b, 0))) };
}

function llmScoring(run: TaskRun, scorer: TaskScorer & { kind: 'judge' }): Obj {
  const judge = run.judges[scorer.name];
  const built = buildModel(modelFacts(judge, 'judge'), {}, new FieldReport());
  return {
    judges: [{ model_info: built.modelInfo, temperature: JUDGE_GENERATION.temperature }],
    input_prompt: scorer.template.text,
  };
}
