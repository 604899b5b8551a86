/**
 * The survey mapping sidecar: `<export file>.mapping.json`, written by `survey export` next to the artifact and read
 * by `survey import` to turn the platform's column headers ("Item 3 verdict", a Qualtrics DataExportTag) back into
 * benchmark item ids. The row shape is the infereval reference's (0.17.x), so sidecars move between the two tools:
 * a JSON array with one object per item, in the order the items were exported.
 *
 * Unlike the reference, evalkit writes the sidecar for every platform and every frame (the reference skips it for
 * Qualtrics exports under the default frames), so an import can always check the frame and question form.
 */
import { DataError } from '../errors.js';
import { writeFileAtomic } from '../io/atomic.js';
import { readJsonDocument } from '../report/read-input.js';

export type QuestionForm = 'support' | 'coherence';

export interface SurveyMappingRow {
  /** The benchmark item id. */
  item_id: string;
  /** The item's column tag: the id itself when it matches ^[A-Za-z0-9_]{1,80}$, else `item_<sha256(id)[:8]>`. */
  verdict_data_export_tag: string;
  /** `<tag>_rationale` when the export asked for rationales, else null. */
  rationale_data_export_tag: string | null;
  /** True when the tag is a hash of the id rather than the id. */
  was_hashed: boolean;
  question_form: QuestionForm;
  /** The frame whose header the question showed (a coherence frame id, or the verification prompt id). */
  frame_id: string | null;
}

/** Where the sidecar of an export written to `output` lives. */
export function mappingSidecarPath(output: string): string {
  return `${output}.mapping.json`;
}

export async function writeMappingSidecar(
  output: string,
  rows: readonly SurveyMappingRow[],
): Promise<string> {
  const path = mappingSidecarPath(output);
  await writeFileAtomic(path, `${JSON.stringify(rows, null, 2)}\n`);
  return path;
}

/** Reads and checks a sidecar; any row that is not a mapping row is a DataError `survey.bad-mapping` naming it. */
export async function readMappingSidecar(path: string): Promise<SurveyMappingRow[]> {
  const doc = await readJsonDocument(path);
  return parseMapping(doc, path);
}

export function parseMapping(doc: unknown, path: string): SurveyMappingRow[] {
  const bad = (pointer: string, what: string): DataError =>
    new DataError('survey.bad-mapping', `${path}: ${what} (at ${pointer || '/'})`);
  if (!Array.isArray(doc)) throw bad('', 'a mapping sidecar is a JSON array of rows');
  const seen = new Set<string>();
  return doc.map((row: unknown, i): SurveyMappingRow => {
    const at = `/${i}`;
    if (typeof row !== 'object' || row === null || Array.isArray(row))
      throw bad(at, 'a row must be an object');
    const r = row as Record<string, unknown>;
    for (const key of ['item_id', 'verdict_data_export_tag'] as const)
      if (typeof r[key] !== 'string' || r[key] === '')
        throw bad(`${at}/${key}`, `${key} must be a non-empty string`);
    if (r.rationale_data_export_tag !== null && r.rationale_data_export_tag !== undefined)
      if (typeof r.rationale_data_export_tag !== 'string')
        throw bad(`${at}/rationale_data_export_tag`, 'rationale_data_export_tag must be a string or null');
    if (r.was_hashed !== undefined && typeof r.was_hashed !== 'boolean')
      throw bad(`${at}/was_hashed`, 'was_hashed must be a boolean');
    const form = r.question_form ?? 'support';
    if (form !== 'support' && form !== 'coherence')
      throw bad(`${at}/question_form`, 'question_form must be "support" or "coherence"');
    if (r.frame_id !== null && r.frame_id !== undefined && typeof r.frame_id !== 'string')
      throw bad(`${at}/frame_id`, 'frame_id must be a string or null');
    const id = r.item_id as string;
    if (seen.has(id)) throw bad(`${at}/item_id`, `item ${JSON.stringify(id)} appears twice`);
    seen.add(id);
    return {
      item_id: id,
      verdict_data_export_tag: r.verdict_data_export_tag as string,
      rationale_data_export_tag: (r.rationale_data_export_tag as string | null | undefined) ?? null,
      was_hashed: (r.was_hashed as boolean | undefined) ?? false,
      question_form: form,
      frame_id: (r.frame_id as string | null | undefined) ?? null,
    };
  });
}
