// The infereval evaluation (η), schema_version "1.0", 0.17.x field set.
// Same verdict as the reference implementation's committed evaluation.schema.json (Draft 2020-12).
import { Type, type Static } from 'typebox';
import { closed, Nullable, ReferencesSchema, VerdictSchema } from './common.js';

export const FRAMEWORK_VERSION_DEFAULT = '0.17.6';

export const ProviderParamsSchema = Type.Object(
  {
    temperature: Type.Optional(Type.Number({ default: 1.0 })),
    max_tokens: Type.Optional(Type.Integer({ default: 1024 })),
    top_p: Type.Optional(Nullable(Type.Number())),
    seed: Type.Optional(Nullable(Type.Integer())),
    stop: Type.Optional(Type.Array(Type.String(), { default: [] })),
  },
  {
    additionalProperties: true,
    title: 'ProviderParams',
    description: 'Decoding parameters; provider-specific keys are allowed.',
  },
);

export const ModelInfoSchema = Type.Object(
  { provider: Type.String(), model_id: Type.String(), params: Type.Optional(ProviderParamsSchema) },
  { ...closed, title: 'ModelInfo' },
);

export const TieBreakSchema = Type.Enum(['abstain', 'good', 'bad', 'first']);
export const QuestionFormSchema = Type.Enum(['support', 'coherence']);

export const EndorsementConfigSchema = Type.Object(
  {
    n_samples: Type.Optional(Type.Integer({ default: 5 })),
    tie_break: Type.Optional(Type.Enum(['abstain', 'good', 'bad', 'first'], { default: 'abstain' })),
    verification_prompt_id: Type.Optional(Type.String({ default: 'default-v1' })),
    context_builder_premise_id: Type.Optional(Type.String({ default: 'conjunction-and-v1' })),
    context_builder_conclusion_id: Type.Optional(Type.String({ default: 'disjunction-or-v1' })),
    question_form: Type.Optional(Type.Enum(['support', 'coherence'], { default: 'support' })),
    coherence_frame_id: Type.Optional(Type.String({ default: 'thin-v1' })),
  },
  { ...closed, title: 'EndorsementConfig' },
);

export const SampleUsageSchema = Type.Object(
  {
    input_tokens: Type.Optional(Nullable(Type.Integer())),
    output_tokens: Type.Optional(Nullable(Type.Integer())),
  },
  { additionalProperties: true, title: 'SampleUsage' },
);

export const ParseStatusSchema = Type.Enum(['ok', 'unparseable', 'sample_failed', 'budget_clipped']);

export const SampleRecordSchema = Type.Object(
  {
    sample_index: Type.Integer(),
    raw_response: Type.String(),
    parsed_verdict: VerdictSchema,
    parse_status: Type.Optional(
      Type.Enum(['ok', 'unparseable', 'sample_failed', 'budget_clipped'], { default: 'ok' }),
    ),
    request_id: Type.Optional(Nullable(Type.String())),
    wall_time_ms: Type.Optional(Nullable(Type.Number())),
    usage: Type.Optional(Nullable(SampleUsageSchema)),
    finish_reason: Type.Optional(Nullable(Type.String())),
    reasoning_tokens: Type.Optional(Nullable(Type.Integer())),
    provider_error: Type.Optional(Nullable(Type.String())),
  },
  { ...closed, title: 'SampleRecord' },
);

export const MajorityVoteSchema = Type.Object(
  {
    good: Type.Optional(Type.Integer({ default: 0 })),
    bad: Type.Optional(Type.Integer({ default: 0 })),
    abstain: Type.Optional(Type.Integer({ default: 0 })),
    verdict: VerdictSchema,
    tie_broken: Type.Optional(Type.Boolean({ default: false })),
  },
  { ...closed, title: 'MajorityVote' },
);

export const EvaluationItemSchema = Type.Object(
  {
    id: Type.String(),
    premises: Type.Array(Type.String()),
    conclusions: Type.Array(Type.String()),
    analyst_verdicts: Type.Array(VerdictSchema),
    analyst_rationales: Type.Optional(Nullable(Type.Array(Type.String()))),
    model_verdict: VerdictSchema,
    samples: Type.Optional(Type.Array(SampleRecordSchema)),
    majority_vote: Type.Optional(Nullable(MajorityVoteSchema)),
    tags: Type.Optional(Type.Array(Type.String())),
    references: Type.Optional(ReferencesSchema),
  },
  { ...closed, title: 'EvaluationItem' },
);

export const EvaluationSchema = Type.Object(
  {
    schema_version: Type.Optional(Type.Literal('1.0', { default: '1.0' })),
    id: Type.String(),
    benchmark_id: Type.String(),
    benchmark_hash: Type.Optional(Nullable(Type.String())),
    model: ModelInfoSchema,
    endorsement_config: Type.Optional(EndorsementConfigSchema),
    framework_version: Type.Optional(Type.String({ default: FRAMEWORK_VERSION_DEFAULT })),
    started_at: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
    finished_at: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
    items: Type.Array(EvaluationItemSchema),
    references: Type.Optional(ReferencesSchema),
    paraphrase_variant: Type.Optional(Type.Integer({ default: 0 })),
  },
  {
    ...closed,
    title: 'infereval evaluation (eta) 1.0',
    description:
      'The record of one model evaluated against one benchmark: per item, every sample and the vote.',
  },
);

/** An evaluation file as written (defaults may be missing). See `Evaluation` for the normalised form. */
export type EvaluationDocument = Static<typeof EvaluationSchema>;
export type EvaluationItemDocument = Static<typeof EvaluationItemSchema>;
export type SampleRecordDocument = Static<typeof SampleRecordSchema>;
export type MajorityVoteDocument = Static<typeof MajorityVoteSchema>;
export type EndorsementConfigDocument = Static<typeof EndorsementConfigSchema>;
export type ModelInfoDocument = Static<typeof ModelInfoSchema>;
export type ProviderParamsDocument = Static<typeof ProviderParamsSchema>;
export type TieBreak = Static<typeof TieBreakSchema>;
export type QuestionForm = Static<typeof QuestionFormSchema>;
export type ParseStatus = Static<typeof ParseStatusSchema>;
