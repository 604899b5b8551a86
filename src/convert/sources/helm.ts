/**
 * HELM run folders (`run_spec.json`, `scenario.json`, `scenario_state.json`, `per_instance_stats.json`,
 * `stats.json`) into EEE 0.3.0: one record per run; a suite folder is walked run by run.
 *
 * Results: every score statistic of `stats.json` per split (and sub-split) and perturbation, its `mean` as the
 * score. HELM's `count` there is the number of train trials aggregated, so a standard error (stddev / √count) is
 * given only when count ≥ 2; count, stddev, min and max are kept in the details. Bookkeeping statistics (token
 * counts, runtimes, finish reasons, costs) are not scores: the unperturbed ones are kept in the source details.
 * Rows: one per instance, train trial and perturbation for every score statistic of its per-instance stats, with
 * the prompt, the completions and the references.
 */
import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { DataError } from '../../errors.js';
import { RecordDriver } from '../driver.js';
import type { DeclaredFacts } from '../../checks/reconciliation.js';
import {
  contentDigest,
  detailString,
  epochSeconds,
  type ResultsBuilder,
  rowMaker,
  type ModelFacts,
} from '../record.js';
import { metricFacts } from '../metric-facts.js';
import { finite, isObj, readSourceJson, type Obj } from '../source-json.js';
import type { ConvertOptions, ConvertedRecord, Probe, SourceConverter } from '../types.js';

const RUN_FILES = [
  'run_spec.json',
  'scenario.json',
  'scenario_state.json',
  'per_instance_stats.json',
  'stats.json',
];

function detect(probe: Probe): boolean {
  return (
    probe.isDirectory &&
    (probe.entries ?? []).includes('run_spec.json') &&
    ((probe.entries ?? []).includes('stats.json') || (probe.entries ?? []).includes('scenario_state.json'))
  );
}

/** Statistics HELM computes about the run rather than the model's answers. */
export function isBookkeepingStat(name: string): boolean {
  return (
    /^(num_|finish_reason_|training_|inference_)/.test(name) ||
    ['batch_size', 'prompt_truncated', 'max_prob', 'estimated_num_tokens_cost'].includes(name)
  );
}

interface StatName {
  name: string;
  split?: string;
  subSplit?: string;
  perturbation?: Obj;
}

function statName(stat: Obj): StatName | undefined {
  const n = stat.name;
  if (!isObj(n) || typeof n.name !== 'string') return undefined;
  return {
    name: n.name,
    ...(typeof n.split === 'string' ? { split: n.split } : {}),
    ...(typeof n.sub_split === 'string' ? { subSplit: n.sub_split } : {}),
    ...(isObj(n.perturbation) ? { perturbation: n.perturbation } : {}),
  };
}

const perturbationKey = (p: Obj | undefined): string | undefined =>
  p ? `${String(p.name)}${typeof p.computed_on === 'string' ? `:${p.computed_on}` : ''}` : undefined;

/** `exact_match/test`, `exact_match/test/robustness:worst`. */
function resultKey(s: StatName): string {
  return [
    s.name,
    s.split ?? 'all',
    ...(s.subSplit ? [s.subSplit] : []),
    ...(s.perturbation ? [perturbationKey(s.perturbation)!] : []),
  ].join('/');
}

const runTexts = new WeakMap<object, string>();

async function readRunFile(dir: string, name: string, required: boolean): Promise<unknown> {
  const path = join(dir, name);
  try {
    const { value, text } = await readSourceJson(path);
    if (typeof value === 'object' && value !== null) runTexts.set(value, text);
    return value;
  } catch (error) {
    if (!required && (error as { code?: string }).code === 'io.not-found') return undefined;
    throw error;
  }
}

const API_DEPLOYMENT =
  /^(openai|anthropic|google|cohere|ai21|writer|mistralai|together|microsoft|amazon|bedrock|vertexai|azure|groq|deepseek-ai|xai|perplexity)\//;

function helmModelFacts(adapter: Obj, runSpec: Obj): ModelFacts {
  const model = typeof adapter.model === 'string' ? adapter.model : undefined;
  const deployment = typeof adapter.model_deployment === 'string' ? adapter.model_deployment : undefined;
  if (!model)
    throw new DataError('convert.helm', `run ${String(runSpec.name)}: adapter_spec.model is missing`);
  const facts: ModelFacts = {
    name: model,
    field: 'run_spec.adapter_spec.model',
    details: {},
    detailsField: '',
  };
  if (deployment) {
    facts.details = { helm_model_deployment: deployment };
    facts.inferencePlatform = deployment.split('/')[0];
    if (/^(huggingface|vllm|local|neurips|simple)\//.test(deployment))
      facts.deployment = {
        deploymentType: 'self_deployed',
        modelAvailability: deployment.startsWith('huggingface/') ? 'open_weights' : 'unknown',
        reason: `HELM model deployment "${deployment}" runs the weights locally`,
      };
    else if (API_DEPLOYMENT.test(deployment)) {
      const closed = /^(openai|anthropic|google)\//.test(deployment) && !/gpt2|gemma/.test(deployment);
      facts.deployment = {
        deploymentType: 'externally_managed',
        modelAvailability: closed ? 'closed_weights' : 'unknown',
        reason: `HELM model deployment "${deployment}" is an API${closed ? ' serving a closed-weights model' : ''}`,
      };
    }
  }
  return facts;
}

interface RequestGroup {
  state: Obj;
  completions: string[];
  requests: number;
}

async function* convertRun(dir: string, options: ConvertOptions): AsyncGenerator<ConvertedRecord> {
  const runSpec = await readRunFile(dir, 'run_spec.json', true);
  if (!isObj(runSpec) || !isObj(runSpec.adapter_spec))
    throw new DataError(
      'convert.helm',
      `${join(dir, 'run_spec.json')}: not a HELM run spec (no adapter_spec)`,
    );
  const scenario = await readRunFile(dir, 'scenario.json', false);
  const stats = await readRunFile(dir, 'stats.json', false);
  const perInstance = await readRunFile(dir, 'per_instance_stats.json', false);
  const scenarioState = await readRunFile(dir, 'scenario_state.json', false);
  if (stats !== undefined && !Array.isArray(stats))
    throw new DataError('convert.helm', `${join(dir, 'stats.json')}: must be a list of statistics`);
  if (perInstance !== undefined && !Array.isArray(perInstance))
    throw new DataError('convert.helm', `${join(dir, 'per_instance_stats.json')}: must be a list`);
  if (scenarioState !== undefined && !(isObj(scenarioState) && Array.isArray(scenarioState.request_states)))
    throw new DataError('convert.helm', `${join(dir, 'scenario_state.json')}: has no request_states list`);
  if (stats === undefined)
    throw new DataError('convert.helm', `${dir}: stats.json is missing: the run has no results to convert`);

  const d = new RecordDriver('helm', dir, options);
  const { report, notes } = d;
  const adapter = runSpec.adapter_spec as Obj;
  const runName = typeof runSpec.name === 'string' ? runSpec.name : dir;
  const scenarioObj = isObj(scenario) ? scenario : {};
  // Real run folders often have no scenario.json: the run's name then names the scenario (`mmlu:subject=…`).
  const evaluationName =
    typeof scenarioObj.name === 'string' ? scenarioObj.name : String(runName.split(':')[0] || 'helm');
  if (typeof scenarioObj.name === 'string')
    report.mapped('scenario.json name', '/evaluation_results/*/evaluation_name');
  else
    report.inferred(
      'run_spec.json name',
      '/evaluation_results/*/evaluation_name',
      `no scenario name${scenario === undefined ? ' (no scenario.json)' : ''}: the scenario as the run's name gives it, before its first ":"`,
    );
  const model = d.model(helmModelFacts(adapter, runSpec));

  const scenarioSpec = isObj(runSpec.scenario_spec) ? runSpec.scenario_spec : {};
  const sourceDetails: Obj = { helm_run: runName };
  if (isObj(scenarioSpec.args) && Object.keys(scenarioSpec.args).length > 0)
    sourceDetails.scenario_args = scenarioSpec.args;
  if (typeof scenarioSpec.class_name === 'string') sourceDetails.scenario_class = scenarioSpec.class_name;
  const sourceData = (split: string | undefined): Obj => {
    const details: Obj = { ...sourceDetails, ...(split ? { split } : {}) };
    if (typeof scenarioObj.description === 'string') details.description = scenarioObj.description;
    const url = typeof scenarioObj.definition_path === 'string' ? scenarioObj.definition_path : undefined;
    const base = {
      dataset_name: evaluationName,
      additional_details: Object.fromEntries(Object.entries(details).map(([k, v]) => [k, detailString(v)])),
    };
    return url && /^https?:\/\//.test(url)
      ? { ...base, source_type: 'url', url: [url] }
      : { ...base, source_type: 'other' };
  };
  report.mapped('run_spec.scenario_spec', '/evaluation_results/*/source_data/additional_details');

  const generationArgs: Obj = {};
  if (finite(adapter.temperature)) generationArgs.temperature = adapter.temperature;
  if (Number.isInteger(adapter.max_tokens) && (adapter.max_tokens as number) >= 1)
    generationArgs.max_tokens = adapter.max_tokens;
  const adapterDetails: Obj = {};
  for (const [k, v] of Object.entries(adapter))
    if (!['temperature', 'max_tokens', 'model', 'model_deployment'].includes(k)) adapterDetails[k] = v;
  const generationConfig: Obj = {
    ...(Object.keys(generationArgs).length > 0 ? { generation_args: generationArgs } : {}),
    additional_details: Object.fromEntries(
      Object.entries(adapterDetails).map(([k, v]) => [k, detailString(v)]),
    ),
  };
  report.mapped('run_spec.adapter_spec', '/evaluation_results/*/generation_config');

  // Results from stats.json
  const results = d.results;
  const bookkeeping: Obj = {};
  const skippedBookkeeping = new Set<string>();
  const resultIds = new Set<string>();
  const instancesOf = helmInstanceCounts(stats as unknown[]);
  (stats as unknown[]).forEach((raw, i) => {
    if (!isObj(raw)) return;
    const s = statName(raw);
    if (!s) return;
    const field = `stats.json[${i}] ${resultKey(s)}`;
    if (isBookkeepingStat(s.name)) {
      if (!s.perturbation && finite(raw.mean))
        bookkeeping[`stat.${s.name}@${s.split ?? 'all'}${s.subSplit ? `/${s.subSplit}` : ''}`] = raw.mean;
      else skippedBookkeeping.add(s.name);
      return;
    }
    if (!finite(raw.mean)) {
      report.notMapped(field, `no mean (count ${String(raw.count ?? 0)}): nothing was measured`);
      return;
    }
    const id = resultKey(s);
    if (resultIds.has(id)) {
      report.notMapped(field, `a second statistic named ${id}`);
      return;
    }
    resultIds.add(id);
    const count = finite(raw.count) ? raw.count : undefined;
    const stddev = finite(raw.stddev) ? raw.stddev : undefined;
    const details: Obj = {};
    for (const k of ['count', 'sum', 'sum_squared', 'min', 'max', 'variance', 'stddev'])
      if (raw[k] !== undefined) details[`helm_${k}`] = raw[k];
    const metricParameters: Obj = { split: s.split ?? 'all' };
    if (s.subSplit) metricParameters.sub_split = s.subSplit;
    if (s.perturbation) {
      metricParameters.perturbation = String(s.perturbation.name);
      if (typeof s.perturbation.computed_on === 'string')
        metricParameters.perturbation_computed_on = s.perturbation.computed_on;
    }
    // `exact_match@5`: the best of k outputs, on the scale of `exact_match` (so its facts apply), k kept.
    const atK = /^(.+)@(\d+)$/.exec(s.name);
    if (atK) metricParameters.k = Number(atK[2]);
    const input: Parameters<ResultsBuilder['add']>[0] = {
      evaluationName,
      metric: atK ? atK[1] : s.name,
      ...(atK ? { metricId: s.name.toLowerCase(), metricName: s.name } : {}),
      resultId: id,
      field,
      score: raw.mean,
      sourceData: sourceData(s.split),
      details,
      metricParameters,
      generationConfig,
      declared: helmDeclared(s, instancesOf),
    };
    if (count !== undefined && count >= 2 && stddev !== undefined) {
      input.standardError = {
        value: stddev / Math.sqrt(count),
        method: 'stddev / sqrt(count) of the HELM statistic (count = train trials aggregated)',
      };
      input.standardDeviation = stddev;
      input.numSamples = count;
    }
    results.add(input);
  });
  for (const name of [...skippedBookkeeping].sort())
    report.notMapped(
      `stats.json ${name} (perturbed)`,
      'run bookkeeping (tokens, runtime, finish reasons, costs), not a score',
    );
  for (const k of Object.keys(bookkeeping))
    report.details(`stats.json ${k.slice(5)}`, `/source_metadata/additional_details/${k}`);
  if (results.results.length === 0)
    throw new DataError('convert.helm', `${join(dir, 'stats.json')}: holds no score statistic with a mean`);

  // Rows: request states grouped per instance × train trial × perturbation, joined with their per-instance stats.
  const groups = new Map<string, RequestGroup>();
  const requestStates = isObj(scenarioState) ? (scenarioState.request_states as unknown[]) : [];
  const instanceKey = (id: unknown, trial: unknown, perturbation: unknown) =>
    `${String(id)}\u0000${finite(trial) ? trial : 0}\u0000${isObj(perturbation) ? String(perturbation.name) : ''}`;
  for (const rs of requestStates) {
    if (!isObj(rs) || !isObj(rs.instance)) continue;
    const inst = rs.instance;
    const key = instanceKey(inst.id, rs.train_trial_index, inst.perturbation);
    const completions =
      isObj(rs.result) && Array.isArray(rs.result.completions)
        ? rs.result.completions.filter(isObj).map((c) => (typeof c.text === 'string' ? c.text : ''))
        : [];
    const g = groups.get(key);
    if (g) (g.completions.push(...completions), g.requests++);
    else groups.set(key, { state: rs, completions, requests: 1 });
  }
  const statsByInstance = new Map<string, Map<string, Obj>>();
  for (const entry of (perInstance as unknown[] | undefined) ?? []) {
    if (!isObj(entry) || !Array.isArray(entry.stats)) continue;
    const key = instanceKey(entry.instance_id, entry.train_trial_index, entry.perturbation);
    let m = statsByInstance.get(key);
    if (!m) statsByInstance.set(key, (m = new Map()));
    for (const st of entry.stats) {
      if (!isObj(st)) continue;
      const s = statName(st);
      if (s && !isBookkeepingStat(s.name) && finite(st.mean)) m.set(s.name, st);
      else if (s && finite(st.mean)) m.set(`#${s.name}`, st);
    }
  }
  const trials = finite(adapter.num_train_trials) ? adapter.num_train_trials : 1;
  const ids = d.ids({
    digest: contentDigest(`helm-run:${runName}:${runTexts.get(stats as object) ?? ''}`),
    defaultCollection:
      Array.isArray(runSpec.groups) && typeof runSpec.groups[0] === 'string'
        ? runSpec.groups[0]
        : evaluationName,
  });
  // A HELM run is named within its suite (benchmark_output/runs/<suite>/<run>); stats.json is written at its end.
  d.run({
    sourceRunId: `${basename(dirname(dir))}/${runName}`,
    status: 'complete',
    scoredSamples: statsByInstance.size,
  });
  const row = rowMaker(ids.evaluationId, model.id);
  const rowResultIds = new Set(results.results.map((r) => r.evaluation_result_id as string));
  const hasRows = groups.size > 0 && statsByInstance.size > 0;
  if (requestStates.length > 0)
    report.mapped('scenario_state.json request_states', '/input, /output, /metadata');
  if (statsByInstance.size > 0) report.mapped('per_instance_stats.json', '/evaluation/score');
  if (!hasRows)
    notes.push(
      'no per-instance data (scenario_state.json or per_instance_stats.json missing or empty): aggregate only',
    );
  let unmatched = 0;

  async function* rows(): AsyncGenerator<Obj> {
    for (const [key, g] of groups) {
      const perStat = statsByInstance.get(key);
      if (!perStat) {
        unmatched++;
        continue;
      }
      const rs = g.state;
      const inst = rs.instance as Obj;
      const split = typeof inst.split === 'string' ? inst.split : undefined;
      const subSplit = typeof inst.sub_split === 'string' ? inst.sub_split : undefined;
      const perturbation = isObj(inst.perturbation) ? inst.perturbation : undefined;
      const references = Array.isArray(inst.references) ? inst.references.filter(isObj) : [];
      const refText = (r: Obj) => (isObj(r.output) && typeof r.output.text === 'string' ? r.output.text : '');
      const correct = references
        .filter((r) => Array.isArray(r.tags) && r.tags.includes('correct'))
        .map(refText);
      const mapping = isObj(rs.output_mapping) ? rs.output_mapping : undefined;
      const request = isObj(rs.request) ? rs.request : {};
      const result = isObj(rs.result) ? rs.result : {};
      const tokens = (name: string) => {
        const st = perStat.get(`#${name}`);
        return st && finite(st.sum) && st.sum >= 0 ? Math.round(st.sum) : undefined;
      };
      const inputTokens = tokens('num_prompt_tokens');
      const outputTokens = tokens('num_output_tokens') ?? tokens('num_completion_tokens');
      const metrics = [...perStat.entries()].filter(([k]) => !k.startsWith('#'));
      for (const [name, st] of metrics) {
        const s: StatName = { name, ...(split ? { split } : {}), ...(subSplit ? { subSplit } : {}) };
        let resultId = resultKey(s);
        if (perturbation) {
          const prefix = `${resultId}/${String(perturbation.name)}`;
          resultId = [...rowResultIds].find((id) => id === prefix || id.startsWith(`${prefix}:`)) ?? '';
        }
        if (!rowResultIds.has(resultId)) {
          unmatched++;
          continue;
        }
        const score = st.mean as number;
        const facts = metricFacts(name);
        const boundedHigher = facts && facts.min === 0 && facts.max === 1 && !facts.lowerIsBetter;
        const trial = finite(rs.train_trial_index) ? rs.train_trial_index : 0;
        const sampleId = `${String(inst.id)}${trials > 1 ? `#trial${trial}` : ''}${perturbation ? `#${String(perturbation.name)}` : ''}@${resultId}`;
        const answer = g.completions[0]?.trim();
        const meta: Obj = {
          helm_instance_id: inst.id,
          train_trial_index: trial,
          ...(split ? { split } : {}),
          ...(subSplit ? { sub_split: subSplit } : {}),
          ...(perturbation ? { perturbation } : {}),
          ...(g.requests > 1 ? { requests: g.requests } : {}),
          ...(references.some((r) => Array.isArray(r.tags) && r.tags.length > 0)
            ? { reference_tags: references.map((r) => r.tags) }
            : {}),
          ...(isObj(rs.annotations) ? { annotations: rs.annotations } : {}),
          ...(typeof result.cached === 'boolean' ? { cached: result.cached } : {}),
        };
        yield row({
          evaluationName,
          evaluationResultId: resultId,
          sampleId,
          interactionType: 'single_turn',
          input: {
            raw: isObj(inst.input) && typeof inst.input.text === 'string' ? inst.input.text : '',
            ...(typeof request.prompt === 'string' ? { formatted: request.prompt } : {}),
            reference: correct,
            ...(mapping || /multiple_choice/.test(String(adapter.method))
              ? { choices: references.map(refText) }
              : {}),
          },
          output: { raw: g.completions },
          answerAttribution:
            answer !== undefined
              ? [
                  {
                    turn_idx: 0,
                    source: 'output.raw',
                    extracted_value:
                      mapping && typeof mapping[answer] === 'string' ? (mapping[answer] as string) : answer,
                    extraction_method: mapping
                      ? 'helm output_mapping (letter to reference)'
                      : 'helm completion',
                    is_terminal: true,
                  },
                ]
              : [],
          evaluation: { score, is_correct: boundedHigher ? score === 1 : false },
          ...(inputTokens !== undefined && outputTokens !== undefined
            ? {
                tokenUsage: {
                  input_tokens: inputTokens,
                  output_tokens: outputTokens,
                  total_tokens: inputTokens + outputTokens,
                },
              }
            : {}),
          ...(finite(result.request_time) && result.request_time >= 0
            ? { performance: { latency_ms: result.request_time * 1000 } }
            : {}),
          ...(result.success === false ? { error: String(result.error ?? 'the request failed') } : {}),
          metadata: meta,
        });
      }
    }
    if (unmatched > 0)
      notes.push(
        `${unmatched} per-instance statistic(s) or instance(s) had no matching result or request state: no row`,
      );
  }

  const libraryDetails: Obj = {};
  for (const k of ['metric_specs', 'data_augmenter_spec', 'groups', 'annotators'])
    if (runSpec[k] !== undefined) {
      libraryDetails[`run_spec.${k}`] = runSpec[k];
      report.details(`run_spec.${k}`, `/eval_library/additional_details/run_spec.${k}`);
    }
  for (const k of Object.keys(runSpec))
    if (
      ![
        'name',
        'scenario_spec',
        'adapter_spec',
        'metric_specs',
        'data_augmenter_spec',
        'groups',
        'annotators',
      ].includes(k)
    ) {
      libraryDetails[`run_spec.${k}`] = runSpec[k];
      report.details(`run_spec.${k}`, `/eval_library/additional_details/run_spec.${k}`);
    }
  if (Array.isArray(scenarioObj.tags)) sourceDetails.scenario_tags = scenarioObj.tags;
  const requestDates = requestStates
    .map((rs) =>
      isObj(rs) && isObj(rs.result) && finite(rs.result.request_datetime)
        ? rs.result.request_datetime
        : undefined,
    )
    .filter((x): x is number => x !== undefined);
  const latest = requestDates.length > 0 ? Math.max(...requestDates) : undefined;
  const present = RUN_FILES.filter((f) => f !== 'run_spec.json' && f !== 'stats.json');
  for (const f of present)
    if (
      (f === 'scenario.json' && scenario === undefined) ||
      (f === 'scenario_state.json' && scenarioState === undefined) ||
      (f === 'per_instance_stats.json' && perInstance === undefined)
    )
      notes.push(`${f} is missing from the run folder`);
  const aggregate = d.aggregate({
    sourceName: 'HELM run',
    sourceDetails: { ...sourceDetails, ...bookkeeping },
    evalLibrary: { name: 'helm', version: 'unknown', details: libraryDetails },
    ...(latest !== undefined
      ? {
          retrievedTimestamp: {
            value: epochSeconds(latest)!,
            field: 'scenario_state.json request_states[].result.request_datetime (latest)',
          },
        }
      : {}),
    hasRows,
  });
  yield d.record({ aggregate, ...(hasRows ? { rows } : {}) });
}

/** A run folder, or a folder of run folders (a suite). */
async function* convertHelm(path: string, options: ConvertOptions): AsyncGenerator<ConvertedRecord> {
  const entries = await readdir(path);
  if (entries.includes('run_spec.json')) {
    yield* convertRun(path, options);
    return;
  }
  const runs: string[] = [];
  for (const e of entries.sort()) {
    const sub = join(path, e);
    const inner = await readdir(sub).catch(() => [] as string[]);
    if (inner.includes('run_spec.json')) runs.push(sub);
  }
  if (runs.length === 0)
    throw new DataError('convert.helm', `${path}: no HELM run folder (with run_spec.json) in it`);
  for (const run of runs) yield* convertRun(run, options);
}

export const helmSource: SourceConverter = {
  id: 'helm',
  description:
    'HELM run folder (run_spec.json, stats.json, per_instance_stats.json, scenario_state.json) or suite folder of runs',
  detect,
  convert: convertHelm,
};

/** `num_instances` of each split (and sub-split) without perturbation, from stats.json: `split/sub_split` → count. */
function helmInstanceCounts(stats: unknown[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const raw of stats) {
    if (!isObj(raw)) continue;
    const s = statName(raw);
    if (s?.name === 'num_instances' && !s.perturbation && finite(raw.mean) && Number.isInteger(raw.mean))
      out.set(`${s.split ?? ''}/${s.subSplit ?? ''}`, raw.mean);
  }
  return out;
}

/**
 * What HELM declares about a statistic, for reconciliation: the split's `num_instances`, and that the statistic is
 * the mean of its per-instance values (averaged over train trials). A perturbation's statistic (worst case over
 * perturbations, or on the perturbed instances only) is not a mean of the rows kept for it.
 */
function helmDeclared(s: StatName, instances: Map<string, number>): DeclaredFacts {
  if (s.perturbation)
    return {
      headlineWhy: `a perturbation statistic (${String(s.perturbation.name)}), not a mean of the rows`,
    };
  const n = instances.get(`${s.split ?? ''}/${s.subSplit ?? ''}`);
  return {
    ...(n !== undefined
      ? {
          n,
          nFrom: `stats.json num_instances (split ${s.split ?? 'all'}${s.subSplit ? `/${s.subSplit}` : ''})`,
        }
      : {}),
    headline: 'mean',
  };
}
