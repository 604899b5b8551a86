/**
 * Printing diagnostics: `text` (one line each, `file:line:col severity code message (at pointer)`, colours on a
 * TTY), `json` (one object for machines) and `github` (workflow commands that become annotations).
 */
import pc from 'picocolors';
import type { Diagnostic } from '../../diagnostics.js';
import type { FileResult, ValidationSummary } from '../../validate/index.js';
import { withCliHint } from '../hints.js';

export type OutputFormat = 'text' | 'json' | 'github';
export const OUTPUT_FORMATS: OutputFormat[] = ['text', 'json', 'github'];

/** What the printers need of the library's validation result (other producers may omit the rest). */
export type PrintableFile = Pick<FileResult, 'path' | 'documents' | 'invalid' | 'diagnostics'> &
  Partial<Pick<FileResult, 'types'>>;
export type PrintableSummary = Omit<ValidationSummary, 'omitted'> & { omitted?: number };

export interface PrintOptions {
  color?: boolean;
  /** Errors only, no summary line. */
  quiet?: boolean;
}

/** One diagnostic as a text line. */
export function diagnosticLine(d: Diagnostic, color = false): string {
  const c = pc.createColors(color);
  const where = d.pointer ? c.dim(` (at ${d.pointer})`) : '';
  const severity = d.severity === 'error' ? c.red(c.bold('error')) : c.yellow(c.bold('warning'));
  return `${c.cyan(d.file)}:${d.line}:${d.column} ${severity} ${c.dim(d.code)} ${withCliHint(d.code, d.message)}${where}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The closing line of a text report. */
export function summaryLine(s: PrintableSummary, color = false): string {
  const c = pc.createColors(color);
  const counts = `${plural(s.files, 'file')}, ${plural(s.documents, 'document')}`;
  const omitted = s.omitted ? `; ${s.omitted} more not shown (--max-errors)` : '';
  if (s.files === 0 && s.errors === 0)
    return `${c.yellow('⚠')} nothing to validate: no .json, .jsonl or .ndjson file was found`;
  if (s.errors === 0) {
    const warn = s.warnings > 0 ? c.yellow(` (${plural(s.warnings, 'warning')})`) : '';
    return `${c.green('✔')} ${counts}: all valid${warn}${omitted}`;
  }
  return (
    `${c.red('✖')} ${counts}: ${s.valid} valid, ${c.red(`${s.invalid} invalid`)} ` +
    `(${plural(s.errors, 'error')}, ${plural(s.warnings, 'warning')})${omitted}`
  );
}

/** One line per diagnostic shown (with --quiet only errors), in file order. */
function shownLines(files: PrintableFile[], options: PrintOptions, line: (d: Diagnostic) => string): string {
  let out = '';
  for (const f of files)
    for (const d of f.diagnostics) if (!options.quiet || d.severity === 'error') out += `${line(d)}\n`;
  return out;
}

export function textReport(
  files: PrintableFile[],
  summary: PrintableSummary,
  options: PrintOptions = {},
): string {
  let out = shownLines(files, options, (d) => diagnosticLine(d, options.color));
  if (!options.quiet) out += `${summaryLine(summary, options.color)}\n`;
  return out;
}

/** The `--format json` object: exactly the documented shape. */
export function jsonReport(
  files: PrintableFile[],
  summary: PrintableSummary,
  options: PrintOptions = {},
): string {
  const report = {
    summary: {
      files: summary.files,
      documents: summary.documents,
      valid: summary.valid,
      invalid: summary.invalid,
      errors: summary.errors,
      warnings: summary.warnings,
    },
    files: files.map((f) => ({
      path: f.path,
      documents: f.documents,
      invalid: f.invalid,
      // Each detected type and version with its number of documents ("unknown": no type claimed them).
      types: Object.entries(f.types ?? {}).map(([key, documents]) => {
        const at = key.lastIndexOf('@');
        return at < 0
          ? { type: null, schema_version: null, documents }
          : { type: key.slice(0, at), schema_version: key.slice(at + 1), documents };
      }),
      diagnostics: f.diagnostics
        .filter((d) => !options.quiet || d.severity === 'error')
        .map((d) => ({
          line: d.line,
          column: d.column,
          pointer: d.pointer,
          severity: d.severity,
          code: d.code,
          message: d.message,
          type: d.type ?? null,
          schema_version: d.schema_version ?? null,
        })),
    })),
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}

function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** One GitHub Actions workflow command (`::error file=…,line=…,col=…,title=code::message`). */
export function githubLine(d: Diagnostic): string {
  const props = [`file=${escapeProperty(d.file)}`];
  if (d.line > 0) props.push(`line=${d.line}`);
  if (d.column > 0) props.push(`col=${d.column}`);
  props.push(`title=${escapeProperty(d.code)}`);
  const where = d.pointer ? ` (at ${d.pointer})` : '';
  return `::${d.severity} ${props.join(',')}::${escapeData(withCliHint(d.code, d.message) + where)}`;
}

export function githubReport(
  files: PrintableFile[],
  summary: PrintableSummary,
  options: PrintOptions = {},
): string {
  let out = shownLines(files, options, githubLine);
  if (!options.quiet) out += `${summaryLine(summary, false)}\n`;
  return out;
}

export function report(
  format: OutputFormat,
  files: PrintableFile[],
  summary: PrintableSummary,
  options: PrintOptions = {},
): string {
  if (format === 'json') return jsonReport(files, summary, options);
  if (format === 'github') return githubReport(files, summary, options);
  return textReport(files, summary, options);
}
