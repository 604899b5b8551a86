// evalkit/survey — giving analysts the items as a survey and merging their answers back into the benchmark.

// survey export: the items as a Qualtrics .qsf, a Google Forms Apps Script or a CSV sheet, and the mapping sidecar.
export { exportSurvey, EXPORT_TARGETS } from '../survey/export/index.js';
export type { ExportTarget, SurveyExport, SurveyExportOptions } from '../survey/export/index.js';
export { planSurvey, mappingRows, questionText } from '../survey/render.js';
export type { SurveyPlan, SurveyQuestion, SurveyRenderOptions } from '../survey/render.js';
export {
  mappingSidecarPath,
  readMappingSidecar,
  writeMappingSidecar,
  type SurveyMappingRow,
  type QuestionForm,
} from '../survey/mapping.js';

// survey import: read a platform's responses (CSV or the SurveyMonkey API) and add one analyst per respondent.
export { importSurvey, IMPORT_SOURCES } from '../survey/import/index.js';
export type {
  ImportSource,
  SurveyImportOptions,
  SurveyImportResult,
  SurveyImportSummary,
  SkippedRespondent,
} from '../survey/import/index.js';
export { mergeRespondents, checkSurveyFrame } from '../survey/merge.js';
export type { MergeOptions, MergeOutcome, MergedAnalyst } from '../survey/merge.js';
export type { SurveyRespondent } from '../survey/respondent.js';
export { verdictFromChoice } from '../survey/verdict.js';
export { parseQualtricsCsv } from '../survey/import/qualtrics-csv.js';
export { parseGoogleFormsCsv } from '../survey/import/google-forms-csv.js';
export { parseSurveyMonkeyCsv } from '../survey/import/surveymonkey-csv.js';
export { surveyKey } from '../survey/import/columns.js';
export {
  SurveyMonkeyClient,
  surveyMonkeyRespondents,
  DEFAULT_SURVEYMONKEY_BASE_URL,
} from '../survey/import/surveymonkey-api.js';
export type { SurveyMonkeyOptions } from '../survey/import/surveymonkey-api.js';
