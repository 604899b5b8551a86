/**
 * `survey export` as a library call: plan the questions (render.ts), make the platform's artifact and the sidecar
 * rows. Writing them is the caller's (the CLI writes atomically after its output checks).
 */
import type { Benchmark } from '../../formats/infereval/types.js';
import type { SurveyMappingRow } from '../mapping.js';
import { DEFAULT_EXPERTISE_PROMPT, mappingRows, planSurvey, type SurveyRenderOptions } from '../render.js';
import { itemsSheet } from './csv.js';
import { googleFormsScript } from './google-forms-gas.js';
import { qualtricsSurvey } from './qualtrics-qsf.js';

export const EXPORT_TARGETS = ['qualtrics-qsf', 'google-forms-gas', 'csv'] as const;
export type ExportTarget = (typeof EXPORT_TARGETS)[number];

export interface SurveyExportOptions extends SurveyRenderOptions {
  to: ExportTarget;
  /** Default: "Analyst recruitment for <benchmark id>". */
  title?: string;
  expertisePrompt?: string;
  /** Default true. */
  includeRationales?: boolean;
  /** Default true (Qualtrics: the item blocks are shuffled; Google Forms cannot, and says so). */
  randomizeItems?: boolean;
}

export interface SurveyExport {
  /** The artifact's text (.qsf JSON, .gs script, or CSV). */
  text: string;
  mapping: SurveyMappingRow[];
  summary: {
    to: ExportTarget;
    benchmark_id: string;
    items: number;
    question_form: SurveyMappingRow['question_form'];
    frame_id: string;
    randomized: boolean;
    rationales: boolean;
    warnings: string[];
  };
}

export function exportSurvey(benchmark: Benchmark, options: SurveyExportOptions): SurveyExport {
  const plan = planSurvey(benchmark, options);
  const includeRationales = options.includeRationales ?? true;
  const randomizeItems = options.randomizeItems ?? true;
  const common = {
    title: options.title ?? `Analyst recruitment for ${benchmark.id}`,
    expertisePrompt: options.expertisePrompt ?? DEFAULT_EXPERTISE_PROMPT,
    includeRationales,
    randomizeItems,
  };
  const warnings = [...plan.warnings];
  let text: string;
  let randomized = false;
  if (options.to === 'qualtrics-qsf') {
    text = `${JSON.stringify(qualtricsSurvey(plan, common), null, 2)}\n`;
    randomized = randomizeItems && plan.questions.length > 1;
  } else if (options.to === 'google-forms-gas') {
    text = googleFormsScript(plan, common);
    if (randomizeItems)
      warnings.push(
        'Google Forms cannot shuffle part of a form (it would move the expertise question too): items keep their order',
      );
  } else {
    text = itemsSheet(plan, { includeRationales });
  }
  return {
    text,
    mapping: mappingRows(plan, includeRationales),
    summary: {
      to: options.to,
      benchmark_id: benchmark.id,
      items: plan.questions.length,
      question_form: plan.questionForm,
      frame_id: plan.frameId,
      randomized,
      rationales: includeRationales,
      warnings,
    },
  };
}
