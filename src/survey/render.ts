/**
 * One survey question per benchmark item, the same for every platform: a header (the question the frame asks), a
 * body (the item's premises and conclusion), three choices whose first word is the key `survey import` decodes
 * (verdict.ts), and the frame id the sidecar records. Platform quirks (HTML, Apps Script, columns) live in the
 * exporters, not here.
 *
 * - support: the infereval reference's locked v0.9.0 header and Good / Bad / Abstain; single-conclusion items only.
 *   The frame id is `default-v1`, the header people read (a benchmark's own verification prompt has no survey wording
 *   in the 1.0 field set, so its surveys use this header too, and the export says so).
 * - coherence: the frame's survey header (`--coherence-frame`, else the benchmark's `coherence_frame_id`, else
 *   thin-v1) and Coherent / Incoherent / Unclear; the body is the same commit/deny text the model is shown
 *   (the benchmark's context builders included), so people and model answer one question at any number of conclusions.
 */
import { DataError } from '../errors.js';
import type { Benchmark, BenchmarkItem } from '../formats/infereval/types.js';
import { coherenceFrame, THIN_COHERENCE_FRAME } from '../formats/infereval/coherence-frames.js';
import { expressionsFor, planPrompts } from '../formats/infereval/prompts.js';
import type { QuestionForm, SurveyMappingRow } from './mapping.js';
import { exportTag } from './tags.js';

export const SUPPORT_HEADER =
  'Given the following premises, is the conclusion a good diagnostic inference, a bad one, or are you unable to judge?';
export const SUPPORT_CHOICES = [
  'Good \u2014 follows from premises',
  'Bad \u2014 does not follow',
  'Abstain \u2014 cannot judge',
] as const;
export const COHERENCE_CHOICES = [
  'Coherent \u2014 the position can be held without conflict',
  'Incoherent \u2014 the position is untenable',
  'Unclear \u2014 cannot judge',
] as const;
export const SUPPORT_FRAME_ID = 'default-v1';

export const SUPPORT_RATIONALE_PROMPT =
  'Optional: briefly explain why you chose that verdict (especially helpful if you abstained or rated bad).';
export const COHERENCE_RATIONALE_PROMPT =
  'Optional: briefly explain why you chose that verdict (especially helpful if you chose Unclear or found the position untenable).';
export const DEFAULT_EXPERTISE_PROMPT =
  'Briefly describe your clinical or domain expertise relevant to these inferences \u2014 your specialty, years in practice, role, and any board certifications.';

export interface SurveyQuestion {
  itemId: string;
  /** 1-based position in the export. */
  number: number;
  tag: string;
  wasHashed: boolean;
  header: string;
  body: string;
  choices: readonly string[];
}

export interface SurveyPlan {
  benchmarkId: string;
  questionForm: QuestionForm;
  frameId: string;
  questions: SurveyQuestion[];
  rationalePrompt: string;
  /** Things the person exporting should know (e.g. a verification prompt without survey wording). */
  warnings: string[];
}

export interface SurveyRenderOptions {
  questionForm?: QuestionForm;
  /** A built-in coherence frame id (coherence form only). */
  coherenceFrame?: string;
}

/** The header and body as one text: what a platform shows for an item. */
export const questionText = (q: Pick<SurveyQuestion, 'header' | 'body'>): string =>
  `${q.header}\n\n${q.body}`;

function bullets(ids: readonly string[], benchmark: Benchmark): string[] {
  return expressionsFor(ids, benchmark.bearers, 0, true).map((text) => `- ${text.trim()}`);
}

/** Every item of the benchmark as a survey question. Errors (unknown frame, support on several conclusions) first. */
export function planSurvey(benchmark: Benchmark, options: SurveyRenderOptions = {}): SurveyPlan {
  const form = options.questionForm ?? 'support';
  const warnings: string[] = [];
  if (options.coherenceFrame !== undefined && form !== 'coherence')
    throw new DataError(
      'survey.frame-without-coherence',
      `a coherence frame (${options.coherenceFrame}) applies to the coherence question only; this export asks the support question`,
    );
  let header: string;
  let frameId: string;
  let body: (item: BenchmarkItem) => string;
  if (form === 'coherence') {
    const frame = coherenceFrame(
      options.coherenceFrame ?? benchmark.coherence_frame_id ?? THIN_COHERENCE_FRAME.id,
    );
    header = frame.surveyHeader;
    frameId = frame.id;
    const prompts = planPrompts(benchmark, {
      questionForm: 'coherence',
      coherenceFrameId: frame.id,
      paraphraseVariant: 0,
      stripTex: true,
    });
    body = (item) => prompts.build(item).user;
  } else {
    const several = benchmark.items.find((i) => i.conclusions.length !== 1);
    if (several)
      throw new DataError(
        'survey.support-needs-one-conclusion',
        `item "${several.id}" has ${several.conclusions.length} conclusions; the support question takes exactly one (export the coherence question instead)`,
      );
    header = SUPPORT_HEADER;
    frameId = SUPPORT_FRAME_ID;
    if (benchmark.verification_prompt !== null)
      warnings.push(
        `the benchmark binds its own verification prompt (${benchmark.verification_prompt.id ?? 'unnamed'}), which has no survey wording: people are asked the default-v1 support question, so the model and the survey frames differ`,
      );
    body = (item) =>
      [
        'Premises:',
        ...bullets(item.premises, benchmark),
        '',
        'Conclusion:',
        ...bullets(item.conclusions, benchmark),
      ].join('\n');
  }
  const tags = new Map<string, string>();
  const questions = benchmark.items.map((item, i): SurveyQuestion => {
    const { tag, wasHashed } = exportTag(item.id);
    const other = tags.get(tag);
    if (other !== undefined)
      throw new DataError(
        'survey.tag-collision',
        `items "${other}" and "${item.id}" get the same column tag "${tag}"; rename one of them`,
      );
    tags.set(tag, item.id);
    return {
      itemId: item.id,
      number: i + 1,
      tag,
      wasHashed,
      header,
      body: body(item),
      choices: form === 'coherence' ? COHERENCE_CHOICES : SUPPORT_CHOICES,
    };
  });
  return {
    benchmarkId: benchmark.id,
    questionForm: form,
    frameId,
    questions,
    rationalePrompt: form === 'coherence' ? COHERENCE_RATIONALE_PROMPT : SUPPORT_RATIONALE_PROMPT,
    warnings,
  };
}

/** The sidecar rows of an export (one per item, in export order). */
export function mappingRows(plan: SurveyPlan, includeRationales: boolean): SurveyMappingRow[] {
  return plan.questions.map((q) => ({
    item_id: q.itemId,
    verdict_data_export_tag: q.tag,
    rationale_data_export_tag: includeRationales ? `${q.tag}_rationale` : null,
    was_hashed: q.wasHashed,
    question_form: plan.questionForm,
    frame_id: plan.frameId,
  }));
}
