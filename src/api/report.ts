// evalkit/report — the construct-validity report: its model, verdict, Markdown and self-contained HTML.
export { buildReportModel, type ReportModel } from '../report/model.js';
export { decideVerdict } from '../report/verdict.js';
export { renderMarkdown } from '../report/markdown.js';
export { renderHtml } from '../report/html.js';
export { readRetestEvidence, readSweepEvidence } from '../report/evidence.js';
