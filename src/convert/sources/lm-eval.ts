/**
 * EleutherAI lm-evaluation-harness outputs: `results_<timestamp>.json` (0.4.x: results, groups, group_subtasks,
 * configs, versions, n-shot, higher_is_better, n-samples, config, hashes; 0.3-era: results/versions/config) with the
 * `samples_<task>_<timestamp>.jsonl` files written beside it by `--log_samples`.
 *
 * One record per results file (one run of one model). Every metric of every task and group is a result:
 * `evaluation_name` is the task, `metric_id` the metric, the filter a metric parameter, `evaluation_result_id`
 * `<task>/<metric>,<filter>` (lm-eval's own key). Each samples line is one instance row scored by the line's first
 * metric (`metrics[0]`); the other per-sample metric values go to the row's metadata.
 */
import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { DataError } from '../../errors.js';
import { metricFacts } from '../metric-facts.js';
import { LineError, readBytes, readJsonSource, readJsonlBatches } from '../read.js';
import { isJsonObject } from '../../io/json-value.js';
import {
  detailLiteralAt,
  elementSpans,
  memberSpans,
  stringLiteralAt,
  wholeSpan,
  type Span,
} from '../json-text.js';
import { rowBlocksOf, type LineMapper, type RowBlock } from '../row-blocks.js';
import { RecordDriver } from '../driver.js';
import type { DeclaredFacts } from '../../checks/reconciliation.js';
import {
  detailString,
  epochSeconds,
  FieldReport,
  nonFiniteText,
  rowMaker,
  mappedRowMaker,
  type KnownRowJson,
  type ModelFacts,
  type RowInput,
} from '../record.js';
import type { ConvertedRecord, ConvertOptions, Probe, SourceConverter } from '../types.js';

type Obj = Record<string, unknown>;

const SAMPLES_NAME = /^samples_(.+)_(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.jsonl$/;
const RESULTS_TIMESTAMP = /_(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.json$/;

/** Model types that load weights on the evaluator's own hardware. */
const LOCAL_MODEL_TYPES = new Set([
  'hf',
  'hf-auto',
  'hf-causal',
  'hf-causal-experimental',
  'hf-seq2seq',
  'hf-multimodal',
  'huggingface',
  'gpt2',
  'vllm',
  'vllm-vlm',
  'sglang',
  'mamba_ssm',
  'nemo_lm',
  'neuronx',
  'optimum-lm',
  'ipex',
  'steered',
  'hf-steered',
]);
/** Model types served by an API provider (closed weights). */
const API_MODEL_TYPES: Record<string, string> = {
  'openai-completions': 'openai',
  'openai-chat-completions': 'openai',
  openai: 'openai',
  gooseai: 'gooseai',
  'anthropic-completions': 'anthropic',
  'anthropic-chat': 'anthropic',
  'anthropic-chat-completions': 'anthropic',
  textsynth: 'textsynth',
};
/** Local servers speaking an API (self-deployed; whose weights is unknown). */
const LOCAL_SERVER_TYPES = new Set(['local-completions', 'local-chat-completions', 'gguf', 'ggml']);

/** The keys of a samples line that are not per-sample metric values. */
const SAMPLE_KEYS = new Set([
  'doc_id',
  'doc',
  'target',
  'arguments',
  'resps',
  'filtered_resps',
  'filter',
  'metrics',
  'doc_hash',
  'prompt_hash',
  'target_hash',
]);
/** Keys of a task's results entry that are not metrics. */
const RESULT_META_KEYS = new Set(['alias', 'name', 'sample_len', 'sample_count', ' ', '']);

/** Top-level keys the mapping uses directly (the rest go to source_metadata.additional_details). */
const HANDLED_TOP = new Set([
  'results',
  'groups',
  'group_subtasks',
  'configs',
  'versions',
  'n-shot',
  'higher_is_better',
  'n-samples',
  'config',
  'date',
  'lm_eval_version',
  'git_hash',
  'task_hashes',
  'model_name',
  'transformers_version',
]);

function looksLikeResults(head: string): boolean {
  if (!/^\s*\{\s*"results"\s*:\s*\{/.test(head)) return false;
  return (
    /"(versions|group_subtasks|configs|n-shot|lm_eval_version|higher_is_better|n-samples)"\s*:/.test(head) ||
    /"[^"]*_stderr(,[^"]*)?"\s*:/.test(head)
  );
}

export const lmEvalSource: SourceConverter = {
  id: 'lm-eval',
  description:
    'lm-evaluation-harness results_*.json (0.4.x, or 0.3-era results/versions/config) with its samples_<task>_*.jsonl',
  detect(probe: Probe): boolean {
    if (probe.isDirectory || probe.head === undefined) return false;
    const name = basename(probe.path);
    if (name.endsWith('.jsonl')) return SAMPLES_NAME.test(name) && /^\s*\{\s*"doc_id"\s*:/.test(probe.head);
    return name.endsWith('.json') && looksLikeResults(probe.head);
  },
  convert(path: string, options: ConvertOptions): AsyncIterable<ConvertedRecord> {
    return convertLmEval(path, options);
  },
};

async function* convertLmEval(path: string, options: ConvertOptions): AsyncGenerator<ConvertedRecord> {
  const samplesMatch = SAMPLES_NAME.exec(basename(path));
  if (samplesMatch) {
    // A samples file given alone: convert the run it belongs to (its results file, same timestamp, same folder).
    let results = join(dirname(path), `results_${samplesMatch[2]}.json`);
    const names = await readdir(dirname(path)).catch(() => [] as string[]);
    const renamed = names.includes(basename(results))
      ? undefined
      : await renamedResults(dirname(path), names, samplesMatch[2]);
    if (renamed !== undefined) results = renamed;
    else if (!names.includes(basename(results)))
      throw new DataError(
        'convert.lm-eval.no-results',
        `${path}: an lm-eval samples file without its results file (expected ${basename(results)} beside it)`,
      );
    yield { ...(await convertResults(results, options)), sourcePath: path };
    return;
  }
  yield await convertResults(path, options);
}

/** `pretrained=org/model,dtype=auto` or `{pretrained: ...}` → a map. */
function modelArgs(value: unknown): Obj {
  if (isJsonObject(value)) return value;
  if (typeof value !== 'string') return {};
  const out: Obj = {};
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

function modelFacts(doc: Obj, config: Obj): ModelFacts {
  const type = typeof config.model === 'string' ? config.model : 'unknown';
  const args = modelArgs(config.model_args);
  let name: string;
  let field: string;
  if (typeof doc.model_name === 'string' && doc.model_name !== '') {
    name = doc.model_name;
    field = 'model_name';
  } else if (typeof args.pretrained === 'string') {
    name = args.pretrained;
    field = 'config.model_args.pretrained';
  } else if (typeof args.model === 'string') {
    name = args.model;
    field = 'config.model_args.model';
  } else if (typeof args.engine === 'string') {
    name = args.engine;
    field = 'config.model_args.engine';
  } else {
    name = type;
    field = 'config.model';
  }
  // Only the harness's model type: the run does not name its model.
  const facts: ModelFacts = { name, field, detailsField: 'config.', unnamed: field === 'config.model' };
  if (LOCAL_MODEL_TYPES.has(type)) {
    facts.deployment = {
      deploymentType: 'self_deployed',
      modelAvailability: 'open_weights',
      reason: `lm-eval model type "${type}" loads the weights locally`,
    };
    if (type.startsWith('hf') || type === 'huggingface' || type === 'steered' || type === 'gpt2')
      facts.inferenceEngine = {
        name: 'transformers',
        ...(typeof doc.transformers_version === 'string' ? { version: doc.transformers_version } : {}),
      };
    else facts.inferenceEngine = { name: type };
  } else if (type in API_MODEL_TYPES) {
    facts.deployment = {
      deploymentType: 'externally_managed',
      modelAvailability: 'closed_weights',
      reason: `lm-eval model type "${type}" calls the ${API_MODEL_TYPES[type]} API`,
    };
    facts.inferencePlatform = API_MODEL_TYPES[type];
  } else if (LOCAL_SERVER_TYPES.has(type)) {
    facts.deployment = {
      deploymentType: 'self_deployed',
      modelAvailability: 'unknown',
      reason: `lm-eval model type "${type}" calls a server the evaluator runs`,
    };
  }
  const details: Obj = { lm_eval_model_type: type };
  for (const key of ['model_args', 'model_num_parameters', 'model_dtype', 'model_revision', 'model_sha'])
    if (config[key] !== undefined && config[key] !== null) details[key] = config[key];
  facts.details = details;
  return facts;
}

interface TaskEntry {
  task: string;
  entry: Obj;
  /** Where it is in the file: `results` or `groups`. */
  from: 'results' | 'groups';
  isGroup: boolean;
}

/** Every task and group entry once (0.4 files repeat groups in `results` and `groups`; `results` wins). */
function taskEntries(doc: Obj): TaskEntry[] {
  const results = isJsonObject(doc.results) ? doc.results : {};
  const groups = isJsonObject(doc.groups) ? doc.groups : {};
  const subtasks = isJsonObject(doc.group_subtasks) ? doc.group_subtasks : {};
  const isGroup = (t: string): boolean =>
    t in groups || (Array.isArray(subtasks[t]) && (subtasks[t] as unknown[]).length > 0);
  const out: TaskEntry[] = [];
  for (const [task, entry] of Object.entries(results))
    if (isJsonObject(entry)) out.push({ task, entry, from: 'results', isGroup: isGroup(task) });
  for (const [task, entry] of Object.entries(groups))
    if (isJsonObject(entry) && !(task in results)) out.push({ task, entry, from: 'groups', isGroup: true });
  return out;
}

/** The group each subtask belongs to. */
function parentGroups(doc: Obj): Map<string, string> {
  const out = new Map<string, string>();
  if (isJsonObject(doc.group_subtasks))
    for (const [group, tasks] of Object.entries(doc.group_subtasks))
      if (Array.isArray(tasks)) for (const t of tasks) if (typeof t === 'string') out.set(t, group);
  return out;
}

const get = (o: unknown, ...keys: string[]): unknown => {
  let v = o;
  for (const k of keys) v = isJsonObject(v) ? v[k] : undefined;
  return v;
};

/** lm-eval's stderr method for a metric: analytic for `mean` aggregations, bootstrap for the others, pooled for groups. */
function stderrMethod(
  taskConfig: unknown,
  metric: string,
  isGroup: boolean,
  bootstrapIters: unknown,
): string {
  if (isGroup)
    return 'lm-eval group stderr: pooled from the subtasks\u2019 standard errors, weighted by size';
  const list = get(taskConfig, 'metric_list');
  const entry = Array.isArray(list) ? list.find((m) => isJsonObject(m) && m.metric === metric) : undefined;
  const aggregation = isJsonObject(entry) ? entry.aggregation : undefined;
  if (aggregation === 'mean' || (aggregation === undefined && !['bleu', 'chrf', 'ter'].includes(metric)))
    return aggregation === 'mean'
      ? 'lm-eval analytic stderr of the mean: sample standard deviation / sqrt(n)'
      : 'lm-eval stderr (analytic sd/sqrt(n) for mean aggregations, bootstrap for corpus metrics)';
  return `lm-eval bootstrap stderr${typeof bootstrapIters === 'number' ? ` over ${bootstrapIters} resamples` : ''} (aggregation ${String(aggregation ?? metric)})`;
}

/** generation_config from a task's generation kwargs: the fields EEE names, the rest as details. */
function generationConfig(taskConfig: unknown, nShot: unknown): Obj | undefined {
  const kwargs = get(taskConfig, 'generation_kwargs');
  const args: Obj = {};
  const extra: Obj = {};
  if (isJsonObject(kwargs)) {
    for (const [k, v] of Object.entries(kwargs)) {
      if ((k === 'temperature' || k === 'top_p' || k === 'top_k') && (typeof v === 'number' || v === null))
        args[k] = v;
      else if ((k === 'max_gen_toks' || k === 'max_tokens') && Number.isInteger(v)) args.max_tokens = v;
      else extra[`generation_kwargs.${k}`] = v;
    }
  }
  if (nShot !== undefined) extra.n_shot = nShot;
  const outputType = get(taskConfig, 'output_type');
  if (outputType !== undefined) extra.output_type = outputType;
  if (Object.keys(args).length === 0 && Object.keys(extra).length === 0) return undefined;
  const out: Obj = {};
  if (Object.keys(args).length > 0) out.generation_args = args;
  if (Object.keys(extra).length > 0)
    out.additional_details = Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, detailString(v)]));
  return out;
}

function sourceData(task: string, taskConfig: unknown, nSamples: unknown, subtasks: unknown): Obj {
  const repo = get(taskConfig, 'dataset_path');
  const details: Obj = {};
  const dsName = get(taskConfig, 'dataset_name');
  if (dsName !== undefined && dsName !== null) details.dataset_config = dsName;
  if (Array.isArray(subtasks) && subtasks.length > 0) details.subtasks = subtasks.join(',');
  const stringDetails = Object.fromEntries(Object.entries(details).map(([k, v]) => [k, detailString(v)]));
  if (typeof repo === 'string' && repo !== '') {
    const split = get(taskConfig, 'test_split') ?? get(taskConfig, 'validation_split');
    const out: Obj = { dataset_name: task, source_type: 'hf_dataset', hf_repo: repo };
    if (typeof split === 'string') out.hf_split = split;
    if (Number.isInteger(nSamples)) out.samples_number = nSamples;
    if (Object.keys(stringDetails).length > 0) out.additional_details = stringDetails;
    return out;
  }
  const out: Obj = { dataset_name: task, source_type: 'other' };
  if (Object.keys(stringDetails).length > 0) out.additional_details = stringDetails;
  return out;
}

async function convertResults(path: string, options: ConvertOptions): Promise<ConvertedRecord> {
  const { value, digest } = await readJsonSource(path, { python: true });
  if (!isJsonObject(value) || !isJsonObject(value.results))
    throw new DataError('convert.lm-eval.shape', `${path}: an lm-eval results file needs a "results" object`);
  const doc = value;
  const config = isJsonObject(doc.config) ? doc.config : {};
  const configs = isJsonObject(doc.configs) ? doc.configs : {};
  const d = new RecordDriver('lm-eval', path, options);
  const { report, notes } = d;

  const facts = modelFacts(doc, config);
  const model = d.model({ ...facts, runKey: digest });
  const ids = d.ids({ digest, defaultCollection: 'lm-eval' });

  // Results: every numeric metric of every task and group.
  const results = d.results;
  const leftOutIdsByTask = new Map<string, string[]>();
  const parents = parentGroups(doc);
  const resultIdsByTask = new Map<string, string[]>();
  const bootstrapIters = config.bootstrap_iters;
  for (const { task, entry, from, isGroup } of taskEntries(doc)) {
    const taskConfig = configs[task];
    const nSamples = get(doc, 'n-samples', task, 'effective');
    const subtasks = get(doc, 'group_subtasks', task);
    for (const [key, score] of Object.entries(entry)) {
      if (RESULT_META_KEYS.has(key)) continue;
      const [metricPart, filter] = key.includes(',')
        ? [key.slice(0, key.indexOf(',')), key.slice(key.indexOf(',') + 1)]
        : [key, undefined];
      if (metricPart.endsWith('_stderr')) continue;
      const field = `${from}.${task}.${key}`;
      if (typeof score !== 'number') {
        report.notMapped(field, `not a number (${JSON.stringify(score)})`);
        continue;
      }
      const stderrKey = filter === undefined ? `${metricPart}_stderr` : `${metricPart}_stderr,${filter}`;
      const stderr = entry[stderrKey];
      let standardError: { value: number; method: string } | undefined;
      if (typeof stderr === 'number' && Number.isFinite(stderr)) {
        standardError = {
          value: stderr,
          method: stderrMethod(taskConfig, metricPart, isGroup, bootstrapIters),
        };
        report.mapped(
          `${from}.${task}.${stderrKey}`,
          `/evaluation_results/${results.results.length}/score_details/uncertainty/standard_error`,
        );
      } else if (typeof stderr === 'number') {
        report.notMapped(
          `${from}.${task}.${stderrKey}`,
          `${nonFiniteText(stderr)} is not a finite number: no standard error written (kept as score_details.details.stderr)`,
        );
      } else if (stderr !== undefined) {
        report.notMapped(
          `${from}.${task}.${stderrKey}`,
          `${JSON.stringify(stderr)}: lm-eval computed no standard error`,
        );
      }
      const hib = get(doc, 'higher_is_better', task, metricPart);
      const fromList = (() => {
        const list = get(taskConfig, 'metric_list');
        const m = Array.isArray(list)
          ? list.find((x) => isJsonObject(x) && x.metric === metricPart)
          : undefined;
        return isJsonObject(m) && typeof m.higher_is_better === 'boolean' ? m.higher_is_better : undefined;
      })();
      const lowerIsBetter =
        typeof hib === 'boolean'
          ? { value: !hib, field: `higher_is_better.${task}.${metricPart}` }
          : fromList !== undefined
            ? { value: !fromList, field: `configs.${task}.metric_list.${metricPart}.higher_is_better` }
            : undefined;
      const details: Obj = {};
      if (typeof entry.alias === 'string') details.alias = entry.alias.trim();
      if (isGroup) details.is_group = 'true';
      const parent = parents.get(task);
      if (parent !== undefined) details.group = parent;
      const version = get(doc, 'versions', task);
      if (version !== undefined) details.task_version = version;
      const taskHash = get(doc, 'task_hashes', task);
      if (taskHash !== undefined) details.task_hash = taskHash;
      if (entry.sample_len !== undefined) details.sample_len = entry.sample_len;
      const sampleCount = get(entry, 'sample_count', key);
      const nOriginal = get(doc, 'n-samples', task, 'original');
      if (nOriginal !== undefined) details.n_samples_original = nOriginal;
      if (nSamples !== undefined) details.n_samples_effective = nSamples;
      if (taskConfig !== undefined) details.task_config = taskConfig;
      if (typeof stderr === 'number' && !Number.isFinite(stderr)) details.stderr = nonFiniteText(stderr);
      const numSamples = Number.isInteger(nSamples)
        ? (nSamples as number)
        : Number.isInteger(sampleCount)
          ? (sampleCount as number)
          : Number.isInteger(entry.sample_len)
            ? (entry.sample_len as number)
            : undefined;
      const resultId = `${task}/${key}`;
      const written = results.add({
        evaluationName: task,
        metric: metricPart,
        metricName: filter === undefined || filter === 'none' ? metricPart : `${metricPart} (${filter})`,
        resultId,
        field,
        score,
        lowerIsBetter,
        sourceData: sourceData(task, taskConfig, nSamples, subtasks),
        standardError,
        numSamples,
        details,
        metricParameters: filter === undefined ? undefined : { filter },
        generationConfig: generationConfig(taskConfig, get(doc, 'n-shot', task)),
        declared: lmEvalDeclared(task, taskConfig, metricPart, nSamples, isGroup, {
          sampleCount: Number.isSafeInteger(sampleCount)
            ? { n: sampleCount as number, from: `results.${task}.sample_count.${key}` }
            : undefined,
          sampleLen: Number.isSafeInteger(entry.sample_len)
            ? { n: entry.sample_len as number, from: `results.${task}.sample_len` }
            : undefined,
        }),
      });
      const byTask = written ? resultIdsByTask : leftOutIdsByTask;
      const list = byTask.get(task) ?? [];
      list.push(resultId);
      byTask.set(task, list);
    }
  }
  // A run whose every headline is NaN or ±Infinity is still written (EEE allows no results): the values are kept
  // as strings in the source details, its finite per-sample values become rows. Nothing numeric at all: refused.
  if (results.results.length === 0 && Object.keys(results.leftOut).length === 0)
    throw new DataError('convert.lm-eval.empty', `${path}: the results file holds no numeric metric`);
  if (results.results.length === 0)
    notes.push(
      `no finite headline (${Object.entries(results.leftOut)
        .map(([k, v]) => `${k.replace(/^non_finite_score\./, '')} = ${v}`)
        .join(
          ', ',
        )}): the record holds no evaluation results; the values are kept in source_metadata.additional_details`,
    );
  for (const k of [
    'results',
    'groups',
    'versions',
    'n-shot',
    'higher_is_better',
    'n-samples',
    'task_hashes',
    'configs',
    'group_subtasks',
  ])
    if (doc[k] !== undefined) report.mapped(k, '/evaluation_results (per task)');

  // The samples files of this run: samples_<task>_<timestamp>.jsonl beside the results file.
  const samples = await samplesFiles(
    path,
    new Set([...resultIdsByTask.keys(), ...leftOutIdsByTask.keys()]),
    report,
  );
  const groups = new Set(
    taskEntries(doc)
      .filter((t) => t.isGroup)
      .map((t) => t.task),
  );
  const withoutSamples = [...resultIdsByTask.keys()].filter(
    (task) => !groups.has(task) && !samples.some((s) => s.task === task),
  );
  if (withoutSamples.length > 0)
    notes.push(
      `${withoutSamples.length} task(s) without a samples file beside the results (run without --log_samples?), so without instance rows: ${withoutSamples.join(', ')}`,
    );
  for (const s of samples) report.mapped(s.file, `samples file rows (${s.task})`);

  // Everything else at the top level: the run's environment and settings.
  const sourceDetails: Obj = {};
  for (const [k, v] of Object.entries(doc)) {
    if (HANDLED_TOP.has(k) || v === undefined) continue;
    sourceDetails[k] = v;
    report.details(k, `/source_metadata/additional_details/${k}`);
  }
  const libraryDetails: Obj = {};
  if (doc.git_hash !== undefined && doc.git_hash !== null) {
    libraryDetails.git_hash = doc.git_hash;
    report.details('git_hash', '/eval_library/additional_details/git_hash');
  }
  if (doc.transformers_version !== undefined) {
    libraryDetails.transformers_version = doc.transformers_version;
    report.details('transformers_version', '/eval_library/additional_details/transformers_version');
  }
  for (const [k, v] of Object.entries(config)) {
    if (['model_args', 'model_num_parameters', 'model_dtype', 'model_revision', 'model_sha'].includes(k))
      continue;
    if (v === undefined) continue;
    libraryDetails[`config.${k}`] = v;
    report.details(`config.${k}`, `/eval_library/additional_details/config.${k}`);
  }
  const version = typeof doc.lm_eval_version === 'string' ? doc.lm_eval_version : 'unknown';
  if (version === 'unknown')
    report.inferred(
      'lm_eval_version',
      '/eval_library/version',
      'the file does not state the harness version',
    );
  else report.mapped('lm_eval_version', '/eval_library/version');
  const date = epochSeconds(doc.date);
  // One results file is one run (lm-eval writes it when the run ends): its name (the run's timestamp) and model.
  d.run({
    sourceRunId: `${facts.name}|${basename(path)}`,
    status: 'complete',
    scoredSamples: scoredSamples(doc, groups),
  });

  const aggregate = d.aggregate({
    sourceName: 'lm-evaluation-harness results',
    sourceDetails: { results_file: basename(path), ...sourceDetails },
    evalLibrary: { name: 'lm-evaluation-harness', version, details: libraryDetails },
    retrievedTimestamp: date ? { value: date, field: 'date' } : undefined,
    evaluationTimestamp: date ? { value: date, field: 'date' } : undefined,
    hasRows: samples.length > 0,
  });

  const knownIds = [...results.ids];
  const rowContext = (s: SamplesFile): LmEvalRowContext => ({
    task: s.task,
    path: s.path,
    taskConfig: configs[s.task],
    knownIds,
    taskResultIds: resultIdsByTask.get(s.task) ?? [],
    leftOutIds: leftOutIdsByTask.get(s.task) ?? [],
    evaluationId: ids.evaluationId,
    modelId: model.id,
  });
  const reportSkipped = (skipped: number): void => {
    if (skipped > 0)
      report.notMapped(
        'samples lines (per-sample metric values)',
        `${skipped} line(s) whose metric value is NaN or ±Infinity, which is not a score: no row written for them`,
      );
  };
  const rows =
    samples.length === 0
      ? undefined
      : async function* (): AsyncGenerator<Obj> {
          let skipped = 0;
          for (const s of samples) {
            const map = lmEvalRowMapper(rowContext(s));
            for await (const batch of readJsonlBatches(s.path))
              for (const { line, value } of batch) {
                const row = map(value, line);
                if (row === undefined) skipped++;
                else yield row;
              }
          }
          reportSkipped(skipped);
        };
  // The same rows as JSONL bytes, a large samples file cut into ranges that worker threads convert.
  const rowBlocks =
    samples.length === 0
      ? undefined
      : async function* (): AsyncGenerator<RowBlock> {
          let skipped = 0;
          for (const s of samples) {
            const context = rowContext(s);
            for await (const block of rowBlocksOf(
              { source: 'lm-eval', path: s.path, context },
              () => lmEvalLineMapper(context),
              options.parallel,
            )) {
              skipped += block.skipped ?? 0;
              if (block.rows > 0) yield block;
            }
          }
          reportSkipped(skipped);
        };
  if (samples.length > 0)
    notes.push(
      'instance rows: one per samples line, scored by its first metric (metrics[0]); the other per-sample metric values are in the row metadata',
    );
  return d.record({ aggregate, rows, rowBlocks });
}

/** The samples the run scored: each task's effective sample count (groups not counted twice). */
function scoredSamples(doc: Obj, groups: Set<string>): number {
  let n = 0;
  for (const { task, entry, isGroup } of taskEntries(doc)) {
    if (isGroup || groups.has(task)) continue;
    const effective = get(doc, 'n-samples', task, 'effective');
    const count = Number.isSafeInteger(effective) ? effective : entry.sample_len;
    if (Number.isSafeInteger(count) && (count as number) >= 0) n += count as number;
  }
  return n;
}

/** lm-eval's default aggregation is the mean for these metrics (a task config may say otherwise). */
const MEAN_METRICS = new Set(['acc', 'acc_norm', 'acc_mutual_info', 'exact_match', 'em', 'mc1', 'mc2']);

/**
 * What lm-eval declares about a result, for reconciliation: its `n-samples.<task>.effective`, and whether the score
 * is the mean of the per-sample values (the task config's `metric_list[].aggregation`, else lm-eval's default for the
 * metric). A group's score aggregates its subtasks' scores, not rows of its own.
 */
function lmEvalDeclared(
  task: string,
  taskConfig: unknown,
  metric: string,
  nSamples: unknown,
  isGroup: boolean,
  counts: { sampleCount?: { n: number; from: string }; sampleLen?: { n: number; from: string } } = {},
): DeclaredFacts {
  // 0.4.10+ also state a task's `sample_len` and a group's per-metric `sample_count`: the count when n-samples
  // does not give one (a group's metric counts the samples of the subtasks that have it).
  const stated = isGroup
    ? (counts.sampleCount ?? counts.sampleLen)
    : (counts.sampleLen ?? counts.sampleCount);
  const n = Number.isSafeInteger(nSamples)
    ? { n: nSamples as number, nFrom: `n-samples.${task}.effective` }
    : stated
      ? { n: stated.n, nFrom: stated.from }
      : {};
  if (isGroup) return { ...n, headlineWhy: "a group's score aggregates its subtasks" };
  const list = get(taskConfig, 'metric_list');
  const entry = Array.isArray(list) ? list.find((x) => isJsonObject(x) && x.metric === metric) : undefined;
  const aggregation = isJsonObject(entry) ? entry.aggregation : undefined;
  if (aggregation === 'mean' || (aggregation === undefined && MEAN_METRICS.has(metric)))
    return { ...n, headline: 'mean' };
  return {
    ...n,
    headlineWhy: `lm-eval aggregates ${metric} ${typeof aggregation === 'string' ? `by "${aggregation}"` : 'by a function not known to be a mean'}`,
  };
}

interface SamplesFile {
  task: string;
  path: string;
  file: string;
}

/** What turning the lines of one samples file into rows needs, as plain data (a worker thread receives it). */
export interface LmEvalRowContext {
  task: string;
  path: string;
  taskConfig: unknown;
  /** Every evaluation_result_id of the record. */
  knownIds: string[];
  /** The evaluation_result_ids of this task. */
  taskResultIds: string[];
  /** The task's results left out for a non-finite score (their rows name no result). */
  leftOutIds?: string[];
  evaluationId: string;
  modelId: string;
}

/**
 * A samples line (parsed; its line number) → the row's parts, or undefined when the line's score is NaN or
 * ±Infinity (no row); a line that is not an object is a LineError.
 */
function sampleRowMaker(
  c: LmEvalRowContext,
): (value: unknown, line: number) => { row: RowInput; line: Obj } | undefined {
  const known = new Set(c.knownIds);
  const leftOut = new Set(c.leftOutIds ?? []);
  return (value, line) => {
    if (!isJsonObject(value))
      throw new LineError('convert.lm-eval.sample', c.path, line, 'a samples line must be a JSON object');
    const row = sampleRow(c, value, line, known, leftOut);
    return row && { row, line: value };
  };
}

/** A samples line (parsed; its line number) → the EEE instance row, or undefined (see sampleRowMaker). */
export function lmEvalRowMapper(c: LmEvalRowContext): (value: unknown, line: number) => Obj | undefined {
  const makeRow = rowMaker(c.evaluationId, c.modelId);
  const rowOf = sampleRowMaker(c);
  return (value, line) => {
    const parts = rowOf(value, line);
    return parts && makeRow(parts.row);
  };
}

/**
 * A samples line → the row's JSONL text (what the writer writes for it) and the facts the writer tallies of it (so
 * that it does not read them back from the written bytes). The prompt's and the doc's text are taken from the line
 * itself where they are already what JSON.stringify would write (json-text.ts): they are most of a line, and
 * serialising them again was most of the conversion's time.
 */
export function lmEvalLineMapper(c: LmEvalRowContext): LineMapper {
  const toRow = mappedRowMaker(c.evaluationId, c.modelId);
  const rowOf = sampleRowMaker(c);
  const contextAscii = isAsciiJson(JSON.stringify(c));
  return (value, lineNo, text, ascii) => {
    const parts = rowOf(value, lineNo);
    if (parts === undefined) return '';
    const row = toRow(parts.row, sourceJson(parts.line, text));
    // Every text of the row is the context's, this module's own (ASCII), or a value of the line written again as
    // JSON: ASCII when the line is ASCII and spells no character with a `\u` escape.
    row.ascii = contextAscii && ascii && text.indexOf('\\u') === -1;
    return row;
  };
}

/** JSON text that is ASCII and holds no `\u` escape (so none of its strings holds a character above U+007F). */
const isAsciiJson = (json: string): boolean => !/[^\x00-\x7f]/.test(json) && !json.includes('\\u');

/** The texts of the line that the row repeats unchanged: the prompt (`input.raw`) and the doc (`metadata.doc`). */
function sourceJson(line: Obj, text: string): KnownRowJson | undefined {
  const members = memberSpans(text, wholeSpan(text), ['arguments', 'doc']);
  if (members === undefined) return undefined;
  const [args, doc] = members;
  const known: KnownRowJson = {};
  const rawSpan = args && firstArgumentSpan(line.arguments, text, args);
  if (rawSpan) known.raw = stringLiteralAt(text, rawSpan);
  const docJson = doc && line.doc !== undefined ? detailLiteralAt(text, doc) : undefined;
  if (docJson !== undefined) known.metadata = { doc: docJson };
  return known;
}

/** The span of `argumentLists(args)[0][0]` (the prompt) in the line, found the same way. */
function firstArgumentSpan(args: unknown, text: string, span: Span): Span | undefined {
  if (Array.isArray(args)) {
    const first = elementSpans(text, span)?.[0];
    return first && Array.isArray(args[0]) ? elementSpans(text, first)?.[0] : first;
  }
  if (!isJsonObject(args)) return undefined;
  const key = byNumberInKey(Object.keys(args))[0];
  if (key === undefined) return undefined;
  const inner = memberSpans(text, span, [key])?.[0];
  const a = args[key];
  if (inner === undefined || !isJsonObject(a)) return inner;
  const first = byNumberInKey(Object.keys(a))[0];
  return first === undefined ? undefined : memberSpans(text, inner, [first])?.[0];
}

/**
 * The run timestamp of the samples files that belong to no `results_<timestamp>.json` of the folder and hold tasks
 * of this run, when there is exactly one: the run of a results file its author renamed (`qwen3_tom.json`).
 */
function orphanTimestamp(names: string[], tasks: Set<string>): string | undefined {
  const found = new Set<string>();
  for (const name of names) {
    const m = SAMPLES_NAME.exec(name);
    if (m && tasks.has(m[1]) && !names.includes(`results_${m[2]}.json`)) found.add(m[2]);
  }
  return found.size === 1 ? [...found][0] : undefined;
}

/**
 * The renamed results file (a `.json` of the folder without a run timestamp in its name that reads as lm-eval
 * results) whose orphan samples have this timestamp, when there is exactly one; else undefined.
 */
async function renamedResults(dir: string, names: string[], ts: string): Promise<string | undefined> {
  const found: string[] = [];
  for (const name of names) {
    if (!name.endsWith('.json') || RESULTS_TIMESTAMP.test(name)) continue;
    const path = join(dir, name);
    const head = await readHead(path);
    if (head === undefined || !looksLikeResults(head)) continue;
    let tasks: Set<string>;
    try {
      const { value } = await readJsonSource(path, { python: true });
      tasks = new Set(isJsonObject(value) && isJsonObject(value.results) ? Object.keys(value.results) : []);
    } catch {
      continue;
    }
    if (orphanTimestamp(names, tasks) === ts) found.push(path);
  }
  return found.length === 1 ? found[0] : undefined;
}

/** The first 64 KiB of a file as text, or undefined when it cannot be read. */
async function readHead(path: string): Promise<string | undefined> {
  try {
    return (await readBytes(path)).subarray(0, 64 * 1024).toString('utf8');
  } catch {
    return undefined;
  }
}

async function samplesFiles(
  resultsPath: string,
  tasks: Set<string>,
  report: FieldReport,
): Promise<SamplesFile[]> {
  const dir = dirname(resultsPath);
  const names = (await readdir(dir).catch(() => [] as string[])).sort();
  let ts = RESULTS_TIMESTAMP.exec(basename(resultsPath))?.[1];
  if (ts === undefined) {
    // A results file renamed by its author: the samples beside it that no other results file claims.
    ts = orphanTimestamp(names, tasks);
    if (ts === undefined) return [];
    report.inferred(
      basename(resultsPath),
      'samples file rows',
      `the results file was renamed (no run timestamp in its name): the samples files of run ${ts} beside it, which no results_<timestamp>.json claims`,
    );
  }
  const out: SamplesFile[] = [];
  for (const name of names) {
    const m = SAMPLES_NAME.exec(name);
    if (!m || m[2] !== ts) continue;
    if (!tasks.has(m[1])) {
      report.notMapped(
        name,
        `a samples file of this run for task "${m[1]}", which has no numeric result to attach rows to`,
      );
      continue;
    }
    out.push({ task: m[1], path: join(dir, name), file: name });
  }
  return out;
}

/** The number in a key (its digits read together: `gen_args_12` → 12; 0 without digits). */
function numberInKey(key: string): number {
  let digits = '';
  for (const ch of key) if (ch >= '0' && ch <= '9') digits += ch;
  return digits === '' ? 0 : Number(digits);
}

/** Keys in the order of the number in them (`arg_2` before `arg_10`); a stable sort, numbers computed once. */
function byNumberInKey(keys: string[]): string[] {
  if (keys.length < 2) return keys;
  const numbered = keys.map((k) => ({ k, n: numberInKey(k) }));
  let sorted = true;
  for (let i = 1; i < numbered.length && sorted; i++) sorted = numbered[i - 1].n <= numbered[i].n;
  return sorted ? keys : numbered.sort((a, b) => a.n - b.n).map((e) => e.k);
}

/** `arguments` as a list of argument lists (0.4.x writes `{gen_args_0: {arg_0, arg_1}}`, earlier lists). */
function argumentLists(args: unknown): unknown[][] {
  if (Array.isArray(args)) return args.map((a) => (Array.isArray(a) ? a : [a]));
  if (isJsonObject(args))
    return byNumberInKey(Object.keys(args)).map((k) => {
      const a = args[k];
      if (!isJsonObject(a)) return [a];
      return byNumberInKey(Object.keys(a)).map((x) => a[x]);
    });
  return [];
}

const text = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));

/** A loglikelihood response: [logprob, is_greedy] (numbers or their strings). */
const isLoglikelihood = (v: unknown): v is unknown[] =>
  Array.isArray(v) && v.length === 2 && !Number.isNaN(Number(v[0])) && typeof v[0] !== 'object';

/** A per-sample metric value as a number (booleans as 1/0), or undefined. */
const numeric = (v: unknown): number | undefined =>
  typeof v === 'boolean' ? (v ? 1 : 0) : typeof v === 'number' && Number.isFinite(v) ? v : undefined;

/** `resps.flat().map(text)` without the intermediate array. */
function flatTexts(list: unknown[]): string[] {
  const out: string[] = [];
  for (const item of list)
    if (Array.isArray(item)) for (const x of item) out.push(text(x));
    else out.push(text(item));
  return out;
}

function sampleRow(
  s: LmEvalRowContext,
  line: Obj,
  lineNo: number,
  knownIds: Set<string>,
  leftOutIds: Set<string>,
): RowInput | undefined {
  const { taskConfig, taskResultIds } = s;
  const argLists = argumentLists(line.arguments);
  const raw = argLists.length > 0 ? text(argLists[0][0]) : '';
  const resps = Array.isArray(line.resps) ? line.resps : [];
  const filtered = Array.isArray(line.filtered_resps) ? line.filtered_resps : [];
  const outputType = get(taskConfig, 'output_type');
  const multipleChoice =
    outputType === 'multiple_choice' ||
    (outputType === undefined && argLists.length > 1 && filtered.every((f) => isLoglikelihood(f)));
  const choices = multipleChoice ? argLists.map((a) => text(a[1])) : undefined;
  const target = line.target;
  const reference = Array.isArray(target)
    ? target.map(text)
    : target === undefined || target === null
      ? []
      : [text(target)];

  // The per-sample metric values: `metrics` lists them in 0.4.x; earlier lines just carry the keys.
  const metricNames = Array.isArray(line.metrics)
    ? line.metrics.filter((m): m is string => typeof m === 'string')
    : Object.keys(line).filter((k) => !SAMPLE_KEYS.has(k));
  const filter = typeof line.filter === 'string' ? line.filter : 'none';
  const scored = metricNames.find((m) => numeric(line[m]) !== undefined);
  // A line whose only metric values are NaN / ±Infinity has no score: no row.
  if (
    scored === undefined &&
    metricNames.some((m) => typeof line[m] === 'number' && !Number.isFinite(line[m] as number))
  )
    return undefined;
  const metadata: Obj = { doc_id: line.doc_id, filter };
  for (const k of ['doc_hash', 'prompt_hash', 'target_hash'])
    if (line[k] !== undefined) metadata[k] = line[k];
  for (const m of metricNames)
    if (m !== scored && line[m] !== undefined)
      metadata[`metric.${m}`] =
        typeof line[m] === 'number' && !Number.isFinite(line[m] as number)
          ? nonFiniteText(line[m] as number)
          : line[m];
  if (line.doc !== undefined) metadata.doc = line.doc;
  for (const k in line)
    if (Object.hasOwn(line, k) && !SAMPLE_KEYS.has(k) && !metricNames.includes(k)) metadata[k] = line[k];

  let score = 0;
  let isCorrect = false;
  let resultId: string | undefined;
  let noResult = false;
  if (scored !== undefined) {
    score = numeric(line[scored])!;
    const facts = metricFacts(scored);
    isCorrect = score === (typeof facts?.max === 'number' ? facts.max : 1);
    const key = `${s.task}/${scored},${filter}`;
    resultId = knownIds.has(key)
      ? key
      : knownIds.has(`${s.task}/${scored}`)
        ? `${s.task}/${scored}`
        : undefined;
    // The metric's aggregate is not finite (left out of the record): the row names no result.
    if (resultId === undefined && (leftOutIds.has(key) || leftOutIds.has(`${s.task}/${scored}`))) {
      noResult = true;
      metadata.score_note = `the aggregate ${scored} is not a finite number, so the record has no result for it`;
    }
  } else {
    metadata.score_note =
      'no numeric per-sample metric value (corpus-level metric inputs only); score 0 is a placeholder';
  }
  if (!noResult) resultId ??= taskResultIds.find((id) => id.endsWith(`,${filter}`)) ?? taskResultIds[0];
  if (resultId === undefined && !noResult)
    throw new LineError(
      'convert.lm-eval.sample',
      s.path,
      lineNo,
      `task ${s.task} has no result to attach the row to`,
    );

  let extracted: string;
  if (multipleChoice && choices) {
    const lls = filtered.map((f) => (isLoglikelihood(f) ? Number(f[0]) : -Infinity));
    let best = 0;
    for (let i = 1; i < lls.length; i++) if (lls[i] > lls[best]) best = i;
    extracted = choices[best] ?? '';
  } else extracted = filtered.length > 0 ? text(filtered[0]) : '';

  const sampleId = `${s.task}/${text(line.doc_id)}${filter === 'none' ? '' : `/${filter}`}`;
  return {
    evaluationName: s.task,
    evaluationResultId: resultId,
    sampleId,
    input: { raw, reference, ...(choices ? { choices } : {}) },
    output: { raw: flatTexts(resps) },
    answerAttribution: [
      {
        turn_idx: 0,
        source: 'output.raw',
        extracted_value: extracted,
        extraction_method: multipleChoice
          ? 'lm-eval highest loglikelihood choice'
          : `lm-eval filter ${filter}`,
        is_terminal: true,
      },
    ],
    evaluation: { score, is_correct: isCorrect },
    metadata,
  };
}
