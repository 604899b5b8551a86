/**
 * Shared builders every converter source uses, so that all records are made the same way: deterministic ids and
 * datastore paths, the model's deployment axes (from the overrides, else inferred, and reported as such),
 * string-valued `additional_details`, evaluation results with three separate names and honest metric facts,
 * uncertainty with its method named, and instance rows with the canonical `sample_hash`.
 */
import { article } from '../io/article.js';
import { UsageError } from '../errors.js';
import { GENERIC_METRIC_IDS } from '../formats/eee/rules.js';
import { createHash } from 'node:crypto';
import { canonicalJson } from '../io/canonical.js';
import { jsonString } from './json-text.js';
import { datastorePaths, derivedUuid4 } from '../formats/eee/datastore.js';
import { sampleHash } from '../formats/eee/sample-hash.js';
import {
  isUnnamedModel,
  looksLikePath,
  modelIdFromPath,
  modelMapHit,
  runIdentityDetails,
  type RunIdentity,
} from './identity.js';
import {
  declaredFacts,
  declaredKey,
  metricFacts,
  metricKey,
  type DeclaredMetricFactsFile,
} from './metric-facts.js';
import { lineFacts, type DeclaredFacts, type RowFacts } from '../checks/reconciliation.js';
import type {
  ConvertedRecord,
  ConvertOverrides,
  FieldFate,
  MappedModel,
  MappedRow,
  SourceId,
} from './types.js';

export const EEE_SCHEMA_VERSION = '0.3.0';

type Obj = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------------------------
// The field report

/** Collects every source field's fate, in the order the source met them. */
export class FieldReport {
  readonly fates: FieldFate[] = [];
  mapped(field: string, to: string): void {
    this.fates.push({ field, fate: 'mapped', to });
  }
  inferred(field: string, to: string, reason: string): void {
    this.fates.push({ field, fate: 'inferred', to, reason });
  }
  details(field: string, to: string): void {
    this.fates.push({ field, fate: 'additional_details', to });
  }
  notMapped(field: string, reason: string): void {
    this.fates.push({ field, fate: 'not-mapped', reason });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// additional_details: EEE 0.3.0 wants maps of strings

/** A value as an `additional_details` string: strings unchanged, everything else as compact JSON. */
export function detailString(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
}

/**
 * A string map from source values (undefined values left out). With a report, each key is recorded as kept in
 * `additional_details` at `to` (a JSON pointer to the map), its source field being `fieldPrefix` + key.
 */
export function stringMap(
  values: Obj,
  report?: { report: FieldReport; fieldPrefix: string; to: string },
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) {
    if (v === undefined) continue;
    out[k] = detailString(v);
    report?.report.details(`${report.fieldPrefix}${k}`, `${report.to}/${escapePointer(k)}`);
  }
  return out;
}

export const escapePointer = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

// ---------------------------------------------------------------------------------------------------------------
// Timestamps

/** Unix epoch seconds (as EEE writes them) from an ISO date, a number of seconds, or undefined when unreadable. */
export function epochSeconds(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return String(value);
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return value.trim();
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : String(ms / 1000);
}

// ---------------------------------------------------------------------------------------------------------------
// The model

export type DeploymentType = NonNullable<ConvertOverrides['deploymentType']>;
export type ModelAvailability = NonNullable<ConvertOverrides['modelAvailability']>;

export interface ModelFacts {
  /** The model as the source names it ("meta-llama/Meta-Llama-3-8B", "gpt-4", "openai/gpt-4o"). */
  name: string;
  /**
   * The model string exactly as the source writes it, when `name` was derived from it (Inspect `ollama/llama3.1`,
   * promptfoo `ollama:completion:llama3`): the first key a model map is looked up by.
   */
  sourceString?: string;
  /** The source field it came from. */
  field: string;
  /** The developer when the source names it apart from the model. */
  developer?: string;
  inferencePlatform?: string;
  inferenceEngine?: { name: string; version?: string };
  /** Deployment axes the source implies (e.g. lm-eval `hf` → self-deployed open weights), with the reason. */
  deployment?: { deploymentType: DeploymentType; modelAvailability: ModelAvailability; reason: string };
  /** Further model facts, kept in `model_info.additional_details` (stringified). */
  details?: Obj;
  /** Source field prefix for `details` keys in the report (e.g. `config.`). */
  detailsField?: string;
  /** The source does not really name the model (`name` is a placeholder such as the harness's model type). */
  unnamed?: boolean;
  /** What tells this run apart (its digest or run id): an unnamed model's id is made unique from it. */
  runKey?: string;
}

export interface BuiltModel {
  modelInfo: Obj;
  /** `model_info.id`, which every instance row repeats as `model_id`. */
  id: string;
  developer: string;
  name: string;
  /** What the reader must know about the model's identity (a path turned into an id, an unnamed model). */
  notes: string[];
}

/** A model map's entry for a name, if any (exact first, then ignoring case). */
function mapped(map: ConvertOverrides['modelMap'], name: string | undefined): MappedModel | undefined {
  if (map === undefined || name === undefined) return undefined;
  if (Object.hasOwn(map, name)) return modelMapHit(map, name);
  const lower = name.toLowerCase();
  for (const k of Object.keys(map)) if (k.toLowerCase() === lower) return modelMapHit(map, k);
  return undefined;
}

/**
 * Prefixes that name where or how a model ran, never who made it (`ollama/llama3.1`, `vllm/…`, `hf/…`,
 * `mockllm/model`): never written as the developer. A model named with one alone gets developer "unknown", which
 * `models` flags until a model map names it.
 */
export const NOT_DEVELOPERS = new Set([
  'ollama',
  'vllm',
  'hf',
  'huggingface',
  'openai-compatible',
  'openai_compatible',
  'openai-api',
  'mockllm',
  'litellm',
  'llama-cpp',
  'llama_cpp',
  'llama-cpp-python',
  'llamacpp',
  'lmstudio',
  'sglang',
  'tgi',
  'local',
]);

const short = (text: string): string => contentDigest(text).slice(0, 12);

/** Developers recognisable from an API model name alone. */
const KNOWN_DEVELOPERS: [RegExp, string][] = [
  [/^(gpt-|o[134](-|$)|text-davinci|davinci|babbage|chatgpt)/i, 'openai'],
  [/^claude/i, 'anthropic'],
  [/^(gemini|gemma|palm)/i, 'google'],
  [/^(mistral|mixtral|codestral)/i, 'mistralai'],
  [/^command/i, 'cohere'],
];

/**
 * model_info from what the source says, the overrides winning; every inference reported. The identity rules hold
 * for every source: `--model-id` wins, then the model map (by the source's name, then by the derived id); a local
 * filesystem path is never an id (a readable id from its last components, the path kept in additional_details);
 * an unnamed model gets an id of its own run, so that unrelated unnamed runs never merge.
 */
export function buildModel(facts: ModelFacts, overrides: ConvertOverrides, report: FieldReport): BuiltModel {
  const notes: string[] = [];
  const extraDetails: Obj = {};
  let full: string;
  // A map key matches the source's model string exactly as written, else the name derived from it, else the id.
  let fromMap =
    (facts.sourceString !== facts.name ? mapped(overrides.modelMap, facts.sourceString) : undefined) ??
    mapped(overrides.modelMap, facts.name);
  let knownDeveloper: string | undefined;
  if (overrides.modelId !== undefined) {
    full = overrides.modelId;
    report.mapped('--model-id', '/model_info/id');
  } else if (fromMap !== undefined) {
    full = fromMap.id;
    report.mapped(`${facts.field} (--model-map "${facts.name}")`, '/model_info/id');
  } else if (facts.unnamed || isUnnamedModel(facts.name)) {
    full = `unknown/unnamed-${short(`${facts.runKey ?? ''}\n${facts.field}\n${facts.name}`)}`;
    knownDeveloper = 'unknown';
    extraDetails.model_unnamed = 'true';
    if (!isUnnamedModel(facts.name)) extraDetails.source_model_name = facts.name;
    report.inferred(
      facts.field,
      '/model_info/id',
      `warning: the source does not name the model${isUnnamedModel(facts.name) ? '' : ` ("${facts.name}" is not a model name)`}; an id of this run's own keeps it apart from other unnamed runs (name it with --model-id or --model-map)`,
    );
    notes.push(
      `the source does not name the model: written as ${full}, kept apart from every other run (use --model-id or --model-map)`,
    );
  } else if (looksLikePath(facts.name)) {
    full = modelIdFromPath(facts.name);
    knownDeveloper = 'local';
    extraDetails.model_path = facts.name;
    report.inferred(
      facts.field,
      '/model_info/id',
      `warning: "${facts.name}" is a local path, not a model id; "${full}" from its last components (the path is in model_info.additional_details.model_path; use --model-id or --model-map)`,
    );
    notes.push(`the model is named by a local path; written as ${full} (use --model-map to name it)`);
  } else {
    full = facts.name;
    report.mapped(facts.field, '/model_info/id');
  }
  let slash = full.lastIndexOf('/');
  let name = slash === -1 ? full : full.slice(slash + 1);
  let developer: string;
  if (overrides.developer !== undefined) {
    developer = overrides.developer;
    report.mapped('--developer', '/model_info/developer');
  } else if (fromMap?.developer !== undefined) {
    developer = fromMap.developer;
  } else if (knownDeveloper !== undefined) {
    developer = knownDeveloper;
  } else if (slash !== -1 && !NOT_DEVELOPERS.has(full.slice(0, slash).toLowerCase())) {
    developer = full.slice(0, slash);
    if (fromMap === undefined)
      report.inferred(facts.field, '/model_info/developer', 'the part of the model name before the last "/"');
  } else if (slash !== -1) {
    // `vllm/llama3` names a server, not a developer: the name alone, developer unknown until mapped.
    const prefix = full.slice(0, slash);
    full = full.slice(slash + 1);
    slash = -1;
    name = full;
    developer = KNOWN_DEVELOPERS.find(([re]) => re.test(name))?.[1] ?? 'unknown';
    extraDetails.model_provider_prefix = prefix;
    report.inferred(
      facts.field,
      '/model_info/developer',
      `warning: "${prefix}" names where the model ran, not who made it: ${developer === 'unknown' ? 'developer unknown' : `"${name}" is ${article(developer)} model name`} (name it with --model-map or --developer)`,
    );
  } else if (facts.developer) {
    developer = facts.developer;
  } else {
    const known = KNOWN_DEVELOPERS.find(([re]) => re.test(name));
    developer = known ? known[1] : 'unknown';
    report.inferred(
      facts.field,
      '/model_info/developer',
      known
        ? `"${name}" is ${article(known[1])} model name`
        : 'the source does not name the developer (use --developer)',
    );
  }
  if (fromMap?.name !== undefined) name = fromMap.name;
  let id = `${developer}/${name}`;
  // The map may name the derived id rather than the source's name.
  if (fromMap === undefined && overrides.modelId === undefined) {
    fromMap = mapped(overrides.modelMap, id);
    if (fromMap !== undefined) {
      report.mapped(`${facts.field} (--model-map "${id}")`, '/model_info/id');
      slash = fromMap.id.lastIndexOf('/');
      developer =
        overrides.developer ?? fromMap.developer ?? (slash === -1 ? 'unknown' : fromMap.id.slice(0, slash));
      name = fromMap.name ?? (slash === -1 ? fromMap.id : fromMap.id.slice(slash + 1));
      id = `${developer}/${name}`;
      delete extraDetails.model_unnamed;
    }
  }
  if (fromMap !== undefined && facts.name !== id) extraDetails.source_model_name = facts.name;

  const deploymentType = overrides.deploymentType ?? facts.deployment?.deploymentType ?? 'unknown';
  const modelAvailability = overrides.modelAvailability ?? facts.deployment?.modelAvailability ?? 'unknown';
  const axis = (flag: string, given: unknown, to: string): void => {
    if (given !== undefined) report.mapped(flag, to);
    else if (facts.deployment) report.inferred(facts.field, to, facts.deployment.reason);
    else report.inferred(facts.field, to, `the source does not say; "unknown" (use ${flag})`);
  };
  axis('--deployment-type', overrides.deploymentType, '/model_info/additional_details/deployment_type');
  axis(
    '--model-availability',
    overrides.modelAvailability,
    '/model_info/additional_details/model_availability',
  );

  const modelInfo: Obj = { name, id, developer };
  if (facts.inferencePlatform !== undefined) modelInfo.inference_platform = facts.inferencePlatform;
  if (facts.inferenceEngine !== undefined) modelInfo.inference_engine = facts.inferenceEngine;
  modelInfo.additional_details = {
    deployment_type: deploymentType,
    model_availability: modelAvailability,
    ...stringMap(facts.details ?? {}, {
      report,
      fieldPrefix: facts.detailsField ?? '',
      to: '/model_info/additional_details',
    }),
    ...extraDetails,
  };
  return { modelInfo, id, developer, name, notes };
}

// ---------------------------------------------------------------------------------------------------------------
// Ids and paths

export interface RecordIds {
  uuid: string;
  evaluationId: string;
  collection: string;
  aggregatePath: string;
  samplesPath: string;
}

/** The sha256 (hex) of some bytes or text: a source's content digest, which seeds the record's id. */
export function contentDigest(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * The record's derived id and datastore paths. The seed is the source id, the digest of the source content, what
 * tells this record apart from the others of the same source (a task, a provider), and the overrides given: the
 * same input with the same options always gives the same id, bytes and place.
 */
export function recordIds(input: {
  source: SourceId;
  digest: string;
  discriminator?: string;
  overrides: ConvertOverrides;
  defaultCollection: string;
  model: BuiltModel;
  report: FieldReport;
  /** A source's own established seed (replaces the default recipe; infereval keeps evaluate's ids). */
  seed?: string;
  /** A source's own established evaluation_id. */
  evaluationId?: string;
}): RecordIds {
  const collection = input.overrides.collection ?? input.defaultCollection;
  if (input.overrides.collection !== undefined) input.report.mapped('--collection', 'datastore path');
  const uuid = derivedUuid4(
    input.seed ??
      `evalkit-convert:${input.source}:${input.digest}:${input.discriminator ?? ''}:${canonicalJson(seedOverrides(input.overrides))}`,
  );
  const paths = datastorePaths(collection, input.model.developer, input.model.name, uuid);
  return {
    uuid,
    evaluationId: input.evaluationId ?? `${paths.dir.slice('data/'.length)}/${uuid}`,
    collection,
    aggregatePath: paths.aggregate,
    samplesPath: paths.samples,
  };
}

/**
 * The overrides that seed a record's id: the model map and the metric facts are left out (they name the model and
 * describe metrics; the model's place in the datastore path already follows the map).
 */
function seedOverrides(overrides: ConvertOverrides): ConvertOverrides {
  if (overrides.modelMap === undefined && overrides.metricFacts === undefined) return overrides;
  const { modelMap: _map, metricFacts: _facts, metricFactsFile: _file, ...rest } = overrides;
  return rest;
}

// ---------------------------------------------------------------------------------------------------------------
// Evaluation results

export interface ResultInput {
  /** The benchmark / task (`evaluation_name`). */
  evaluationName: string;
  /** The metric as the source names it (`acc,none`, `accuracy`); looked up in the metric facts table. */
  metric: string;
  /** `metric_config.metric_id` (default: the metric's table key, e.g. `acc`). */
  metricId?: string;
  /** `metric_config.metric_name` (default: the source's metric name). */
  metricName?: string;
  /** The stable join key (`evaluation_result_id`) the instance rows name. */
  resultId: string;
  /** The source field the score came from (for the report). */
  field: string;
  /** The score; a non-finite one (NaN, ±Infinity from Python JSON) makes no result. */
  score: number;
  description?: string;
  /** What the harness says about direction, with the field that says it. */
  lowerIsBetter?: { value: boolean; field: string };
  sourceData: Obj;
  standardError?: { value: number; method: string };
  confidenceInterval?: { lower: number; upper: number; confidenceLevel?: number; method: string };
  standardDeviation?: number;
  numSamples?: number;
  numBootstrapSamples?: number;
  /** Extra facts about the result (stringified into `score_details.details`). */
  details?: Obj;
  metricParameters?: Obj;
  generationConfig?: Obj;
  evaluationTimestamp?: string;
  llmScoring?: Obj;
  /** Strings for `metric_config.additional_details` (e.g. Inspect's `epoch_reducer`). */
  configDetails?: Record<string, string>;
  /** What the source declares to check the result's rows against (its count, whether the headline is a mean). */
  declared?: DeclaredFacts;
}

/** Why a `non_finite_score.*` value of `source_metadata.additional_details` is not among the results. */
export const NON_FINITE_REASON =
  'the source states these headline values as NaN or ±Infinity: not finite numbers, so not scores (an EEE score is a finite number); no result written for them, their finite per-sample values are the rows';

/** A number JSON cannot hold, as Python's json writes it. */
export const nonFiniteText = (v: number): string =>
  Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';

/**
 * Builds the `evaluation_results` list, reporting each score, bound and direction with its pointer. Metric facts
 * come first from what the user declares (`--metric-facts`), then from the source, then from the facts table;
 * a direction nobody states is marked `direction_status: "assumed"`, bounds nobody states `bounds_status:
 * "unknown"`. A score that is not a finite number (Python tools write NaN and Infinity) makes no result: its value
 * is kept in `leftOut` (written to `source_metadata.additional_details`) and the field report says so.
 */
export class ResultsBuilder {
  readonly results: Obj[] = [];
  /** Results left out for a non-finite score: `non_finite_score.<result id>` → "Infinity" | "-Infinity" | "NaN". */
  readonly leftOut: Record<string, string> = {};
  /** What the source declares about each written result, by result id (see checks/reconciliation.ts). */
  readonly declaredByResult = new Map<string, DeclaredFacts>();
  constructor(
    private readonly report: FieldReport,
    private readonly declared?: DeclaredMetricFactsFile,
    private readonly declaredFile = 'metric facts',
  ) {}

  get ids(): Set<string> {
    return new Set(this.results.map((r) => r.evaluation_result_id as string));
  }

  add(input: ResultInput): Obj | undefined {
    if (!Number.isFinite(input.score)) {
      const text = nonFiniteText(input.score);
      const key = `non_finite_score.${input.resultId}`;
      this.leftOut[key] = text;
      this.report.notMapped(
        input.field,
        `${text} is not a finite number, so not a score: no result written (the value is kept in source_metadata.additional_details.${key})`,
      );
      return undefined;
    }
    const i = this.results.length;
    const at = `/evaluation_results/${i}`;
    const facts = metricFacts(input.metric);
    const declared = declaredFacts(this.declared, input.metric);
    const declaredField = `--metric-facts "${input.metric}"`;
    // A score outside the table's bounds means the table does not describe this source's scale (accuracy as a
    // percentage, say): the metric's kind and direction still hold, its unit and bounds are not written.
    const scoreFits =
      facts !== undefined && input.score >= Number(facts.min) && input.score <= Number(facts.max);
    const metricConfig: Obj = {};
    const configDetails: Record<string, string> = {};
    if (input.description !== undefined) metricConfig.evaluation_description = input.description;
    metricConfig.metric_id = specificMetricId(
      input.metricId ?? metricKey(input.metric),
      input.evaluationName,
    );
    metricConfig.metric_name = input.metricName ?? input.metric;
    const kind = declared?.metric_kind ?? facts?.kind;
    if (kind !== undefined) metricConfig.metric_kind = kind;
    const unit = declared?.metric_unit ?? (facts && scoreFits ? facts.unit : undefined);
    if (unit !== undefined) metricConfig.metric_unit = unit;
    if (input.metricParameters !== undefined && Object.keys(input.metricParameters).length > 0)
      metricConfig.metric_parameters = input.metricParameters;
    if (declared?.lower_is_better !== undefined) {
      metricConfig.lower_is_better = declared.lower_is_better;
      this.report.mapped(declaredField, `${at}/metric_config/lower_is_better`);
    } else if (input.lowerIsBetter !== undefined) {
      metricConfig.lower_is_better = input.lowerIsBetter.value;
      this.report.mapped(input.lowerIsBetter.field, `${at}/metric_config/lower_is_better`);
    } else if (facts) {
      metricConfig.lower_is_better = facts.lowerIsBetter;
      this.report.inferred(
        input.field,
        `${at}/metric_config/lower_is_better`,
        `the source does not say; "${metricKey(input.metric)}" is ${facts.lowerIsBetter ? 'lower' : 'higher'}-is-better in the metric facts table`,
      );
    } else {
      metricConfig.lower_is_better = false;
      configDetails.direction_status = 'assumed';
      this.report.inferred(
        input.field,
        `${at}/metric_config/lower_is_better`,
        `neither the source nor the metric facts table says; higher-is-better assumed (marked direction_status "assumed"; declare it with --metric-facts)`,
      );
    }
    let min = declared?.min_score;
    let max = declared?.max_score;
    if ((min !== undefined && input.score < Number(min)) || (max !== undefined && input.score > Number(max)))
      throw new UsageError(
        'usage.metric-facts',
        `${this.declaredFile}: metric ${JSON.stringify(declaredKey(this.declared, input.metric))}: the score ` +
          `${input.score} of "${input.metric}" lies outside the declared [${min ?? '-Infinity'}, ${max ?? 'Infinity'}]; ` +
          'no record is written with bounds its own score contradicts',
      );
    if (min !== undefined || max !== undefined) {
      this.report.mapped(declaredField, `${at}/metric_config/min_score`);
    } else if (facts && scoreFits) {
      min = facts.min;
      max = facts.max;
      this.report.inferred(
        input.field,
        `${at}/metric_config/min_score`,
        `bounds [${facts.min}, ${facts.max}] from the metric facts table ("${metricKey(input.metric)}")`,
      );
    } else if (facts) {
      this.report.notMapped(
        `${input.field} (bounds)`,
        `score ${input.score} lies outside [${facts.min}, ${facts.max}], the metric facts table's bounds for "${metricKey(input.metric)}": no bounds, score_type or unit written`,
      );
    } else {
      this.report.notMapped(
        `${input.field} (bounds)`,
        `"${metricKey(input.metric)}" is not in the metric facts table: no bounds, score_type or unit invented`,
      );
    }
    const bounded = min !== undefined && max !== undefined;
    const scoreType =
      declared?.score_type ??
      (facts && scoreFits && declared?.min_score === undefined ? facts.scoreType : undefined);
    // EEE requires both bounds of a continuous score.
    if (scoreType !== undefined && (scoreType !== 'continuous' || bounded))
      metricConfig.score_type = scoreType;
    if (min !== undefined) metricConfig.min_score = min;
    if (max !== undefined) metricConfig.max_score = max;
    if (!bounded) configDetails.bounds_status = 'unknown';
    if (input.llmScoring !== undefined) metricConfig.llm_scoring = input.llmScoring;
    for (const [k, v] of Object.entries(input.configDetails ?? {})) configDetails[k] = v;
    if (Object.keys(configDetails).length > 0) metricConfig.additional_details = configDetails;

    const scoreDetails: Obj = { score: input.score };
    this.report.mapped(input.field, `${at}/score_details/score`);
    if (input.details !== undefined && Object.keys(input.details).length > 0)
      scoreDetails.details = stringMap(input.details);
    const uncertainty: Obj = {};
    if (input.standardError !== undefined) uncertainty.standard_error = { ...input.standardError };
    if (input.confidenceInterval !== undefined) {
      const ci = input.confidenceInterval;
      uncertainty.confidence_interval = {
        lower: ci.lower,
        upper: ci.upper,
        ...(ci.confidenceLevel !== undefined ? { confidence_level: ci.confidenceLevel } : {}),
        method: ci.method,
      };
    }
    if (input.standardDeviation !== undefined) uncertainty.standard_deviation = input.standardDeviation;
    // Counts are integers in 0.3.0: a source's fractional or negative count is reported, not written.
    for (const [count, key] of [
      [input.numSamples, 'num_samples'],
      [input.numBootstrapSamples, 'num_bootstrap_samples'],
    ] as const) {
      if (count === undefined) continue;
      if (Number.isSafeInteger(count) && count >= 0) uncertainty[key] = count;
      else
        this.report.notMapped(`${input.field} (${key})`, `${count} is not a count (a non-negative integer)`);
    }
    if (Object.keys(uncertainty).length > 0) scoreDetails.uncertainty = uncertainty;

    const result: Obj = {
      evaluation_result_id: input.resultId,
      evaluation_name: input.evaluationName,
      source_data: input.sourceData,
    };
    if (input.evaluationTimestamp !== undefined) result.evaluation_timestamp = input.evaluationTimestamp;
    result.metric_config = metricConfig;
    result.score_details = scoreDetails;
    if (input.generationConfig !== undefined) result.generation_config = input.generationConfig;
    this.results.push(result);
    if (input.declared !== undefined) this.declaredByResult.set(input.resultId, input.declared);
    return result;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Instance rows

export interface RowInput {
  evaluationName: string;
  /** The result the row belongs to; absent when the record holds no result for it (a non-finite aggregate). */
  evaluationResultId?: string;
  sampleId: string;
  interactionType?: 'single_turn' | 'multi_turn' | 'agentic';
  input: { raw: string; formatted?: string | null; reference: string[]; choices?: string[] | null };
  output?: { raw: string[]; reasoning_trace?: string[] | null };
  messages?: Obj[];
  answerAttribution?: Obj[];
  evaluation: {
    score: number;
    is_correct: boolean;
    num_turns?: number | null;
    tool_calls_count?: number | null;
  };
  tokenUsage?: Obj;
  performance?: Obj;
  error?: string | null;
  /** Per-row facts (stringified into `metadata`). */
  metadata?: Obj;
}

/** A row maker bound to the record's evaluation_id and model id (the foreign keys every row repeats). */
export function rowMaker(evaluationId: string, modelId: string): (row: RowInput) => Obj {
  return (r) => {
    const input: Obj = { raw: r.input.raw };
    if (r.input.formatted !== undefined) input.formatted = r.input.formatted;
    input.reference = r.input.reference;
    if (r.input.choices !== undefined) input.choices = r.input.choices;
    const out: Obj = {
      schema_version: EEE_SCHEMA_VERSION,
      evaluation_id: evaluationId,
      model_id: modelId,
      evaluation_name: r.evaluationName,
      ...(r.evaluationResultId !== undefined ? { evaluation_result_id: r.evaluationResultId } : {}),
      sample_id: r.sampleId,
      sample_hash: sampleHash({ raw: r.input.raw, reference: r.input.reference }),
      interaction_type: r.interactionType ?? 'single_turn',
      input,
    };
    if (r.output !== undefined) out.output = r.output;
    if (r.messages !== undefined) out.messages = r.messages;
    out.answer_attribution = r.answerAttribution ?? [];
    out.evaluation = r.evaluation;
    if (r.tokenUsage !== undefined) out.token_usage = r.tokenUsage;
    if (r.performance !== undefined) out.performance = r.performance;
    if (r.error !== undefined && r.error !== null) out.error = r.error;
    if (r.metadata !== undefined && Object.keys(r.metadata).length > 0) out.metadata = stringMap(r.metadata);
    return out;
  };
}

/** JSON texts a source already has for some of a row's values (each exactly what JSON.stringify would write). */
export interface KnownRowJson {
  /** Of `input.raw`. */
  raw?: string;
  /** Of `metadata` values after stringification (`JSON.stringify(detailString(value))`), by key. */
  metadata?: Record<string, string>;
}

/** `,"key":value` as JSON.stringify writes a member (nothing for an undefined value); `key` needs no escape. */
const member = (key: string, value: unknown): string => {
  const json = typeof value === 'string' ? jsonString(value) : (JSON.stringify(value) as string | undefined);
  return json === undefined ? '' : `,"${key}":${json}`;
};

/** A one-entry memo: most rows of a record repeat the previous row's value (task name, result id, metadata keys). */
function lastValueMemo(f: (value: string) => string): (value: string) => string {
  let last: string | undefined;
  let lastOut = '';
  return (value) => {
    if (value !== last) {
      last = value;
      lastOut = f(value);
    }
    return lastOut;
  };
}

/**
 * The row's JSONL text: the same characters as `JSON.stringify(rowMaker(evaluationId, modelId)(row))` (a test holds
 * the two together), built in pieces so that the texts in `known` are used instead of serialising those values
 * again; `input.raw`'s text is also the one the sample_hash is taken over.
 */
export function rowTextMaker(
  evaluationId: string,
  modelId: string,
): (row: RowInput, known?: KnownRowJson) => string {
  return rowTexts(evaluationId, modelId).text;
}

/**
 * The row's JSONL text with the facts the writer's reconciliation reads of it (see writtenRowFacts): a source that
 * hands the writer both spares it reading every written row back.
 */
export function mappedRowMaker(
  evaluationId: string,
  modelId: string,
): (row: RowInput, known?: KnownRowJson) => MappedRow {
  const texts = rowTexts(evaluationId, modelId);
  return (r, known) => {
    const json = texts.text(r, known);
    return { json, facts: writtenRowFacts(r, texts.lastHash(), json) };
  };
}

/** rowTextMaker's function, and the sample_hash of the row it wrote last. */
function rowTexts(
  evaluationId: string,
  modelId: string,
): { text: (row: RowInput, known?: KnownRowJson) => string; lastHash: () => string } {
  let hash = '';
  const head = `{"schema_version":${JSON.stringify(EEE_SCHEMA_VERSION)}${member('evaluation_id', evaluationId)}${member('model_id', modelId)}`;
  const nameJson = lastValueMemo((name) => member('evaluation_name', name));
  const resultJson = lastValueMemo((id) => member('evaluation_result_id', id));
  const keyJsons = new Map<string, string>();
  const keyJson = (key: string): string => {
    let json = keyJsons.get(key);
    if (json === undefined) keyJsons.set(key, (json = jsonString(key)));
    return json;
  };
  const text = (r: RowInput, known?: KnownRowJson): string => {
    const raw = r.input.raw;
    const rawJson =
      known?.raw ?? (typeof raw === 'string' ? jsonString(raw) : (JSON.stringify(raw) as string | undefined));
    hash = sampleHash({ raw, reference: r.input.reference }, 'sha256', rawJson);
    const resultText = r.evaluationResultId === undefined ? '' : resultJson(r.evaluationResultId);
    let text = `${head}${nameJson(r.evaluationName)}${resultText}${member('sample_id', r.sampleId)},"sample_hash":"${hash}"${member('interaction_type', r.interactionType ?? 'single_turn')},"input":{`;
    text += rawJson === undefined ? '' : `"raw":${rawJson}`;
    let input = '';
    if (r.input.formatted !== undefined) input += member('formatted', r.input.formatted);
    input += member('reference', r.input.reference);
    if (r.input.choices !== undefined) input += member('choices', r.input.choices);
    text += rawJson === undefined ? input.slice(1) : input;
    text += '}';
    if (r.output !== undefined) text += member('output', r.output);
    if (r.messages !== undefined) text += member('messages', r.messages);
    text += member('answer_attribution', r.answerAttribution ?? []);
    text += member('evaluation', r.evaluation);
    if (r.tokenUsage !== undefined) text += member('token_usage', r.tokenUsage);
    if (r.performance !== undefined) text += member('performance', r.performance);
    if (r.error !== undefined && r.error !== null) text += member('error', r.error);
    if (r.metadata !== undefined && Object.keys(r.metadata).length > 0) {
      let entries = '';
      for (const k of Object.keys(r.metadata)) {
        const v = r.metadata[k];
        if (v === undefined) continue;
        const json = known?.metadata?.[k] ?? jsonString(detailString(v));
        entries += `,${keyJson(k)}:${json}`;
      }
      text += `,"metadata":{${entries.slice(1)}}`;
    }
    return `${text}}`;
  };
  return { text, lastHash: () => hash };
}

/**
 * The facts tallyBlock (checks/reconciliation.ts) reads back from the text of a row rowTextMaker wrote, from the row
 * itself: its head's strings as they are, and its evaluation's numbers as they come back from their JSON (a
 * non-finite score is `null`, -0 is `0`). A row whose metadata could hold an epoch or the unscored mark (a key
 * `score_missing`, or one with `epoch` in it) is read from its text, as the writer would.
 */
function writtenRowFacts(r: RowInput, hash: string, json: string): RowFacts {
  if (r.metadata !== undefined)
    for (const k in r.metadata) if (k === 'score_missing' || k.includes('epoch')) return lineFacts(json);
  const { score, is_correct: correct } = r.evaluation;
  const value = Number.isFinite(score) ? score + 0 : typeof correct === 'boolean' ? Number(correct) : null;
  return {
    evaluation_result_id: r.evaluationResultId ?? null,
    evaluation_name: r.evaluationName,
    sample_hash: hash,
    sample_id: r.sampleId,
    epoch: null,
    value,
    correct: typeof correct === 'boolean' ? Number(correct) : null,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The aggregate

export interface AggregateInput {
  ids: RecordIds;
  model: BuiltModel;
  overrides: ConvertOverrides;
  report: FieldReport;
  /** `source_metadata.source_name` (what the source is, e.g. "lm-evaluation-harness results"). */
  sourceName: string;
  /** Who ran it, when the source says (overridden by the options). */
  organization?: { name: string; url?: string; field: string };
  evaluatorRelationship?: { value: 'first_party' | 'third_party' | 'collaborative' | 'other'; field: string };
  sourceDetails?: Obj;
  evalLibrary: { name: string; version: string; details?: Obj };
  /** When the results were produced or retrieved, as the source says (epoch seconds), with its field. */
  retrievedTimestamp?: { value: string; field: string };
  evaluationTimestamp?: { value: string; field: string };
  results: Obj[];
  /** Results left out for a non-finite score (ResultsBuilder.leftOut), kept in source_metadata.additional_details. */
  leftOut?: Record<string, string>;
  /** The run's identity (the store keeps the most complete copy of one run), in eval_library.additional_details. */
  run?: RunIdentity;
  hasRows: boolean;
}

/** The EEE 0.3.0 aggregate (without the checksum and row count, which the writer fills in). */
export function buildAggregate(a: AggregateInput): Obj {
  const { overrides, report } = a;
  let retrieved: string;
  if (overrides.retrievedTimestamp !== undefined) {
    retrieved = overrides.retrievedTimestamp;
    report.mapped('--retrieved-timestamp', '/retrieved_timestamp');
  } else if (a.retrievedTimestamp) {
    retrieved = a.retrievedTimestamp.value;
    report.mapped(a.retrievedTimestamp.field, '/retrieved_timestamp');
  } else {
    retrieved = '0';
    report.inferred(
      'retrieved_timestamp',
      '/retrieved_timestamp',
      'the source holds no date; "0" keeps the output deterministic (use --retrieved-timestamp)',
    );
  }

  const sourceMetadata: Obj = { source_name: a.sourceName, source_type: 'evaluation_run' };
  if (overrides.sourceOrganizationName !== undefined) {
    sourceMetadata.source_organization_name = overrides.sourceOrganizationName;
    report.mapped('--source-organization-name', '/source_metadata/source_organization_name');
  } else if (a.organization) {
    sourceMetadata.source_organization_name = a.organization.name;
    report.mapped(a.organization.field, '/source_metadata/source_organization_name');
  } else {
    sourceMetadata.source_organization_name = 'unknown';
    report.inferred(
      'source organization',
      '/source_metadata/source_organization_name',
      'the source does not say who ran it; "unknown" (use --source-organization-name)',
    );
  }
  const url = overrides.sourceOrganizationUrl ?? a.organization?.url;
  if (url !== undefined) sourceMetadata.source_organization_url = url;
  if (overrides.sourceOrganizationUrl !== undefined)
    report.mapped('--source-organization-url', '/source_metadata/source_organization_url');
  if (overrides.evaluatorRelationship !== undefined) {
    sourceMetadata.evaluator_relationship = overrides.evaluatorRelationship;
    report.mapped('--evaluator-relationship', '/source_metadata/evaluator_relationship');
  } else if (a.evaluatorRelationship) {
    sourceMetadata.evaluator_relationship = a.evaluatorRelationship.value;
    report.inferred(
      a.evaluatorRelationship.field,
      '/source_metadata/evaluator_relationship',
      'from the source',
    );
  } else {
    sourceMetadata.evaluator_relationship = 'other';
    report.inferred(
      'evaluator relationship',
      '/source_metadata/evaluator_relationship',
      'the source does not say; "other" (use --evaluator-relationship)',
    );
  }
  const leftOut = a.leftOut ?? {};
  const sourceDetails = {
    ...(a.sourceDetails ?? {}),
    ...leftOut,
    ...(Object.keys(leftOut).length > 0 ? { non_finite_score_reason: NON_FINITE_REASON } : {}),
  };
  if (Object.keys(sourceDetails).length > 0) sourceMetadata.additional_details = stringMap(sourceDetails);

  const evalLibrary: Obj = { name: a.evalLibrary.name, version: a.evalLibrary.version };
  const libraryDetails = { ...(a.evalLibrary.details ?? {}), ...(a.run ? runIdentityDetails(a.run) : {}) };
  if (Object.keys(libraryDetails).length > 0) evalLibrary.additional_details = stringMap(libraryDetails);

  const aggregate: Obj = {
    schema_version: EEE_SCHEMA_VERSION,
    evaluation_id: a.ids.evaluationId,
  };
  if (a.evaluationTimestamp) {
    aggregate.evaluation_timestamp = a.evaluationTimestamp.value;
    report.mapped(a.evaluationTimestamp.field, '/evaluation_timestamp');
  }
  aggregate.retrieved_timestamp = retrieved;
  aggregate.source_metadata = sourceMetadata;
  aggregate.eval_library = evalLibrary;
  aggregate.model_info = a.model.modelInfo;
  aggregate.evaluation_results = a.results;
  if (a.hasRows)
    aggregate.detailed_evaluation_results = {
      format: 'jsonl',
      file_path: a.ids.samplesPath,
      hash_algorithm: 'sha256',
    };
  return aggregate;
}

/** The ConvertedRecord from its parts. */
export function convertedRecord(parts: {
  source: SourceId;
  sourcePath: string;
  ids: RecordIds;
  aggregate: Obj;
  rows?: () => AsyncIterable<Obj>;
  rowBlocks?: ConvertedRecord['rowBlocks'];
  report: FieldReport;
  notes?: string[];
  declared?: ReadonlyMap<string, DeclaredFacts>;
}): ConvertedRecord {
  const record: ConvertedRecord = {
    source: parts.source,
    sourcePath: parts.sourcePath,
    aggregate: parts.aggregate,
    aggregatePath: parts.ids.aggregatePath,
    fields: parts.report.fates,
    notes: parts.notes ?? [],
  };
  if (parts.declared !== undefined && parts.declared.size > 0) record.declared = parts.declared;
  if (parts.rows) {
    record.samplesPath = parts.ids.samplesPath;
    record.rows = parts.rows;
    if (parts.rowBlocks) record.rowBlocks = parts.rowBlocks;
  }
  return record;
}

/**
 * A metric id that says what was measured: a generic one (`mean`, `score`, …, which EEE's validator warns about)
 * is namespaced by the evaluation it belongs to (`popularity.mean`), as upstream EEE advises for benchmark-specific
 * metrics.
 */
function specificMetricId(id: string, evaluationName: string): string {
  return GENERIC_METRIC_IDS.has(id.trim().toLowerCase()) ? `${evaluationName}.${id}` : id;
}
