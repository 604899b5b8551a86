/**
 * Merging survey respondents into a benchmark: one analyst per respondent (id = prefix + response id), a verdict on
 * every item (ABSTAIN where a partial respondent gave none, only with requireComplete off), rationales alongside.
 *
 * Works on the benchmark document as written (its keys, order and optional fields are kept; only `analysts` and
 * the items' `analyst_verdicts` / `analyst_rationales` change), so the output differs from the input by exactly
 * the new columns.
 *
 * Re-import is stable: a respondent whose analyst id is already in the benchmark (the output of an earlier import)
 * is left as it is when its answers are the same (`unchanged`), replaced in place when they differ and `replace`
 * is set, and refused (`survey.analyst-exists`) otherwise. So importing a grown CSV into the previous output adds
 * only the new respondents. The reference appended a second column with the same id instead.
 *
 * Rationales: an item's `analyst_rationales` is null (no rationales at all) or one string per analyst ("" for
 * none). When any imported respondent wrote a rationale, null lists become lists ("" for the earlier analysts);
 * an item that already has a list always gets one more entry. (The reference appended to existing lists only when
 * the new respondents wrote rationales, leaving lists one short otherwise.)
 */
import { DataError, UsageError } from '../errors.js';
import type { Benchmark, Verdict } from '../formats/infereval/types.js';
import type { QuestionForm, SurveyMappingRow } from './mapping.js';
import type { SurveyRespondent } from './respondent.js';
import type { JsonObject } from '../io/json-value.js';

export interface MergeOptions {
  /** Prefix of the new analyst ids; the response id is appended. Default "clinician-" (the reference's). */
  analystIdPrefix?: string;
  /** Refuse respondents who did not finish or left an item unanswered (default true); else fill ABSTAIN. */
  requireComplete?: boolean;
  /** Replace an analyst already present whose answers differ (default false: refuse). */
  replace?: boolean;
  /** The panel of the new analysts; needed when the benchmark's analysts declare panels (all-or-none). */
  panel?: string;
}

export interface MergedAnalyst {
  responseId: string;
  analystId: string;
  /** Items the respondent answered. */
  answered: number;
  /** Items filled with ABSTAIN because the respondent left them blank (partial import). */
  filledAbstain: number;
  rationales: number;
  finished: boolean;
}

export interface MergeOutcome {
  /** The benchmark document with the new analysts. */
  document: Record<string, unknown>;
  added: MergedAnalyst[];
  replaced: MergedAnalyst[];
  /** Respondents already in the benchmark with the same answers: nothing changed. */
  unchanged: MergedAnalyst[];
}

export const DEFAULT_ANALYST_ID_PREFIX = 'clinician-';

/**
 * The merge-side frame guard. The sidecar's rows must agree on one frame id and one question form; a declared
 * frame (`--coherence-frame`) or form (`--question-form`) must match what the sidecar records (DataError
 * `survey.frame-mismatch` / `survey.form-mismatch` naming both). Returns the recorded frame id and form, if any.
 */
export function checkSurveyFrame(
  rows: readonly SurveyMappingRow[] | null,
  declared: { frameId?: string; questionForm?: QuestionForm },
  sidecarPath = 'the mapping sidecar',
): { frameId: string | null; questionForm: QuestionForm | null } {
  if (rows === null) return { frameId: null, questionForm: null };
  const frames = [...new Set(rows.map((r) => r.frame_id).filter((f): f is string => f !== null))].sort();
  if (frames.length > 1)
    throw new DataError(
      'survey.frame-mismatch',
      `${sidecarPath} records ${frames.length} frames (${frames.join(', ')}): responses elicited under different frames cannot go into one benchmark; split the survey and import each part under its own frame`,
    );
  const forms = [...new Set(rows.map((r) => r.question_form))].sort();
  if (forms.length > 1)
    throw new DataError(
      'survey.form-mismatch',
      `${sidecarPath} records both question forms (${forms.join(', ')}); one survey asks one question form`,
    );
  const frameId = frames[0] ?? null;
  const questionForm = forms[0] ?? null;
  if (declared.frameId !== undefined && frameId !== null && declared.frameId !== frameId)
    throw new DataError(
      'survey.frame-mismatch',
      `the survey was exported under frame ${JSON.stringify(frameId)} (${sidecarPath}) but the import declares frame ${JSON.stringify(declared.frameId)}: answers elicited under one frame cannot be imported as another`,
    );
  if (declared.questionForm !== undefined && questionForm !== null && declared.questionForm !== questionForm)
    throw new DataError(
      'survey.form-mismatch',
      `the survey asked the ${questionForm} question (${sidecarPath}) but the import declares the ${declared.questionForm} question: the answers would be decoded on the wrong scale`,
    );
  return { frameId, questionForm };
}

/** The respondents' analyst ids must be unique and new ids must not clash with each other. */
function checkUniqueResponses(respondents: readonly SurveyRespondent[]): void {
  const seen = new Map<string, SurveyRespondent>();
  for (const r of respondents) {
    const prior = seen.get(r.responseId);
    if (prior)
      throw new DataError(
        'survey.duplicate-response',
        `response id ${JSON.stringify(r.responseId)} appears twice (${prior.origin} and ${r.origin})`,
      );
    seen.set(r.responseId, r);
  }
}

function checkComplete(respondents: readonly SurveyRespondent[], itemIds: readonly string[]): void {
  const problems: string[] = [];
  for (const r of respondents) {
    if (!r.finished) problems.push(`${JSON.stringify(r.responseId)} (${r.origin}) did not finish the survey`);
    else {
      const missing = itemIds.filter((id) => !r.verdicts.has(id));
      if (missing.length > 0)
        problems.push(
          `${JSON.stringify(r.responseId)} (${r.origin}) gave no verdict on ${missing.length} item(s): ${missing
            .slice(0, 3)
            .map((m) => JSON.stringify(m))
            .join(', ')}${missing.length > 3 ? ', …' : ''}`,
        );
    }
  }
  if (problems.length > 0)
    throw new DataError(
      'survey.incomplete',
      `${problems.length} incomplete respondent(s): ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? `; and ${problems.length - 3} more` : ''}`,
    );
}

export function mergeRespondents(
  document: JsonObject,
  benchmark: Benchmark,
  respondents: readonly SurveyRespondent[],
  options: MergeOptions = {},
): MergeOutcome {
  const prefix = options.analystIdPrefix ?? DEFAULT_ANALYST_ID_PREFIX;
  const itemIds = benchmark.items.map((i) => i.id);
  checkUniqueResponses(respondents);
  if (options.requireComplete ?? true) checkComplete(respondents, itemIds);

  const withPanel = benchmark.analysts.filter((a) => a.panel !== null).length;
  if (withPanel > 0 && options.panel === undefined)
    throw new UsageError(
      'survey.panel-needed',
      `the benchmark's analysts declare panels (all or none must), so the imported analysts need one too`,
    );
  if (withPanel === 0 && options.panel !== undefined)
    throw new UsageError(
      'survey.panel-unused',
      `the benchmark's analysts declare no panel (all or none must), so the imported analysts cannot have one`,
    );

  const doc = structuredClone(document);
  const analysts = doc.analysts as JsonObject[];
  const items = doc.items as JsonObject[];
  const columnOf = (r: SurveyRespondent): { verdicts: Verdict[]; rationales: string[] } => ({
    verdicts: itemIds.map((id) => r.verdicts.get(id) ?? 'abstain'),
    rationales: itemIds.map((id) => r.rationales.get(id) ?? ''),
  });
  const report = (r: SurveyRespondent): MergedAnalyst => ({
    responseId: r.responseId,
    analystId: prefix + r.responseId,
    answered: itemIds.filter((id) => r.verdicts.has(id)).length,
    filledAbstain: itemIds.filter((id) => !r.verdicts.has(id)).length,
    rationales: r.rationales.size,
    finished: r.finished,
  });
  const rationalesOf = (item: JsonObject): string[] | null =>
    Array.isArray(item.analyst_rationales) ? (item.analyst_rationales as string[]) : null;

  // Which respondents are new, the same as before, or different from before.
  const added: SurveyRespondent[] = [];
  const replaced: { r: SurveyRespondent; index: number }[] = [];
  const unchanged: SurveyRespondent[] = [];
  const conflicts: string[] = [];
  for (const r of respondents) {
    const index = analysts.findIndex((a) => a.id === prefix + r.responseId);
    if (index < 0) {
      added.push(r);
      continue;
    }
    const col = columnOf(r);
    const same =
      items.every((item, k) => (item.analyst_verdicts as Verdict[])[index] === col.verdicts[k]) &&
      items.every((item, k) => (rationalesOf(item)?.[index] ?? '') === col.rationales[k]) &&
      ((analysts[index].expertise_description as string | null | undefined) ?? null) === r.expertise;
    if (same) unchanged.push(r);
    else if (options.replace) replaced.push({ r, index });
    else conflicts.push(prefix + r.responseId);
  }
  if (conflicts.length > 0)
    throw new DataError(
      'survey.analyst-exists',
      `${conflicts.length} analyst(s) already in the benchmark with different answers (${conflicts
        .slice(0, 5)
        .map((c) => JSON.stringify(c))
        .join(
          ', ',
        )}${conflicts.length > 5 ? ', …' : ''}): an earlier import of these responses, or another survey with the same response ids`,
    );

  const anyRationale = [...added, ...replaced.map((x) => x.r)].some((r) => r.rationales.size > 0);
  if (anyRationale)
    for (const item of items)
      if (rationalesOf(item) === null) item.analyst_rationales = analysts.map(() => '');

  for (const { r, index } of replaced) {
    const col = columnOf(r);
    items.forEach((item, k) => {
      (item.analyst_verdicts as Verdict[])[index] = col.verdicts[k];
      const list = rationalesOf(item);
      if (list) list[index] = col.rationales[k];
    });
    const a = analysts[index];
    if (r.expertise === null) delete a.expertise_description;
    else a.expertise_description = r.expertise;
  }
  for (const r of added) {
    const col = columnOf(r);
    const analyst: JsonObject = { id: prefix + r.responseId };
    if (r.expertise !== null) analyst.expertise_description = r.expertise;
    if (options.panel !== undefined) analyst.panel = options.panel;
    analysts.push(analyst);
    items.forEach((item, k) => {
      (item.analyst_verdicts as Verdict[]).push(col.verdicts[k]);
      rationalesOf(item)?.push(col.rationales[k]);
    });
  }
  return {
    document: doc,
    added: added.map(report),
    replaced: replaced.map((x) => report(x.r)),
    unchanged: unchanged.map(report),
  };
}
