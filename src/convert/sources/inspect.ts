/**
 * Inspect AI logs (`.eval` archives and `.json` logs, formats 1–3) into EEE 0.3.0: one record per log.
 *
 * Results: every scorer (and reducer) × every metric in `results`; a `stderr` / `bootstrap_stderr` / `std` metric
 * becomes the uncertainty of the scorer's `accuracy` / `mean` metrics (kept as its own result when there is none).
 * Rows: one per sample, epoch and scorer, naming that scorer's first result; a score missing from a sample is taken
 * from `reductions`, and reduced scores of samples the log does not hold become rows of their own, so no score is
 * lost; with several epochs each row also carries the reduced value. Transcripts with tool calls are `agentic`,
 * other conversations with more than one model turn `multi_turn`, the rest `single_turn`. A run that did not
 * finish (`started`, `cancelled`, `error`) is converted as far as it got, and the record says so.
 */
import { DataError } from '../../errors.js';
import { readJsonSource } from '../read.js';
import { RecordDriver } from '../driver.js';
import {
  buildModel,
  contentDigest,
  detailString,
  epochSeconds,
  FieldReport,
  ResultsBuilder,
  rowMaker,
  stringMap,
  type ModelFacts,
} from '../record.js';
import { finite, isCount, isObj, type Obj } from '../source-json.js';
import type { ConvertOptions, ConvertedRecord, Probe, SourceConverter } from '../types.js';
import { openInspectLog, type InspectLog } from './inspect-log.js';
import {
  ALL_SAMPLES_METRICS,
  booleanFlags,
  metricSubset,
  type MetricSubset,
  type ScoredSample,
} from './inspect-subsets.js';

// ---------------------------------------------------------------------------------------------------------------
// Detection

function detect(probe: Probe): boolean {
  if (probe.isDirectory || probe.head === undefined) return false;
  const head = probe.head;
  if (probe.path.endsWith('.eval'))
    return head.startsWith('PK\x03\x04') && /(header\.json|_journal\/start\.json|samples\/)/.test(head);
  if (!probe.path.endsWith('.json')) return false;
  return (
    /^\s*\{/.test(head) &&
    /"eval"\s*:\s*\{/.test(head) &&
    /"(run_id|task_id)"\s*:/.test(head) &&
    /"status"\s*:\s*\[?\s*"(success|error|cancelled|started)"/.test(head)
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Scores

/** Inspect's value_to_float: C/I/P/N grades, booleans, numbers and numeric strings. */
export function inspectValueToFloat(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value !== 'string') return undefined;
  const v = value.trim();
  const grades: Record<string, number> = { C: 1, I: 0, P: 0.5, N: 0 };
  if (v in grades) return grades[v];
  const lower = v.toLowerCase();
  if (['yes', 'true'].includes(lower)) return 1;
  if (['no', 'false'].includes(lower)) return 0;
  const n = Number(v);
  return v !== '' && Number.isFinite(n) ? n : undefined;
}

const isCorrectValue = (value: unknown): boolean =>
  value === 'C' ||
  value === true ||
  value === 1 ||
  (typeof value === 'string' && ['yes', 'true', '1'].includes(value.trim().toLowerCase()));

/** One `results.scores` entry (format 2–3), or the single scorer of a format-1 log. */
interface ScoreEntry {
  /** The score's name (a scorer, or a key of a scorer's dict value). */
  name: string;
  scorer: string;
  reducer?: string;
  params: Obj;
  metrics: [string, Obj][];
  scoredSamples?: number;
  unscoredSamples?: number;
  field: string;
  /** The result the rows name (set once the results are built). */
  rowResultId?: string;
  /** Each result of this entry by its metric name (a free-text score's metadata may hold a metric's value). */
  resultIdsByMetric?: Map<string, string>;
  /** Computed by evalkit (the log has no results). */
  computed?: { sum: number; count: number };
}

const UNCERTAINTY_METRICS = new Set(['stderr', 'bootstrap_stderr', 'std']);
const MEAN_METRICS = new Set(['accuracy', 'mean']);

function scoreEntries(header: Obj): ScoreEntry[] {
  const results = header.results;
  if (!isObj(results)) return [];
  const metricList = (m: unknown): [string, Obj][] =>
    isObj(m) ? Object.entries(m).filter((e): e is [string, Obj] => isObj(e[1])) : [];
  if (Array.isArray(results.scores))
    return results.scores.filter(isObj).map((s, i) => ({
      name: String(s.name ?? s.scorer ?? `score${i}`),
      scorer: String(s.scorer ?? s.name ?? `score${i}`),
      reducer: typeof s.reducer === 'string' ? s.reducer : undefined,
      params: isObj(s.params) ? s.params : {},
      metrics: metricList(s.metrics),
      scoredSamples: typeof s.scored_samples === 'number' ? s.scored_samples : undefined,
      unscoredSamples: typeof s.unscored_samples === 'number' ? s.unscored_samples : undefined,
      field: `results.scores[${i}]`,
    }));
  if (isObj(results.scorer)) {
    // format 1: one scorer, metrics beside it
    const scorer = String(results.scorer.name ?? 'scorer');
    return [
      {
        name: scorer,
        scorer,
        params: isObj(results.scorer.params) ? results.scorer.params : {},
        metrics: metricList(results.metrics),
        field: 'results',
      },
    ];
  }
  return [];
}

/** The score object a sample holds for a score entry (format 1: `score`; dict values: the entry's key). */
function sampleScore(sample: Obj, entry: ScoreEntry): Obj | undefined {
  if (isObj(sample.scores)) {
    const direct = sample.scores[entry.name] ?? sample.scores[entry.scorer];
    if (isObj(direct)) {
      if (isObj(direct.value) && entry.name in direct.value && entry.name !== entry.scorer)
        return { ...direct, value: direct.value[entry.name] };
      return direct;
    }
    return undefined;
  }
  if (isObj(sample.score)) return sample.score;
  return undefined;
}

/** reductions[scorer (, reducer)] → sample id → reduced score. */
function reductionIndex(reductions: Obj[]): Map<string, Map<string, Obj>> {
  const index = new Map<string, Map<string, Obj>>();
  for (const r of reductions) {
    const key = `${String(r.scorer)}\u0000${typeof r.reducer === 'string' ? r.reducer : ''}`;
    const bySample = new Map<string, Obj>();
    for (const s of Array.isArray(r.samples) ? r.samples.filter(isObj) : [])
      bySample.set(String(s.sample_id), s);
    index.set(key, bySample);
  }
  return index;
}

function reductionsFor(
  index: Map<string, Map<string, Obj>>,
  entry: ScoreEntry,
): Map<string, Obj> | undefined {
  const exact =
    index.get(`${entry.scorer}\u0000${entry.reducer ?? ''}`) ??
    index.get(`${entry.name}\u0000${entry.reducer ?? ''}`);
  if (exact) return exact;
  for (const [key, value] of index) if (key.startsWith(`${entry.scorer}\u0000`)) return value;
  return undefined;
}

function reducedValue(r: Obj, entry: ScoreEntry): unknown {
  return isObj(r.value) && entry.name in r.value ? r.value[entry.name] : r.value;
}

/**
 * Each score entry's value per sample, with the boolean metadata fields that may select it, for the entries with a
 * metric Inspect does not define (the only ones that may cover some samples only); the log's samples are read once
 * more for them, and not at all when there is none.
 */
async function customMetricValues(
  log: InspectLog,
  entries: ScoreEntry[],
): Promise<Map<ScoreEntry, ScoredSample[]>> {
  const out = new Map<ScoreEntry, ScoredSample[]>();
  const custom = entries.filter(
    (e) => !e.computed && e.metrics.some(([k, m]) => !ALL_SAMPLES_METRICS.has(String(m.name ?? k))),
  );
  if (custom.length === 0) return out;
  for (const e of custom) out.set(e, []);
  for await (const { sample } of log.samples()) {
    const id = String(sample.id);
    const epoch = typeof sample.epoch === 'number' ? sample.epoch : 1;
    for (const e of custom) {
      const score = sampleScore(sample, e);
      const value = score ? inspectValueToFloat(score.value) : undefined;
      if (value !== undefined)
        out.get(e)!.push({ key: `${id}#${epoch}`, sampleId: id, value, flags: booleanFlags(score, sample) });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Messages

function contentText(content: unknown): { text: string | null; reasoning: string | null } {
  if (typeof content === 'string') return { text: content, reasoning: null };
  if (!Array.isArray(content)) return { text: null, reasoning: null };
  const texts: string[] = [];
  const reasoning: string[] = [];
  for (const part of content) {
    if (!isObj(part)) continue;
    if (part.type === 'text' && typeof part.text === 'string') texts.push(part.text);
    else if (part.type === 'reasoning' && typeof part.reasoning === 'string') reasoning.push(part.reasoning);
    else if (typeof part.type === 'string') texts.push(`[${part.type}]`);
  }
  return { text: texts.join('\n'), reasoning: reasoning.length > 0 ? reasoning.join('\n') : null };
}

function toolArguments(args: unknown): Record<string, string> | null {
  if (!isObj(args)) return args === undefined || args === null ? null : { value: detailString(args) };
  return stringMap(args);
}

interface ConvertedMessages {
  messages: Obj[];
  toolCalls: number;
  assistantTurns: number;
  userTurns: number;
  lastAssistant: number;
}

function convertMessages(list: unknown): ConvertedMessages {
  const messages: Obj[] = [];
  let toolCalls = 0;
  let assistantTurns = 0;
  let userTurns = 0;
  let lastAssistant = -1;
  const items = Array.isArray(list) ? list.filter(isObj) : [];
  items.forEach((m, turn) => {
    const role = typeof m.role === 'string' ? m.role : 'unknown';
    const { text, reasoning } = contentText(m.content);
    const out: Obj = { turn_idx: turn, role, content: text };
    if (reasoning !== null) out.reasoning_trace = reasoning;
    if (Array.isArray(m.tool_calls) && m.tool_calls.length > 0) {
      out.tool_calls = m.tool_calls.filter(isObj).map((c, k) => ({
        id: typeof c.id === 'string' ? c.id : `call_${turn}_${k}`,
        name: typeof c.function === 'string' ? c.function : String(c.function ?? 'unknown'),
        arguments: toolArguments(c.arguments),
      }));
      toolCalls += (out.tool_calls as unknown[]).length;
    }
    if (typeof m.tool_call_id === 'string') out.tool_call_id = [m.tool_call_id];
    // A failed call's result: Inspect's ToolCallError {type, message} as `type: message`, where evalkit run's rows
    // keep their error code.
    if (role === 'tool' && isObj(m.error)) {
      const parts = [m.error.type, m.error.message].filter((p) => typeof p === 'string' && p !== '');
      out.error = parts.length > 0 ? parts.join(': ') : detailString(m.error);
    }
    if (role === 'assistant') (assistantTurns++, (lastAssistant = turn));
    if (role === 'user') userTurns++;
    messages.push(out);
  });
  return { messages, toolCalls, assistantTurns, userTurns, lastAssistant };
}

function inputText(input: unknown): string {
  if (typeof input === 'string') return input;
  if (Array.isArray(input))
    return input
      .filter(isObj)
      .map((m) => contentText(m.content).text ?? '')
      .join('\n');
  return input === undefined || input === null ? '' : detailString(input);
}

function targetList(target: unknown): string[] {
  if (Array.isArray(target)) return target.map((t) => (typeof t === 'string' ? t : detailString(t)));
  if (target === undefined || target === null) return [];
  return [typeof target === 'string' ? target : detailString(target)];
}

function outputText(output: unknown): { raw: string; reasoning: string | null } {
  if (!isObj(output)) return { raw: '', reasoning: null };
  const choice = Array.isArray(output.choices) && isObj(output.choices[0]) ? output.choices[0] : undefined;
  const message = choice && isObj(choice.message) ? choice.message : undefined;
  const fromMessage = message ? contentText(message.content) : { text: null, reasoning: null };
  const raw = typeof output.completion === 'string' ? output.completion : (fromMessage.text ?? '');
  return { raw, reasoning: fromMessage.reasoning };
}

interface GroupedInterval {
  group: string;
  lower: { key: string; value: number };
  upper: { key: string; value: number };
  level?: number;
}

/**
 * Inspect 0.3.2xx flattens a metric that returns several values (e.g. `ci()`: a lower and an upper bound) into one
 * EvalMetric per value sharing a `group`. A group of exactly a lower and an upper bound is one interval, attached to
 * the metric the group is named after, else to the scorer's only other metric; keyed by that metric's name.
 */
function groupedIntervals(metrics: [string, Obj][]): Map<string, GroupedInterval> {
  const groups = new Map<string, [string, Obj][]>();
  for (const [k, m] of metrics)
    if (typeof m.group === 'string') groups.set(m.group, [...(groups.get(m.group) ?? []), [k, m]]);
  const others = metrics
    .filter(([, m]) => typeof m.group !== 'string' && !UNCERTAINTY_METRICS.has(String(m.name)))
    .map(([k, m]) => String(m.name ?? k));
  const out = new Map<string, GroupedInterval>();
  for (const [group, members] of groups) {
    const bound = (re: RegExp) => members.find(([k, m]) => re.test(String(m.name ?? k)) && finite(m.value));
    const lower = bound(/(^|[^a-z])lower$/i);
    const upper = bound(/(^|[^a-z])upper$/i);
    if (members.length !== 2 || !lower || !upper) continue;
    const target = others.includes(group) ? group : others.length === 1 ? others[0] : undefined;
    if (target === undefined || out.has(target)) continue;
    const params = { ...(isObj(lower[1].params) ? lower[1].params : {}) };
    const level = [params.level, params.confidence_level, params.confidence].find(
      (x): x is number => finite(x) && x > 0 && x < 1,
    );
    out.set(target, {
      group,
      lower: { key: lower[0], value: lower[1].value as number },
      upper: { key: upper[0], value: upper[1].value as number },
      ...(level !== undefined ? { level } : {}),
    });
  }
  return out;
}

/** Where the sample fields of Inspect 0.3.18x+ go (each into the row's metadata), for the field report. */
const SAMPLE_EXTRAS_REPORT: [string, string][] = [
  ['samples[].model_usage.*.total_cost', '/metadata/cost (the sum over the models, as Inspect states it)'],
  ['samples[].role_usage', '/metadata/role_usage'],
  ['samples[].error_retries', '/metadata/error_retries (count) and /metadata/error_retry_messages'],
  ['samples[].events[model].error', '/metadata/model_call_errors (failed model calls that were retried)'],
  [
    'samples[].model_fallbacks, turn_count, token_limit*, score_on_error',
    '/metadata/<the same key> (as the log states them)',
  ],
];
/** Sample keys of newer Inspect logs kept as they are in the row's metadata. */
const SAMPLE_EXTRA_KEYS = ['model_fallbacks', 'turn_count', 'score_on_error'];

/** What a sample says beyond the conversation and scores (Inspect 0.3.18x+), for the row's metadata. */
function sampleExtras(sample: Obj): Obj {
  const out: Obj = {};
  const usage = isObj(sample.model_usage) ? Object.values(sample.model_usage).filter(isObj) : [];
  const costs = usage.map((u) => u.total_cost).filter((c): c is number => finite(c));
  if (costs.length > 0) out.cost = costs.reduce((a, b) => a + b, 0);
  if (Array.isArray(sample.error_retries) && sample.error_retries.length > 0) {
    out.error_retries = sample.error_retries.length;
    out.error_retry_messages = sample.error_retries.map((e) =>
      isObj(e) && typeof e.message === 'string' ? e.message : detailString(e),
    );
  }
  const events = Array.isArray(sample.events) ? sample.events.filter(isObj) : [];
  const failedCalls = events.filter((e) => e.event === 'model' && e.error != null && e.error !== '').length;
  if (failedCalls > 0) out.model_call_errors = failedCalls;
  for (const key of Object.keys(sample))
    if (SAMPLE_EXTRA_KEYS.includes(key) || key.startsWith('token_limit'))
      if (sample[key] !== null && sample[key] !== undefined) out[key] = sample[key];
  return out;
}

function tokenUsage(usage: unknown): Obj | undefined {
  if (!isObj(usage)) return undefined;
  const models = Object.values(usage).filter(isObj);
  if (models.length === 0) return undefined;
  const sum = (key: string): number | undefined => {
    const values = models.map((m) => m[key]).filter(isCount);
    return values.length === 0 ? undefined : values.reduce((a, b) => a + b, 0);
  };
  const input = sum('input_tokens') ?? 0;
  const output = sum('output_tokens') ?? 0;
  const out: Obj = {
    input_tokens: input,
    output_tokens: output,
    total_tokens: sum('total_tokens') ?? input + output,
  };
  const cacheWrite = sum('input_tokens_cache_write');
  const cacheRead = sum('input_tokens_cache_read');
  const reasoning = sum('reasoning_tokens');
  if (cacheWrite !== undefined) out.input_tokens_cache_write = cacheWrite;
  if (cacheRead !== undefined) out.input_tokens_cache_read = cacheRead;
  if (reasoning !== undefined) out.reasoning_tokens = reasoning;
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// The model

const API_PROVIDERS = new Set([
  'openai',
  'anthropic',
  'google',
  'vertex',
  'azureai',
  'bedrock',
  'mistral',
  'grok',
  'groq',
  'together',
  'fireworks',
  'openrouter',
  'perplexity',
  'cloudflare',
  'deepseek',
  'cohere',
  'goodfire',
  'sambanova',
]);
const LOCAL_PROVIDERS = new Set([
  'hf',
  'vllm',
  'ollama',
  'llama-cpp-python',
  'llama_cpp_python',
  'sglang',
  'transformer_lens',
  'nnterp',
]);

/** An Inspect model string (`provider/model`) as model facts: the provider is the inference platform. */
function inspectModelFacts(model: string, field: string, extra: Obj): ModelFacts {
  const slash = model.indexOf('/');
  const provider = slash === -1 ? undefined : model.slice(0, slash);
  const name = slash === -1 ? model : model.slice(slash + 1);
  const facts: ModelFacts = {
    name,
    sourceString: model,
    field,
    details: { inspect_model: model, ...extra },
    detailsField: '',
  };
  if (provider) facts.inferencePlatform = provider;
  if (provider && API_PROVIDERS.has(provider)) {
    const closed = ['openai', 'anthropic'].includes(provider) || /^(gemini|claude|gpt-|o[134])/i.test(name);
    facts.deployment = {
      deploymentType: 'externally_managed',
      modelAvailability: closed ? 'closed_weights' : 'unknown',
      reason: `Inspect model provider "${provider}" is an API${closed ? ` serving a closed-weights model` : ''}`,
    };
  } else if (provider && LOCAL_PROVIDERS.has(provider)) {
    facts.deployment = {
      deploymentType: 'self_deployed',
      modelAvailability: provider === 'hf' || provider === 'vllm' ? 'open_weights' : 'unknown',
      reason: `Inspect model provider "${provider}" runs the model locally`,
    };
  }
  return facts;
}

// ---------------------------------------------------------------------------------------------------------------
// The record

/** Fields of `eval` this converter maps itself; the rest go to eval_library.additional_details. */
const EVAL_MAPPED = new Set([
  'task',
  'model',
  'created',
  'dataset',
  'packages',
  'scorers',
  'model_roles',
  'model_generate_config',
  'sandbox',
]);
const SAMPLE_NOT_MAPPED: [string, string][] = [
  ['samples[].events', 'the event transcript is Inspect-internal; the conversation is kept as messages'],
  ['samples[].events_data', 'pooled event data, Inspect-internal'],
  ['samples[].attachments', 'attachment bodies referenced from events, Inspect-internal'],
  ['samples[].message_pool', 'a deduplication pool of the messages already written'],
  ['samples[].store', 'the solver store at the end of the sample, Inspect-internal'],
  ['samples[].timelines', 'custom timelines over events, Inspect-internal'],
];

function generationConfig(header: Obj, report: FieldReport): Obj | undefined {
  const ev = header.eval as Obj;
  const plan = isObj(header.plan) ? header.plan : undefined;
  const config = {
    ...(isObj(plan?.config) ? plan.config : {}),
    ...(isObj(ev.model_generate_config) ? ev.model_generate_config : {}),
  };
  const args: Obj = {};
  for (const key of ['temperature', 'top_p', 'top_k'] as const)
    if (finite(config[key])) args[key] = config[key];
  if (Number.isInteger(config.max_tokens) && (config.max_tokens as number) >= 1)
    args.max_tokens = config.max_tokens;
  if (plan) {
    const steps = Array.isArray(plan.steps) ? plan.steps : [];
    args.eval_plan = {
      ...(typeof plan.name === 'string' ? { name: plan.name } : {}),
      steps: steps.map((s) => JSON.stringify(s)),
      config: stringMap(config),
    };
    report.mapped('plan', '/evaluation_results/*/generation_config/generation_args/eval_plan');
    const tools = steps
      .filter(isObj)
      .flatMap((s) => (isObj(s.params) && Array.isArray(s.params.tools) ? s.params.tools.filter(isObj) : []))
      .map((t) => ({
        name: String(t.name ?? 'unknown'),
        ...(isObj(t.params) && Object.keys(t.params).length > 0 ? { parameters: stringMap(t.params) } : {}),
      }));
    if (tools.length > 0) args.agentic_eval_config = { available_tools: tools };
  }
  const cfg = isObj(ev.config) ? ev.config : {};
  const limits: Obj = {};
  for (const key of ['time_limit', 'message_limit', 'token_limit'] as const)
    if (Number.isInteger(cfg[key])) limits[key] = cfg[key];
  if (Object.keys(limits).length > 0) args.eval_limits = limits;
  if (isObj(ev.sandbox) && typeof ev.sandbox.type === 'string') {
    args.sandbox = {
      type: ev.sandbox.type,
      ...(typeof ev.sandbox.config === 'string' ? { config: ev.sandbox.config } : {}),
    };
    report.mapped('eval.sandbox', '/evaluation_results/*/generation_config/generation_args/sandbox');
  }
  if (isObj(ev.model_generate_config))
    report.mapped('eval.model_generate_config', '/evaluation_results/*/generation_config');
  return Object.keys(args).length > 0 ? { generation_args: args } : undefined;
}

function sourceData(header: Obj, task: string, report: FieldReport): Obj {
  const ds = isObj((header.eval as Obj).dataset) ? ((header.eval as Obj).dataset as Obj) : {};
  const name = typeof ds.name === 'string' && ds.name !== '' ? ds.name : task;
  const details: Obj = {};
  for (const [k, v] of Object.entries(ds))
    if (k !== 'name' && k !== 'sample_ids' && k !== 'location') details[k] = v;
  if (Array.isArray(ds.sample_ids)) {
    details.sample_ids_count = ds.sample_ids.length;
    report.notMapped(
      'eval.dataset.sample_ids',
      'the ids are on the instance rows (sample_id / metadata.inspect_sample_id); their count is kept',
    );
  }
  report.mapped('eval.dataset', '/evaluation_results/*/source_data');
  const location = typeof ds.location === 'string' ? ds.location : undefined;
  if (location && /^https?:\/\//.test(location))
    return {
      dataset_name: name,
      source_type: 'url',
      url: [location],
      ...(Object.keys(details).length > 0 ? { additional_details: stringMap(details) } : {}),
    };
  if (location) details.location = location;
  return {
    dataset_name: name,
    source_type: 'other',
    ...(Object.keys(details).length > 0 ? { additional_details: stringMap(details) } : {}),
  };
}

/** llm_scoring for a scorer that uses a grader model (a model role, or a `model` option). */
function llmScoring(header: Obj, entry: ScoreEntry, report: FieldReport, at: string): Obj | undefined {
  const ev = header.eval as Obj;
  const options = entry.params;
  const roles = isObj(ev.model_roles) ? ev.model_roles : {};
  let model: string | undefined;
  let field = '';
  let config: Obj | undefined;
  if (typeof options.model_role === 'string' && isObj(roles[options.model_role])) {
    const role = roles[options.model_role] as Obj;
    model = typeof role.model === 'string' ? role.model : undefined;
    config = isObj(role.config) ? role.config : undefined;
    field = `eval.model_roles.${options.model_role}`;
  } else if (typeof options.model === 'string') {
    model = options.model;
    field = `${entry.field}.params.model`;
  } else if (Array.isArray(options.model) && typeof options.model[0] === 'string') {
    model = options.model[0];
    field = `${entry.field}.params.model`;
  }
  if (!model) return undefined;
  const judgeReport = new FieldReport();
  const judge = buildModel(inspectModelFacts(model, field, {}), {}, judgeReport);
  report.mapped(field, `${at}/metric_config/llm_scoring/judges/0/model_info`);
  const prompt = [options.template, options.instructions].filter((t) => typeof t === 'string').join('\n\n');
  const judgeConfig: Obj = { model_info: judge.modelInfo };
  if (config && finite(config.temperature)) judgeConfig.temperature = config.temperature;
  return {
    judges: [judgeConfig],
    input_prompt:
      prompt !== ''
        ? prompt
        : `(the default template of the ${entry.scorer} scorer; the log does not store it)`,
  };
}

function statusNote(header: Obj, log: InspectLog): string | undefined {
  const status = String(header.status ?? 'unknown');
  if (status === 'success') return undefined;
  const results = isObj(header.results) ? header.results : {};
  const ds = isObj((header.eval as Obj).dataset) ? ((header.eval as Obj).dataset as Obj) : {};
  const completed = finite(results.completed_samples) ? results.completed_samples : log.sampleCount;
  const planned = finite(results.total_samples)
    ? results.total_samples
    : finite(ds.samples)
      ? ds.samples
      : undefined;
  const error =
    isObj(header.error) && typeof header.error.message === 'string' ? `: ${header.error.message}` : '';
  return `the run did not finish (status ${status}${log.fromJournal ? ', no final header: read from _journal/start.json' : ''}); converted what the log holds: ${completed}${planned !== undefined ? ` of ${planned}` : ''} samples${error}`;
}

async function* convertInspect(path: string, options: ConvertOptions): AsyncGenerator<ConvertedRecord> {
  const log = await openInspectLog(path);
  const { header } = log;
  const ev = header.eval as Obj;
  const d = new RecordDriver('inspect', path, options);
  const { report, notes } = d;
  const task = typeof ev.task === 'string' && ev.task !== '' ? ev.task : 'inspect-task';
  report.mapped('eval.task', '/evaluation_results/*/evaluation_name');
  const status = String(header.status ?? 'unknown');
  const note = statusNote(header, log);
  if (note) notes.push(note);
  if (header.invalidated === true) notes.push('the log is marked invalidated');
  if (log.rBoxed)
    notes.push('written by R with every scalar boxed in a one-element array: read with the scalars unboxed');

  if (typeof ev.model !== 'string') throw new DataError('convert.inspect', `${path}: eval.model is missing`);
  const model = d.model(
    inspectModelFacts(
      ev.model,
      'eval.model',
      isObj(ev.model_args) && Object.keys(ev.model_args).length > 0 ? { model_args: ev.model_args } : {},
    ),
  );

  // Results
  const entries = scoreEntries(header);
  const reductionIdx = reductionIndex(log.reductions);
  const computing = entries.length === 0;
  if (computing) {
    // No results in the log (a run that never finished): a mean per scorer over the samples present.
    const byScorer = new Map<string, ScoreEntry>();
    for await (const { sample } of log.samples()) {
      const scores = isObj(sample.scores)
        ? sample.scores
        : isObj(sample.score)
          ? { score: sample.score }
          : {};
      for (const [name, score] of Object.entries(scores)) {
        if (!isObj(score)) continue;
        let e = byScorer.get(name);
        if (!e)
          byScorer.set(
            name,
            (e = {
              name,
              scorer: name,
              params: {},
              metrics: [],
              field: `samples[].scores.${name}`,
              computed: { sum: 0, count: 0 },
            }),
          );
        const v = inspectValueToFloat(score.value);
        if (v !== undefined) ((e.computed!.sum += v), e.computed!.count++);
      }
    }
    entries.push(...[...byScorer.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
    if (entries.length > 0)
      notes.push(
        "the log holds no results: each scorer's score is the mean over the scored samples present, computed by evalkit",
      );
  } else if (entries.some((e) => e.metrics.length === 0)) {
    // A scorer the log lists without any metric (R-written logs): its mean over the samples, computed here.
    const bare = entries.filter((e) => e.metrics.length === 0);
    for (const e of bare) e.computed = { sum: 0, count: 0 };
    for await (const { sample } of log.samples())
      for (const e of bare) {
        const v = inspectValueToFloat(sampleScore(sample, e)?.value);
        if (v !== undefined) ((e.computed!.sum += v), e.computed!.count++);
      }
    notes.push(
      `scorer(s) without metrics in the log (${bare.map((e) => e.name).join(', ')}): the mean over the scored samples, computed by evalkit`,
    );
  }
  const scorerSpecs = Array.isArray(ev.scorers) ? ev.scorers.filter(isObj) : [];
  const scoredByEntry = await customMetricValues(log, entries);
  /** The samples a result covers when its metric covers some only (see inspect-subsets.ts). */
  const subsets = new Map<string, MetricSubset>();
  const results = d.results;
  const configReducer = epochsReducer(ev);
  const genConfig = generationConfig(header, report);
  const srcData = sourceData(header, task, report);
  const evaluationTimestamp = epochSeconds(ev.created);
  const multiReducer = new Set(entries.map((e) => e.name)).size < entries.length;
  const runDetails: Obj = status === 'success' ? {} : { run_status: status };
  for (const entry of entries) {
    const spec = scorerSpecs.find((s) => s.name === entry.scorer);
    const params =
      Object.keys(entry.params).length > 0 ? entry.params : isObj(spec?.options) ? spec.options : {};
    const keyParts = [entry.name, ...(multiReducer && entry.reducer ? [entry.reducer] : [])];
    const idOf = (metric: string) => [...keyParts, metric].join('/');
    const metricParameters: Obj = { scorer: entry.scorer };
    if (entry.name !== entry.scorer) metricParameters.score = entry.name;
    if (entry.reducer) metricParameters.reducer = entry.reducer;
    const reducer = entry.reducer ?? configReducer;
    const base = {
      evaluationName: task,
      sourceData: srcData,
      ...(genConfig ? { generationConfig: genConfig } : {}),
      ...(evaluationTimestamp ? { evaluationTimestamp } : {}),
      // How the log reduced a sample's epochs to one score (the store reduces rows the same way).
      ...(reducer !== undefined ? { configDetails: { epoch_reducer: reducer } } : {}),
    };
    entry.resultIdsByMetric = new Map();
    const judging = (at: string) => llmScoring(header, { ...entry, params }, report, at);
    if (entry.computed) {
      if (entry.computed.count === 0) {
        report.notMapped(entry.field, 'no sample holds a numeric value for this scorer');
        continue;
      }
      const at = `/evaluation_results/${results.results.length}`;
      const scoring = judging(at);
      results.add({
        ...base,
        metric: 'mean',
        metricName: `${entry.name} mean (computed)`,
        resultId: idOf('mean'),
        field: entry.field,
        score: entry.computed.sum / entry.computed.count,
        metricParameters,
        numSamples: entry.computed.count,
        details: {
          ...runDetails,
          computed_by: 'evalkit',
          computation: `mean of ${entry.computed.count} scored samples (Inspect value_to_float)`,
        },
        declared: {
          headlineWhy: 'the log holds no results (the mean was computed by evalkit from the rows)',
        },
        ...(scoring ? { llmScoring: scoring } : {}),
      });
      entry.rowResultId = idOf('mean');
      continue;
    }
    const metricsByName = new Map(entry.metrics.map(([k, m]) => [String(m.name ?? k), { key: k, m }]));
    const uncertaintyOf = (name: string) => {
      const m = metricsByName.get(name);
      return m && finite(m.m.value) ? m : undefined;
    };
    const stderr = uncertaintyOf('stderr');
    const bootstrap = uncertaintyOf('bootstrap_stderr');
    const std = uncertaintyOf('std');
    const hasMean = [...metricsByName.keys()].some((n) => MEAN_METRICS.has(n));
    const intervals = groupedIntervals(entry.metrics);
    // A log shortened to fewer epochs than the run had (e.g. its first epoch only): the rows are not what the
    // headline averages.
    const runEpochs = isObj(ev.config) && finite(ev.config.epochs) ? ev.config.epochs : 1;
    const fewerEpochs = runEpochs > 1 && log.sampleCount > 0 && log.maxEpoch < runEpochs;
    const inInterval = new Set([...intervals.values()].flatMap((i) => [i.lower.key, i.upper.key]));
    for (const [key, m] of entry.metrics) {
      const name = String(m.name ?? key);
      const field = `${entry.field}.metrics.${key}`;
      if (UNCERTAINTY_METRICS.has(name) && hasMean) continue; // becomes the uncertainty of the mean below
      if (inInterval.has(key)) continue; // the bounds of a grouped interval: the uncertainty of its metric below
      if (typeof m.value !== 'number') {
        report.notMapped(field, `value ${JSON.stringify(m.value ?? null)} is not a number`);
        continue;
      }
      const at = `/evaluation_results/${results.results.length}`;
      const input: Parameters<ResultsBuilder['add']>[0] = {
        ...base,
        metric: name,
        resultId: idOf(key),
        field,
        score: m.value,
        metricParameters: {
          ...metricParameters,
          ...(isObj(m.params) && Object.keys(m.params).length > 0
            ? { metric_params: JSON.stringify(m.params) }
            : {}),
        },
      };
      if (Object.keys(runDetails).length > 0) input.details = runDetails;
      if (entry.scoredSamples !== undefined) input.numSamples = entry.scoredSamples;
      const values = scoredByEntry.get(entry);
      const subset = values && !ALL_SAMPLES_METRICS.has(name) ? metricSubset(values, m.value) : undefined;
      if (subset) {
        const where = `${subset.field} = ${subset.equals}`;
        input.numSamples = subset.samples;
        input.configDetails = { ...(input.configDetails ?? {}), applies_to: where };
        subsets.set(idOf(key), subset);
        report.inferred(
          field,
          `${at}/score_details/uncertainty/num_samples`,
          `the headline is the mean over the ${subset.samples} of ${subset.of} samples whose ${where}, not over all: the metric covers those only (metric_config.additional_details.applies_to), and only they get a row for it`,
        );
      }
      // What Inspect declares: the scorer's scored_samples, and a mean for accuracy / mean. A metric over a subset
      // evalkit found covers fewer samples than the scorer scored: its count is evalkit's, not the source's.
      input.declared = subset
        ? {
            headlineWhy: `the metric covers the samples whose ${subset.field} = ${subset.equals} (found by evalkit), not all the scorer scored`,
          }
        : {
            ...(entry.scoredSamples !== undefined
              ? { n: entry.scoredSamples, nFrom: `${entry.field}.scored_samples` }
              : {}),
            ...(MEAN_METRICS.has(name)
              ? fewerEpochs
                ? {
                    headlineWhy: `the headline is over the epoch-reduced scores of ${runEpochs} epochs, and the log holds epoch${log.maxEpoch > 1 ? `s 1–${log.maxEpoch}` : ' 1'} only (a shortened log): its rows cannot give it`,
                  }
                : { headline: 'mean' as const }
              : { headlineWhy: `Inspect's ${name} metric is not a mean of the sample scores` }),
          };
      if (MEAN_METRICS.has(name)) {
        if (bootstrap) {
          input.standardError = {
            value: bootstrap.m.value as number,
            method: 'bootstrap (Inspect bootstrap_stderr metric)',
          };
          const n = isObj(bootstrap.m.params) ? bootstrap.m.params.num_samples : undefined;
          if (Number.isInteger(n)) input.numBootstrapSamples = n as number;
          report.mapped(
            `${entry.field}.metrics.${bootstrap.key}`,
            `${at}/score_details/uncertainty/standard_error`,
          );
        } else if (stderr) {
          input.standardError = {
            value: stderr.m.value as number,
            method: 'analytic (Inspect stderr metric: standard error of the mean of the sample scores)',
          };
          report.mapped(
            `${entry.field}.metrics.${stderr.key}`,
            `${at}/score_details/uncertainty/standard_error`,
          );
        }
        if (bootstrap && stderr) {
          input.details = { ...(input.details ?? {}), inspect_stderr: stderr.m.value };
          report.details(
            `${entry.field}.metrics.${stderr.key}`,
            `${at}/score_details/details/inspect_stderr`,
          );
        }
        if (std) {
          input.standardDeviation = std.m.value as number;
          report.mapped(
            `${entry.field}.metrics.${std.key}`,
            `${at}/score_details/uncertainty/standard_deviation`,
          );
        }
      }
      const interval = intervals.get(name);
      if (interval) {
        input.confidenceInterval = {
          lower: interval.lower.value,
          upper: interval.upper.value,
          ...(interval.level !== undefined ? { confidenceLevel: interval.level } : {}),
          method: `Inspect metric group "${interval.group}" (${interval.lower.key}, ${interval.upper.key})`,
        };
        for (const k of [interval.lower.key, interval.upper.key])
          report.mapped(`${entry.field}.metrics.${k}`, `${at}/score_details/uncertainty/confidence_interval`);
      }
      const scoring = judging(at);
      if (scoring) input.llmScoring = scoring;
      if (results.add(input) === undefined) continue;
      entry.rowResultId ??= idOf(key);
      if (!entry.resultIdsByMetric.has(name)) entry.resultIdsByMetric.set(name, idOf(key));
    }
  }
  if (results.results.length === 0 && log.sampleCount === 0 && log.reductions.length === 0)
    throw new DataError(
      'convert.inspect',
      `${path}: the log holds neither results nor scored samples (status ${status})`,
    );
  for (const entry of entries)
    if (!entry.rowResultId)
      report.notMapped(`${entry.field} (per-sample scores)`, 'the scorer has no result to attach rows to');

  // Rows
  const rowEntries = entries.filter((e) => e.rowResultId !== undefined);
  const multiEpoch =
    log.maxEpoch > 1 || (isObj(ev.config) && finite(ev.config.epochs) && ev.config.epochs > 1);
  const multiScore = rowEntries.length > 1;
  const sampleIdOf = (id: string, epoch: number | 'reduced', entry: ScoreEntry) =>
    `${id}${multiEpoch ? `#${epoch === 'reduced' ? 'reduced' : `epoch${epoch}`}` : ''}${multiScore ? `@${entry.rowResultId}` : ''}`;
  const hasRows = rowEntries.length > 0 && (log.sampleCount > 0 || log.reductions.length > 0);
  for (const [field, reason] of SAMPLE_NOT_MAPPED) report.notMapped(field, reason);
  report.mapped('samples[].messages', '/messages (multi_turn, agentic) or /output (single_turn)');
  report.mapped('samples[].scores', '/evaluation/score (Inspect value_to_float), /answer_attribution');
  report.mapped('samples[].model_usage', '/token_usage');
  for (const [field, to] of SAMPLE_EXTRAS_REPORT) report.mapped(field, to);
  if (log.reductions.length > 0)
    report.mapped('reductions', '/metadata/reduced_value, and rows for samples the log does not hold');

  // The run's identity when the log states it, so the same run as .eval and as .json is one record; else the bytes.
  // A copy of the run that did not finish (an in-progress log) is a record of its own, told apart by how far it
  // got; the store keeps the most complete copy of the run.
  const runKey = [ev.eval_id, ev.run_id, ev.task_id].filter((x) => typeof x === 'string');
  const headerResults = isObj(header.results) ? header.results : {};
  const scored = isCount(headerResults.completed_samples)
    ? headerResults.completed_samples
    : (entries.find((e) => isCount(e.scoredSamples))?.scoredSamples ?? log.sampleCount);
  const complete = status === 'success';
  const digest =
    ev.run_id !== undefined && runKey.length > 0
      ? contentDigest(
          `inspect-run:${runKey.join(':')}:${task}${complete ? '' : `:${status}:${log.sampleCount}:${scored}`}`,
        )
      : await log.digest();
  const ids = d.ids({ digest, defaultCollection: task });
  d.run({
    sourceRunId:
      typeof ev.eval_id === 'string'
        ? ev.eval_id
        : runKey.length > 0
          ? `${runKey.join(':')}:${task}`
          : `sha256:${digest}`,
    status: complete ? 'complete' : 'partial',
    scoredSamples: scored,
  });
  const row = rowMaker(ids.evaluationId, model.id);
  let unscored = 0;
  const unscoredWhy = new Map<string, number>();
  const outside = new Map<string, number>();
  // "Correct" follows the result's direction: on a lower-is-better 0/1 metric (an attack success rate) 0 is right.
  const lowerIsBetter = new Set(
    results.results
      .filter((r) => isObj(r.metric_config) && r.metric_config.lower_is_better === true)
      .map((r) => r.evaluation_result_id as string),
  );

  async function* rows(): AsyncGenerator<Obj> {
    const seen = new Set<string>();
    for await (const { sample } of log.samples()) {
      const id = String(sample.id);
      seen.add(id);
      const epoch = typeof sample.epoch === 'number' ? sample.epoch : 1;
      const conv = convertMessages(sample.messages);
      const agentic = conv.toolCalls > 0 || conv.messages.some((m) => m.role === 'tool');
      const multi = !agentic && (conv.assistantTurns > 1 || conv.userTurns > 1);
      const interaction = agentic ? 'agentic' : multi ? 'multi_turn' : 'single_turn';
      const out = outputText(sample.output);
      const usage =
        tokenUsage(sample.model_usage) ??
        (isObj(sample.output) ? tokenUsage({ m: sample.output.usage }) : undefined);
      const error = isObj(sample.error)
        ? String(sample.error.message ?? detailString(sample.error))
        : undefined;
      const sampleMeta: Obj = { inspect_sample_id: sample.id, epoch };
      if (typeof sample.uuid === 'string') sampleMeta.inspect_uuid = sample.uuid;
      if (isObj(sample.metadata))
        for (const [k, v] of Object.entries(sample.metadata)) sampleMeta[`sample.${k}`] = v;
      if (isObj(sample.role_usage) && Object.keys(sample.role_usage).length > 0)
        sampleMeta.role_usage = sample.role_usage;
      if (isObj(sample.limit)) sampleMeta.limit = sample.limit;
      if (finite(sample.working_time)) sampleMeta.working_time_s = sample.working_time;
      Object.assign(sampleMeta, sampleExtras(sample));
      for (const entry of rowEntries) {
        const subset = subsets.get(entry.rowResultId!);
        if (subset && !subset.keys.has(`${id}#${epoch}`)) {
          outside.set(entry.rowResultId!, (outside.get(entry.rowResultId!) ?? 0) + 1);
          continue;
        }
        let score = sampleScore(sample, entry);
        const reduced = reductionsFor(reductionIdx, entry)?.get(id);
        let fromReductions = false;
        if (!score && reduced && !multiEpoch)
          ((score = { ...reduced, value: reducedValue(reduced, entry) }), (fromReductions = true));
        let value = score ? inspectValueToFloat(score.value) : undefined;
        let resultId = entry.rowResultId!;
        // A value Inspect cannot read as a number: the score's metadata may hold a result's metric value.
        if (value === undefined && score && isObj(score.metadata))
          for (const [metric, id] of entry.resultIdsByMetric ?? []) {
            const v = score.metadata[metric];
            if (typeof v === 'number' && Number.isFinite(v)) {
              value = v;
              resultId = id;
              break;
            }
          }
        if (value === undefined) {
          // No score Inspect would count: no row (never a made-up 0); the field report says why.
          unscored++;
          const why = !score
            ? 'the sample holds no score for this scorer (errored or not scored)'
            : `the score value is not one Inspect reads as a number (numbers, booleans, C/I/P/N, numeric strings), and its metadata holds no number under a metric name of the scorer`;
          unscoredWhy.set(why, (unscoredWhy.get(why) ?? 0) + 1);
          continue;
        }
        const meta: Obj = { ...sampleMeta, scorer: entry.scorer };
        if (score) meta.score_value = score.value;
        if (fromReductions) meta.score_source = 'reductions';
        if (score && typeof score.explanation === 'string') meta.score_explanation = score.explanation;
        if (score && isObj(score.metadata)) meta.score_metadata = score.metadata;
        if (multiEpoch && reduced) meta.reduced_value = reducedValue(reduced, entry);
        if (resultId !== entry.rowResultId) meta.score_from = 'score metadata';
        const answer = score && typeof score.answer === 'string' ? score.answer : undefined;
        const attributionTurn = interaction === 'single_turn' ? 0 : Math.max(conv.lastAssistant, 0);
        yield row({
          evaluationName: task,
          evaluationResultId: resultId,
          sampleId: sampleIdOf(id, epoch, entry),
          interactionType: interaction,
          input: {
            raw: inputText(sample.input),
            reference: targetList(sample.target),
            ...(Array.isArray(sample.choices) ? { choices: sample.choices.map(String) } : {}),
          },
          ...(interaction === 'single_turn'
            ? {
                output: {
                  raw: [out.raw],
                  ...(out.reasoning !== null ? { reasoning_trace: [out.reasoning] } : {}),
                },
              }
            : { messages: conv.messages }),
          answerAttribution:
            answer !== undefined
              ? [
                  {
                    turn_idx: attributionTurn,
                    source:
                      interaction === 'single_turn' ? 'output.raw' : `messages[${attributionTurn}].content`,
                    extracted_value: answer,
                    extraction_method: entry.scorer,
                    is_terminal: true,
                  },
                ]
              : [],
          evaluation: {
            score: value,
            is_correct: lowerIsBetter.has(resultId)
              ? value === 0
              : score
                ? isCorrectValue(score.value)
                : false,
            ...(interaction !== 'single_turn'
              ? { num_turns: Math.max(conv.assistantTurns, 1), tool_calls_count: conv.toolCalls }
              : {}),
          },
          ...(usage ? { tokenUsage: usage } : {}),
          ...(finite(sample.total_time) ? { performance: { latency_ms: sample.total_time * 1000 } } : {}),
          ...(error !== undefined ? { error } : {}),
          metadata: meta,
        });
      }
    }
    // Reduced scores of samples the log does not hold (e.g. written without samples): rows of their own.
    for (const entry of rowEntries) {
      const reduced = reductionsFor(reductionIdx, entry);
      if (!reduced) continue;
      for (const [id, r] of reduced) {
        if (seen.has(id)) continue;
        const v = inspectValueToFloat(reducedValue(r, entry));
        if (v === undefined) {
          unscored++;
          const why = 'a reduced score Inspect does not read as a number';
          unscoredWhy.set(why, (unscoredWhy.get(why) ?? 0) + 1);
          continue;
        }
        yield row({
          evaluationName: task,
          evaluationResultId: entry.rowResultId!,
          sampleId: sampleIdOf(id, 'reduced', entry),
          interactionType: 'single_turn',
          input: { raw: '', reference: [] },
          output: { raw: [typeof r.answer === 'string' ? r.answer : ''] },
          evaluation: { score: v, is_correct: isCorrectValue(reducedValue(r, entry)) },
          metadata: {
            inspect_sample_id: r.sample_id,
            scorer: entry.scorer,
            score_value: reducedValue(r, entry),
            score_source: 'reductions (the log holds no transcript for this sample)',
            ...(typeof r.explanation === 'string' ? { score_explanation: r.explanation } : {}),
          },
        });
      }
    }
    for (const [why, n] of unscoredWhy)
      report.notMapped('samples[].scores (value)', `${n} score(s) without a row: ${why}`);
    for (const [resultId, n] of outside) {
      const subset = subsets.get(resultId)!;
      report.notMapped(
        `samples[].scores (${resultId})`,
        `${n} sample score(s) outside the samples ${resultId} covers (${subset.field} = ${!subset.equals}): no row for that metric`,
      );
    }
    if (unscored > 0)
      notes.push(
        `${unscored} sample score(s) have no numeric value (errored, unscored, or free text): no row for them, as Inspect leaves them out of its metrics`,
      );
  }

  // eval fields not mapped above: eval_library.additional_details (nothing dropped).
  const libraryDetails: Obj = {};
  for (const [k, v] of Object.entries(ev)) {
    if (EVAL_MAPPED.has(k) || v === undefined || v === null) continue;
    libraryDetails[`eval.${k}`] = v;
    report.details(`eval.${k}`, `/eval_library/additional_details/eval.${k}`);
  }
  libraryDetails.log_format_version = header.version;
  libraryDetails.log_container = log.container;
  if (scorerSpecs.length > 0) libraryDetails['eval.scorers'] = scorerSpecs;
  const sourceDetails: Obj = { status };
  report.mapped('status', '/source_metadata/additional_details/status');
  if (isObj(header.stats)) {
    for (const [k, v] of Object.entries(header.stats)) sourceDetails[`stats.${k}`] = v;
    report.details('stats', '/source_metadata/additional_details/stats.*');
  }
  if (isObj(header.error)) {
    sourceDetails.error = header.error.message ?? header.error;
    report.details('error', '/source_metadata/additional_details/error');
  }
  for (const k of Object.keys(header))
    if (!['version', 'status', 'eval', 'plan', 'results', 'stats', 'error'].includes(k)) {
      sourceDetails[k] = header[k];
      report.details(k, `/source_metadata/additional_details/${k}`);
    }
  const packages = isObj(ev.packages) ? ev.packages : {};
  const version = typeof packages.inspect_ai === 'string' ? packages.inspect_ai : 'unknown';
  report.mapped('eval.packages.inspect_ai', '/eval_library/version');
  const stats = isObj(header.stats) ? header.stats : {};
  const retrieved = epochSeconds(stats.completed_at) ?? epochSeconds(ev.created);

  const aggregate = d.aggregate({
    sourceName: `Inspect AI log (${log.container === 'eval' ? '.eval' : '.json'}, format ${String(header.version ?? '?')})`,
    sourceDetails,
    evalLibrary: { name: 'inspect_ai', version, details: libraryDetails },
    ...(retrieved
      ? {
          retrievedTimestamp: {
            value: retrieved,
            field: stats.completed_at ? 'stats.completed_at' : 'eval.created',
          },
        }
      : {}),
    ...(evaluationTimestamp
      ? { evaluationTimestamp: { value: evaluationTimestamp, field: 'eval.created' } }
      : {}),
    hasRows,
  });
  if (results.results.length === 0)
    notes.push('no result could be built (no finite metric value): the record holds no evaluation results');
  yield d.record({ aggregate, ...(hasRows ? { rows } : {}) });
}

/** The epochs reducer the task was run with (`eval.config.epochs_reducer`: a name or a list; the first). */
function epochsReducer(ev: Obj): string | undefined {
  const cfg = isObj(ev.config) ? ev.config : {};
  const r = cfg.epochs_reducer;
  if (typeof r === 'string') return r;
  if (Array.isArray(r) && typeof r[0] === 'string') return r[0];
  return undefined;
}

export const inspectSource: SourceConverter = {
  id: 'inspect',
  description: 'Inspect AI log: a .eval archive or a .json log (formats 1–3)',
  detect,
  convert: convertInspect,
};

// ---------------------------------------------------------------------------------------------------------------
// Viewer listings

/**
 * True when a probe is an Inspect log-folder listing (`logs.json`, written by `inspect view bundle` and by
 * `write_log_dir_manifest`): an object of log headers keyed by the logs' file names. It is not a log; the logs it
 * lists are their own files.
 */
export function isInspectLogListing(probe: Probe): boolean {
  if (probe.isDirectory || probe.head === undefined || !probe.path.endsWith('.json')) return false;
  return /^\s*\{\s*"[^"]+\.(eval|json)"\s*:\s*\{/.test(probe.head);
}

/** The log files a listing names (relative to its folder), in its order. */
export async function inspectListedLogs(path: string): Promise<string[]> {
  const { value } = await readJsonSource(path);
  if (!isObj(value))
    throw new DataError(
      'convert.inspect.listing',
      `${path}: an Inspect log listing is an object of log headers`,
    );
  return Object.keys(value).filter((k) => /\.(eval|json)$/.test(k));
}
