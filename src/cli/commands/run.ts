import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { Option } from 'commander';
import pc from 'picocolors';
import { formatDiagnosticText } from '../../diagnostics.js';
import { InterruptedError, UsageError } from '../../errors.js';
import type { IngestItem, IngestResult } from '../../store/ingest.js';
import {
  compareCompleteness,
  readModelMap,
  runIdentityOf,
  type RunIdentity,
} from '../../convert/identity.js';
import { isJsonObject, type Json, type JsonObject } from '../../io/json-value.js';
import { missingValues, runModelOf, taskRecord, reducedValues } from '../../convert/task-record.js';
import { writeConverted } from '../../convert/write.js';
import { lockPathFor, staleLockOwner } from '../../io/lock.js';
import { checkOutputs } from '../../io/preflight.js';
import { redactUrl, urlSecrets, type Redactor } from '../../io/net/redact.js';
import { DEFAULT_RETRY } from '../../io/net/retry.js';
import { journaledCount } from '../../run/journal.js';
import { openRunLog } from '../../run/run-log.js';
import { createProvider, defaultApiKeyEnv, PROVIDERS, type ProviderName } from '../../run/setup.js';
import {
  buildMessages,
  loadTask,
  itemStatistics,
  runTask,
  type RunModel,
  type Task,
  type TaskRun,
} from '../../run/task/index.js';
import { isPromptfooConfig, loadPromptfooConfig, type PromptfooTarget } from '../../run/task/promptfoo.js';
import { keyRedactor, redactedError, redactTask } from '../../run/task/redact-task.js';
import { toolEnvironment } from '../../run/task/command-tool.js';
import { loadPrices, priceOf, type ModelPrice, type Prices } from '../../run/task/prices.js';
import type { RunOptions } from '../../run/settings.js';
import { useColor, type CliIO, type CommandModule } from '../context.js';
import { intArg, json } from '../options.js';
import { addRunOptions } from '../run-options.js';
import { interruptSignal, progressReporter } from './evaluate.js';

/** The shared run options `evalkit run` takes (the decoding comes from the task file). */
export const RUN_COMMAND_OPTIONS = [
  'provider',
  'baseUrl',
  'httpReferer',
  'xTitle',
  'apiKeyEnv',
  'concurrency',
  'rateLimit',
  'maxAttempts',
  'timeoutMs',
  'retryBaseMs',
  'maxRetryAfterMs',
  'maxResponseBytes',
  'maxConsecutiveFailures',
  'retryFailed',
  'record',
  'replayFrom',
] as const satisfies readonly (keyof RunOptions)[];

interface RunCliOptions extends Omit<Pick<RunOptions, (typeof RUN_COMMAND_OPTIONS)[number]>, 'provider'> {
  /** Absent only when every task is a promptfoo config. */
  provider?: ProviderName;
  model?: string[];
  output: string;
  db?: string;
  limit?: number;
  epochs?: number;
  judgeProvider?: ProviderName;
  judgeModel?: string;
  judgeBaseUrl?: string;
  modelMap?: string;
  prices?: string;
  log?: string;
  dryRun?: boolean;
  format: 'text' | 'json';
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
const slug = (s: string): string => s.replace(/[^A-Za-z0-9._-]+/g, '_');

/**
 * Where a (task, model) run journals: beside the datastore root (`DIR.journal/<task>/<provider>--<model>.jsonl`), not
 * in it, so that `validate DIR` and `ingest DIR` see only records.
 */
export const journalPathOf = (outDir: string, task: Task, provider: string, model: string): string =>
  resolve(`${outDir}.journal`, slug(task.name), `${slug(provider)}--${slug(model)}.jsonl`);

interface RunOutcome {
  task: string;
  model: string;
  aggregate: string;
  samples_file: string | undefined;
  status: string;
  evaluation_id: string;
  run: TaskRun['summary'];
  scores: {
    scorer: string;
    score: number | null;
    standard_error: number | null;
    ci: [number, number] | null;
    n: number;
    /** Why the scorer has no value (score null). */
    missing?: string;
  }[];
  db?: string;
  /** Why the store refused the record (it is written under -o all the same). */
  not_stored?: string;
}

function printDryRun(io: CliIO, tasks: Task[], limit: number, format: 'text' | 'json'): void {
  const prompts = tasks.flatMap((task) =>
    task.samples.slice(0, limit).map((s) => ({
      task: task.name,
      sample: s.id,
      messages: buildMessages(task, s),
      // An agent task: the tools the model is offered and the limits of its loop.
      ...(task.tools !== undefined ? { tools: task.tools.map((t) => t.name), limits: task.limits } : {}),
    })),
  );
  if (format === 'json') {
    io.stdout.write(json({ prompts }));
    return;
  }
  for (const p of prompts) {
    io.stdout.write(`── ${p.task} / ${p.sample}\n`);
    for (const m of p.messages) io.stdout.write(`[${m.role}]\n${m.content}\n`);
    if (p.tools !== undefined)
      io.stdout.write(
        `[tools] ${p.tools.join(', ')}; limits ${Object.entries(p.limits ?? {})
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}\n`,
      );
    io.stdout.write('\n');
  }
  io.stdout.write(
    `${prompts.length} prompt${prompts.length === 1 ? '' : 's'} shown; nothing was sent (--dry-run)\n`,
  );
}

function outcomeText(o: RunOutcome, color: boolean): string {
  const c = pc.createColors(color);
  const s = o.run;
  const lines = [
    `${c.bold(o.task)} × ${c.bold(o.model)}: ${o.status} ${o.aggregate}${s.resumed ? ' (resumed)' : ''}`,
    `  samples ${s.samples} × ${s.epochs} epoch${s.epochs === 1 ? '' : 's'}; calls ${s.called} made, ${s.reused} from the journal, ${s.retries} retries; tokens ${s.inputTokens} in, ${s.outputTokens} out`,
  ];
  if (s.costUsd !== null || s.judgeCostUsd !== null)
    lines.push(
      `  cost ${s.costUsd === null ? 'unknown' : `$${s.costUsd.toFixed(6)}`}` +
        (s.judgeCostUsd !== null ? `; judges $${s.judgeCostUsd.toFixed(6)}` : ''),
    );
  for (const r of o.scores)
    lines.push(
      `  ${r.scorer.padEnd(16)} ${r.score === null ? `no value (${r.missing})` : r.score.toFixed(4)}` +
        (r.ci ? `  95% CI [${r.ci[0].toFixed(4)}, ${r.ci[1].toFixed(4)}]` : '') +
        `  n=${r.n}`,
    );
  if (s.failed > 0)
    lines.push(
      c.red(
        `  ${s.failed} answer${s.failed === 1 ? '' : 's'} failed (${Object.entries(s.failuresByKind)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}): recorded as errors, left out of n — rerun with --retry-failed to send them again`,
      ),
    );
  if (s.judgeFailed > 0)
    lines.push(
      c.yellow(
        `  ${s.judgeFailed} judge verdict${s.judgeFailed === 1 ? '' : 's'} missing: that metric has no value for those samples`,
      ),
    );
  if (s.scorerFailed > 0)
    lines.push(
      c.yellow(
        `  ${s.scorerFailed} score${s.scorerFailed === 1 ? '' : 's'} not computable (a regex over its time limit, JSON nested too deep): no value for those samples, the reason in each row's error`,
      ),
    );
  if (o.db) lines.push(`  stored in ${o.db}`);
  return `${lines.join('\n')}\n`;
}

export const runCommand: CommandModule = {
  register(program, io, run) {
    const cmd = program
      .command('run')
      .summary('run a task (dataset, prompt, scorers) against models, straight into EEE records')
      .description(
        'Runs every sample of each TASK file (YAML or JSON; its schema: `evalkit schema show evalkit.task`) against ' +
          'each --model, scores the answers (match, includes, pattern, numeric, choice, json, model_graded), ' +
          'reduces the epochs, and writes one Every Eval Ever 0.3.0 aggregate + instance JSONL per (task, model) in ' +
          'the datastore layout under -o DIR (atomically; --db also stores it).\n\n' +
          'Every call is journaled (in DIR.journal/, beside DIR) before it counts: rerunning the same command continues an ' +
          'interrupted run without sending any request twice.\n\n' +
          'A request that finally fails is recorded as an error, not scored as wrong, and left out of n; a judge that ' +
          'fails leaves that metric missing for the sample.\n\n' +
          'A promptfoo configuration (prompts + providers + tests) is run too, one record per provider: each test × ' +
          "prompt is a sample, each assertion type a metric and the test's pass one more (its providers replace " +
          '--provider/--model; its grader or --judge-* grades llm-rubric). Assertion types evalkit does not run are ' +
          'refused before any request.\n\n' +
          'Exit codes: 0 every call answered, 1 some calls failed, a metric has no value or the store refused a ' +
          'record (records written), 2 usage or I/O error, 130/143 interrupted (Ctrl-C, SIGTERM; rerun to resume).',
      )
      .argument('<task...>', 'task files (.yaml, .yml or .json) or promptfoo configurations');
    // --provider is needed by task files, not by a promptfoo config (its providers name their own).
    addRunOptions(cmd, RUN_COMMAND_OPTIONS, ['provider'])
      .option('--model <id>', 'model id as the provider names it; repeat for several models', collect)
      .option('-o, --output <dir>', 'datastore root the records are written under', './evals')
      .option('--db <file>', 'also ingest each record into this DuckDB store as it completes')
      .option('--limit <n>', 'only the first N samples of each task', intArg('--limit', 1))
      .option(
        '--epochs <n>',
        "samples drawn per item (overrides the task's epochs)",
        intArg('--epochs', 1, 100),
      )
      .addOption(
        new Option(
          '--judge-provider <name>',
          'provider of model_graded judges the task does not name (default --provider).',
        ).choices(PROVIDERS),
      )
      .option('--judge-model <id>', 'judge model of model_graded scorers whose task names none')
      .option(
        '--judge-base-url <url>',
        "judge API base URL (default the task's judge base_url, else --base-url)",
      )
      .option(
        '--model-map <file>',
        'JSON map from model names to the ids to write ({"gpt-4o": {"id": "openai/gpt-4o"}})',
      )
      .option(
        '--prices <file>',
        "YAML or JSON map from models to US dollars per million input, output and cached_input tokens: each sample's cost and the run's go in the records",
      )
      .option('--log <run.jsonl>', 'structured run log (run, sample, retry, finish events)')
      .option(
        '--dry-run',
        'print the rendered prompts of the first samples (--limit, default 3) and send nothing',
      )
      .addOption(
        new Option('-f, --format <format>', 'summary format').choices(['text', 'json']).default('text'),
      )
      .action((taskPaths: string[], opts: RunCliOptions) => run(() => runAction(taskPaths, opts, io)));
  },
};

/** A task and who runs it: the config's own provider (a promptfoo config), else each --model. */
interface Job {
  task: Task;
  target?: PromptfooTarget;
  /** The sha256 of the task file's bytes as read for the run. */
  taskFileSha256: string;
}

/** A task file, or a promptfoo configuration (recognised by its content) as one task per provider. */
function loadJobs(path: string): Job[] {
  let value: unknown;
  let taskFileSha256 = '';
  try {
    const bytes = readFileSync(path);
    taskFileSha256 = createHash('sha256').update(bytes).digest('hex');
    value = parse(bytes.toString('utf8'));
  } catch {
    value = undefined; // loadTask reports what is wrong with the file
  }
  if (isPromptfooConfig(value))
    return loadPromptfooConfig(path, value).map((j) => ({ ...j, taskFileSha256 }));
  return [{ task: loadTask(path), taskFileSha256 }];
}

/**
 * When the record file at `path` holds a more complete copy of the same run than `aggregate` (store/supersede.ts's
 * rule: finished over not, then more scored answers), what it holds; else undefined.
 */
async function moreCompleteCopy(
  path: string,
  aggregate: Record<string, unknown>,
): Promise<string | undefined> {
  let existing: unknown;
  try {
    existing = JSON.parse(await readFile(path, 'utf8'));
  } catch {
    return undefined; // none (or not a record): written as usual
  }
  if (!isJsonObject(existing as Json)) return undefined;
  const theirs = runIdentityOf(existing as JsonObject);
  const mine = runIdentityOf(aggregate as JsonObject);
  if (!theirs || !mine || theirs.sourceRunId !== mine.sourceRunId) return undefined;
  if (compareCompleteness(mine, theirs) >= 0) return undefined;
  const said = (r: RunIdentity) => `${r.status}, ${r.scoredSamples} scored answers`;
  return `${said(theirs)}; this run: ${said(mine)}`;
}

/**
 * An agent task's `cost_limit_usd` needs the price of every model it runs: checked for all before anything is sent
 * (the engine checks each run again).
 */
function checkCostLimits(
  jobs: Job[],
  models: string[],
  opts: RunCliOptions,
  prices: Prices | undefined,
  priceFor: (provider: string, model: string, baseUrl: string | undefined) => ModelPrice | undefined,
): void {
  for (const job of jobs) {
    const limit = job.task.limits?.cost_limit_usd;
    if (limit === undefined) continue;
    if (prices === undefined)
      throw new UsageError(
        'run.cost-limit-without-price',
        `task "${job.task.name}" has limits.cost_limit_usd ${limit}: give the models' prices with --prices FILE`,
      );
    for (const model of job.target ? [job.target.model] : models) {
      const provider = (job.target?.providerName ?? opts.provider)!;
      if (priceFor(provider, model, job.target?.baseUrl ?? opts.baseUrl) === undefined)
        throw new UsageError(
          'run.cost-limit-without-price',
          `task "${job.task.name}" has limits.cost_limit_usd ${limit}: ${opts.prices} has no price for the model "${model}"`,
        );
    }
  }
}

/** The calls a task's run makes at most: each sample's epochs, each answer and its judges' verdicts. */
function plannedCalls(task: Task, limit: number | undefined): number {
  let calls = 0;
  for (const sample of task.samples.slice(0, limit ?? task.samples.length))
    calls += task.epochs * (1 + (sample.scorers ?? task.scorers).filter((s) => s.kind === 'judge').length);
  return calls;
}

/** Why the store refused a record: the ingest's own reason, else its errors (each with its code and place). */
export function refusalReason(ingested: IngestResult, item: IngestItem): string {
  if (item.reason !== undefined) return item.reason;
  if (item.status === 'duplicate')
    return `the same content is stored as ${item.duplicate_of ?? 'another record'}`;
  const kept = ingested.diagnostics.find((d) => d.code === 'store.run-kept');
  if (item.status === 'superseded')
    return kept?.message ?? `a copy of the same run at least as complete is stored (${item.kept_copy})`;
  const errors = ingested.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length === 0) return `${item.status} (no reason given)`;
  const shown = errors.slice(0, 3).map(formatDiagnosticText);
  return shown.join('; ') + (errors.length > 3 ? `; and ${errors.length - 3} more error(s)` : '');
}

/** The values of every API key the run may use (and base-URL credentials): nothing written or printed holds them. */
/** The environment variables that hold the run's API keys. */
function runKeyNames(opts: RunCliOptions, tasks: Task[]): (string | undefined)[] {
  return [
    ...PROVIDERS.filter((p) => p !== 'replay').map(defaultApiKeyEnv),
    opts.apiKeyEnv,
    ...tasks.flatMap((t) => t.scorers.map((s) => (s.kind === 'judge' ? s.judge.apiKeyEnv : undefined))),
  ];
}

function runSecrets(opts: RunCliOptions, io: CliIO, tasks: Task[] = []): Redactor {
  return keyRedactor(io.env, runKeyNames(opts, tasks), [
    ...urlSecrets(opts.baseUrl),
    ...urlSecrets(opts.judgeBaseUrl),
  ]);
}

async function runAction(taskPaths: string[], opts: RunCliOptions, io: CliIO): Promise<number> {
  const secrets = { redactor: runSecrets(opts, io) };
  try {
    return await runWithSecrets(taskPaths, opts, io, secrets);
  } catch (error) {
    throw redactedError(error, secrets.redactor);
  }
}

async function runWithSecrets(
  taskPaths: string[],
  opts: RunCliOptions,
  io: CliIO,
  secrets: { redactor: Redactor },
): Promise<number> {
  const jobs = taskPaths.flatMap((p) => loadJobs(resolve(io.cwd, p)));
  const tasks = [...new Set(jobs.map((j) => j.task))];
  // A key in a row, a prompt or a template is never sent, printed, journaled or recorded.
  secrets.redactor = runSecrets(opts, io, tasks);
  for (const t of tasks) redactTask(t, secrets.redactor);
  if (opts.epochs !== undefined) for (const t of tasks) t.epochs = opts.epochs;
  for (const t of tasks)
    if (t.reducer.name === 'pass_at_k' && (t.reducer.k ?? 1) > t.epochs)
      throw new UsageError(
        'usage.bad-option',
        `${t.name}: pass_at_k with k ${t.reducer.k} needs at least ${t.reducer.k} epochs`,
      );
  if (opts.dryRun) {
    printDryRun(io, tasks, opts.limit ?? 3, opts.format);
    return 0;
  }
  if (opts.provider === undefined && jobs.some((j) => j.target === undefined))
    throw new UsageError('usage.missing-option', "required option '--provider <name>' not specified");
  const models = opts.model ?? [];
  if (models.length === 0 && jobs.some((j) => j.target === undefined))
    throw new UsageError('usage.missing-option', '--model <id> is required (repeat it for several models)');
  if (new Set(models).size !== models.length)
    throw new UsageError('usage.bad-option', 'a --model is given twice');
  if (opts.provider === 'replay' && opts.replayFrom === undefined)
    throw new UsageError('usage.missing-option', '--provider replay needs --replay-from FIXTURE.jsonl');
  for (const [flag, url] of [
    ['--base-url', opts.baseUrl],
    ['--judge-base-url', opts.judgeBaseUrl],
  ] as const)
    if (url !== undefined && !URL.canParse(url))
      throw new UsageError(
        'usage.bad-option',
        `${flag} must be an absolute URL such as http://localhost:8000/v1, got "${redactUrl(url)}"`,
      );
  const outDir = resolve(io.cwd, opts.output);
  checkOutputs({
    inputs: [...taskPaths, opts.replayFrom],
    files: [opts.log, opts.record, opts.db],
    // The datastore root, its data folder and the journals beside it: each must be a folder or creatable.
    folders: [opts.output, join(outDir, 'data'), `${outDir}.journal`],
    cwd: io.cwd,
  });
  const modelMap =
    opts.modelMap === undefined ? undefined : await readModelMap(resolve(io.cwd, opts.modelMap));
  const prices = opts.prices === undefined ? undefined : loadPrices(resolve(io.cwd, opts.prices));
  // A model's price: as --model names it, else its record id (after --model-map).
  const priceFor = (providerName: string, model: string, baseUrl: string | undefined) =>
    priceOf(prices, model, runModelOf({ providerName, model, baseUrl }, modelMap ? { modelMap } : {}).id);
  checkCostLimits(jobs, models, opts, prices, priceFor);
  const retry = {
    ...DEFAULT_RETRY,
    maxAttempts: opts.maxAttempts,
    timeoutMs: opts.timeoutMs,
    baseDelayMs: opts.retryBaseMs,
    maxRetryAfterMs: opts.maxRetryAfterMs,
  };

  // One provider client per (provider, base URL, key variable): the model's and every judge's.
  const clients = new Map<string, Awaited<ReturnType<typeof createProvider>>>();
  const providerFor = async (
    provider: ProviderName,
    baseUrl: string | undefined,
    apiKeyEnv: string | undefined,
  ) => {
    const key = JSON.stringify([provider, baseUrl ?? null, apiKeyEnv ?? null]);
    let client = clients.get(key);
    if (client === undefined) {
      client = await createProvider({
        provider,
        baseUrl,
        apiKeyEnv,
        env: io.env,
        timeoutMs: opts.timeoutMs,
        maxResponseBytes: opts.maxResponseBytes,
        replayFrom:
          provider === 'replay' && opts.replayFrom !== undefined
            ? resolve(io.cwd, opts.replayFrom)
            : undefined,
        record: opts.record === undefined || provider === 'replay' ? undefined : resolve(io.cwd, opts.record),
        httpReferer: opts.httpReferer,
        xTitle: opts.xTitle,
      });
      clients.set(key, client);
    }
    return client.provider;
  };
  let judgePrices: Record<string, ModelPrice> = {};
  const judgesOf = async (task: Task): Promise<Map<string, RunModel>> => {
    const judges = new Map<string, RunModel>();
    judgePrices = {};
    for (const s of task.scorers) {
      if (s.kind !== 'judge') continue;
      const providerName = s.judge.provider ?? opts.judgeProvider ?? opts.provider;
      const model = s.judge.model ?? opts.judgeModel;
      if (providerName === undefined)
        throw new UsageError(
          'usage.missing-option',
          `${task.name}: scorer "${s.name}" needs a judge provider: --judge-provider, or the grader's provider in the config`,
        );
      if (model === undefined)
        throw new UsageError(
          'usage.missing-option',
          `${task.name}: scorer "${s.name}" needs a judge model: --judge-model, or judge.model in the task`,
        );
      const baseUrl =
        s.judge.baseUrl === null ? undefined : (s.judge.baseUrl ?? opts.judgeBaseUrl ?? opts.baseUrl);
      const apiKeyEnv = s.judge.apiKeyEnv ?? (providerName === opts.provider ? opts.apiKeyEnv : undefined);
      const price = priceOf(prices, model);
      if (price !== undefined) judgePrices[s.name] = price;
      judges.set(s.name, {
        providerName,
        model,
        baseUrl,
        provider: await providerFor(providerName, baseUrl, apiKeyEnv),
      });
    }
    return judges;
  };

  // DuckDB is loaded only when --db asks for the store.
  const store =
    opts.db === undefined
      ? undefined
      : await (await import('../../store/db.js')).openStore(resolve(io.cwd, opts.db), { readOnly: false });
  const log = openRunLog(opts.log === undefined ? undefined : resolve(io.cwd, opts.log));
  const interrupt = interruptSignal();
  const outcomes: RunOutcome[] = [];
  try {
    const targetOf = async (job: Job, model: string): Promise<RunModel> => {
      const providerName = (job.target?.providerName ?? opts.provider)!;
      const own = providerName === opts.provider;
      const baseUrl = job.target?.baseUrl ?? (own ? opts.baseUrl : undefined);
      return {
        providerName,
        model,
        baseUrl,
        provider: await providerFor(providerName, baseUrl, own ? opts.apiKeyEnv : undefined),
      };
    };
    const warned = new Set<string>();
    for (const job of jobs) {
      const { task } = job;
      const judges = await judgesOf(task);
      for (const model of job.target ? [job.target.model] : models) {
        const target = await targetOf(job, model);
        // A model named without its developer is written as unknown/NAME, and `compare NAME …` finds nothing:
        // said before the run, once per model, with the two ways to name it.
        const named = runModelOf(target, modelMap === undefined ? {} : { modelMap });
        if (named.developer === 'unknown' && !warned.has(named.id)) {
          warned.add(named.id);
          io.stderr.write(
            `evalkit: warning: the model "${model}" names no developer: its records say ${named.id} (compare and leaderboard list it so); ` +
              `name it as org/name (--model acme/${named.name}) or map it with --model-map\n`,
          );
        }
        const price = priceFor(target.providerName, model, target.baseUrl);
        if (prices !== undefined && price === undefined && !warned.has(`price:${model}`)) {
          warned.add(`price:${model}`);
          io.stderr.write(
            `evalkit: warning: ${opts.prices} has no price for the model "${model}" (nor for ${named.id}): its records have no cost\n`,
          );
        }
        const progress = progressReporter(io, `${task.name} × ${model}`);
        const journalPath = journalPathOf(outDir, task, target.providerName, model);
        const stale = staleLockOwner(journalPath);
        if (stale !== undefined)
          io.stderr.write(
            `evalkit: note: taking over ${lockPathFor(journalPath)}: its process ${stale.pid} (started ${stale.started_at}) is gone\n`,
          );
        let result: TaskRun;
        try {
          result = await runTask({
            task,
            target,
            judges,
            journalPath,
            limit: opts.limit,
            concurrency: opts.concurrency,
            rateLimit: opts.rateLimit,
            retry,
            retryFailed: opts.retryFailed,
            maxConsecutiveFailures: opts.maxConsecutiveFailures,
            log,
            signal: interrupt.signal,
            onProgress: progress.update,
            // Command tools see no API key: none of the run's key variables, nothing named like a credential.
            toolEnv: toolEnvironment(io.env, runKeyNames(opts, tasks)),
            prices: { target: price, judges: judgePrices },
          });
        } catch (error) {
          progress.done();
          const reason: unknown = interrupt.signal.reason;
          if (interrupt.signal.aborted && reason instanceof InterruptedError)
            throw new InterruptedError(
              reason.signal,
              task.tools !== undefined
                ? // An agent's turns are not known in advance: the journal's lines (model turns and tool results).
                  `interrupted: ${journaledCount(journalPath)} model turns and tool results journaled; rerun the same command to resume each sample at its last turn`
                : `interrupted: ${journaledCount(journalPath)} of ` +
                    `${plannedCalls(task, opts.limit)} calls journaled; rerun the same command to resume`,
            );
          throw error;
        }
        // The last figures are the summary's (a call's tokens count once its journal line is on disk, after the
        // last progress event).
        const s = result.summary;
        progress.update({
          itemsDone: s.samples,
          itemsTotal: s.samples,
          samplesDone: s.samples * s.epochs,
          samplesTotal: s.samples * s.epochs,
          samplesFailed: s.failed,
          tokens: s.inputTokens + s.outputTokens,
          elapsedMs: s.elapsedMs,
        });
        progress.done();
        const record = taskRecord(result, modelMap === undefined ? {} : { modelMap }, {
          taskFileSha256: job.taskFileSha256,
        });
        // A rerun of the same journal writes the same bytes ("unchanged"); a run continued with more samples or
        // epochs replaces it. A less complete copy of the run (fewer samples or epochs) leaves the file, as the store
        // leaves its copy (store/supersede.ts): files and store keep the same copy.
        const kept = await moreCompleteCopy(join(outDir, record.aggregatePath), record.aggregate);
        const written = kept
          ? { aggregatePath: join(outDir, record.aggregatePath), samplesPath: undefined, status: 'kept' }
          : await writeConverted(record, outDir, { force: true });
        let db: string | undefined;
        let notStored: string | undefined;
        if (kept !== undefined)
          io.stderr.write(
            `evalkit: note: ${written.aggregatePath} is kept: it holds a more complete copy of this run (${kept}); this run's record was neither written nor stored\n`,
          );
        else if (store !== undefined) {
          const { ingestPaths } = await import('../../store/ingest.js');
          const ingested = await ingestPaths(store, [written.aggregatePath], { cwd: io.cwd });
          // Stored, or already stored as it is; anything else (refused, a copy kept instead, a duplicate) is not.
          const refused = ingested.items.find((i) => i.status !== 'added' && i.status !== 'already-stored');
          // The record is written; the store refusing it fails this (task, model) only, and the run goes on.
          if (refused) notStored = refusalReason(ingested, refused);
          else db = opts.db;
        }
        outcomes.push({
          task: task.name,
          model,
          aggregate: written.aggregatePath,
          samples_file: written.samplesPath,
          status: written.status,
          evaluation_id: record.aggregate.evaluation_id as string,
          run: result.summary,
          scores: task.scorers.map((s) => {
            const stats = itemStatistics(reducedValues(result, s.name));
            const missing = stats === undefined ? missingValues(result, s.name) : undefined;
            return {
              scorer: s.name,
              score: stats?.score ?? null,
              ...(missing !== undefined
                ? { missing: `no sample has a value: ${missing.reasons.join('; ') || 'none was run'}` }
                : {}),
              standard_error: stats?.standardError ?? null,
              ci: stats?.ci ? [stats.ci.lower, stats.ci.upper] : null,
              n: stats?.n ?? 0,
            };
          }),
          ...(db ? { db } : {}),
          ...(notStored !== undefined ? { not_stored: notStored } : {}),
        });
        if (notStored !== undefined)
          io.stderr.write(
            `evalkit: error run.ingest: ${written.aggregatePath} was written but not stored in ${opts.db}: ${notStored}\n`,
          );
        if (opts.format === 'text') io.stdout.write(outcomeText(outcomes.at(-1)!, useColor(io)));
      }
    }
  } finally {
    interrupt.dispose();
    store?.close();
    for (const c of clients.values()) await c.close();
    await log.close();
  }
  if (opts.format === 'json') io.stdout.write(json(outcomes));
  return outcomes.some(
    (o) =>
      o.run.failed > 0 ||
      o.run.judgeFailed > 0 ||
      o.run.scorerFailed > 0 ||
      o.not_stored !== undefined ||
      o.scores.some((r) => r.score === null),
  )
    ? 1
    : 0;
}
