// Reading an infereval benchmark or evaluation for use (metrics, runs, hashing): parse (strictly, with positions),
// apply the reference loader's bare-string reference shorthand, validate through the one Engine that
// `evalkit validate` uses (schema, then the guarded cross-field rules), normalise.
import { readRegularFile } from '../io/regular-file.js';
import { isJsonObject } from '../io/json-value.js';
import { formatDiagnosticText, type Diagnostic } from '../diagnostics.js';
import { DataError, IoError } from '../errors.js';
import { locatePointers, parseStrictJson } from '../io/strict-json.js';
import type { RuleIssue } from '../formats/types.js';
import { looksLikeInferevalBenchmark, looksLikeInferevalEvaluation } from '../formats/infereval/detect.js';
import { inferevalBenchmarkType, inferevalEvaluationType } from '../formats/infereval/document-types.js';
import {
  normaliseBenchmark,
  normaliseEvaluation,
  promoteReferenceShorthand,
} from '../formats/infereval/normalise.js';
import type { Benchmark, Evaluation } from '../formats/infereval/types.js';
import { buildBearersBenchmark, type BearersImportResult } from '../formats/infereval/bearers/build.js';
import { Engine } from './engine.js';
import { expectKind } from './expect-kind.js';

export type InferevalKind = 'benchmark' | 'evaluation';

const typeOf = (kind: InferevalKind) =>
  kind === 'benchmark' ? inferevalBenchmarkType : inferevalEvaluationType;

const engines = new Map<InferevalKind, Engine>();

function engineFor(kind: InferevalKind): Engine {
  let engine = engines.get(kind);
  if (!engine) {
    const type = typeOf(kind);
    engine = new Engine({ types: [type], type: type.id, schemaVersion: type.versions[0].version });
    engines.set(kind, engine);
  }
  return engine;
}

/**
 * Schema errors, or (when the schema passed) the cross-field rule findings, of one infereval document: the
 * verdict of the same Engine as `evalkit validate`, so the codes and messages are its codes and messages.
 */
export function checkInfereval(doc: unknown, kind: InferevalKind): RuleIssue[] {
  return engineFor(kind).check(doc).issues;
}

/**
 * `bearers-import`: a bearers file and an items document become one infereval benchmark, validated as
 * `evalkit validate` would validate it.
 */
export function bearersImport(
  bearersText: string,
  itemsText: string,
  files: { bearers: string; items: string },
): BearersImportResult {
  return buildBearersBenchmark(bearersText, itemsText, files, (benchmark) =>
    checkInfereval(benchmark, 'benchmark'),
  );
}

const isError = (i: RuleIssue): boolean => (i.severity ?? 'error') === 'error';

/** The error thrown for an invalid document: the first problems as diagnostic lines, the first one's code. */
function invalid(kind: InferevalKind, source: string, problems: Diagnostic[]): DataError {
  const shown = problems.slice(0, 5).map((d) => `  ${formatDiagnosticText(d)}`);
  const more = problems.length > shown.length ? `\n  … and ${problems.length - shown.length} more` : '';
  const count = `${problems.length} problem${problems.length === 1 ? '' : 's'}`;
  return new DataError(
    problems[0].code,
    `${source}: not a valid infereval ${kind} 1.0 (${count}):\n${shown.join('\n')}${more}`,
  );
}

function validated(raw: unknown, kind: InferevalKind, source: string, text?: string): Benchmark | Evaluation {
  if (isJsonObject(raw)) {
    // The other infereval kind is named here (a bare value); a file gets the full detection in loadInfereval.
    const other = kind === 'benchmark' ? looksLikeInferevalEvaluation(raw) : looksLikeInferevalBenchmark(raw);
    if (other) {
      const [is, takes] =
        kind === 'benchmark'
          ? [inferevalEvaluationType, inferevalBenchmarkType]
          : [inferevalBenchmarkType, inferevalEvaluationType];
      throw new DataError(
        'input.wrong-kind',
        `${source}: this is an ${is.title} (${is.id} 1.0); this command takes an ${takes.title}`,
      );
    }
  }
  const doc = promoteReferenceShorthand(raw);
  const errors = checkInfereval(doc, kind).filter(isError);
  if (errors.length > 0) {
    // One pass over the text for every pointer; without a text (a bare value) there is no position: 0:0.
    const positions =
      text === undefined ? undefined : locatePointers(text, new Set(errors.map((e) => e.pointer)));
    const problems = errors.map((e): Diagnostic => {
      const at = positions?.get(e.pointer) ?? { line: 0, column: 0 };
      return {
        file: source,
        line: at.line,
        column: at.column,
        pointer: e.pointer,
        severity: 'error',
        code: e.code,
        message: e.message,
      };
    });
    throw invalid(kind, source, problems);
  }
  return kind === 'benchmark' ? normaliseBenchmark(doc) : normaliseEvaluation(doc);
}

/**
 * Validate an already parsed document and normalise it; throws DataError naming the first problems. Pass the
 * JSON `text` it was parsed from to have the problems' line:column (else 0:0, "no position").
 */
export function parseInfereval(raw: unknown, kind: 'benchmark', source?: string, text?: string): Benchmark;
export function parseInfereval(raw: unknown, kind: 'evaluation', source?: string, text?: string): Evaluation;
export function parseInfereval(
  raw: unknown,
  kind: InferevalKind,
  source?: string,
  text?: string,
): Benchmark | Evaluation;
export function parseInfereval(
  raw: unknown,
  kind: InferevalKind,
  source = '<input>',
  text?: string,
): Benchmark | Evaluation {
  return validated(raw, kind, source, text);
}

/** Read, validate (schema and cross-field rules) and normalise an infereval file. */
export async function loadInfereval(path: string, kind: 'benchmark'): Promise<Benchmark>;
export async function loadInfereval(path: string, kind: 'evaluation'): Promise<Evaluation>;
export async function loadInfereval(path: string, kind: InferevalKind): Promise<Benchmark | Evaluation>;
export async function loadInfereval(path: string, kind: InferevalKind): Promise<Benchmark | Evaluation> {
  let bytes: Uint8Array;
  try {
    bytes = await readRegularFile(path);
  } catch (err) {
    const e = err as IoError;
    const reason = e.code === 'io.not-found' ? 'no such file' : e.message.replace(/^cannot read [^:]*: /, '');
    throw new IoError(e.code, `cannot read infereval ${kind} ${path}: ${reason}`);
  }
  const parsed = parseStrictJson(bytes);
  // Another kind of document (or JSON Lines) is named as such before its JSON or schema problems are listed.
  expectKind(parsed.ok ? parsed.value : undefined, [typeOf(kind).id], path, undefined, parsed.text);
  if (!parsed.ok || parsed.issues.length > 0) {
    const problems = parsed.issues.map((i): Diagnostic => ({
      file: path,
      line: i.line,
      column: i.column,
      pointer: i.pointer,
      severity: 'error',
      code: i.code,
      message: i.message,
    }));
    if (problems.length === 0) {
      problems.push({
        file: path,
        line: 1,
        column: 1,
        pointer: '',
        severity: 'error',
        code: 'json.syntax',
        message: 'not valid JSON',
      });
    }
    throw invalid(kind, path, problems);
  }
  return validated(parsed.value, kind, path, parsed.text);
}
