/**
 * Benchmark output v1 documents (one run's output: metadata.benchmark/model/run, results.status/metrics/details)
 * as EEE 0.3.0. One record per document; every numeric metric a result, except counts (`n_*`, `num_*`), which are
 * kept in each result's details. The document has no per-sample rows in a defined shape, so the record has none;
 * `results.details` and `results.cases` are kept as strings in `source_metadata.additional_details`. A run that
 * failed (`status: "error"`) converts with the results it has and a note with the error.
 */
import { basename } from 'node:path';
import { DataError } from '../../errors.js';
import { readJsonSource } from '../read.js';
import { isJsonObject } from '../../io/json-value.js';
import { RecordDriver } from '../driver.js';
import { detailString, epochSeconds, type ModelFacts } from '../record.js';
import type { ConvertedRecord, ConvertOptions, Probe, SourceConverter } from '../types.js';

type Obj = Record<string, unknown>;

const API_PROVIDERS = new Set([
  'openai',
  'anthropic',
  'google',
  'vertex',
  'bedrock',
  'azure',
  'mistral',
  'cohere',
  'together',
  'fireworks',
  'groq',
  'openrouter',
]);
const LOCAL_RUNTIMES = new Set([
  'vllm',
  'ollama',
  'llama.cpp',
  'llamacpp',
  'tgi',
  'sglang',
  'transformers',
  'hf',
  'huggingface',
  'local',
]);

const isCount = (name: string): boolean => /^(n|num)_/.test(name);

export const benchOutputSource: SourceConverter = {
  id: 'bench',
  description: 'benchmark output v1 document (.json with schema_version "v1", metadata and results)',
  detect(probe: Probe): boolean {
    if (probe.isDirectory || probe.head === undefined || !probe.path.endsWith('.json')) return false;
    return (
      /"schema_version"\s*:\s*"v1"/.test(probe.head) &&
      /"metadata"\s*:/.test(probe.head) &&
      /"results"\s*:/.test(probe.head)
    );
  },
  convert(path: string, options: ConvertOptions): AsyncIterable<ConvertedRecord> {
    return (async function* () {
      yield await convertDocument(path, options);
    })();
  },
};

async function convertDocument(path: string, options: ConvertOptions): Promise<ConvertedRecord> {
  const { value, digest } = await readJsonSource(path);
  const doc = value;
  if (!isJsonObject(doc) || !isJsonObject(doc.metadata) || !isJsonObject(doc.results))
    throw new DataError(
      'convert.bench.shape',
      `${path}: a benchmark output v1 document needs "metadata" and "results" objects`,
    );
  const meta = doc.metadata;
  const res = doc.results;
  const benchmark = isJsonObject(meta.benchmark) ? meta.benchmark : {};
  const modelMeta = isJsonObject(meta.model) ? meta.model : {};
  const run = isJsonObject(meta.run) ? meta.run : {};
  const d = new RecordDriver('bench', path, options);
  const { report, notes } = d;

  const provider = typeof modelMeta.provider === 'string' ? modelMeta.provider : undefined;
  const facts: ModelFacts = {
    name: typeof modelMeta.name === 'string' ? modelMeta.name : 'unknown',
    field: 'metadata.model.name',
    inferencePlatform: provider,
    detailsField: 'metadata.model.',
    details: modelMeta.revision !== undefined ? { revision: modelMeta.revision } : undefined,
  };
  if (provider && API_PROVIDERS.has(provider.toLowerCase()))
    facts.deployment = {
      deploymentType: 'externally_managed',
      modelAvailability: 'closed_weights',
      reason: `provider "${provider}" is an API service`,
    };
  else if (provider && LOCAL_RUNTIMES.has(provider.toLowerCase()))
    facts.deployment = {
      deploymentType: 'self_deployed',
      modelAvailability: 'unknown',
      reason: `provider "${provider}" is a runtime the evaluator runs`,
    };
  if (provider !== undefined) report.mapped('metadata.model.provider', '/model_info/inference_platform');
  d.model({ ...facts, runKey: digest });
  d.ids({ digest, defaultCollection: 'bench' });

  const name = typeof benchmark.name === 'string' ? benchmark.name : basename(path, '.json');
  const task = typeof benchmark.task === 'string' && benchmark.task !== 'all' ? benchmark.task : undefined;
  const evaluationName = task ? `${name}/${task}` : name;
  report.mapped('metadata.benchmark.name', '/evaluation_results/*/evaluation_name');
  const sourceData: Obj = { dataset_name: name, source_type: 'other' };
  const dsDetails: Obj = {};
  for (const k of ['suite', 'version', 'task'])
    if (benchmark[k] !== undefined) {
      dsDetails[k] = detailString(benchmark[k]);
      report.details(`metadata.benchmark.${k}`, `/evaluation_results/*/source_data/additional_details/${k}`);
    }
  if (Object.keys(dsDetails).length > 0) sourceData.additional_details = dsDetails;

  const params = isJsonObject(modelMeta.parameters) ? modelMeta.parameters : undefined;
  let generationConfig: Obj | undefined;
  if (params) {
    const args: Obj = {};
    const extra: Record<string, string> = {};
    for (const [k, v] of Object.entries(params)) {
      if ((k === 'temperature' || k === 'top_p' || k === 'top_k') && (typeof v === 'number' || v === null))
        args[k] = v;
      else if ((k === 'max_tokens' || k === 'max_new_tokens') && Number.isInteger(v)) args.max_tokens = v;
      else extra[k] = detailString(v);
    }
    generationConfig = {};
    if (Object.keys(args).length > 0) generationConfig.generation_args = args;
    if (Object.keys(extra).length > 0) generationConfig.additional_details = extra;
    report.mapped('metadata.model.parameters', '/evaluation_results/*/generation_config');
  }

  const metrics = isJsonObject(res.metrics) ? res.metrics : {};
  const counts: Obj = {};
  for (const [k, v] of Object.entries(metrics))
    if (isCount(k) && typeof v === 'number') {
      counts[k] = v;
      report.details(`results.metrics.${k}`, '/evaluation_results/*/score_details/details');
    }
  const countValues = Object.values(counts).filter((v) => Number.isInteger(v)) as number[];
  const results = d.results;
  for (const [k, v] of Object.entries(metrics)) {
    if (isCount(k)) continue;
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      report.notMapped(`results.metrics.${k}`, `not a finite number (${JSON.stringify(v)})`);
      continue;
    }
    results.add({
      evaluationName,
      metric: k,
      resultId: `${evaluationName}/${k}`,
      field: `results.metrics.${k}`,
      score: v,
      sourceData,
      numSamples: countValues.length === 1 ? countValues[0] : undefined,
      details: counts,
      generationConfig,
    });
  }
  if (res.status === 'error') {
    const message = isJsonObject(res.error) ? String(res.error.message ?? '') : '';
    notes.push(
      `the run failed (results.status "error")${message ? `: ${message}` : ''}; converted with the results it has`,
    );
  }

  const sourceDetails: Obj = { document: basename(path), status: res.status };
  report.details('results.status', '/source_metadata/additional_details/status');
  for (const [k, v] of Object.entries(run)) {
    if (k === 'started_at' || k === 'finished_at') continue;
    sourceDetails[`run.${k}`] = v;
    report.details(`metadata.run.${k}`, `/source_metadata/additional_details/run.${k}`);
  }
  for (const k of ['tags', 'notes'])
    if (meta[k] !== undefined) {
      sourceDetails[k] = Array.isArray(meta[k]) ? (meta[k] as unknown[]).join(',') : meta[k];
      report.details(`metadata.${k}`, `/source_metadata/additional_details/${k}`);
    }
  for (const k of ['error', 'details', 'cases', 'artifacts'])
    if (res[k] !== undefined) {
      sourceDetails[`results.${k}`] = res[k];
      report.details(`results.${k}`, `/source_metadata/additional_details/results.${k}`);
    }
  if (doc.$schema !== undefined) {
    sourceDetails.$schema = doc.$schema;
    report.details('$schema', '/source_metadata/additional_details/$schema');
  }
  report.inferred(
    'eval library',
    '/eval_library',
    'a benchmark output v1 document does not name the harness; "unknown"',
  );
  const started = epochSeconds(run.started_at);
  const finished = epochSeconds(run.finished_at);
  const aggregate = d.aggregate({
    sourceName: 'benchmark output v1',
    sourceDetails,
    evalLibrary: { name: 'unknown', version: 'unknown' },
    retrievedTimestamp: finished
      ? { value: finished, field: 'metadata.run.finished_at' }
      : started
        ? { value: started, field: 'metadata.run.started_at' }
        : undefined,
    evaluationTimestamp: started ? { value: started, field: 'metadata.run.started_at' } : undefined,
    hasRows: false,
  });
  return d.record({ aggregate });
}
