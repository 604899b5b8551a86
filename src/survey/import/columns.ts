/**
 * Turning a platform's column headers into benchmark items, and a row's cells into answers. The key is the mapping
 * sidecar (`survey export` writes it; its rows are in the order the items were asked), or, without one, the rows
 * the exporters would have written: every benchmark item in order, its tag derived from its id (tags.ts).
 *
 * Header shapes: Qualtrics columns are the tags themselves (`ferry_base`, `ferry_base_rationale`, `expertise`);
 * Google Forms and SurveyMonkey columns are question titles, `Item N verdict` / `Item N rationale (optional)`
 * (N is the position in the sidecar), or the older `Item N of M …` and `[item:<tag>]` titles.
 */
import { DataError } from '../../errors.js';
import type { Verdict } from '../../formats/infereval/types.js';
import type { QuestionForm, SurveyMappingRow } from '../mapping.js';
import type { SurveyRespondent } from '../respondent.js';
import { exportTag } from '../tags.js';
import { decodeChoice } from '../verdict.js';

export interface SurveyKey {
  /** One row per item, in the order the survey asked them. */
  rows: SurveyMappingRow[];
  /** True when the rows come from a sidecar, false when derived from the benchmark. */
  fromSidecar: boolean;
  /** verdict tag → item id */
  byTag: Map<string, string>;
  /** rationale tag → item id */
  byRationaleTag: Map<string, string>;
}

/**
 * The key for a benchmark's items. A sidecar must cover exactly the benchmark's items: one naming an item the
 * benchmark lacks, or lacking one it has, was written for another benchmark (DataError `survey.mapping-mismatch`).
 */
export function surveyKey(
  itemIds: readonly string[],
  sidecar: { rows: SurveyMappingRow[]; path: string } | null,
  form: QuestionForm,
): SurveyKey {
  let rows: SurveyMappingRow[];
  if (sidecar) {
    const known = new Set(itemIds);
    const listed = new Set(sidecar.rows.map((r) => r.item_id));
    const stranger = sidecar.rows.find((r) => !known.has(r.item_id));
    if (stranger)
      throw new DataError(
        'survey.mapping-mismatch',
        `${sidecar.path}: item ${JSON.stringify(stranger.item_id)} is not in the benchmark; the sidecar belongs to another benchmark`,
      );
    const missing = itemIds.filter((id) => !listed.has(id));
    if (missing.length > 0)
      throw new DataError(
        'survey.mapping-mismatch',
        `${sidecar.path}: the sidecar does not list ${missing.length} of the benchmark's items (${preview(missing)}); the survey was exported from another version of the benchmark`,
      );
    rows = sidecar.rows;
  } else {
    rows = itemIds.map((id) => {
      const { tag, wasHashed } = exportTag(id);
      return {
        item_id: id,
        verdict_data_export_tag: tag,
        rationale_data_export_tag: `${tag}_rationale`,
        was_hashed: wasHashed,
        question_form: form,
        frame_id: null,
      };
    });
  }
  const byTag = new Map<string, string>();
  const byRationaleTag = new Map<string, string>();
  for (const r of rows) {
    byTag.set(r.verdict_data_export_tag, r.item_id);
    byRationaleTag.set(r.rationale_data_export_tag ?? `${r.verdict_data_export_tag}_rationale`, r.item_id);
  }
  return { rows, fromSidecar: sidecar !== null, byTag, byRationaleTag };
}

export const preview = (ids: readonly string[], n = 5): string =>
  ids
    .slice(0, n)
    .map((id) => JSON.stringify(id))
    .join(', ') + (ids.length > n ? `, … (${ids.length - n} more)` : '');

export type ColumnRole =
  | { kind: 'verdict'; itemId: string }
  | { kind: 'rationale'; itemId: string }
  | { kind: 'expertise' }
  | { kind: 'other' };

const ITEM_VERDICT = /^Item (\d+) verdict\b/m;
const ITEM_RATIONALE = /^Item (\d+) rationale\b/m;
const ITEM_OF = /^Item (\d+) of \d+/m;
const LEGACY_TAG = /\[item:([A-Za-z0-9_]+)\]/;

/** The role of a question-title header (Google Forms, SurveyMonkey), or undefined when it names no item. */
export function titleRole(header: string, key: SurveyKey, file: string): ColumnRole | undefined {
  const positional = (m: RegExpExecArray, kind: 'verdict' | 'rationale'): ColumnRole => {
    const n = Number(m[1]);
    const row = key.rows[n - 1];
    if (row === undefined)
      throw new DataError(
        'survey.unknown-column',
        `${file}:1: column ${JSON.stringify(firstLine(header))} names item ${n}, but the survey has ${key.rows.length} items${key.fromSidecar ? ' (per the mapping sidecar)' : ' (no sidecar: the benchmark order)'}`,
      );
    return { kind, itemId: row.item_id };
  };
  let m = ITEM_VERDICT.exec(header) ?? ITEM_OF.exec(header);
  if (m) return positional(m, 'verdict');
  m = ITEM_RATIONALE.exec(header);
  if (m) return positional(m, 'rationale');
  m = LEGACY_TAG.exec(header);
  if (m) return tagRole(m[1], key);
  return undefined;
}

/** The role of a column named by a tag (Qualtrics DataExportTag, legacy `[item:tag]`), or undefined. */
export function tagRole(tag: string, key: SurveyKey): ColumnRole | undefined {
  const verdictItem = key.byTag.get(tag);
  if (verdictItem !== undefined) return { kind: 'verdict', itemId: verdictItem };
  const rationaleItem = key.byRationaleTag.get(tag);
  if (rationaleItem !== undefined) return { kind: 'rationale', itemId: rationaleItem };
  return undefined;
}

const firstLine = (s: string): string => s.split(/\r?\n/)[0];

/**
 * Checks the classified header: every item has exactly one verdict column (else `survey.missing-column` /
 * `survey.duplicate-column`, naming the file and the column expected), at most one rationale column.
 */
export function checkColumns(
  header: readonly string[],
  roles: readonly ColumnRole[],
  key: SurveyKey,
  file: string,
  expectedHeader: (row: SurveyMappingRow, position: number) => string,
): void {
  const seen = new Map<string, number>();
  const seenRationale = new Map<string, number>();
  roles.forEach((role, i) => {
    if (role.kind !== 'verdict' && role.kind !== 'rationale') return;
    const map = role.kind === 'verdict' ? seen : seenRationale;
    const prior = map.get(role.itemId);
    if (prior !== undefined)
      throw new DataError(
        'survey.duplicate-column',
        `${file}:1: columns ${JSON.stringify(firstLine(header[prior]))} and ${JSON.stringify(firstLine(header[i]))} are both the ${role.kind} of item ${JSON.stringify(role.itemId)}`,
      );
    map.set(role.itemId, i);
  });
  const missing = key.rows.map((r, i) => ({ r, i })).filter(({ r }) => !seen.has(r.item_id));
  if (missing.length > 0) {
    const first = missing[0];
    throw new DataError(
      'survey.missing-column',
      `${file}:1: no verdict column for ${missing.length} item(s): item ${JSON.stringify(first.r.item_id)} (column ${JSON.stringify(expectedHeader(first.r, first.i + 1))})` +
        (missing.length > 1 ? ` and ${preview(missing.slice(1).map((m) => m.r.item_id))}` : '') +
        '; the responses come from another survey, or the export left columns out',
    );
  }
}

/** The answers of one row: verdicts decoded (blank cells left out), rationales and expertise trimmed. */
export function readAnswers(
  cells: readonly string[],
  header: readonly string[],
  roles: readonly ColumnRole[],
  form: QuestionForm,
  where: string,
  responseId: string,
): Pick<SurveyRespondent, 'verdicts' | 'rationales' | 'expertise'> {
  const verdicts = new Map<string, Verdict>();
  const rationales = new Map<string, string>();
  let expertise: string | null = null;
  roles.forEach((role, i) => {
    const cell = (cells[i] ?? '').trim();
    if (cell === '') return;
    if (role.kind === 'verdict')
      verdicts.set(
        role.itemId,
        decodeChoice(cell, form, { where, respondent: responseId, column: firstLine(header[i]) }),
      );
    else if (role.kind === 'rationale') rationales.set(role.itemId, cell);
    else if (role.kind === 'expertise') expertise = cell;
  });
  return { verdicts, rationales, expertise };
}

/** The index of the column named `name`, or -1. */
export const columnIndex = (header: readonly string[], name: string): number =>
  header.findIndex((h) => h.trim() === name);

/** A column the format needs; its absence is DataError `survey.missing-column` naming it. */
export function requireColumn(
  header: readonly string[],
  name: string,
  file: string,
  platform: string,
): number {
  const i = columnIndex(header, name);
  if (i < 0)
    throw new DataError(
      'survey.missing-column',
      `${file}:1: no ${JSON.stringify(name)} column, which every ${platform} export has; is this a ${platform} CSV?`,
    );
  return i;
}
