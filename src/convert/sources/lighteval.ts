/**
 * lighteval runs as EEE 0.3.0. A run is `results/<model path>/results_<date>.json` (`config_general`, `results`,
 * `versions`, `config_tasks`, `summary_tasks`, `summary_general`) and, when its details were kept,
 * `details/<model path>/<date>/details_<task>_<date>.parquet` (one row per doc: `doc`, `metric`, `model_response`),
 * the date pairing the two (`:` written as `-`). One record per results file: a result per (task, metric) with its
 * `<metric>_stderr` as standard error; `results.all` is lighteval's average over tasks, not a benchmark, and is
 * kept in the source details only. An instance row per (details row, metric): the doc's query as the input, its
 * gold choice(s) as the reference, the response as the output, the metric's value for that doc as the score
 * (paired across models by the doc: its sample_hash is taken over the query and the golds).
 *
 * Facts declared to reconciliation: the sample count of `summary_tasks` (truncated + non_truncated docs) when
 * lighteval filled it in, and the headline as the mean of the per-doc values when the task's corpus-level function
 * is `mean`. A details file is read a row group at a time (constant memory whatever its size).
 */
import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { decompress as zstdDecompress } from 'fzstd';
import { DataError } from '../../errors.js';
import { isJsonObject } from '../../io/json-value.js';
import { isFileSync } from '../../io/files.js';
import type { DeclaredFacts } from '../../checks/reconciliation.js';
import { RecordDriver } from '../driver.js';
import { metricFacts } from '../metric-facts.js';
import { readJsonSource } from '../read.js';
import { detailString, epochSeconds, nonFiniteText, rowMaker, type ModelFacts } from '../record.js';
import type { ConvertedRecord, ConvertOptions, Probe, SourceConverter } from '../types.js';

type Obj = Record<string, unknown>;

/** Prefixes of lighteval's model names that say which service served the model (litellm / inference providers). */
const PROVIDER_PREFIXES = new Set([
  'openrouter',
  'litellm',
  'together_ai',
  'together',
  'fireworks_ai',
  'groq',
  'bedrock',
  'azure',
  'vertex_ai',
  'hosted_vllm',
  'deepinfra',
  'anyscale',
  'hf-inference',
  'novita',
  'nebius',
  'sambanova',
  'cerebras',
  'hyperbolic',
]);

/** Configuration keys that hold credentials: never written. */
const SECRET = /(api_?key|token|secret|password|authorization)/i;

const RESULTS_NAME = /^results_(.+)\.json$/;
const DETAILS_NAME = /^details_(.+)\.parquet$/;

export const lightevalSource: SourceConverter = {
  id: 'lighteval',
  description:
    'lighteval run (results_<date>.json with config_general and results; details_<task>_<date>.parquet under details/)',
  detect(probe: Probe): boolean {
    if (probe.isDirectory || probe.head === undefined) return false;
    const name = basename(probe.path);
    if (name.endsWith('.parquet'))
      return (
        DETAILS_NAME.test(name) &&
        probe.head.startsWith('PAR1') &&
        (hasAncestor(probe.path, 'details') || resultsFileOf(probe.path) !== undefined)
      );
    if (!name.endsWith('.json')) return false;
    return (
      /^\s*\{/.test(probe.head) &&
      /"config_general"\s*:/.test(probe.head) &&
      /"(config_tasks|summary_tasks|summary_general|lighteval_sha)"\s*:/.test(probe.head)
    );
  },
  convert(path: string, options: ConvertOptions): AsyncIterable<ConvertedRecord> {
    return (async function* () {
      if (path.endsWith('.parquet')) {
        // A details file is part of its run: the run's record comes from its results file.
        const results = resultsFileOf(path);
        if (results === undefined)
          throw new DataError(
            'convert.lighteval.details-alone',
            `${path}: a lighteval details file without its results file (expected results/<model>/results_<date>.json beside the details/ folder); details alone hold no headline to convert`,
          );
        yield { ...(await convertResults(results, options)), sourcePath: path };
        return;
      }
      yield await convertResults(path, options);
    })();
  },
};

function hasAncestor(path: string, name: string): boolean {
  return dirname(path).split(/[\\/]/).includes(name);
}

const isDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};
/** The details folder of a results file: `<root>/details/<model path>/<date>/` for `<root>/results/<model path>/results_<date>.json`. */
function detailsFolderOf(resultsPath: string, date: string): string | undefined {
  const dir = dirname(resultsPath);
  // A run pushed to the Hub keeps the date folder beside the results file.
  if (isDir(join(dir, date))) return join(dir, date);
  let ancestor = dir;
  for (;;) {
    if (basename(ancestor) === 'results') {
      const candidate = join(dirname(ancestor), 'details', relative(ancestor, dir), date);
      if (isDir(candidate)) return candidate;
    }
    const up = dirname(ancestor);
    if (up === ancestor) return undefined;
    ancestor = up;
  }
}

/** The results file of a details file (see detailsFolderOf), when it is there. */
function resultsFileOf(detailsPath: string): string | undefined {
  const dateDir = dirname(detailsPath);
  const date = basename(dateDir);
  const modelDir = dirname(dateDir);
  const beside = join(modelDir, `results_${date}.json`);
  if (isFileSync(beside)) return beside;
  const parts = modelDir.split(sep);
  for (let i = parts.length - 1; i >= 0; i--) {
    if (parts[i] !== 'details') continue;
    const root = parts.slice(0, i).join(sep);
    const candidate = join(root, 'results', ...parts.slice(i + 1), `results_${date}.json`);
    if (isFileSync(candidate)) return candidate;
  }
  return undefined;
}

/** A task key `suite|task|fewshot` (before late 2025) or `task|fewshot`. */
export function parseTaskKey(key: string): { suite?: string; task: string; fewshot?: string } {
  const parts = key.split('|');
  if (parts.length >= 3)
    return { suite: parts[0], task: parts.slice(1, -1).join('|'), fewshot: parts[parts.length - 1] };
  if (parts.length === 2) return { task: parts[0], fewshot: parts[1] };
  return { task: key };
}

/** Sample-level metrics lighteval averages by a mean over the docs (used when config_tasks does not say). */
const MEAN_BY_DEFAULT = new Set([
  'acc',
  'acc_norm',
  'em',
  'qem',
  'pem',
  'pqem',
  'exact_match',
  'quasi_exact_match',
  'prefix_exact_match',
  'prefix_quasi_exact_match',
  'extractive_match',
  'truthfulqa_mc1',
  'truthfulqa_mc2',
  'mc1',
  'mc2',
]);

/** An average over tasks, not a benchmark (`all`, MMLU's `mmlu:_average`). */
const isAverage = (key: string): boolean => key === 'all' || /(^|[:|])_average(\||$)/.test(key);

interface DetailsFile {
  taskKey: string;
  path: string;
}

function detailsFiles(folder: string | undefined, date: string): DetailsFile[] {
  if (folder === undefined) return [];
  const out: DetailsFile[] = [];
  for (const name of readdirSync(folder).sort()) {
    const m = DETAILS_NAME.exec(name);
    if (!m) continue;
    let taskKey = m[1];
    if (taskKey.endsWith(`_${date}`)) taskKey = taskKey.slice(0, -(date.length + 1));
    else if (
      taskKey.lastIndexOf('_') > 0 &&
      /\d{4}-\d{2}-\d{2}/.test(taskKey.slice(taskKey.lastIndexOf('_')))
    )
      taskKey = taskKey.slice(0, taskKey.lastIndexOf('_'));
    out.push({ taskKey, path: join(folder, name) });
  }
  return out;
}

/** The task's metric facts from config_tasks: direction and corpus-level function per metric name. */
function taskMetricFacts(taskConfig: unknown): Map<string, { higherIsBetter?: boolean; corpus?: string }> {
  const out = new Map<string, { higherIsBetter?: boolean; corpus?: string }>();
  const list = isJsonObject(taskConfig) && Array.isArray(taskConfig.metrics) ? taskConfig.metrics : [];
  for (const m of list) {
    if (!isJsonObject(m)) continue;
    const names = Array.isArray(m.metric_name) ? m.metric_name : [m.metric_name];
    for (const n of names) {
      if (typeof n !== 'string') continue;
      const hib = isJsonObject(m.higher_is_better) ? m.higher_is_better[n] : m.higher_is_better;
      const corpus = isJsonObject(m.corpus_level_fn) ? m.corpus_level_fn[n] : m.corpus_level_fn;
      out.set(n, {
        higherIsBetter: typeof hib === 'boolean' ? hib : undefined,
        corpus: typeof corpus === 'string' ? corpus : undefined,
      });
    }
  }
  return out;
}

/** The docs lighteval counted for a task (summary_tasks: truncated + non_truncated), when it filled them in. */
function declaredCount(
  summary: unknown,
  key: string,
  taskConfig?: unknown,
): Pick<DeclaredFacts, 'n' | 'nFrom'> {
  if (isJsonObject(summary)) {
    const { truncated, non_truncated: nonTruncated } = summary;
    if (Number.isSafeInteger(truncated) && Number.isSafeInteger(nonTruncated)) {
      const n = (truncated as number) + (nonTruncated as number);
      if (n > 0) return { n, nFrom: `summary_tasks.${key}.truncated + non_truncated` };
    }
  }
  // Older versions state the docs evaluated in the task's config (-1 when not counted).
  const effective = isJsonObject(taskConfig) ? taskConfig.effective_num_docs : undefined;
  if (Number.isSafeInteger(effective) && (effective as number) > 0)
    return { n: effective as number, nFrom: `config_tasks.${key}.effective_num_docs` };
  return {};
}

function modelFacts(general: Obj): ModelFacts & { provider?: string } {
  const modelConfig = isJsonObject(general.model_config) ? general.model_config : {};
  const raw =
    typeof general.model_name === 'string'
      ? { name: general.model_name, field: 'config_general.model_name' }
      : typeof modelConfig.model_name === 'string'
        ? { name: modelConfig.model_name, field: 'config_general.model_config.model_name' }
        : { name: 'unknown', field: 'config_general.model_name' };
  let name = raw.name;
  let provider = typeof modelConfig.provider === 'string' ? modelConfig.provider : undefined;
  const slash = name.indexOf('/');
  const prefix = slash === -1 ? undefined : name.slice(0, slash);
  if (prefix !== undefined && (prefix === provider || PROVIDER_PREFIXES.has(prefix.toLowerCase()))) {
    provider = prefix;
    name = name.slice(slash + 1);
  }
  const details: Obj = {};
  for (const [k, v] of Object.entries(modelConfig)) {
    if (k === 'generation_parameters' || k === 'model_name' || v === null || v === undefined) continue;
    if (SECRET.test(k)) continue;
    details[k] = v;
  }
  for (const k of ['model_sha', 'model_dtype', 'model_size'])
    if (general[k] !== undefined && general[k] !== null && general[k] !== '') details[k] = general[k];
  const facts: ModelFacts & { provider?: string } = {
    name,
    sourceString: raw.name,
    field: raw.field,
    inferencePlatform: provider,
    details,
    detailsField: 'config_general.model_config.',
    provider,
  };
  if (provider !== undefined)
    facts.deployment = {
      deploymentType: 'externally_managed',
      modelAvailability: 'unknown',
      reason: `served through "${provider}" (an API provider)`,
    };
  if (name === 'unknown' || name === '') facts.unnamed = true;
  return facts;
}

/** generation_config of every result: the run's generation parameters and the task's own settings. */
function generationConfig(general: Obj, taskConfig: unknown, fewshot: string | undefined): Obj | undefined {
  const modelConfig = isJsonObject(general.model_config) ? general.model_config : {};
  const params = isJsonObject(modelConfig.generation_parameters) ? modelConfig.generation_parameters : {};
  const args: Obj = {};
  const extra: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) {
    if (v === null || v === undefined) continue;
    if ((k === 'temperature' || k === 'top_p' || k === 'top_k') && typeof v === 'number') args[k] = v;
    else if (k === 'max_new_tokens' && Number.isSafeInteger(v) && (v as number) >= 1) args.max_tokens = v;
    else extra[`generation_parameters.${k}`] = detailString(v);
  }
  if (isJsonObject(taskConfig)) {
    if (taskConfig.generation_size !== undefined && taskConfig.generation_size !== null)
      extra.generation_size = detailString(taskConfig.generation_size);
    if (Array.isArray(taskConfig.stop_sequence)) extra.stop_sequence = detailString(taskConfig.stop_sequence);
  }
  if (fewshot !== undefined) extra.num_fewshots = fewshot;
  const out: Obj = {};
  if (Object.keys(args).length > 0) out.generation_args = args;
  if (Object.keys(extra).length > 0) out.additional_details = extra;
  return Object.keys(out).length > 0 ? out : undefined;
}

function sourceData(name: string, suite: string | undefined, taskConfig: unknown): Obj {
  const c = isJsonObject(taskConfig) ? taskConfig : {};
  const details: Record<string, string> = {};
  if (suite !== undefined) details.suite = suite;
  if (typeof c.hf_subset === 'string') details.hf_subset = c.hf_subset;
  if (typeof c.hf_revision === 'string') details.hf_revision = c.hf_revision;
  if (typeof c.hf_repo === 'string' && c.hf_repo !== '') {
    const out: Obj = { dataset_name: name, source_type: 'hf_dataset', hf_repo: c.hf_repo };
    const splits = c.evaluation_splits;
    if (Array.isArray(splits) && splits.length === 1 && typeof splits[0] === 'string')
      out.hf_split = splits[0];
    else if (Array.isArray(splits) && splits.length > 0) details.evaluation_splits = splits.join(',');
    if (Number.isSafeInteger(c.effective_num_docs) && (c.effective_num_docs as number) > 0)
      out.samples_number = c.effective_num_docs;
    if (Object.keys(details).length > 0) out.additional_details = details;
    return out;
  }
  const out: Obj = { dataset_name: name, source_type: 'other' };
  if (Object.keys(details).length > 0) out.additional_details = details;
  return out;
}

async function convertResults(path: string, options: ConvertOptions): Promise<ConvertedRecord> {
  const { value, digest } = await readJsonSource(path, { python: true });
  if (!isJsonObject(value) || !isJsonObject(value.results) || !isJsonObject(value.config_general))
    throw new DataError(
      'convert.lighteval.shape',
      `${path}: a lighteval results file needs "config_general" and "results" objects`,
    );
  const doc = value;
  const docResults = value.results;
  const general = value.config_general;
  const configTasks = isJsonObject(doc.config_tasks) ? doc.config_tasks : {};
  const summaryTasks = isJsonObject(doc.summary_tasks) ? doc.summary_tasks : {};
  const d = new RecordDriver('lighteval', path, options);
  const { report, notes } = d;

  const facts = modelFacts(general);
  if (facts.provider !== undefined && facts.sourceString !== facts.name)
    report.mapped(facts.field, '/model_info/inference_platform');
  const model = d.model({ ...facts, runKey: digest });
  const ids = d.ids({ digest, defaultCollection: 'lighteval' });
  const modelConfig = isJsonObject(general.model_config) ? general.model_config : {};
  for (const k of Object.keys(modelConfig))
    if (SECRET.test(k) && modelConfig[k] !== null)
      report.notMapped(`config_general.model_config.${k}`, 'a credential: never written');

  const date = RESULTS_NAME.exec(basename(path))?.[1];
  const files = date === undefined ? [] : detailsFiles(detailsFolderOf(path, date), date);

  // The evaluation name of a task: its name, or its whole key when two keys of the run share the name.
  const taskKeys = Object.keys(docResults).filter((k) => !isAverage(k));
  const nameCounts = new Map<string, number>();
  for (const k of taskKeys) {
    const t = parseTaskKey(k).task;
    nameCounts.set(t, (nameCounts.get(t) ?? 0) + 1);
  }
  const evaluationNameOf = (key: string): string => {
    const t = parseTaskKey(key).task;
    return (nameCounts.get(t) ?? 0) > 1 ? key : t;
  };

  const results = d.results;
  const metricsByTask = new Map<string, { metric: string; resultId: string; lowerIsBetter: boolean }[]>();
  for (const key of Object.keys(docResults)) {
    const entry = docResults[key];
    if (isAverage(key)) {
      report.details(`results.${key}`, `/source_metadata/additional_details/results.${key}`);
      continue;
    }
    if (!isJsonObject(entry)) {
      report.notMapped(`results.${key}`, 'not an object of metrics');
      continue;
    }
    const { suite, task, fewshot } = parseTaskKey(key);
    const evaluationName = evaluationNameOf(key);
    // Before 2025 config_tasks was keyed without the few-shot count (`leaderboard|arc:challenge`).
    const taskConfig = configTasks[key] ?? configTasks[key.slice(0, key.lastIndexOf('|'))];
    const metricInfo = taskMetricFacts(taskConfig);
    for (const [metric, score] of Object.entries(entry)) {
      if (metric.endsWith('_stderr') && Object.hasOwn(entry, metric.slice(0, -'_stderr'.length))) continue;
      const field = `results.${key}.${metric}`;
      if (typeof score !== 'number') {
        report.notMapped(field, `not a number (${JSON.stringify(score)})`);
        continue;
      }
      const stderrKey = `${metric}_stderr`;
      const stderr = entry[stderrKey];
      const details: Obj = { task_key: key };
      let standardError: { value: number; method: string } | undefined;
      if (typeof stderr === 'number' && Number.isFinite(stderr)) {
        standardError = { value: stderr, method: 'lighteval stderr' };
        report.mapped(
          `results.${key}.${stderrKey}`,
          `/evaluation_results/${results.results.length}/score_details/uncertainty/standard_error`,
        );
      } else if (typeof stderr === 'number') {
        details.stderr = nonFiniteText(stderr);
        report.notMapped(`results.${key}.${stderrKey}`, `${nonFiniteText(stderr)} is not a finite number`);
      }
      const version = isJsonObject(doc.versions) ? doc.versions[key] : undefined;
      if (version !== undefined) details.task_version = version;
      const summary = summaryTasks[key];
      if (isJsonObject(summary))
        for (const k of ['truncated', 'non_truncated', 'padded', 'non_padded', 'effective_few_shots'])
          if (summary[k] !== undefined) details[`summary.${k}`] = summary[k];
      const info = metricInfo.get(metric);
      const count = declaredCount(summary, key, taskConfig);
      // Older config_tasks name metric functions only: lighteval's sample-level metrics are averaged by a mean.
      const corpus = info?.corpus ?? (MEAN_BY_DEFAULT.has(metric) ? 'mean' : undefined);
      const declared: DeclaredFacts =
        corpus === 'mean'
          ? { ...count, headline: 'mean' }
          : {
              ...count,
              headlineWhy:
                info?.corpus !== undefined
                  ? `lighteval aggregates ${metric} by "${info.corpus}", not known to be a mean`
                  : `config_tasks does not give the corpus-level function of ${metric}`,
            };
      if (info?.corpus !== undefined) details.corpus_level_fn = info.corpus;
      const resultId = `${key}/${metric}`;
      const written = results.add({
        evaluationName,
        metric,
        resultId,
        field,
        score,
        lowerIsBetter:
          info?.higherIsBetter !== undefined
            ? { value: !info.higherIsBetter, field: `config_tasks.${key}.metrics.higher_is_better` }
            : undefined,
        sourceData: sourceData(task, suite, taskConfig),
        standardError,
        numSamples: count.n,
        details,
        generationConfig: generationConfig(general, taskConfig, fewshot),
        declared,
      });
      // A headline left out (NaN, ±Infinity) has no result for rows to name: its per-doc values are not written.
      const list = metricsByTask.get(key) ?? [];
      if (written !== undefined)
        list.push({
          metric,
          resultId,
          lowerIsBetter: (written?.metric_config as Obj | undefined)?.lower_is_better === true,
        });
      metricsByTask.set(key, list);
    }
  }
  if (results.results.length === 0 && Object.keys(results.leftOut).length === 0)
    throw new DataError('convert.lighteval.empty', `${path}: the results file holds no numeric metric`);
  for (const k of ['results', 'config_tasks', 'summary_tasks', 'versions'])
    if (doc[k] !== undefined) report.mapped(k, '/evaluation_results (per task)');

  const withDetails = files.filter((f) => metricsByTask.has(f.taskKey));
  for (const f of files)
    if (!metricsByTask.has(f.taskKey))
      report.notMapped(basename(f.path), `no task "${f.taskKey}" among the results: not converted`);
  const withoutDetails = [...metricsByTask.keys()].filter((k) => !withDetails.some((f) => f.taskKey === k));
  if (withoutDetails.length > 0)
    notes.push(
      `${withoutDetails.length} task(s) without a details file (run without --save-details, or the details/ folder not beside results/), so without instance rows: ${withoutDetails.join(', ')}`,
    );
  for (const f of withDetails) report.mapped(basename(f.path), `details rows (${f.taskKey})`);

  const sourceDetails: Obj = { results_file: basename(path) };
  for (const [k, v] of Object.entries(docResults)) if (isAverage(k)) sourceDetails[`results.${k}`] = v;
  if (doc.summary_general !== undefined) {
    sourceDetails.summary_general = doc.summary_general;
    report.details('summary_general', '/source_metadata/additional_details/summary_general');
  }
  const libraryDetails: Obj = {};
  for (const [k, v] of Object.entries(general)) {
    if (
      ['model_config', 'model_name', 'model_sha', 'model_dtype', 'model_size', 'lighteval_version'].includes(
        k,
      )
    )
      continue;
    if (v === null || v === undefined || SECRET.test(k)) continue;
    libraryDetails[`config_general.${k}`] = v;
    report.details(`config_general.${k}`, `/eval_library/additional_details/config_general.${k}`);
  }
  const version = typeof general.lighteval_version === 'string' ? general.lighteval_version : 'unknown';
  if (version === 'unknown')
    report.inferred(
      'config_general',
      '/eval_library/version',
      'a lighteval results file does not state the lighteval version (only lighteval_sha, kept in additional_details)',
    );
  else report.mapped('config_general.lighteval_version', '/eval_library/version');
  const when = epochSeconds(dateFromName(date));
  if (Number.isSafeInteger(general.max_samples))
    notes.push(
      `the run was limited to ${String(general.max_samples)} sample(s) per task (config_general.max_samples): not a full evaluation`,
    );
  // The docs scored: a details file's rows, else the count summary_tasks gives.
  let scoredSamples = 0;
  for (const key of metricsByTask.keys()) {
    const f = withDetails.find((x) => x.taskKey === key);
    scoredSamples +=
      f !== undefined
        ? await parquetRowCount(f.path)
        : (declaredCount(
            summaryTasks[key],
            key,
            configTasks[key] ?? configTasks[key.slice(0, key.lastIndexOf('|'))],
          ).n ?? 0);
  }
  d.run({
    sourceRunId: `${facts.sourceString ?? facts.name}|${basename(path)}`,
    status: 'complete',
    scoredSamples,
  });
  const aggregate = d.aggregate({
    sourceName: 'lighteval results',
    sourceDetails,
    evalLibrary: { name: 'lighteval', version, details: libraryDetails },
    retrievedTimestamp: when ? { value: when, field: 'results file name (date)' } : undefined,
    evaluationTimestamp: when ? { value: when, field: 'results file name (date)' } : undefined,
    hasRows: withDetails.length > 0,
  });

  const makeRow = rowMaker(ids.evaluationId, model.id);
  const rows =
    withDetails.length === 0
      ? undefined
      : async function* (): AsyncGenerator<Obj> {
          let skipped = 0;
          for (const f of withDetails) {
            const metrics = metricsByTask.get(f.taskKey)!;
            const seenIds = new Set<string>();
            let index = 0;
            for await (const row of parquetRows(f.path)) {
              const parts = detailRow(row, index, seenIds);
              index++;
              for (const m of metrics) {
                const v = parts.metrics[m.metric];
                if (typeof v !== 'number' || !Number.isFinite(v)) {
                  skipped++;
                  continue;
                }
                const max = metricFacts(m.metric)?.max;
                yield makeRow({
                  evaluationName: evaluationNameOf(f.taskKey),
                  evaluationResultId: m.resultId,
                  // One row per metric of a doc: the metric's result names it apart (as Inspect's scorers do).
                  sampleId: metrics.length > 1 ? `${parts.sampleId}@${m.resultId}` : parts.sampleId,
                  input: parts.input,
                  output: parts.output,
                  evaluation: {
                    score: v,
                    is_correct: m.lowerIsBetter ? v === 0 : v === (typeof max === 'number' ? max : 1),
                  },
                  metadata: { task_key: f.taskKey, metric: m.metric, ...parts.metadata },
                });
              }
            }
          }
          if (skipped > 0)
            report.notMapped(
              'details rows (metric values)',
              `${skipped} (row, metric) value(s) missing or not finite: no row written for them`,
            );
        };
  if (withDetails.length > 0)
    notes.push(
      'instance rows: one per details row and metric (the metric value of that doc as the score), keyed by the doc (query and golds)',
    );
  return d.record({ aggregate, rows });
}

/** `2025-09-26T18-27-03.114623` (lighteval writes `:` as `-`) as an ISO date string. */
function dateFromName(date: string | undefined): string | undefined {
  if (date === undefined) return undefined;
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})(\.\d+)?$/.exec(date);
  return m ? `${m[1]}T${m[2]}:${m[3]}:${m[4]}${m[5] ?? ''}Z` : undefined;
}

/** hyparquet, loaded when a details file is read (not by every convert). */
const hyparquet = () => import('hyparquet');

async function parquetMetadataOf(path: string) {
  const { asyncBufferFromFile, parquetMetadataAsync } = await hyparquet();
  try {
    const file = await asyncBufferFromFile(path);
    return { file, metadata: await parquetMetadataAsync(file) };
  } catch (error) {
    throw new DataError(
      'convert.lighteval.parquet',
      `${path}: not a readable Parquet file: ${(error as Error).message}`,
    );
  }
}

async function parquetRowCount(path: string): Promise<number> {
  return Number((await parquetMetadataOf(path)).metadata.num_rows);
}

/** The rows of a Parquet file, one row group read at a time (INT64 values as numbers). */
async function* parquetRows(path: string): AsyncGenerator<Obj> {
  const { file, metadata } = await parquetMetadataOf(path);
  const { parquetReadObjects } = await hyparquet();
  let start = 0;
  for (const group of metadata.row_groups) {
    const end = start + Number(group.num_rows);
    let rows: Obj[];
    try {
      rows = (await parquetReadObjects({
        file,
        metadata,
        rowStart: start,
        rowEnd: end,
        compressors: { ZSTD: (input: Uint8Array) => zstdDecompress(input) },
      })) as Obj[];
    } catch (error) {
      throw new DataError(
        'convert.lighteval.parquet',
        `${path}: rows ${start}–${end - 1}: ${(error as Error).message}`,
      );
    }
    for (const r of rows) yield plain(r) as Obj;
    start = end;
  }
}

/** BigInts as numbers, recursively (Parquet INT64 columns). */
function plain(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === 'object' && !(v instanceof Uint8Array)) {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v)) out[k] = plain(x);
    return out;
  }
  return v;
}

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : [];

/** A JSON string column of older lighteval versions, parsed; otherwise the value. */
function maybeJson(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (!t.startsWith('{') && !t.startsWith('[')) return v;
  try {
    return JSON.parse(t);
  } catch {
    return v;
  }
}

/** What a details row gives every one of its metric rows. */
function detailRow(
  row: Obj,
  index: number,
  seenIds: Set<string>,
): {
  sampleId: string;
  input: { raw: string; formatted?: string | null; reference: string[]; choices?: string[] | null };
  output?: { raw: string[]; reasoning_trace?: string[] | null };
  metrics: Obj;
  metadata: Obj;
} {
  const d = isJsonObject(row.doc) ? row.doc : {};
  const response = isJsonObject(row.model_response) ? row.model_response : {};
  const metricsRaw = maybeJson(row.metric ?? row.metrics);
  const metrics: Obj = {};
  if (isJsonObject(metricsRaw))
    for (const [k, v] of Object.entries(metricsRaw))
      metrics[k] = typeof v === 'boolean' ? Number(v) : typeof v === 'string' && v !== '' ? Number(v) : v;

  const choices = strings(d.choices ?? maybeJson(row.choices));
  const goldIndex = d.gold_index ?? maybeJson(row.gold_index);
  const golds = (Array.isArray(goldIndex) ? goldIndex : [goldIndex])
    .filter((i): i is number => Number.isInteger(i))
    .map((i) => choices[i])
    .filter((c): c is string => typeof c === 'string');
  const reference = golds.length > 0 ? golds : strings(maybeJson(row.gold));
  // The doc's own text (the same for every model), else what was sent.
  const sent = Array.isArray(response.input)
    ? response.input
        .map((m) => (isJsonObject(m) && typeof m.content === 'string' ? m.content : ''))
        .filter((c) => c !== '')
        .join('\n\n')
    : typeof response.input === 'string'
      ? response.input
      : undefined;
  const raw =
    [d.query, row.example, row.full_prompt, d.instruction, sent].find(
      (x): x is string => typeof x === 'string' && x !== '',
    ) ?? '';
  let formatted: string | undefined;
  if (typeof response.input === 'string' && response.input !== raw) formatted = response.input;
  else if (Array.isArray(response.input) && response.input.length > 0)
    formatted = JSON.stringify(response.input);
  else if (typeof row.full_prompt === 'string' && row.full_prompt !== raw) formatted = row.full_prompt;

  let texts = strings(response.text);
  const predictions = maybeJson(row.predictions);
  // Older details: `predictions` holds the texts, or for a log-likelihood task [logprob, is_greedy] per choice.
  const predictedLogprobs =
    Array.isArray(predictions) && predictions.length > 0 && predictions.length === choices.length
      ? predictions.map((p) => (Array.isArray(p) ? p[0] : p))
      : undefined;
  const numeric = predictedLogprobs?.every((x) => typeof x === 'number') === true;
  if (texts.length === 0 && Array.isArray(predictions) && !numeric) texts = strings(predictions);
  const metadata: Obj = {};
  const logprobs =
    Array.isArray(response.logprobs) && response.logprobs.length > 0
      ? response.logprobs
      : numeric
        ? predictedLogprobs!
        : [];
  if (texts.length === 0 && logprobs.length > 0 && logprobs.length === choices.length) {
    // A loglikelihood task: the prediction is the choice of highest log-probability.
    let best = 0;
    for (let i = 1; i < logprobs.length; i++) if (Number(logprobs[i]) > Number(logprobs[best])) best = i;
    texts = [choices[best]];
    metadata.prediction = 'the choice of highest log-probability';
    metadata.logprobs = logprobs;
  }
  const reasonings = strings(response.reasonings).filter((r) => r !== '');
  const output =
    texts.length > 0 || reasonings.length > 0
      ? { raw: texts, ...(reasonings.length > 0 ? { reasoning_trace: reasonings } : {}) }
      : undefined;

  const specific = d.specific ?? maybeJson(row.specifics);
  if (specific !== undefined && specific !== null) metadata.specific = specific;
  const post = strings(response.text_post_processed);
  if (post.length > 0 && JSON.stringify(post) !== JSON.stringify(texts)) metadata.text_post_processed = post;
  for (const k of ['truncated_tokens_count', 'padded_tokens_count'])
    if (typeof response[k] === 'number' && (response[k] as number) > 0) metadata[k] = response[k];
  if (typeof d.instruction === 'string' && d.instruction !== '') metadata.instruction = d.instruction;
  if (Array.isArray(d.sampling_methods)) metadata.sampling_methods = strings(d.sampling_methods).join(',');

  let sampleId = typeof d.id === 'string' && d.id !== '' ? d.id : String(index);
  if (seenIds.has(sampleId)) sampleId = `${sampleId}#${index}`;
  seenIds.add(sampleId);
  return {
    sampleId,
    input: {
      raw,
      ...(formatted !== undefined ? { formatted } : {}),
      reference,
      ...(choices.length > 0 ? { choices } : {}),
    },
    output,
    metrics,
    metadata,
  };
}
