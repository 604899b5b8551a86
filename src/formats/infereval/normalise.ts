// What the reference implementation does when it loads a benchmark or an evaluation: bare-string references
// become {citation}, item premise / conclusion / rsr_target sets are de-duplicated and sorted, and every default of
// the 0.17.x field set is filled in (null where the default is null). The input is assumed schema-valid; the
// functions never mutate it.
import { compareCodePoints } from '../../io/canonical.js';
import { isJsonObject, type JsonObject } from '../../io/json-value.js';
import { FRAMEWORK_VERSION_DEFAULT } from './evaluation-schema.js';
import type {
  Analyst,
  Bearer,
  Benchmark,
  BenchmarkItem,
  ContextBuilder,
  EndorsementConfig,
  Evaluation,
  EvaluationItem,
  MajorityVote,
  ModelInfo,
  Reference,
  SampleRecord,
  SampleUsage,
} from './types.js';

const asObject = (v: unknown): JsonObject => (isJsonObject(v) ? v : {});
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const orNull = <T>(v: unknown): T | null => (v === undefined ? null : (v as T));
const or = <T>(v: unknown, fallback: T): T => (v === undefined || v === null ? fallback : (v as T));
const strings = (v: unknown): string[] => asArray(v).map((s) => s as string);
const copyDict = <T>(v: unknown, map: (x: unknown) => T = (x) => x as T): Record<string, T> =>
  Object.fromEntries(Object.entries(asObject(v)).map(([k, x]) => [k, map(x)]));

/** Python's `sorted(set(ids))`: unique, in code-point order. */
export function sortedSet(ids: readonly string[]): string[] {
  return [...new Set(ids)].sort(compareCodePoints);
}

/** A reference as an object: a bare string `s` means `{citation: s}`; absent optional fields become null. */
export function normaliseReference(raw: unknown): Reference {
  const r = typeof raw === 'string' ? { citation: raw } : asObject(raw);
  return {
    citation: r.citation as string,
    doi: orNull(r.doi),
    url: orNull(r.url),
    section: orNull(r.section),
    note: orNull(r.note),
  };
}

export const normaliseReferences = (v: unknown): Reference[] => asArray(v).map(normaliseReference);

/**
 * Promote bare-string references to `{citation}` everywhere a benchmark or evaluation has a references list,
 * leaving everything else as it is. The loader applies this authoring shorthand before schema validation.
 */
export function promoteReferenceShorthand(raw: unknown): unknown {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const promote = (list: unknown): unknown =>
    Array.isArray(list) ? list.map((r) => (typeof r === 'string' ? { citation: r } : r)) : list;
  const withRefs = (o: unknown): unknown => {
    if (o === null || typeof o !== 'object' || Array.isArray(o)) return o;
    const obj = o as JsonObject;
    return 'references' in obj ? { ...obj, references: promote(obj.references) } : obj;
  };
  const doc = withRefs(raw) as JsonObject;
  const out: JsonObject = { ...doc };
  if (Array.isArray(doc.items)) out.items = doc.items.map(withRefs);
  if (isJsonObject(doc.bearers)) {
    out.bearers = Object.fromEntries(Object.entries(doc.bearers).map(([k, b]) => [k, withRefs(b)]));
  }
  return out;
}

function normaliseContextBuilder(raw: unknown, defaultJoiner: string): ContextBuilder {
  if (raw === undefined || raw === null)
    return { kind: 'template', template: '{expressions}', joiner: defaultJoiner };
  const b = asObject(raw);
  if (b.kind === 'plugin' || (b.kind === undefined && 'plugin' in b)) {
    return { kind: 'plugin', plugin: b.plugin as string };
  }
  // A template builder given without a joiner joins with " and " (the model's default), whatever its role.
  return { kind: 'template', template: or(b.template, '{expressions}'), joiner: or(b.joiner, ' and ') };
}

function normaliseBearer(raw: unknown): Bearer {
  const b = asObject(raw);
  return {
    expression: b.expression as string,
    paraphrases: strings(b.paraphrases),
    references: normaliseReferences(b.references),
    ordinal_family: orNull(b.ordinal_family),
  };
}

function normaliseAnalyst(raw: unknown): Analyst {
  const a = asObject(raw);
  return {
    id: a.id as string,
    display_name: orNull(a.display_name),
    notes: orNull(a.notes),
    expertise_description: orNull(a.expertise_description),
    panel: orNull(a.panel),
  };
}

export function normaliseBenchmarkItem(raw: unknown): BenchmarkItem {
  const i = asObject(raw);
  const rsr = i.rsr_target === undefined || i.rsr_target === null ? null : asObject(i.rsr_target);
  const cm =
    i.construction_metadata === undefined || i.construction_metadata === null
      ? null
      : asObject(i.construction_metadata);
  const ms =
    i.monotonicity_step === undefined || i.monotonicity_step === null ? null : asObject(i.monotonicity_step);
  return {
    id: i.id as string,
    premises: sortedSet(strings(i.premises)),
    conclusions: sortedSet(strings(i.conclusions)),
    analyst_verdicts: strings(i.analyst_verdicts) as BenchmarkItem['analyst_verdicts'],
    analyst_rationales: i.analyst_rationales == null ? null : strings(i.analyst_rationales),
    tags: strings(i.tags),
    rsr_target: rsr && { X: sortedSet(strings(rsr.X)), A: sortedSet(strings(rsr.A)) },
    references: normaliseReferences(i.references),
    factor_levels: copyDict<string>(i.factor_levels),
    construction_metadata: cm && {
      authored_by: orNull(cm.authored_by),
      authored_on: orNull(cm.authored_on),
      authored_blind_to_models: strings(cm.authored_blind_to_models),
      source: orNull(cm.source),
    },
    ladder: orNull(i.ladder),
    variation: orNull(i.variation),
    target: orNull(i.target),
    placeholder: orNull(i.placeholder),
    construction_note: orNull(i.construction_note),
    monotonicity_step: ms && {
      family: ms.family as string,
      tier: ms.tier as string,
      tier_index: ms.tier_index as number,
      expected: or(ms.expected, 'non_decreasing'),
      fixed: orNull(ms.fixed),
    },
  };
}

/** The benchmark as the reference holds it after loading: every field present, defaults filled. */
export function normaliseBenchmark(raw: unknown): Benchmark {
  const d = asObject(raw);
  const cb = asObject(d.context_builders);
  const vp = d.verification_prompt == null ? null : asObject(d.verification_prompt);
  const fc = d.factor_constraints == null ? null : asObject(d.factor_constraints);
  return {
    schema_version: '1.0',
    id: d.id as string,
    title: orNull(d.title),
    domain: orNull(d.domain),
    description: orNull(d.description),
    bearers: copyDict(d.bearers, normaliseBearer),
    analysts: asArray(d.analysts).map(normaliseAnalyst),
    context_builders: {
      premise: normaliseContextBuilder(cb.premise, ' and '),
      conclusion: normaliseContextBuilder(cb.conclusion, ' or '),
    },
    verification_prompt: vp && {
      template: vp.template as string,
      system: orNull(vp.system),
      parse_regex: orNull(vp.parse_regex),
      id: orNull(vp.id),
    },
    template_id: orNull(d.template_id),
    coherence_frame_id: orNull(d.coherence_frame_id),
    items: asArray(d.items).map(normaliseBenchmarkItem),
    factors: copyDict(d.factors, strings),
    factor_constraints: fc && { min_items_per_cell: orNull(fc.min_items_per_cell) },
    factor_kinds: copyDict(d.factor_kinds),
    primary_panel: orNull(d.primary_panel),
    references: normaliseReferences(d.references),
    ordinal_families: copyDict(d.ordinal_families, strings),
    copresence_rules: asArray(d.copresence_rules).map((r) => {
      const o = asObject(r);
      return { families: strings(o.families), exhaustivity: or(o.exhaustivity, false) };
    }),
    entailment_rules: asArray(d.entailment_rules).map((r) => {
      const o = asObject(r);
      return { antecedent: o.antecedent as string, consequent: o.consequent as string };
    }),
    regularities: asArray(d.regularities).map((r) => {
      const o = asObject(r);
      return { description: o.description as string, test_item_ids: strings(o.test_item_ids) };
    }),
    targets: strings(d.targets),
  };
}

export const DEFAULT_ENDORSEMENT_CONFIG: Readonly<EndorsementConfig> = Object.freeze({
  n_samples: 5,
  tie_break: 'abstain',
  verification_prompt_id: 'default-v1',
  context_builder_premise_id: 'conjunction-and-v1',
  context_builder_conclusion_id: 'disjunction-or-v1',
  question_form: 'support',
  coherence_frame_id: 'thin-v1',
});

export function normaliseEndorsementConfig(raw: unknown): EndorsementConfig {
  const c = asObject(raw);
  const d = DEFAULT_ENDORSEMENT_CONFIG;
  return {
    n_samples: or(c.n_samples, d.n_samples),
    tie_break: or(c.tie_break, d.tie_break),
    verification_prompt_id: or(c.verification_prompt_id, d.verification_prompt_id),
    context_builder_premise_id: or(c.context_builder_premise_id, d.context_builder_premise_id),
    context_builder_conclusion_id: or(c.context_builder_conclusion_id, d.context_builder_conclusion_id),
    question_form: or(c.question_form, d.question_form),
    coherence_frame_id: or(c.coherence_frame_id, d.coherence_frame_id),
  };
}

export function normaliseModelInfo(raw: unknown): ModelInfo {
  const m = asObject(raw);
  const p = asObject(m.params);
  return {
    provider: m.provider as string,
    model_id: m.model_id as string,
    params: {
      ...p,
      temperature: or(p.temperature, 1.0),
      max_tokens: or(p.max_tokens, 1024),
      top_p: orNull(p.top_p),
      seed: orNull(p.seed),
      stop: strings(p.stop),
    },
  };
}

function normaliseUsage(raw: unknown): SampleUsage | null {
  if (raw === undefined || raw === null) return null;
  const u = asObject(raw);
  return { ...u, input_tokens: orNull(u.input_tokens), output_tokens: orNull(u.output_tokens) };
}

export function normaliseSample(raw: unknown): SampleRecord {
  const s = asObject(raw);
  return {
    sample_index: s.sample_index as number,
    raw_response: s.raw_response as string,
    parsed_verdict: s.parsed_verdict as SampleRecord['parsed_verdict'],
    parse_status: or(s.parse_status, 'ok'),
    request_id: orNull(s.request_id),
    wall_time_ms: orNull(s.wall_time_ms),
    usage: normaliseUsage(s.usage),
    finish_reason: orNull(s.finish_reason),
    reasoning_tokens: orNull(s.reasoning_tokens),
    provider_error: orNull(s.provider_error),
  };
}

function normaliseMajorityVote(raw: unknown): MajorityVote | null {
  if (raw === undefined || raw === null) return null;
  const v = asObject(raw);
  return {
    good: or(v.good, 0),
    bad: or(v.bad, 0),
    abstain: or(v.abstain, 0),
    verdict: v.verdict as MajorityVote['verdict'],
    tie_broken: or(v.tie_broken, false),
  };
}

export function normaliseEvaluationItem(raw: unknown): EvaluationItem {
  const i = asObject(raw);
  return {
    id: i.id as string,
    premises: strings(i.premises),
    conclusions: strings(i.conclusions),
    analyst_verdicts: strings(i.analyst_verdicts) as EvaluationItem['analyst_verdicts'],
    analyst_rationales: i.analyst_rationales == null ? null : strings(i.analyst_rationales),
    model_verdict: i.model_verdict as EvaluationItem['model_verdict'],
    samples: asArray(i.samples).map(normaliseSample),
    majority_vote: normaliseMajorityVote(i.majority_vote),
    tags: strings(i.tags),
    references: normaliseReferences(i.references),
  };
}

/**
 * The evaluation as the reference holds it after loading. A missing `question_form` / `coherence_frame_id` (files
 * written before those fields existed) means "support" / "thin-v1".
 */
export function normaliseEvaluation(raw: unknown): Evaluation {
  const d = asObject(raw);
  return {
    schema_version: '1.0',
    id: d.id as string,
    benchmark_id: d.benchmark_id as string,
    benchmark_hash: orNull(d.benchmark_hash),
    model: normaliseModelInfo(d.model),
    endorsement_config: normaliseEndorsementConfig(d.endorsement_config),
    framework_version: or(d.framework_version, FRAMEWORK_VERSION_DEFAULT),
    started_at: orNull(d.started_at),
    finished_at: orNull(d.finished_at),
    items: asArray(d.items).map(normaliseEvaluationItem),
    references: normaliseReferences(d.references),
    paraphrase_variant: or(d.paraphrase_variant, 0),
  };
}
