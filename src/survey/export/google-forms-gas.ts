/**
 * Google Forms as a Google Apps Script: the person pastes the `.gs` file into script.google.com, runs `createForm()`
 * and reads the form's URLs from the execution log (Apps Script runs in their own account: no OAuth client to set up).
 * The form: the expertise question first, then per item a page headed `Item N of M` whose description is the full
 * question, a required multiple-choice question `Item N verdict` and, with rationales, `Item N rationale (optional)`.
 * Those short titles become the responses Sheet's column headers, which `survey import --from google-forms-csv`
 * resolves through the sidecar. Google Forms cannot shuffle part of a form (shuffling would move the expertise
 * question too), so items keep their order and the export says so.
 *
 * Every text goes into the script as a JSON string literal with U+2028/U+2029 and `<` escaped as well, so no item
 * text can end a string or the script.
 */
import type { SurveyPlan } from '../render.js';
import { questionText } from '../render.js';

export interface GasOptions {
  title: string;
  expertisePrompt: string;
  includeRationales: boolean;
  randomizeItems: boolean;
}

/** A JavaScript string literal for any text. */
export function jsString(text: string): string {
  return JSON.stringify(text).replace(
    /[\u2028\u2029<]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

export function googleFormsScript(plan: SurveyPlan, options: GasOptions): string {
  const n = plan.questions.length;
  const lines = [
    '/**',
    ` * Made by evalkit survey export for benchmark ${jsString(plan.benchmarkId).slice(1, -1).replace(/\*\//g, '*\\/')}`,
    ` * (${plan.questionForm} question, frame ${plan.frameId}, ${n} items).`,
    ' *',
    ' * Paste this file into a new project at https://script.google.com, run createForm(), allow it when asked, and',
    " * read the form's URLs from the execution log.",
  ];
  if (options.randomizeItems)
    lines.push(
      ' *',
      ' * Item order is not randomised: Google Forms can only shuffle a whole form, which would move the expertise',
      ' * question too. Every respondent sees the items in this order.',
    );
  lines.push(
    ' */',
    'function createForm() {',
    `  var form = FormApp.create(${jsString(options.title)});`,
    '  form.setProgressBar(true);',
    '  form.setCollectEmail(false);',
    '',
    '  // The expertise question, first.',
    `  form.addParagraphTextItem().setTitle(${jsString(options.expertisePrompt)}).setRequired(false);`,
  );
  for (const q of plan.questions) {
    lines.push(
      '',
      `  // Item ${q.number}: ${jsString(q.itemId).slice(1, -1)}`,
      `  form.addPageBreakItem().setTitle(${jsString(`Item ${q.number} of ${n}`)}).setHelpText(${jsString(questionText(q))});`,
      `  form.addMultipleChoiceItem().setTitle(${jsString(`Item ${q.number} verdict`)}).setChoiceValues(${JSON.stringify(
        q.choices,
      )}).setRequired(true);`,
    );
    if (options.includeRationales)
      lines.push(
        `  form.addParagraphTextItem().setTitle(${jsString(`Item ${q.number} rationale (optional)`)}).setHelpText(${jsString(
          plan.rationalePrompt,
        )}).setRequired(false);`,
      );
  }
  lines.push(
    '',
    "  Logger.log('Form created: ' + form.getPublishedUrl());",
    "  Logger.log('Edit: ' + form.getEditUrl());",
    '}',
    '',
  );
  return lines.join('\n');
}
