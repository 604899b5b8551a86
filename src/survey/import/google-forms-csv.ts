/**
 * Google Forms' CSV (the responses Sheet → File → Download → CSV). One header row: the question titles, after
 * Google's Timestamp (and Email Address / Score when the form collects them). Google gives no response id, so a
 * respondent is `row<N>`, N the record's row in the Sheet (the header is row 1): stable as long as rows are not
 * deleted from the Sheet. Every Google Forms response is a submitted, finished one.
 */
import { DataError } from '../../errors.js';
import type { CsvRecord } from '../../io/csv-reader.js';
import type { QuestionForm } from '../mapping.js';
import type { SurveyRespondent } from '../respondent.js';
import { checkColumns, columnIndex, readAnswers, type SurveyKey } from './columns.js';
import { titleRoles } from './title-columns.js';

const STOCK = new Set(['Timestamp', 'Email Address', 'Email address', 'Score', 'Username']);

export function parseGoogleFormsCsv(
  records: readonly CsvRecord[],
  key: SurveyKey,
  form: QuestionForm,
  file: string,
): { respondents: SurveyRespondent[]; ignoredColumns: string[] } {
  if (records.length === 0 || records[0].fields.every((f) => f.trim() === ''))
    throw new DataError('survey.empty', `${file}: the file is empty`);
  const header = records[0].fields;
  const { roles, ignoredColumns } = titleRoles(header, STOCK, key, file);
  checkColumns(header, roles, key, file, (_row, n) => `Item ${n} verdict`);
  const timeCol = columnIndex(header, 'Timestamp');
  const respondents: SurveyRespondent[] = [];
  records.slice(1).forEach((record, i) => {
    if (record.fields.every((f) => f.trim() === '')) return;
    const responseId = `row${i + 2}`;
    const where = `${file}:${record.line}`;
    respondents.push({
      responseId,
      startedAt: timeCol >= 0 ? (record.fields[timeCol] ?? '').trim() || null : null,
      finished: true,
      ...readAnswers(record.fields, header, roles, form, where, responseId),
      origin: where,
    });
  });
  return { respondents, ignoredColumns };
}
