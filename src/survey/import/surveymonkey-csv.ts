/**
 * SurveyMonkey's CSV (Analyze Results → Save as → Export file → All responses data, CSV, "Original view", actual
 * answer text). Row 1 holds SurveyMonkey's columns (Respondent ID, Collector ID, Start Date, …) and the question
 * headings; row 2 is a sub-header ("Response", "Open-Ended Response") under each question, blank under SurveyMonkey's
 * own columns. The reference recognised row 2 only when its first cell read "Response", which a real export's
 * blank Respondent ID cell never does; here any row without a respondent id whose cells are sub-header words is
 * skipped. The CSV does not say whether a response was completed: every row counts as finished, and the completeness
 * check (a verdict on every item) does the rest.
 */
import { DataError } from '../../errors.js';
import type { CsvRecord } from '../../io/csv-reader.js';
import type { QuestionForm } from '../mapping.js';
import type { SurveyRespondent } from '../respondent.js';
import { checkColumns, columnIndex, readAnswers, requireColumn, type SurveyKey } from './columns.js';
import { titleRoles } from './title-columns.js';

const STOCK = new Set([
  'Respondent ID',
  'Collector ID',
  'Start Date',
  'End Date',
  'IP Address',
  'Email Address',
  'First Name',
  'Last Name',
  'Custom Data 1',
]);

const SUBHEADER = /^(response|open-ended response|other \(please specify\))$/i;

export function parseSurveyMonkeyCsv(
  records: readonly CsvRecord[],
  key: SurveyKey,
  form: QuestionForm,
  file: string,
): { respondents: SurveyRespondent[]; ignoredColumns: string[] } {
  const rows = records.filter((r) => r.fields.some((f) => f.trim() !== ''));
  if (rows.length === 0) throw new DataError('survey.empty', `${file}: the file is empty`);
  const header = rows[0].fields;
  const idCol = requireColumn(header, 'Respondent ID', file, 'SurveyMonkey');
  const startCol = columnIndex(header, 'Start Date');
  const { roles, ignoredColumns } = titleRoles(header, STOCK, key, file);
  checkColumns(header, roles, key, file, (_row, n) => `Item ${n} verdict`);
  const respondents: SurveyRespondent[] = [];
  for (const record of rows.slice(1)) {
    const cells = record.fields;
    const responseId = (cells[idCol] ?? '').trim();
    const where = `${file}:${record.line}`;
    if (responseId === '' || SUBHEADER.test(responseId)) {
      const subheader = cells.every((c) => c.trim() === '' || SUBHEADER.test(c.trim()));
      if (subheader) continue;
      throw new DataError('survey.bad-cell', `${where}: column "Respondent ID" is blank`);
    }
    respondents.push({
      responseId,
      startedAt: startCol >= 0 ? (cells[startCol] ?? '').trim() || null : null,
      finished: true,
      ...readAnswers(cells, header, roles, form, where, responseId),
      origin: where,
    });
  }
  return { respondents, ignoredColumns };
}
