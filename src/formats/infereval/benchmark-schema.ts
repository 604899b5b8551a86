// The infereval benchmark (β), schema_version "1.0", with the 0.17.x field set (construct-validity fields included).
// Same verdict as the reference implementation's committed benchmark.schema.json (Draft 2020-12).
import { Type, type Static } from 'typebox';
import { closed, Dict, Nullable, ReferencesSchema, VerdictSchema } from './common.js';

const OptionalString = () => Type.Optional(Nullable(Type.String()));

export const BearerSchema = Type.Object(
  {
    expression: Type.String({ description: 'The natural-language statement for the bearer.' }),
    paraphrases: Type.Optional(Type.Array(Type.String(), { default: [] })),
    references: Type.Optional(ReferencesSchema),
    ordinal_family: OptionalString(),
  },
  { ...closed, title: 'Bearer' },
);

export const AnalystSchema = Type.Object(
  {
    id: Type.String(),
    display_name: OptionalString(),
    notes: OptionalString(),
    expertise_description: OptionalString(),
    panel: OptionalString(),
  },
  { ...closed, title: 'Analyst' },
);

export const RsrTargetSchema = Type.Object(
  { X: Type.Array(Type.String()), A: Type.Array(Type.String()) },
  { ...closed, title: 'RSRTarget', description: 'Target inference <X, A> the item helps characterise.' },
);

export const ConstructionMetadataSchema = Type.Object(
  {
    authored_by: OptionalString(),
    authored_on: Type.Optional(Nullable(Type.String({ format: 'date' }))),
    authored_blind_to_models: Type.Optional(Type.Array(Type.String())),
    source: OptionalString(),
  },
  { ...closed, title: 'ConstructionMetadata' },
);

export const MonotonicityStepSchema = Type.Object(
  {
    family: Type.String(),
    tier: Type.String(),
    tier_index: Type.Integer(),
    expected: Type.Optional(Type.Enum(['non_decreasing', 'non_increasing'], { default: 'non_decreasing' })),
    fixed: OptionalString(),
  },
  { ...closed, title: 'MonotonicityStep' },
);

export const ItemVariationSchema = Type.Enum([
  'base',
  'strengthen',
  'contested',
  'defeat',
  'abstain_anchor',
  'monotonicity_step',
]);
export const ItemPlaceholderSchema = Type.Enum(['good', 'bad', 'abstain', 'contested']);

export const BenchmarkItemSchema = Type.Object(
  {
    id: Type.String(),
    premises: Type.Array(Type.String(), { description: 'Bearer ids in Γ.' }),
    conclusions: Type.Array(Type.String(), { description: 'Bearer ids in Δ.' }),
    analyst_verdicts: Type.Array(VerdictSchema, {
      description: 'One verdict per analyst, in analyst order.',
    }),
    analyst_rationales: Type.Optional(Nullable(Type.Array(Type.String()))),
    tags: Type.Optional(Type.Array(Type.String())),
    rsr_target: Type.Optional(Nullable(RsrTargetSchema)),
    references: Type.Optional(ReferencesSchema),
    factor_levels: Type.Optional(Dict(Type.String())),
    construction_metadata: Type.Optional(Nullable(ConstructionMetadataSchema)),
    ladder: OptionalString(),
    variation: Type.Optional(Nullable(ItemVariationSchema)),
    target: OptionalString(),
    placeholder: Type.Optional(Nullable(ItemPlaceholderSchema)),
    construction_note: OptionalString(),
    monotonicity_step: Type.Optional(Nullable(MonotonicityStepSchema)),
  },
  { ...closed, title: 'BenchmarkItem' },
);

export const TemplateContextBuilderSchema = Type.Object(
  {
    kind: Type.Optional(Type.Literal('template', { default: 'template' })),
    template: Type.Optional(Type.String({ default: '{expressions}' })),
    joiner: Type.Optional(Type.String({ default: ' and ' })),
  },
  { ...closed, title: 'TemplateContextBuilder' },
);

export const PluginContextBuilderSchema = Type.Object(
  {
    kind: Type.Optional(Type.Literal('plugin', { default: 'plugin' })),
    plugin: Type.String({
      description: 'Dotted import path of a Python callable (not runnable by evalkit).',
    }),
  },
  { ...closed, title: 'PluginContextBuilder' },
);

// Both branches are closed and only the plugin branch has `plugin`, so at most one matches: anyOf ≡ oneOf here.
export const ContextBuilderSchema = Type.Union([TemplateContextBuilderSchema, PluginContextBuilderSchema]);

export const ContextBuildersSchema = Type.Object(
  { premise: Type.Optional(ContextBuilderSchema), conclusion: Type.Optional(ContextBuilderSchema) },
  { ...closed, title: 'ContextBuilders' },
);

export const VerificationPromptSchema = Type.Object(
  {
    template: Type.String({ description: 'User template with {premise_context} and {conclusion_context}.' }),
    system: OptionalString(),
    parse_regex: OptionalString(),
    id: OptionalString(),
  },
  { ...closed, title: 'VerificationPromptOverride' },
);

export const FactorConstraintsSchema = Type.Object(
  { min_items_per_cell: Type.Optional(Nullable(Type.Integer())) },
  { ...closed, title: 'FactorConstraints' },
);

export const CopresenceRuleSchema = Type.Object(
  {
    families: Type.Array(Type.String(), { minItems: 2 }),
    exhaustivity: Type.Optional(Type.Boolean({ default: false })),
  },
  { ...closed, title: 'CopresenceRule' },
);

export const EntailmentRuleSchema = Type.Object(
  { antecedent: Type.String(), consequent: Type.String() },
  { ...closed, title: 'EntailmentRule' },
);

export const RegularitySchema = Type.Object(
  { description: Type.String(), test_item_ids: Type.Optional(Type.Array(Type.String())) },
  { ...closed, title: 'Regularity' },
);

export const FactorKindSchema = Type.Enum(['substantive', 'experimentally_controlled']);

export const BenchmarkSchema = Type.Object(
  {
    schema_version: Type.Optional(Type.Literal('1.0', { default: '1.0' })),
    id: Type.String(),
    title: OptionalString(),
    domain: OptionalString(),
    description: OptionalString(),
    bearers: Dict(BearerSchema, { description: 'The bearer set, keyed by bearer id.' }),
    analysts: Type.Array(AnalystSchema, { minItems: 1 }),
    context_builders: Type.Optional(ContextBuildersSchema),
    verification_prompt: Type.Optional(Nullable(VerificationPromptSchema)),
    template_id: OptionalString(),
    coherence_frame_id: OptionalString(),
    items: Type.Array(BenchmarkItemSchema),
    factors: Type.Optional(Dict(Type.Array(Type.String()))),
    factor_constraints: Type.Optional(Nullable(FactorConstraintsSchema)),
    factor_kinds: Type.Optional(Dict(FactorKindSchema)),
    primary_panel: OptionalString(),
    references: Type.Optional(ReferencesSchema),
    ordinal_families: Type.Optional(Dict(Type.Array(Type.String()))),
    copresence_rules: Type.Optional(Type.Array(CopresenceRuleSchema)),
    entailment_rules: Type.Optional(Type.Array(EntailmentRuleSchema)),
    regularities: Type.Optional(Type.Array(RegularitySchema)),
    targets: Type.Optional(Type.Array(Type.String())),
  },
  {
    ...closed,
    title: 'infereval benchmark (beta) 1.0',
    description:
      'A benchmark over a bearer set, an analyst panel and items (implications with analyst verdicts).',
  },
);

/** A benchmark file as written (defaults may be missing). See `Benchmark` for the normalised form. */
export type BenchmarkDocument = Static<typeof BenchmarkSchema>;
export type BenchmarkItemDocument = Static<typeof BenchmarkItemSchema>;
export type BearerDocument = Static<typeof BearerSchema>;
export type AnalystDocument = Static<typeof AnalystSchema>;
export type ContextBuilderDocument = Static<typeof ContextBuilderSchema>;
