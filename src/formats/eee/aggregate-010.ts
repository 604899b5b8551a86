// EEE aggregate record, schema 0.1.0 (draft-07): the first published version (upstream tag v0.1.0, December 2025),
// which the datastore's early records (HELM, Open LLM Leaderboard v2, reward-bench, global-mmlu-lite...) declare.
// It differs from 0.2.0 in shape, so it has its own definition rather than a flag of the 0.2.x builder:
//   - `source_data` sits at the top level, once for the whole record: a list of URLs or a Hugging Face dataset;
//   - `model_info.inference_engine` is a string; `detailed_evaluation_results_per_samples` (a URL or inline samples)
//     stands where 0.2.0 has `detailed_evaluation_results`; there is no `$defs`.
// Upstream quirks are kept because the verdict must equal upstream's:
//   - metric_config's `if` has no `required: ["score_type"]`, so a metric without score_type must carry level_names
//     and has_unknown_level (the same quirk 0.2.0–0.2.2 keep);
//   - `generation_config` lists `generation_args` and `additional_details` as keywords, not under `properties`, so
//     any object passes there; `score_details` has no `type`;
//   - `choices` is a oneOf of a string list and a list of pairs, so an empty list (both) fails.
import { Type } from 'typebox';
import {
  Bool,
  Int,
  Num,
  OneOf,
  Root,
  sourceMetadataProps,
  Str,
  StrEnum,
  StrList,
  Types,
  Untyped,
} from './common.js';

const Opt = Type.Optional;
const OpenMap = (description: string) =>
  Type.Unsafe<Record<string, unknown>>({ type: 'object', description, additionalProperties: true });

function build010() {
  const sourceData = OneOf(
    [
      Type.Array(Type.String(), { description: 'URLs of the evaluation data.' }),
      Type.Object(
        {
          dataset_name: Str('Dataset name.'),
          hf_repo: Opt(Str('Hugging Face dataset repository.')),
          hf_split: Opt(Str('Split: train, val or test.')),
          samples_number: Opt(Int('Number of samples in the dataset.')),
          sample_ids: Opt(
            Type.Array(Types(['integer', 'string'], 'A sample id.'), {
              description: 'Ids of the samples evaluated.',
            }),
          ),
          additional_details: Opt(OpenMap('Further details of the dataset.')),
        },
        { description: 'A dataset on the Hugging Face hub.' },
      ),
    ],
    'The data of the whole record: a list of URLs or a Hugging Face dataset.',
  );

  const metricConfig = Type.Object(
    {
      evaluation_description: Opt(Str('What the evaluation measures.')),
      lower_is_better: Bool('True when a lower score is better.'),
      score_type: Opt(
        StrEnum(['binary', 'continuous', 'levels'], 'Kind of score: binary, continuous or levels.'),
      ),
      level_names: Opt(StrList('Names of the levels of a levels score.')),
      level_metadata: Opt(StrList('A description for each level.')),
      has_unknown_level: Opt(Bool('True when the score -1 means "unknown".')),
      min_score: Opt(Num('Lowest possible score (continuous metrics).')),
      max_score: Opt(Num('Highest possible score (continuous metrics).')),
    },
    {
      description: 'How the metric is defined.',
      // Quirk kept: without `required`, an absent score_type matches the "levels" branch.
      if: { properties: { score_type: { const: 'levels' } } },
      then: { required: ['level_names', 'has_unknown_level'] },
      else: {
        if: { properties: { score_type: { const: 'continuous' } } },
        then: { required: ['min_score', 'max_score'] },
      },
    },
  );

  const evaluationResult = Type.Object({
    evaluation_name: Str('Name of the evaluation.'),
    evaluation_timestamp: Opt(Str('When this evaluation was run.')),
    metric_config: metricConfig,
    score_details: Untyped(
      Type.Object(
        { score: Num('The score.'), details: Opt(OpenMap('Further details of the score.')) },
        { description: 'The score and what qualifies it.' },
      ),
    ),
    detailed_evaluation_results_url: Opt(Str('Where the per-sample results of this evaluation are.')),
    // Quirk kept: the members are written as keywords of generation_config, so they constrain nothing.
    generation_config: Opt(
      Type.Unsafe<Record<string, unknown>>({
        type: 'object',
        description: 'How the answers were generated (any object: upstream lists no properties).',
      }),
    ),
  });

  const sample = Type.Object(
    {
      sample_id: Str('Sample id.'),
      input: Str('Raw input of the model.'),
      prompt: Opt(Str('Full prompt of the model.')),
      ground_truth: OneOf([Type.String(), Type.Array(Type.String())], 'The correct answer or answers.'),
      response: Str('Response of the model.'),
      choices: Opt(
        OneOf(
          [
            Type.Array(Type.String()),
            Type.Array(
              Type.Unsafe<[string, string]>({
                type: 'array',
                items: [{ type: 'string' }, { type: 'string' }],
                minItems: 2,
                maxItems: 2,
              }),
            ),
          ],
          'The choices, or [choice, response] pairs.',
        ),
      ),
      full_logprobs: Opt(
        Type.Array(
          Type.Array(
            Type.Object({
              token_id: Num('Token id.'),
              logprob: Num('Log probability of the token.'),
              decoded_token: Str('The token as text.'),
            }),
          ),
          { description: 'Log probabilities of the generated tokens.' },
        ),
      ),
    },
    { description: 'One sample with its answer.' },
  );

  const body = Type.Object(
    {
      schema_version: Str('Schema version of this record.'),
      evaluation_id: Str('Id of this evaluation run.'),
      retrieved_timestamp: Str('When this record was made (Unix epoch time).'),
      source_data: sourceData,
      source_metadata: Type.Object(
        {
          ...sourceMetadataProps(),
        },
        { description: 'Where the data comes from.' },
      ),
      model_info: Type.Object(
        {
          name: Str('Model name as given by the source.'),
          id: Str('Model id in Hugging Face style (API models: provider/model).'),
          developer: Opt(Str('Organization that made the model.')),
          inference_platform: Opt(Str('Platform that served the model.')),
          inference_engine: Opt(Str('Local inference engine, e.g. vLLM.')),
          additional_details: Opt(OpenMap('Further details of the model.')),
        },
        { description: 'The model evaluated.' },
      ),
      evaluation_results: Type.Array(evaluationResult, {
        description: 'The scores, one per evaluation and metric.',
      }),
      detailed_evaluation_results_per_samples: Opt(
        Type.Unsafe<string | Array<Record<string, unknown>>>({
          description: 'Per-sample results: a link, or the samples themselves.',
          anyOf: [
            { type: 'string', description: 'Link to the per-sample results.' },
            { type: 'array', description: 'The samples.', items: sample },
          ],
        }),
      ),
    },
    {
      description: 'One evaluation of one model (EEE 0.1.0): its data, source, model and scores.',
      additionalProperties: false,
    },
  );
  return Root('0.1.0', body);
}

export const EeeAggregateSchema010 = build010();
