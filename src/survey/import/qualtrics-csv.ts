/**
 * Qualtrics' CSV response export (Data & Analysis → Export → CSV, "Use choice text"). Row 1 holds the column names
 * (each question's DataExportTag: the item tags, `<tag>_rationale`, `expertise`, and Qualtrics' own columns such as
 * ResponseId, Finished, StartDate); rows 2 and 3 are the question texts and the `{"ImportId":…}` descriptors. Older
 * exports have only row 2, so header rows are recognised by content (the ResponseId cell reads "Response ID" or
 * starts with `{`, as `{"ImportId":"_recordId"}` does; a Qualtrics response id is `R_…`), not counted. Qualtrics' own columns are ignored unless named below.
 */
import { DataError } from '../../errors.js';
import type { CsvRecord } from '../../io/csv-reader.js';
import type { QuestionForm } from '../mapping.js';
import type { SurveyRespondent } from '../respondent.js';
import {
  checkColumns,
  readAnswers,
  requireColumn,
  columnIndex,
  tagRole,
  type ColumnRole,
  type SurveyKey,
} from './columns.js';

const EXPERTISE_TAG = 'expertise';

/** Qualtrics' own columns: not reported as ignored. */
const STOCK = new Set([
  'StartDate',
  'EndDate',
  'Status',
  'IPAddress',
  'Progress',
  'Duration (in seconds)',
  'Finished',
  'RecordedDate',
  'ResponseId',
  'RecipientLastName',
  'RecipientFirstName',
  'RecipientEmail',
  'ExternalReference',
  'LocationLatitude',
  'LocationLongitude',
  'DistributionChannel',
  'UserLanguage',
]);

const isBlank = (r: CsvRecord): boolean => r.fields.every((f) => f.trim() === '');

function isHeaderRow(responseIdCell: string): boolean {
  const c = responseIdCell.trim();
  return c === 'Response ID' || c === 'ResponseId' || c.startsWith('{');
}

/** Qualtrics' Finished cell: True/False (choice text) or 1/0 (numeric export). */
function finishedValue(cell: string, where: string): boolean {
  const c = cell.trim().toLowerCase();
  if (c === 'true' || c === '1') return true;
  if (c === 'false' || c === '0') return false;
  throw new DataError(
    'survey.bad-cell',
    `${where}: column "Finished": ${JSON.stringify(cell)} is neither True nor False`,
  );
}

export function parseQualtricsCsv(
  records: readonly CsvRecord[],
  key: SurveyKey,
  form: QuestionForm,
  file: string,
): { respondents: SurveyRespondent[]; ignoredColumns: string[] } {
  const rows = records.filter((r) => !isBlank(r));
  if (rows.length === 0) throw new DataError('survey.empty', `${file}: the file is empty`);
  const header = rows[0].fields;
  const idCol = requireColumn(header, 'ResponseId', file, 'Qualtrics');
  const finishedCol = requireColumn(header, 'Finished', file, 'Qualtrics');
  const startCol = columnIndex(header, 'StartDate');
  const ignoredColumns: string[] = [];
  const roles: ColumnRole[] = header.map((h) => {
    const name = h.trim();
    if (name === EXPERTISE_TAG) return { kind: 'expertise' };
    const role = tagRole(name, key);
    if (role) return role;
    if (!STOCK.has(name)) ignoredColumns.push(name);
    return { kind: 'other' };
  });
  checkColumns(header, roles, key, file, (row) => row.verdict_data_export_tag);

  const respondents: SurveyRespondent[] = [];
  for (const record of rows.slice(1)) {
    const cells = record.fields;
    const idCell = cells[idCol] ?? '';
    if (isHeaderRow(idCell)) continue;
    const where = `${file}:${record.line}`;
    const responseId = idCell.trim();
    if (responseId === '') throw new DataError('survey.bad-cell', `${where}: column "ResponseId" is blank`);
    respondents.push({
      responseId,
      startedAt: startCol >= 0 ? (cells[startCol] ?? '').trim() || null : null,
      finished: finishedValue(cells[finishedCol] ?? '', where),
      ...readAnswers(cells, header, roles, form, where, responseId),
      origin: where,
    });
  }
  return { respondents, ignoredColumns };
}
