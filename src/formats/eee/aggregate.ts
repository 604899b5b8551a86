// EEE aggregate record (one evaluation run of one model), versions 0.2.0 → 0.3.0 (draft-07).
// One builder, driven by a per-version list of changes: each version is the previous one plus its changes (see
// AGGREGATE_CHANGES at the bottom). Upstream quirks are kept on purpose, because the verdict must equal upstream's:
//   - `$defs` (a 2019-09 keyword) holds the shared definitions although the dialect is draft-07;
//   - the root carries an unknown `version` keyword;
//   - 0.2.0–0.2.2: metric_config's `if` has no `required: ["score_type"]`, so a metric WITHOUT score_type takes
//     the "levels" branch and must carry level_names and has_unknown_level (0.3.0 fixes this);
//   - 0.2.0: `eval_plan.steps.items` lists property schemas without `properties`, so any step is accepted;
//   - 0.2.0: `detailed_evaluation_results` has no `type`, so a non-object there passes.
import { Type, type TSchema } from 'typebox';
import {
  BareEnum,
  Bool,
  choose,
  DefRef,
  Int,
  Num,
  OneOf,
  Root,
  Str,
  StrEnum,
  StrList,
  sourceMetadataProps,
  StringMap,
  Types,
  Untyped,
  when,
} from './common.js';

const Opt = Type.Optional;

/** What changes from version to version. Each flag names the version that introduced it. */
export interface AggregateChanges {
  version: string;
  /** 0.2.1: `additional_details`-style maps hold strings only (0.2.0: any values, via $defs). */
  stringMaps: boolean;
  /** 0.2.1: required `eval_library`; `additional_details` on source_metadata, metric_config, judges, detailed results. */
  evalLibrary: boolean;
  /** 0.2.1: `generation_args` closed; `eval_plan.steps` items strings; `sample_ids` items strings; typed detailed results. */
  tightened: boolean;
  /** 0.2.2: `evaluation_result_id` and metric identity fields in metric_config. */
  metricIdentity: boolean;
  /** 0.3.0: deployment axes required in model_info.additional_details (models and judges). */
  deploymentAxes: boolean;
  /** 0.3.0: min/max score may be a number, "Infinity"/"-Infinity" or null. */
  infiniteBounds: boolean;
  /** 0.3.0: the levels/continuous conditions apply only when score_type is present. */
  conditionsNeedScoreType: boolean;
  /** 0.3.0: detailed results need format "jsonl" and a datastore file_path. */
  datastorePaths: boolean;
}

/** The free-form map of 0.2.0 (`$defs/additional_properties_object`). */
const OpenMapDef = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  description: 'Free-form key-value details (any JSON values).',
  additionalProperties: true,
});

const SAMPLES_PATH =
  '^data/[^/]+/[^/]+/[^/]+/[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-4[0-9A-Fa-f]{3}-[89ABab][0-9A-Fa-f]{3}-[0-9A-Fa-f]{12}_samples\\.jsonl$';
const DEPLOYMENT_TYPES = ['self_deployed', 'externally_managed', 'unknown'] as const;
const MODEL_AVAILABILITY = ['open_weights', 'closed_weights', 'unknown'] as const;

export function buildAggregate<const C extends AggregateChanges>(c: C) {
  const map = () =>
    choose(
      c,
      'stringMaps',
      () => StringMap('Additional details as key-value pairs (values are strings).'),
      () => DefRef('additional_properties_object', OpenMapDef),
    );
  const bound = (description: string) =>
    choose(
      c,
      'infiniteBounds',
      () =>
        OneOf(
          [
            Type.Number(),
            Type.Unsafe<'Infinity' | '-Infinity'>({ type: 'string', enum: ['Infinity', '-Infinity'] }),
            Type.Null(),
          ],
          description,
        ),
      () => Num(description),
    );

  const modelInfo = Type.Object(
    {
      name: Str('Model name as given by the source.'),
      id: Str('Model id in Hugging Face style, e.g. org/model-name (API models: provider/model).'),
      developer: Opt(Str('Organization that made the model.')),
      inference_platform: Opt(Str('Platform that served the model, e.g. an API provider.')),
      inference_engine: Opt(
        Type.Object(
          { name: Opt(Str('Engine name, e.g. vLLM.')), version: Opt(Str('Engine version.')) },
          { description: 'Local inference engine used, e.g. vLLM or Ollama.' },
        ),
      ),
      additional_details: choose(
        c,
        'deploymentAxes',
        () =>
          Type.Unsafe<
            Record<string, string> & {
              deployment_type: (typeof DEPLOYMENT_TYPES)[number];
              model_availability: (typeof MODEL_AVAILABILITY)[number];
            }
          >({
            type: 'object',
            description: 'Additional details (string values), including the two deployment axes.',
            required: ['deployment_type', 'model_availability'],
            properties: {
              deployment_type: BareEnum(
                DEPLOYMENT_TYPES,
                'Who runs the model: self_deployed or externally_managed.',
              ),
              model_availability: BareEnum(MODEL_AVAILABILITY, 'Whether the weights are open.'),
            },
            additionalProperties: { type: 'string' },
          }),
        () => Opt(map()),
      ),
    },
    { description: 'The model evaluated: identity and how it was served.' },
  );

  const judgeConfig = Type.Object(
    {
      model_info: DefRef('model_info', modelInfo),
      temperature: Opt(Type.Number()),
      weight: Opt(Num("Weight of this judge's score when a jury is aggregated.")),
      ...when(c, 'evalLibrary', () => ({ additional_details: Opt(map()) })),
    },
    { description: 'One LLM judge (or juror).' },
  );

  const sourceDataUrl = Type.Object(
    {
      dataset_name: Str('Dataset name.'),
      source_type: Type.Unsafe<'url'>({ const: 'url' }),
      url: Type.Array(Type.String(), {
        minItems: 1,
        description: 'Where the data can be found (one or more URLs).',
      }),
      additional_details: Opt(map()),
    },
    { description: 'Dataset given by URL.' },
  );
  const sourceDataHf = Type.Object(
    {
      dataset_name: Str('Dataset name.'),
      source_type: Type.Unsafe<'hf_dataset'>({ const: 'hf_dataset' }),
      hf_repo: Opt(Str('Hugging Face dataset repository.')),
      hf_split: Opt(Str('Split: train, val or test.')),
      samples_number: Opt(Int('Number of samples in the dataset.')),
      sample_ids: Opt(
        Type.Array(
          choose(
            c,
            'tightened',
            () => Type.String(),
            () => Types(['integer', 'string'], 'A sample id.'),
          ),
          {
            description: 'Ids of the samples evaluated.',
          },
        ),
      ),
      additional_details: Opt(map()),
    },
    { description: 'Dataset on the Hugging Face hub.' },
  );
  const sourceDataPrivate = Type.Object(
    {
      dataset_name: Str('Dataset name.'),
      source_type: Type.Unsafe<'other'>({ const: 'other' }),
      additional_details: Opt(map()),
    },
    { description: 'Dataset that is neither a URL nor on the Hugging Face hub.' },
  );

  /** The `if` of a score_type condition. Before 0.3.0 it does not require score_type (quirk kept). */
  const scoreTypeIs = (value: string) =>
    c.conditionsNeedScoreType
      ? { required: ['score_type'], properties: { score_type: { const: value } } }
      : { properties: { score_type: { const: value } } };
  const metricConfig = Type.Object(
    {
      evaluation_description: Opt(Str('What the evaluation measures.')),
      ...when(c, 'metricIdentity', () => ({
        metric_id: Opt(
          Str('Stable metric id for joins, e.g. accuracy, or a namespaced one like bench.overall.'),
        ),
        metric_name: Opt(Str('Display name of the metric.')),
        metric_kind: Opt(Str('Metric family, e.g. accuracy, f1, elo.')),
        metric_unit: Opt(Str('Unit, e.g. proportion, percent, ms.')),
        metric_parameters: Opt(
          Type.Unsafe<Record<string, string | number | boolean | null>>({
            type: 'object',
            description: 'Parameters of the metric, e.g. {"k": 1} for pass@k.',
            additionalProperties: { type: ['string', 'number', 'boolean', 'null'] },
          }),
        ),
      })),
      lower_is_better: Bool('True when a lower score is better.'),
      score_type: Opt(
        StrEnum(['binary', 'continuous', 'levels'], 'Kind of score: binary, continuous or levels.'),
      ),
      level_names: Opt(StrList('Names of the levels of a levels score.')),
      level_metadata: Opt(StrList('A description for each level.')),
      has_unknown_level: Opt(Bool('True when the score -1 means "unknown".')),
      min_score: Opt(bound('Lowest possible score (continuous metrics); "-Infinity" when unbounded.')),
      max_score: Opt(bound('Highest possible score (continuous metrics); "Infinity" when unbounded.')),
      llm_scoring: Opt(
        Type.Object(
          {
            judges: Type.Array(DefRef('judge_config', judgeConfig), {
              minItems: 1,
              description: 'The judge, or the jurors of a jury.',
            }),
            input_prompt: Str('Prompt template given to the judge.'),
            aggregation_method: Opt(
              StrEnum(
                ['majority_vote', 'average', 'weighted_average', 'median'],
                "How the jurors' scores combine.",
              ),
            ),
            expert_baseline: Opt(Num('Score of human experts, for comparison.')),
            additional_details: Opt(map()),
          },
          { description: 'Set when an LLM scores the answers.' },
        ),
      ),
      ...when(c, 'evalLibrary', () => ({ additional_details: Opt(map()) })),
    },
    {
      description: 'How the metric is defined.',
      // Quirk before 0.3.0: without `required`, an absent score_type matches the "levels" branch.
      if: scoreTypeIs('levels'),
      then: { required: ['level_names', 'has_unknown_level'] },
      else: { if: scoreTypeIs('continuous'), then: { required: ['min_score', 'max_score'] } },
    },
  );

  const uncertainty = Type.Object(
    {
      standard_error: Opt(
        Type.Object(
          {
            value: Num('The standard error.'),
            method: Opt(Str('How it was computed, e.g. analytic or bootstrap.')),
          },
          { description: 'Standard error of the mean score (standard deviation / sqrt(n)).' },
        ),
      ),
      confidence_interval: Opt(
        Type.Object(
          {
            lower: Num('Lower bound.'),
            upper: Num('Upper bound.'),
            confidence_level: Opt(Type.Number({ minimum: 0, maximum: 1, description: 'e.g. 0.95.' })),
            method: Opt(Str('How it was computed.')),
          },
          { description: 'Confidence interval of the score.' },
        ),
      ),
      standard_deviation: Opt(Num('Standard deviation of the per-sample scores.')),
      num_samples: Opt(Int('Number of samples behind the estimates.')),
      num_bootstrap_samples: Opt(Int('Number of bootstrap resamples, when bootstrapped.')),
    },
    { description: 'Uncertainty of the score.' },
  );

  const stepItems = choose(
    c,
    'tightened',
    () => Type.String(),
    // Quirk of 0.2.0: property schemas without `properties` around them, so a step can be anything.
    () =>
      Type.Unsafe<unknown>({
        solver: { type: 'string', description: 'Solver name, e.g. system_message.' },
        parameters: { $ref: '#/$defs/additional_properties_object' },
      }),
  );
  const generationArgs = Type.Object(
    {
      temperature: Opt(Types(['null', 'number'], 'Sampling temperature.')),
      top_p: Opt(Types(['null', 'number'], 'Nucleus sampling parameter.')),
      top_k: Opt(Types(['null', 'number'], 'Top-k sampling parameter.')),
      max_tokens: Opt(Int('Token limit of a generation.', { minimum: 1 })),
      execution_command: Opt(Str('Command that ran the model.')),
      reasoning: Opt(Bool('True when reasoning / chain of thought was used.')),
      prompt_template: Opt(Str('Prompt template of the task.')),
      agentic_eval_config: Opt(
        Type.Object(
          {
            available_tools: Opt(
              Type.Array(
                Type.Object({
                  name: Opt(Str('Tool name, e.g. bash.')),
                  description: Opt(Type.String()),
                  parameters: Opt(map()),
                }),
                { description: 'The tools offered to the agent.' },
              ),
            ),
            additional_details: Opt(map()),
          },
          { description: 'Settings of an agentic evaluation.' },
        ),
      ),
      eval_plan: Opt(
        Type.Object(
          {
            name: Opt(Type.String()),
            steps: Opt(Type.Array(stepItems, { description: 'Steps (solvers) of the plan.' })),
            config: Opt(map()),
          },
          { description: 'Evaluation plan (e.g. Inspect solvers).' },
        ),
      ),
      eval_limits: Opt(
        Type.Object(
          {
            time_limit: Opt(Int('Time limit.')),
            message_limit: Opt(Int('Message limit.')),
            token_limit: Opt(Int('Token limit.')),
          },
          { description: 'Limits of the evaluation.' },
        ),
      ),
      sandbox: Opt(
        Type.Object({
          type: Opt(Str('Sandbox kind, e.g. docker.')),
          config: Opt(Str('Sandbox configuration file.')),
        }),
      ),
      max_attempts: Opt(Type.Integer({ description: 'Number of submission attempts allowed.', default: 1 })),
      incorrect_attempt_feedback: Opt(Str('Feedback given after an incorrect attempt.')),
    },
    { description: 'Generation parameters (they vary by model kind).', additionalProperties: !c.tightened },
  );

  const evaluationResult = Type.Object({
    ...when(c, 'metricIdentity', () => ({
      evaluation_result_id: Opt(Str('Stable id of this result within the run; instance rows join on it.')),
    })),
    evaluation_name: Str('Name of the evaluation.'),
    source_data: OneOf(
      [
        DefRef('source_data_url', sourceDataUrl),
        DefRef('source_data_hf', sourceDataHf),
        DefRef('source_data_private', sourceDataPrivate),
      ],
      'The dataset: given by URL, on the Hugging Face hub, or other.',
    ),
    evaluation_timestamp: Opt(Str('When this evaluation was run.')),
    metric_config: metricConfig,
    score_details: Type.Object(
      { score: Num('The score.'), details: Opt(map()), uncertainty: Opt(uncertainty) },
      { description: 'The score and what qualifies it.' },
    ),
    generation_config: Opt(
      Type.Object({ generation_args: Opt(generationArgs), additional_details: Opt(map()) }, {}),
    ),
  });

  const detailedProps = {
    format: choose(
      c,
      'datastorePaths',
      () => StrEnum(['jsonl'], 'File format of the per-sample results.'),
      () => Opt(StrEnum(['jsonl', 'json'], 'File format of the per-sample results.')),
    ),
    file_path: choose(
      c,
      'datastorePaths',
      () =>
        Type.String({
          description:
            'Path of the samples file inside the datastore: data/<a>/<b>/<c>/<uuid4>_samples.jsonl.',
          pattern: SAMPLES_PATH,
        }),
      () => Opt(Str('Path of the per-sample results file.')),
    ),
    hash_algorithm: Opt(
      StrEnum(['sha256', 'md5'], "Algorithm of `checksum` and of the rows' `sample_hash`."),
    ),
    checksum: Opt(Str("Checksum of the file's bytes.")),
    total_rows: Opt(Int('Number of rows in the file.')),
    ...when(c, 'evalLibrary', () => ({ additional_details: Opt(map()) })),
  };
  const detailedDescription = 'Where the per-sample (instance-level) results of this run are.';
  const detailedObject = Type.Object(detailedProps, { description: detailedDescription });
  // Quirk of 0.2.0: no `type: "object"`, so a non-object value passes.
  const detailedResults = choose(
    c,
    'tightened',
    () => detailedObject,
    () => Untyped(detailedObject),
  );

  const body = Type.Object(
    {
      schema_version: Str('Schema version of this record.'),
      evaluation_id: Str('Id of this evaluation run (treat as opaque).'),
      evaluation_timestamp: Opt(Str('When the evaluation was run.')),
      retrieved_timestamp: Str('When this record was made (Unix epoch time).'),
      source_metadata: Type.Object(
        {
          ...sourceMetadataProps(),
          ...when(c, 'evalLibrary', () => ({ additional_details: Opt(map()) })),
        },
        { description: 'Where the data comes from.' },
      ),
      ...when(c, 'evalLibrary', () => ({
        eval_library: Type.Object(
          {
            name: Str('Evaluation library, e.g. inspect_ai, lm_eval, helm.'),
            version: Str('Its version ("unknown" when not known).'),
            additional_details: Opt(map()),
          },
          { description: 'The library or framework that ran the evaluation.' },
        ),
      })),
      model_info: DefRef('model_info', modelInfo),
      evaluation_results: Type.Array(evaluationResult, {
        description: 'The scores, one per evaluation and metric.',
      }),
      detailed_evaluation_results: Opt(detailedResults),
    },
    {
      description: 'One evaluation run of one model: where the numbers come from, the model, and its scores.',
      additionalProperties: false,
    },
  );

  const $defs: Record<string, TSchema> = {
    ...(c.stringMaps ? {} : { additional_properties_object: OpenMapDef }),
    judge_config: judgeConfig,
    model_info: modelInfo,
    source_data_url: sourceDataUrl,
    source_data_hf: sourceDataHf,
    source_data_private: sourceDataPrivate,
  };
  return Root(c.version, body, $defs);
}

const V020 = {
  version: '0.2.0',
  stringMaps: false,
  evalLibrary: false,
  tightened: false,
  metricIdentity: false,
  deploymentAxes: false,
  infiniteBounds: false,
  conditionsNeedScoreType: false,
  datastorePaths: false,
} as const satisfies AggregateChanges;
const V021 = {
  ...V020,
  version: '0.2.1',
  stringMaps: true,
  evalLibrary: true,
  tightened: true,
} as const satisfies AggregateChanges;
const V022 = { ...V021, version: '0.2.2', metricIdentity: true } as const satisfies AggregateChanges;
const V030 = {
  ...V022,
  version: '0.3.0',
  deploymentAxes: true,
  infiniteBounds: true,
  conditionsNeedScoreType: true,
  datastorePaths: true,
} as const satisfies AggregateChanges;

/** Each version as the previous one plus its changes. */
export const AGGREGATE_CHANGES: readonly AggregateChanges[] = [V020, V021, V022, V030];

export const EeeAggregateSchema020 = buildAggregate(V020);
export const EeeAggregateSchema021 = buildAggregate(V021);
export const EeeAggregateSchema022 = buildAggregate(V022);
export const EeeAggregateSchema030 = buildAggregate(V030);
