/**
 * The prompts of the infereval endorsement task: context builders, the support form and the coherence form.
 * Pure functions; the golden vectors pin their exact strings.
 */
import { DataError, UsageError } from '../../errors.js';
import { compareCodePoints } from '../../io/canonical.js';
import { BUILTIN_COHERENCE_FRAMES, coherenceFrame } from './coherence-frames.js';
import type { Verdict } from './common.js';

export type QuestionForm = 'support' | 'coherence';

/** The part of a benchmark the prompts read (the full type is `Benchmark`, types.ts). */
export interface BenchmarkBearer {
  expression: string;
  paraphrases?: string[];
}

export interface TemplateBuilder {
  kind?: 'template';
  template?: string;
  joiner?: string;
}

export interface BenchmarkLike {
  id: string;
  bearers: Record<string, BenchmarkBearer>;
  analysts: unknown[];
  items: BenchmarkItemLike[];
  context_builders?: {
    premise?: TemplateBuilder | { kind: 'plugin'; plugin: string };
    conclusion?: TemplateBuilder | { kind: 'plugin'; plugin: string };
  } | null;
  verification_prompt?: {
    template: string;
    system?: string | null;
    parse_regex?: string | null;
    id?: string | null;
  } | null;
  coherence_frame_id?: string | null;
  references?: unknown[];
}

export interface BenchmarkItemLike {
  id: string;
  premises: string[];
  conclusions: string[];
  analyst_verdicts: Verdict[];
  analyst_rationales?: string[] | null;
  tags?: string[];
  references?: unknown[];
}

export const DEFAULT_SYSTEM_PROMPT =
  'You are evaluating whether an inference from premises to a conclusion is good, bad, or whether you should abstain.\n\n' +
  'Answer with exactly one of: GOOD, BAD, ABSTAIN. No other text.\n\n' +
  'GOOD means the conclusion follows from the premises in everyday reasoning.\n' +
  'BAD means the premises do not support the conclusion.\n' +
  'ABSTAIN means the question is ill-formed, ambiguous, or you cannot judge.';

export const DEFAULT_USER_TEMPLATE =
  'Premises: {premise_context}\nConclusion: {conclusion_context}\nVerdict:';
export const DEFAULT_PARSE_REGEX = '\\b(GOOD|BAD|ABSTAIN)\\b';
export const COHERENCE_PARSE_REGEX = '\\b(INCOHERENT|COHERENT|UNCLEAR)\\b';
export const DEFAULT_PROMPT_ID = 'default-v1';
export const DEFAULT_PREMISE_BUILDER_ID = 'conjunction-and-v1';
export const DEFAULT_CONCLUSION_BUILDER_ID = 'disjunction-or-v1';
/** The ids of the built-in coherence frames (src/run/coherence-frames.ts). */
export const COHERENCE_FRAMES: readonly string[] = BUILTIN_COHERENCE_FRAMES.map((f) => f.id);

export interface PromptOptions {
  questionForm: QuestionForm;
  coherenceFrameId: string;
  paraphraseVariant: number;
  stripTex: boolean;
}

export interface Prompt {
  system: string | null;
  user: string;
}

/** What the prompts of a benchmark are made of, resolved once per run. */
export interface PromptPlan {
  options: PromptOptions;
  promptId: string;
  premiseBuilderId: string;
  conclusionBuilderId: string;
  parseRegex: string;
  /** 'marker' applies the committed-verdict rules (support form); 'first' takes the first match (coherence). */
  parseMode: 'marker' | 'first';
  build(item: BenchmarkItemLike): Prompt;
}

/** Replaces each `$…$` span by its content. */
export function stripTex(text: string): string {
  return text.replace(/\$([^$]*)\$/g, '$1');
}

/** 1 + the largest number of paraphrases any bearer has. */
export function paraphraseVariantCount(benchmark: Pick<BenchmarkLike, 'bearers'>): number {
  let max = 0;
  for (const bearer of Object.values(benchmark.bearers)) max = Math.max(max, bearer.paraphrases?.length ?? 0);
  return 1 + max;
}

/** The expressions of the given bearers, in sorted bearer-id order, for one paraphrase variant. */
export function expressionsFor(
  ids: readonly string[],
  bearers: BenchmarkLike['bearers'],
  variant: number,
  strip: boolean,
): string[] {
  return [...ids].sort(compareCodePoints).map((id) => {
    const bearer = bearers[id];
    if (bearer === undefined)
      throw new DataError('run.unknown-bearer', `bearer "${id}" is not declared in bearers`);
    const text = variant >= 1 ? (bearer.paraphrases?.[variant - 1] ?? bearer.expression) : bearer.expression;
    return strip ? stripTex(text) : text;
  });
}

function templateBuilder(
  builder: TemplateBuilder | { kind: 'plugin'; plugin: string } | undefined,
  defaultJoiner: string,
  side: string,
): { template: string; joiner: string; isDefault: boolean } {
  if (builder === undefined) return { template: '{expressions}', joiner: defaultJoiner, isDefault: true };
  if (builder.kind === 'plugin') {
    throw new UsageError(
      'run.plugin-builder',
      `the ${side} context builder is a Python plugin (${(builder as { plugin: string }).plugin}); only template builders can run here`,
    );
  }
  const template = builder.template ?? '{expressions}';
  const joiner = builder.joiner ?? ' and ';
  return { template, joiner, isDefault: template === '{expressions}' && joiner === defaultJoiner };
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(premise_context|conclusion_context|expressions)\}/g, (whole, key: string) =>
    key in values ? values[key] : whole,
  );
}

/**
 * The coherence-form user prompt (the framework-default-v1 template): commit to Γ, deny nothing (|Δ| = 0), Δ's one
 * member, or every one of several. The frame only sets the system prompt.
 */
export function coherencePrompt(premiseContext: string, conclusionExpressions: readonly string[]): string {
  const commit = `Consider a position that commits to the following: ${premiseContext}`;
  const position =
    conclusionExpressions.length === 0
      ? `${commit}.`
      : conclusionExpressions.length === 1
        ? `${commit}; and denies: ${conclusionExpressions[0]}.`
        : `${commit}; and denies every one of: ${conclusionExpressions.join('; ')}.`;
  return `${position}\nIs this position coherent? Answer COHERENT, INCOHERENT, or UNCLEAR.`;
}

export function planPrompts(benchmark: BenchmarkLike, options: PromptOptions): PromptPlan {
  const variants = paraphraseVariantCount(benchmark);
  if (
    !Number.isInteger(options.paraphraseVariant) ||
    options.paraphraseVariant < 0 ||
    options.paraphraseVariant >= variants
  ) {
    throw new UsageError(
      'run.paraphrase-variant',
      `paraphrase variant ${options.paraphraseVariant} does not exist: this benchmark has variants 0..${variants - 1}`,
    );
  }
  const premise = templateBuilder(benchmark.context_builders?.premise, ' and ', 'premise');
  const conclusion = templateBuilder(benchmark.context_builders?.conclusion, ' or ', 'conclusion');
  const premiseBuilderId = premise.isDefault ? DEFAULT_PREMISE_BUILDER_ID : 'template-v1';
  const conclusionBuilderId = conclusion.isDefault ? DEFAULT_CONCLUSION_BUILDER_ID : 'template-v1';
  const premiseContext = (item: BenchmarkItemLike): string =>
    fill(premise.template, {
      expressions: expressionsFor(
        item.premises,
        benchmark.bearers,
        options.paraphraseVariant,
        options.stripTex,
      ).join(premise.joiner),
    });

  if (options.questionForm === 'coherence') {
    const frame = coherenceFrame(options.coherenceFrameId);
    return {
      options,
      promptId: `framework-default-v1:coherence:${options.coherenceFrameId}`,
      premiseBuilderId,
      conclusionBuilderId,
      parseRegex: COHERENCE_PARSE_REGEX,
      parseMode: 'first',
      build(item) {
        const denied = expressionsFor(
          item.conclusions,
          benchmark.bearers,
          options.paraphraseVariant,
          options.stripTex,
        );
        return { system: frame.system, user: coherencePrompt(premiseContext(item), denied) };
      },
    };
  }

  const override = benchmark.verification_prompt ?? null;
  const template = override?.template ?? DEFAULT_USER_TEMPLATE;
  const system = override?.system ?? DEFAULT_SYSTEM_PROMPT;
  return {
    options,
    promptId: override ? (override.id ?? 'benchmark-override') : DEFAULT_PROMPT_ID,
    premiseBuilderId,
    conclusionBuilderId,
    parseRegex: override?.parse_regex ?? DEFAULT_PARSE_REGEX,
    parseMode: 'marker',
    build(item) {
      if (item.conclusions.length !== 1) {
        throw new DataError(
          'run.support-needs-one-conclusion',
          `item "${item.id}" has ${item.conclusions.length} conclusions; the support form needs exactly one (the coherence form takes several)`,
        );
      }
      const conclusionContext = fill(conclusion.template, {
        expressions: expressionsFor(
          item.conclusions,
          benchmark.bearers,
          options.paraphraseVariant,
          options.stripTex,
        ).join(conclusion.joiner),
      });
      return {
        system,
        user: fill(template, {
          premise_context: premiseContext(item),
          conclusion_context: conclusionContext,
        }),
      };
    },
  };
}
