/**
 * The validation library: a value, a file, a stream, or paths (files, directories, globs) → typed diagnostics.
 * The CLI (`evalkit validate`) is a thin layer over `validatePaths`.
 */
import { readFile, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { resolve, sep } from 'node:path';
import { isFlatIndexFile, isLooseFlatIndexFile, prepareTreeChecks } from '../checks/index.js';
import type { Diagnostic } from '../diagnostics.js';
import { IoError, UsageError } from '../errors.js';
import { expandPaths, globToRegExp, isJsonlPath } from '../io/files.js';
import { checkDetectOptions } from './detect.js';
import { Engine, type EngineOptions } from './engine.js';
import {
  diagnosticAt,
  emptyFileResult,
  foldRepeatedUnknownType,
  validateFileAt,
  validateStreamAs,
  type FileResult,
} from './file.js';
import { validateInWorkers } from './parallel.js';

export type { FileResult } from './file.js';
export type { EngineOptions, DocumentVerdict, DocumentIssue } from './engine.js';
export { Engine } from './engine.js';
export { Detector, type DetectOptions, type Detection } from './detect.js';
export { explainSchemaErrors, type SchemaIssue } from './schema-errors.js';
export { publishedSchema, renderSchema, schemaFileName, compiledValidator, DIALECT_URI } from './schemas.js';
export type { SchemaValidator } from './compiled/index.js';
export { createAjv, ajvOptions } from './ajv.js';
export {
  parseStrictJson,
  locatePointers,
  type JsonIssue,
  type JsonIssueCode,
  type StrictParseResult,
} from '../io/strict-json.js';
export { splitLines, readJsonlFile, type JsonlLine } from '../io/jsonl.js';
export { expandPaths } from '../io/files.js';
export { spliceJson, type SpliceResult, type TextEdit } from '../io/json-splice.js';

export interface ValidateOptions extends EngineOptions {
  /** An infereval benchmark that evaluations' benchmark_hash is compared against (tree checks). */
  benchmark?: string;
  /** Keep at most this many diagnostics in total (counts stay exact; the rest are counted in `omitted`). */
  maxDiagnostics?: number;
  /** Deepest JSON nesting accepted (default 256). */
  maxDepth?: number;
  /**
   * Threads that parse and validate: this one and `jobs - 1` workers (default 1). "auto": one per CPU (at most
   * 8) when the files on disk hold at least 128 MiB and the rest, at the rate this thread read the first part,
   * would take a second or more (see workersPay), else 1. Custom `types` need 1 ("auto" then means 1).
   */
  jobs?: number | 'auto';
  /** JSONL files larger than this are split into ranges across workers (default 16 MiB). */
  rangeBytes?: number;
  /** Base for relative paths (default: process.cwd()). */
  cwd?: string;
  /** Globs of files to leave out; each is matched against a file's path and every trailing part of it. */
  exclude?: readonly string[];
  /** What "-" reads (default: process.stdin). */
  stdin?: AsyncIterable<Buffer | string>;
  /** How a stream is read: one JSON document, JSON Lines, or decided from its first line (default). */
  streamFormat?: 'auto' | 'json' | 'jsonl';
  /** Progress: bytes done of bytesTotal (0 when unknown, e.g. stdin). */
  onProgress?: (progress: {
    bytesDone: number;
    bytesTotal: number;
    filesDone: number;
    filesTotal: number;
    /** 'documents' while reading files, then 'tree-checks' while the checks across files run. */
    phase?: 'documents' | 'tree-checks';
  }) => void;
}

export interface ValidationSummary {
  files: number;
  documents: number;
  valid: number;
  invalid: number;
  errors: number;
  warnings: number;
  /** Diagnostics counted but not kept because of `maxDiagnostics`. */
  omitted: number;
}

export interface ValidationResult {
  summary: ValidationSummary;
  files: FileResult[];
}

/** The verdict on one in-memory value (no positions: line and column are 0). */
export interface ValueResult {
  valid: boolean;
  type?: string;
  schema_version?: string;
  diagnostics: Diagnostic[];
}

/** Validates a parsed value. */
export function validateValue(value: unknown, options: EngineOptions & { file?: string } = {}): ValueResult {
  checkDetectOptions(options, options.types);
  const verdict = new Engine(options).check(value);
  // A bare value has no text: line 0, column 0 mean "no position".
  const diagnostics = verdict.issues.map((i) =>
    diagnosticAt(options.file ?? '', { line: 0, column: 0 }, i, verdict),
  );
  return {
    valid: !diagnostics.some((d) => d.severity === 'error'),
    type: verdict.type,
    schema_version: verdict.schemaVersion,
    diagnostics,
  };
}

/**
 * Validates one file: JSON Lines when it ends in .jsonl/.ndjson, else one JSON document. The same path as
 * `validatePaths` (and `evalkit validate`): the `benchmark` option and, unless `schemaOnly`, the checks across files
 * that concern this file (an EEE aggregate against its samples, datastore layout and integrity).
 */
export async function validateFile(path: string, options: ValidateOptions = {}): Promise<FileResult> {
  const result = await validatePaths([path], options);
  // The file itself (checks across files that speak of a sibling, e.g. its samples file, list it apart).
  return result.files[0] ?? emptyFileResult(path);
}

/** Validates a stream (JSON or JSON Lines, see `streamFormat`), reported under `name` (default "-"). */
export async function validateStream(
  stream: AsyncIterable<Buffer | string>,
  options: ValidateOptions & { name?: string } = {},
): Promise<FileResult> {
  checkDetectOptions(options, options.types);
  const result = await validateStreamAs(options.name ?? '-', stream, new Engine(options), {
    maxDiagnostics: options.maxDiagnostics,
    maxDepth: options.maxDepth,
    mode: options.streamFormat,
  });
  foldRepeatedUnknownType(result);
  return result;
}

/**
 * The files not excluded by any glob. A glob is matched against the path as listed ('/'-separated) and against
 * each of its trailing parts, so `old/**` leaves out `data/old/a.json` and `*.bak.json` any such file at any depth.
 */
export function excludeMatching(paths: string[], globs: readonly string[]): string[] {
  if (globs.length === 0) return paths;
  const patterns = globs.map((g) => globToRegExp(g.replace(/^\.\//, '')));
  return paths.filter((p) => {
    if (p === '-') return true;
    const parts = p.split(sep).join('/').split('/');
    for (let i = 0; i < parts.length; i++) {
      const tail = parts.slice(i).join('/');
      if (patterns.some((re) => re.test(tail))) return false;
    }
    return true;
  });
}

export function summarize(files: FileResult[]): ValidationSummary {
  const s: ValidationSummary = {
    files: files.length,
    documents: 0,
    valid: 0,
    invalid: 0,
    errors: 0,
    warnings: 0,
    omitted: 0,
  };
  for (const f of files) {
    s.documents += f.documents;
    s.invalid += f.invalid;
    s.errors += f.errors;
    s.warnings += f.warnings;
    s.omitted += f.omitted;
  }
  s.valid = s.documents - s.invalid;
  return s;
}

/**
 * Validates files, directories (walked for .json/.jsonl/.ndjson), globs and "-" (standard input); then, unless
 * `schemaOnly`, the checks across files (`runTreeChecks`). Throws UsageError for bad options, IoError for files
 * that cannot be read.
 */
export async function validatePaths(
  paths: string[],
  options: ValidateOptions = {},
): Promise<ValidationResult> {
  if (paths.length === 0)
    throw new UsageError('usage.no-paths', 'no files given (pass a file, a directory, a glob or -)');
  checkDetectOptions(options, options.types);
  if (typeof options.jobs === 'number' && options.jobs > 1 && options.types) {
    throw new UsageError('usage.jobs', 'custom document types can only be validated with jobs = 1');
  }
  const cwd = options.cwd ?? process.cwd();
  const expanded = excludeMatching(await expandPaths(paths, cwd), options.exclude ?? []);
  // A flat datastore's collection indexes are read by the flat checks, not validated as documents.
  // So is an index of flat rows lying elsewhere (recognised by its first row), as its datastore's index.
  const looseIndexes: string[] = [];
  for (const p of expanded)
    if (p !== '-' && (await isLooseFlatIndexFile(resolve(cwd, p)))) looseIndexes.push(p);
  const flatIndexes = [
    ...expanded.filter((p) => p !== '-' && isFlatIndexFile(resolve(cwd, p))),
    ...looseIndexes,
  ];
  const list = expanded.filter((p) => !flatIndexes.includes(p));
  const sizes = new Map<string, number>();
  let bytesTotal = 0;
  for (const p of list) {
    if (p === '-') continue;
    const info = await stat(resolve(cwd, p)).catch((error: Error) => {
      throw new IoError('io.read', `cannot read ${p}: ${error.message}`);
    });
    sizes.set(p, info.size);
    bytesTotal += info.size;
  }
  const jobs =
    options.jobs === 'auto'
      ? autoJobs(bytesTotal, options.types !== undefined)
      : Math.max(1, Math.floor(options.jobs ?? 1));
  let bytesDone = 0;
  let filesDone = 0;
  const progress = (n: number): void => {
    bytesDone += n;
    options.onProgress?.({ bytesDone, bytesTotal, filesDone, filesTotal: list.length });
  };
  const perFile = { maxDiagnostics: options.maxDiagnostics, maxDepth: options.maxDepth, onBytes: progress };

  const results = new Map<string, FileResult>();
  const onDisk = list.filter((p) => p !== '-');
  // The checks across files read what they need first (the EEE aggregates), so that the samples files feed their
  // row checks during their one read here or in a worker, instead of being read and parsed again by the checks.
  const absolute = onDisk.map((p) => resolve(cwd, p));
  const tree = options.schemaOnly
    ? undefined
    : await prepareTreeChecks(absolute, {
        benchmark: options.benchmark,
        flatIndexes: flatIndexes.filter((p) => !looseIndexes.includes(p)).map((p) => resolve(cwd, p)),
        looseFlatIndexes: looseIndexes.map((p) => resolve(cwd, p)),
      });
  if (jobs > 1 && onDisk.length > 0) {
    const engine = {
      type: options.type,
      schemaVersion: options.schemaVersion,
      schemaOnly: options.schemaOnly,
      rowShapes: options.rowShapes,
    };
    const done = await validateInWorkers(
      onDisk.map((p) => ({
        path: p,
        absPath: resolve(cwd, p),
        jsonl: isJsonlPath(p),
        size: sizes.get(p) ?? 0,
        rows: isJsonlPath(p) ? tree?.rowContext(resolve(cwd, p)) : undefined,
      })),
      jobs,
      {
        engine,
        maxDiagnostics: options.maxDiagnostics,
        maxDepth: options.maxDepth,
        rangeBytes: options.rangeBytes,
        onBytes: progress,
        onRows: (file, result) => tree?.acceptRows(file.absPath, result),
        // "auto": workers only when this thread's rate on the first task says they pay for the rest.
        adaptive: options.jobs === 'auto',
      },
    );
    for (const r of done) results.set(r.path, r);
    filesDone = done.length;
  }
  const engine = new Engine(options);
  /** One file in this thread; an EEE samples file feeds the tree's row checks as it is read. */
  const validateRowsFed = async (p: string): Promise<FileResult> => {
    const abs = resolve(cwd, p);
    const rows = isJsonlPath(p) ? tree?.rowChecks(abs) : undefined;
    const r = await validateFileAt(p, abs, isJsonlPath(p), engine, { ...perFile, rows });
    rows?.done();
    return r;
  };
  const files: FileResult[] = [];
  for (const p of list) {
    let r = results.get(p);
    if (!r) {
      r =
        p === '-'
          ? await validateStreamAs('-', options.stdin ?? process.stdin, engine, {
              ...perFile,
              mode: options.streamFormat,
            })
          : await validateRowsFed(p);
      filesDone++;
      options.onProgress?.({ bytesDone, bytesTotal, filesDone, filesTotal: list.length });
    }
    files.push(r);
  }

  if (tree) {
    options.onProgress?.({ bytesDone, bytesTotal, filesDone, filesTotal: list.length, phase: 'tree-checks' });
    const indexResults = flatIndexes.map((p) => emptyFileResult(p));
    files.push(...indexResults);
    attachTreeDiagnostics(files, await tree.finish(), cwd);
    // An index counts its rows as documents, and each row with an error as invalid.
    for (const r of indexResults) {
      const text = await readFile(resolve(cwd, r.path), 'utf8').catch(() => '');
      r.documents = text.split('\n').filter((l) => l.trim() !== '').length;
      r.invalid = new Set(r.diagnostics.filter((d) => d.severity === 'error').map((d) => d.line)).size;
    }
  }
  for (const f of files) foldRepeatedUnknownType(f);
  trimToLimit(files, options.maxDiagnostics);
  return { summary: summarize(files), files };
}

/**
 * Below this many bytes on disk, starting workers costs more than they save. Measured on 2 cores: a worker of the
 * CLI bundle starts in ~0.15 s (of the multi-file library build, ~0.4 s); a second thread broke even at ~50 MB with
 * the bundle (~150 MB with the library build) and saved about 20 % at 150 MB.
 */
export const AUTO_JOBS_MIN_BYTES = 128 * 1024 * 1024;

export function autoJobs(bytesTotal: number, customTypes: boolean): number {
  if (customTypes || bytesTotal < AUTO_JOBS_MIN_BYTES) return 1;
  return Math.max(1, Math.min(8, availableParallelism()));
}

/** Files the tree checks speak of get the diagnostics under the path the user gave; others get their own entry. */
function attachTreeDiagnostics(files: FileResult[], tree: Diagnostic[], cwd: string): void {
  if (tree.length === 0) return;
  const byAbs = new Map<string, FileResult>();
  for (const f of files) if (f.path !== '-') byAbs.set(resolve(cwd, f.path), f);
  const touched = new Set<FileResult>();
  for (const d of tree) {
    const abs = resolve(cwd, d.file);
    let f = byAbs.get(abs);
    if (!f) {
      f = emptyFileResult(d.file);
      files.push(f);
      byAbs.set(abs, f);
    }
    f.diagnostics.push({ ...d, file: f.path });
    if (d.severity === 'error') f.errors++;
    else f.warnings++;
    touched.add(f);
  }
  for (const f of touched) {
    f.diagnostics.sort((a, b) => a.line - b.line || a.column - b.column);
    // A file whose only problem is a tree check counts its documents as invalid only if it had none already.
    if (f.errors > 0 && f.invalid === 0) f.invalid = Math.min(1, f.documents) || 0;
  }
}

function trimToLimit(files: FileResult[], limit: number | undefined): void {
  if (limit === undefined) return;
  let left = limit;
  for (const f of files) {
    if (f.diagnostics.length > left) {
      f.omitted += f.diagnostics.length - left;
      f.diagnostics = f.diagnostics.slice(0, left);
    }
    left -= f.diagnostics.length;
  }
}
