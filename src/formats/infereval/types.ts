// Normalised infereval types: what `normaliseBenchmark` / `normaliseEvaluation` return. Every field of the 0.17.x
// field set is present (defaults filled, `null` where the default is null), references are objects, and the
// premise / conclusion / rsr_target sets of a benchmark item are de-duplicated and sorted by code point.
// The shapes are derived from the TypeBox schemas (one source), not written twice.
import type { Static } from 'typebox';
import type {
  AnalystSchema,
  BearerSchema,
  BenchmarkItemSchema,
  BenchmarkSchema,
  ConstructionMetadataSchema,
  ContextBuildersSchema,
  CopresenceRuleSchema,
  EntailmentRuleSchema,
  FactorConstraintsSchema,
  MonotonicityStepSchema,
  PluginContextBuilderSchema,
  RegularitySchema,
  RsrTargetSchema,
  TemplateContextBuilderSchema,
  VerificationPromptSchema,
} from './benchmark-schema.js';
import type { ReferenceSchema } from './common.js';
import type {
  EndorsementConfigSchema,
  EvaluationItemSchema,
  EvaluationSchema,
  MajorityVoteSchema,
  ModelInfoSchema,
  ProviderParamsSchema,
  SampleRecordSchema,
  SampleUsageSchema,
} from './evaluation-schema.js';

export type { Verdict } from './common.js';
export type { ParseStatus, QuestionForm, TieBreak } from './evaluation-schema.js';

/** Every optional key present; `undefined` removed (null stays where the schema allows it). */
type Filled<T> = { [K in keyof T]-?: Exclude<T[K], undefined> };
/** Filled, with some keys replaced by their normalised types. */
type Normal<T, Over> = Omit<Filled<T>, keyof Over> & Over;

export type Reference = Filled<Static<typeof ReferenceSchema>>;
export type Bearer = Normal<Static<typeof BearerSchema>, { references: Reference[] }>;
export type Analyst = Filled<Static<typeof AnalystSchema>>;
export type RsrTarget = Filled<Static<typeof RsrTargetSchema>>;
export type ConstructionMetadata = Filled<Static<typeof ConstructionMetadataSchema>>;
export type MonotonicityStep = Filled<Static<typeof MonotonicityStepSchema>>;
export type TemplateContextBuilder = Filled<Static<typeof TemplateContextBuilderSchema>>;
export type PluginContextBuilder = Filled<Static<typeof PluginContextBuilderSchema>>;
export type ContextBuilder = TemplateContextBuilder | PluginContextBuilder;
export type ContextBuilders = Normal<
  Static<typeof ContextBuildersSchema>,
  { premise: ContextBuilder; conclusion: ContextBuilder }
>;
export type VerificationPromptOverride = Filled<Static<typeof VerificationPromptSchema>>;
export type FactorConstraints = Filled<Static<typeof FactorConstraintsSchema>>;
export type CopresenceRule = Filled<Static<typeof CopresenceRuleSchema>>;
export type EntailmentRule = Filled<Static<typeof EntailmentRuleSchema>>;
export type Regularity = Filled<Static<typeof RegularitySchema>>;

export type BenchmarkItem = Normal<
  Static<typeof BenchmarkItemSchema>,
  {
    references: Reference[];
    rsr_target: RsrTarget | null;
    construction_metadata: ConstructionMetadata | null;
    monotonicity_step: MonotonicityStep | null;
  }
>;

export type Benchmark = Normal<
  Static<typeof BenchmarkSchema>,
  {
    bearers: Record<string, Bearer>;
    analysts: Analyst[];
    context_builders: ContextBuilders;
    verification_prompt: VerificationPromptOverride | null;
    items: BenchmarkItem[];
    factor_constraints: FactorConstraints | null;
    references: Reference[];
    copresence_rules: CopresenceRule[];
    entailment_rules: EntailmentRule[];
    regularities: Regularity[];
  }
>;

/** Decoding parameters; keys beyond the declared ones (provider-specific) are kept. */
export type ProviderParams = Filled<Static<typeof ProviderParamsSchema>> & { [key: string]: unknown };
export type ModelInfo = Normal<Static<typeof ModelInfoSchema>, { params: ProviderParams }>;
export type EndorsementConfig = Filled<Static<typeof EndorsementConfigSchema>>;
/** Token usage of one call; provider-specific keys are kept. */
export type SampleUsage = Filled<Static<typeof SampleUsageSchema>> & { [key: string]: unknown };
export type SampleRecord = Normal<Static<typeof SampleRecordSchema>, { usage: SampleUsage | null }>;
export type MajorityVote = Filled<Static<typeof MajorityVoteSchema>>;
export type EvaluationItem = Normal<
  Static<typeof EvaluationItemSchema>,
  { samples: SampleRecord[]; majority_vote: MajorityVote | null; references: Reference[] }
>;
export type Evaluation = Normal<
  Static<typeof EvaluationSchema>,
  {
    model: ModelInfo;
    endorsement_config: EndorsementConfig;
    items: EvaluationItem[];
    references: Reference[];
  }
>;
