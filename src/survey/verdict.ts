/**
 * Decoding a survey answer back to a verdict. The survey shows three choices whose first word is the key; the rest
 * of the label ("Good — follows from premises") is decoration the decode ignores, as the reference does:
 *
 * | question form | choice      | verdict |
 * |---------------|-------------|---------|
 * | support       | Good …      | good    |
 * | support       | Bad …       | bad     |
 * | support       | Abstain …   | abstain |
 * | coherence     | Incoherent … | good   |
 * | coherence     | Coherent …  | bad     |
 * | coherence     | Unclear …   | abstain |
 *
 * The coherence inversion puts a human's answer on the same good/bad/abstain scale as the model's coherence verdict
 * (an incoherent position Γ ∪ ¬Δ means Γ supports Δ). The first word is read up to the first character that is not
 * a letter, so "Good—follows" (no space before the dash) decodes too; the reference needed a space.
 */
import { DataError } from '../errors.js';
import type { Verdict } from '../formats/infereval/types.js';
import type { QuestionForm } from './mapping.js';

export const CHOICE_KEYS: Record<QuestionForm, Readonly<Record<string, Verdict>>> = {
  support: { good: 'good', bad: 'bad', abstain: 'abstain' },
  coherence: { incoherent: 'good', coherent: 'bad', unclear: 'abstain' },
};

/** The verdict a choice label means under `form`, or undefined when its first word is none of the three keys. */
export function verdictFromChoice(text: string, form: QuestionForm): Verdict | undefined {
  const word = /^\s*([\p{L}]+)/u.exec(text)?.[1]?.toLowerCase();
  return word === undefined ? undefined : CHOICE_KEYS[form][word];
}

/** Where a cell came from, for the error message: the respondent and the column (and file:line for a CSV). */
export interface CellOrigin {
  /** `responses.csv:7` or `SurveyMonkey response 1234` */
  where: string;
  respondent: string;
  column: string;
}

/** verdictFromChoice, or a DataError `survey.unknown-choice` naming the respondent, the column and the text. */
export function decodeChoice(text: string, form: QuestionForm, origin: CellOrigin): Verdict {
  const verdict = verdictFromChoice(text, form);
  if (verdict !== undefined) return verdict;
  const words = Object.keys(CHOICE_KEYS[form]).map((w) => w[0].toUpperCase() + w.slice(1));
  const other: QuestionForm = form === 'support' ? 'coherence' : 'support';
  const hint =
    verdictFromChoice(text, other) !== undefined
      ? `; this is a ${other} answer: import it as the ${other} question`
      : /^\s*\d+\s*$/.test(text)
        ? '; the export holds choice numbers: export the responses again with choice text'
        : '';
  return fail(
    `${origin.where}: respondent ${JSON.stringify(origin.respondent)}, column ${JSON.stringify(origin.column)}: ` +
      `unrecognised choice ${JSON.stringify(text)} for the ${form} question (expected a label starting with ${words.join(', ')})${hint}`,
  );
}

function fail(message: string): never {
  throw new DataError('survey.unknown-choice', message);
}
