/**
 * The items as a sheet, for building the survey by hand in any tool (SurveyMonkey, a paper form): one row per item
 * with the question text, the three choices, and the titles to give the questions — `Item N verdict` and
 * `Item N rationale (optional)`, the titles `survey import --from google-forms-csv|surveymonkey-csv` resolve through
 * the sidecar. RFC 4180: every field quoted, CRLF line ends, so spreadsheets keep the line breaks inside texts.
 */
import type { SurveyPlan } from '../render.js';
import { questionText } from '../render.js';

export const CSV_COLUMNS = [
  'item_number',
  'item_id',
  'verdict_title',
  'rationale_title',
  'question_text',
  'choice_1',
  'choice_2',
  'choice_3',
  'question_form',
  'frame_id',
] as const;

const field = (v: string): string => `"${v.replace(/"/g, '""')}"`;

export function itemsSheet(plan: SurveyPlan, options: { includeRationales: boolean }): string {
  const rows = plan.questions.map((q) => [
    String(q.number),
    q.itemId,
    `Item ${q.number} verdict`,
    options.includeRationales ? `Item ${q.number} rationale (optional)` : '',
    questionText(q),
    ...q.choices,
    plan.questionForm,
    plan.frameId,
  ]);
  return [CSV_COLUMNS as readonly string[], ...rows].map((r) => r.map(field).join(',')).join('\r\n') + '\r\n';
}
