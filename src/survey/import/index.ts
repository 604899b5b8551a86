/**
 * `survey import` as a library call: read the benchmark and the responses (a platform's CSV, or the SurveyMonkey
 * API), resolve columns to items through the mapping sidecar, guard frame and question form, merge one analyst per
 * respondent, and check the result as `evalkit validate` would. Returns the new benchmark's text and a summary;
 * writing it is the caller's (the CLI writes atomically after its output checks).
 */
import { DataError, UsageError } from '../../errors.js';
import { inferevalBenchmarkType } from '../../formats/infereval/document-types.js';
import { benchmarkHash } from '../../formats/infereval/hash.js';
import { parseInfereval } from '../../validate/infereval.js';
import type { Benchmark } from '../../formats/infereval/types.js';
import { decodeCsvBytes, parseCsv } from '../../io/csv-reader.js';
import { readRegularFile } from '../../io/regular-file.js';
import { readJsonText } from '../../report/read-input.js';
import {
  mappingSidecarPath,
  readMappingSidecar,
  type QuestionForm,
  type SurveyMappingRow,
} from '../mapping.js';
import { checkSurveyFrame, mergeRespondents, type MergedAnalyst, type MergeOptions } from '../merge.js';
import type { SurveyRespondent } from '../respondent.js';
import { surveyKey } from './columns.js';
import { parseGoogleFormsCsv } from './google-forms-csv.js';
import { parseQualtricsCsv } from './qualtrics-csv.js';
import { SurveyMonkeyClient, surveyMonkeyRespondents, type SurveyMonkeyOptions } from './surveymonkey-api.js';
import { parseSurveyMonkeyCsv } from './surveymonkey-csv.js';
import { pathExists } from '../../io/files.js';

export const IMPORT_SOURCES = [
  'qualtrics-csv',
  'google-forms-csv',
  'surveymonkey-csv',
  'surveymonkey-api',
] as const;
export type ImportSource = (typeof IMPORT_SOURCES)[number];

/** A CSV larger than this is refused (a survey of thousands of respondents is a few MB). */
export const MAX_RESPONSES_BYTES = 256 * 1024 * 1024;

export interface SurveyImportOptions extends MergeOptions {
  /** The benchmark file. */
  benchmark: string;
  /** The responses CSV, or for surveymonkey-api the survey id. */
  responses: string;
  from: ImportSource;
  /** The mapping sidecar; default `<responses>.mapping.json` when that file exists (CSV sources). */
  mapping?: string;
  /** The question form the survey asked; default the sidecar's, else support. */
  questionForm?: QuestionForm;
  /** The frame the import declares; must match the sidecar's. */
  coherenceFrame?: string;
  /** Import only this response id. */
  respondent?: string;
  /** For surveymonkey-api. */
  surveyMonkey?: Omit<SurveyMonkeyOptions, 'token'> & { token?: string };
}

export interface SkippedRespondent {
  response_id: string;
  reason: 'not-selected' | 'already-imported';
}

export interface SurveyImportSummary {
  benchmark: string;
  responses: string;
  from: ImportSource;
  mapping: string | null;
  question_form: QuestionForm;
  frame_id: string | null;
  respondents_read: number;
  added: MergedAnalyst[];
  replaced: MergedAnalyst[];
  skipped: SkippedRespondent[];
  analysts_before: number;
  analysts_after: number;
  benchmark_hash_before: string;
  benchmark_hash_after: string;
  /** Columns (or SurveyMonkey questions) that are neither items nor the expertise question. */
  ignored_columns: string[];
}

export interface SurveyImportResult {
  /** The new benchmark, as JSON text (two-space indent, final newline). */
  text: string;
  benchmark: Benchmark;
  summary: SurveyImportSummary;
}

/** The sidecar path the import uses: the one given, else `<responses>.mapping.json` when it exists. */
export async function findMappingSidecar(
  options: Pick<SurveyImportOptions, 'mapping' | 'responses' | 'from'>,
): Promise<string | null> {
  if (options.mapping !== undefined) return options.mapping;
  if (options.from === 'surveymonkey-api') return null;
  const beside = mappingSidecarPath(options.responses);
  return (await pathExists(beside)) ? beside : null;
}

export async function readBenchmarkDocument(
  path: string,
): Promise<{ document: Record<string, unknown>; benchmark: Benchmark }> {
  const { value, text } = await readJsonText(path, { expect: [inferevalBenchmarkType.id] });
  const benchmark = parseInfereval(value, 'benchmark', path, text);
  return { document: value as Record<string, unknown>, benchmark };
}

export async function importSurvey(options: SurveyImportOptions): Promise<SurveyImportResult> {
  const { document, benchmark } = await readBenchmarkDocument(options.benchmark);
  const mappingPath = await findMappingSidecar(options);
  const rows: SurveyMappingRow[] | null = mappingPath === null ? null : await readMappingSidecar(mappingPath);
  const recorded = checkSurveyFrame(
    rows,
    { frameId: options.coherenceFrame, questionForm: options.questionForm },
    mappingPath ?? undefined,
  );
  const form: QuestionForm = options.questionForm ?? recorded.questionForm ?? 'support';
  const key = surveyKey(
    benchmark.items.map((i) => i.id),
    rows === null ? null : { rows, path: mappingPath! },
    form,
  );

  let read: { respondents: SurveyRespondent[]; ignoredColumns: string[] };
  if (options.from === 'surveymonkey-api') {
    const sm = options.surveyMonkey ?? {};
    const client = new SurveyMonkeyClient({ ...sm, token: sm.token ?? '' });
    const details = await client.surveyDetails(options.responses);
    const responses = await client.responses(options.responses, sm.perPage, sm.maxPages);
    read = surveyMonkeyRespondents(details, responses, key, form, options.responses);
  } else {
    const bytes = await readRegularFile(options.responses, options.responses, {
      maxBytes: MAX_RESPONSES_BYTES,
    });
    const records = parseCsv(decodeCsvBytes(bytes, options.responses), options.responses);
    const parse =
      options.from === 'qualtrics-csv'
        ? parseQualtricsCsv
        : options.from === 'google-forms-csv'
          ? parseGoogleFormsCsv
          : parseSurveyMonkeyCsv;
    read = parse(records, key, form, options.responses);
  }

  if (read.respondents.length === 0)
    throw new DataError('survey.no-respondents', `${options.responses}: no responses in it`);
  const skipped: SkippedRespondent[] = [];
  let selected = read.respondents;
  if (options.respondent !== undefined) {
    selected = read.respondents.filter((r) => r.responseId === options.respondent);
    if (selected.length === 0)
      throw new UsageError(
        'survey.no-such-respondent',
        `no respondent ${JSON.stringify(options.respondent)} in ${options.responses} (its ${read.respondents.length} response ids: ${read.respondents
          .slice(0, 5)
          .map((r) => r.responseId)
          .join(', ')}${read.respondents.length > 5 ? ', …' : ''})`,
      );
    for (const r of read.respondents)
      if (r.responseId !== options.respondent)
        skipped.push({ response_id: r.responseId, reason: 'not-selected' });
  }

  const merged = mergeRespondents(document, benchmark, selected, options);
  for (const u of merged.unchanged) skipped.push({ response_id: u.responseId, reason: 'already-imported' });
  const text = `${JSON.stringify(merged.document, null, 2)}\n`;
  // The same checks as `evalkit validate` (schema, then cross-field rules): a merge bug cannot write a bad file.
  const out = parseInfereval(merged.document, 'benchmark', '<merged benchmark>');
  return {
    text,
    benchmark: out,
    summary: {
      benchmark: options.benchmark,
      responses: options.responses,
      from: options.from,
      mapping: mappingPath,
      question_form: form,
      frame_id: recorded.frameId,
      respondents_read: read.respondents.length,
      added: merged.added,
      replaced: merged.replaced,
      skipped,
      analysts_before: benchmark.analysts.length,
      analysts_after: out.analysts.length,
      benchmark_hash_before: benchmarkHash(benchmark as unknown as Record<string, unknown>),
      benchmark_hash_after: benchmarkHash(out as unknown as Record<string, unknown>),
      ignored_columns: read.ignoredColumns,
    },
  };
}
