/**
 * infereval's `benchmark_hash`: "sha256:" + hex sha256 of the canonical JSON of the normalised benchmark, with every
 * field of the reference's current field set present (defaults filled in), nulls dropped, keys sorted, Python's
 * `json.dumps(sort_keys=True, separators=(",", ":"))` formatting (see io/canonical.ts).
 *
 * The field set below is the reference implementation's 0.17.6 benchmark model, written out as data: for each model,
 * the fields it has and the default a missing field takes. The benchmark model holds no floats, so no number needs
 * Python's float formatting. Adding a field to the reference means one line here (and a new recorded hash).
 */
import { createHash } from 'node:crypto';
import { canonicalJson, compareCodePoints } from '../../io/canonical.js';
import { isObject } from '../../io/json-value.js';

/** How a value of a field is shaped, so defaults can be filled below it. */
type Shape =
  | { kind: 'scalar' }
  | { kind: 'model'; model: string }
  | { kind: 'list'; of: Shape }
  | { kind: 'map'; of: Shape }
  | { kind: 'context-builder' };

interface Field {
  shape: Shape;
  /** The value a missing field takes (deep-copied). Absent = the field is required, nothing to fill. */
  fallback?: unknown;
}

const scalar: Shape = { kind: 'scalar' };
const model = (name: string): Shape => ({ kind: 'model', model: name });
const list = (of: Shape): Shape => ({ kind: 'list', of });
const map = (of: Shape): Shape => ({ kind: 'map', of });
const required = (shape: Shape): Field => ({ shape });
const optional = (shape: Shape, fallback: unknown = null): Field => ({ shape, fallback });
const emptyList = (of: Shape = scalar): Field => ({ shape: list(of), fallback: [] });
const emptyMap = (of: Shape = scalar): Field => ({ shape: map(of), fallback: {} });

/** The field-set version this table reproduces. */
export const BENCHMARK_FIELD_SET = 'v0.17.6';

const DEFAULT_CONTEXT_BUILDERS = {
  premise: { kind: 'template', template: '{expressions}', joiner: ' and ' },
  conclusion: { kind: 'template', template: '{expressions}', joiner: ' or ' },
};

const MODELS: Record<string, Record<string, Field>> = {
  Benchmark: {
    schema_version: optional(scalar, '1.0'),
    id: required(scalar),
    title: optional(scalar),
    domain: optional(scalar),
    description: optional(scalar),
    bearers: required(map(model('Bearer'))),
    analysts: required(list(model('Analyst'))),
    context_builders: optional(model('ContextBuilders'), DEFAULT_CONTEXT_BUILDERS),
    verification_prompt: optional(model('VerificationPromptOverride')),
    template_id: optional(scalar),
    coherence_frame_id: optional(scalar),
    items: required(list(model('Item'))),
    factors: emptyMap(list(scalar)),
    factor_constraints: optional(model('FactorConstraints')),
    factor_kinds: emptyMap(),
    primary_panel: optional(scalar),
    references: emptyList(model('Reference')),
    ordinal_families: emptyMap(list(scalar)),
    copresence_rules: emptyList(model('CopresenceRule')),
    entailment_rules: emptyList(model('EntailmentRule')),
    regularities: emptyList(model('Regularity')),
    targets: emptyList(),
  },
  Bearer: {
    expression: required(scalar),
    paraphrases: emptyList(),
    references: emptyList(model('Reference')),
    ordinal_family: optional(scalar),
  },
  Analyst: {
    id: required(scalar),
    display_name: optional(scalar),
    notes: optional(scalar),
    expertise_description: optional(scalar),
    panel: optional(scalar),
  },
  Item: {
    id: required(scalar),
    premises: required(list(scalar)),
    conclusions: required(list(scalar)),
    analyst_verdicts: required(list(scalar)),
    analyst_rationales: optional(list(scalar)),
    tags: emptyList(),
    rsr_target: optional(model('RSRTarget')),
    references: emptyList(model('Reference')),
    factor_levels: emptyMap(),
    construction_metadata: optional(model('ConstructionMetadata')),
    ladder: optional(scalar),
    variation: optional(scalar),
    target: optional(scalar),
    placeholder: optional(scalar),
    construction_note: optional(scalar),
    monotonicity_step: optional(model('MonotonicityStep')),
  },
  ContextBuilders: {
    premise: optional({ kind: 'context-builder' }, DEFAULT_CONTEXT_BUILDERS.premise),
    conclusion: optional({ kind: 'context-builder' }, DEFAULT_CONTEXT_BUILDERS.conclusion),
  },
  TemplateContextBuilder: {
    kind: optional(scalar, 'template'),
    template: optional(scalar, '{expressions}'),
    joiner: optional(scalar, ' and '),
  },
  PluginContextBuilder: { kind: optional(scalar, 'plugin'), plugin: required(scalar) },
  VerificationPromptOverride: {
    template: required(scalar),
    system: optional(scalar),
    parse_regex: optional(scalar),
    id: optional(scalar),
  },
  FactorConstraints: { min_items_per_cell: optional(scalar) },
  Reference: {
    citation: required(scalar),
    doi: optional(scalar),
    url: optional(scalar),
    section: optional(scalar),
    note: optional(scalar),
  },
  CopresenceRule: { families: required(list(scalar)), exhaustivity: optional(scalar, false) },
  EntailmentRule: { antecedent: required(scalar), consequent: required(scalar) },
  Regularity: { description: required(scalar), test_item_ids: emptyList() },
  RSRTarget: { X: required(list(scalar)), A: required(list(scalar)) },
  ConstructionMetadata: {
    authored_by: optional(scalar),
    authored_on: optional(scalar),
    authored_blind_to_models: emptyList(),
    source: optional(scalar),
  },
  MonotonicityStep: {
    family: required(scalar),
    tier: required(scalar),
    tier_index: required(scalar),
    expected: optional(scalar, 'non_decreasing'),
    fixed: optional(scalar),
  },
};

/** Sorted, de-duplicated copy of a list of strings (the reference's `sorted(set(...))`). */
function sortedSet(v: unknown): unknown {
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return v;
  return [...new Set(v as string[])].sort(compareCodePoints);
}

function fill(value: unknown, shape: Shape): unknown {
  if (value === null || value === undefined) return value;
  switch (shape.kind) {
    case 'scalar':
      return value;
    case 'list':
      return Array.isArray(value) ? value.map((v) => fill(v, shape.of)) : value;
    case 'map':
      return isObject(value)
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, shape.of)]))
        : value;
    case 'context-builder': {
      if (!isObject(value)) return value;
      const name = value.kind === 'plugin' ? 'PluginContextBuilder' : 'TemplateContextBuilder';
      return fillModel(value, name);
    }
    case 'model':
      if (shape.model === 'Reference' && typeof value === 'string')
        return fillModel({ citation: value }, 'Reference');
      return isObject(value) ? fillModel(value, shape.model) : value;
  }
}

function fillModel(value: Record<string, unknown>, name: string): Record<string, unknown> {
  const fields = MODELS[name];
  const out: Record<string, unknown> = { ...value };
  for (const [key, field] of Object.entries(fields)) {
    if (key in value) out[key] = fill(value[key], field.shape);
    else if ('fallback' in field) out[key] = structuredClone(field.fallback);
  }
  if (name === 'Item') {
    out.premises = sortedSet(out.premises);
    out.conclusions = sortedSet(out.conclusions);
  }
  if (name === 'RSRTarget') {
    out.X = sortedSet(out.X);
    out.A = sortedSet(out.A);
  }
  return out;
}

function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (isObject(value))
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== null && v !== undefined)
        .map(([k, v]) => [k, dropNulls(v)]),
    );
  return value;
}

/** The benchmark as the reference hashes it: normalised, defaults filled, nulls dropped. */
export function benchmarkHashInput(benchmark: Record<string, unknown>): Record<string, unknown> {
  return dropNulls(fillModel(benchmark, 'Benchmark')) as Record<string, unknown>;
}

/** The canonical JSON text the hash is taken over. */
export function benchmarkCanonicalJson(benchmark: Record<string, unknown>): string {
  return canonicalJson(benchmarkHashInput(benchmark));
}

/** `sha256:<hex>` of the benchmark, byte-compatible with the reference implementation. */
export function benchmarkHash(benchmark: Record<string, unknown>): string {
  return `sha256:${createHash('sha256').update(benchmarkCanonicalJson(benchmark), 'utf8').digest('hex')}`;
}
