/**
 * Files and streams → documents → diagnostics. A `.json` file is one document; a `.jsonl`/`.ndjson` file (and a
 * stream whose first line is a complete JSON value) is one document per non-blank line, read in constant memory.
 */
import { readError } from '../io/file-kind.js';
import { readRegularFile } from '../io/regular-file.js';
import type { Diagnostic } from '../diagnostics.js';
import { IoError } from '../errors.js';
import { readJsonlFile, splitLines, type JsonlLine, type LineReaderOptions } from '../io/jsonl.js';
import { locatePointers, parseStrictJson } from '../io/strict-json.js';
import type { DocumentIssue, DocumentVerdict, Engine } from './engine.js';

/** What one file (or stream) gave. */
export interface FileResult {
  /** The path as given ("-" for standard input). */
  path: string;
  documents: number;
  /** Documents with at least one error. */
  invalid: number;
  errors: number;
  warnings: number;
  /** Diagnostics in file order (at most the run's `maxDiagnostics`; `omitted` counts the rest). */
  diagnostics: Diagnostic[];
  omitted: number;
  /** Documents per detected "type@version" ("unknown" when no type claimed them). */
  types: Record<string, number>;
  /**
   * `detect.unknown-type` errors of this file after the first: counted (in `errors`), not repeated; the first one's
   * message says how many rows share it (see foldRepeatedUnknownType).
   */
  unknownTypeRepeats: number;
}

export function emptyFileResult(path: string): FileResult {
  return {
    path,
    documents: 0,
    invalid: 0,
    errors: 0,
    warnings: 0,
    diagnostics: [],
    omitted: 0,
    types: {},
    unknownTypeRepeats: 0,
  };
}

const UNKNOWN_TYPE = 'detect.unknown-type';

/**
 * A JSONL file of an unknown kind would repeat the same long detect.unknown-type message on every row: it is said
 * once, on the first row, with the number of rows it applies to. Run once per file when its result is complete
 * (after the ranges of a file read by workers are put together).
 */
export function foldRepeatedUnknownType(result: FileResult): void {
  let first: Diagnostic | undefined;
  let repeats = result.unknownTypeRepeats;
  result.diagnostics = result.diagnostics.filter((d) => {
    if (d.code !== UNKNOWN_TYPE) return true;
    if (!first) {
      first = d;
      return true;
    }
    repeats++;
    return false;
  });
  result.unknownTypeRepeats = 0;
  if (first && repeats > 0)
    first.message = `${first.message} [the same for ${repeats} more row${repeats === 1 ? '' : 's'} of this file; said once]`;
}

/** Adds one document's detected type to the file's counts. */
function countType(result: FileResult, verdict: DocumentVerdict | undefined): void {
  const key = typeKey(verdict);
  result.types[key] = (result.types[key] ?? 0) + 1;
}

function typeKey(verdict: DocumentVerdict | undefined): string {
  return verdict?.type ? `${verdict.type}@${verdict.schemaVersion ?? 'unknown'}` : 'unknown';
}

/**
 * Receives every non-blank line of a JSONL file as it is read (`row` only when the line is strict JSON without any
 * issue), so that checks across the file need not read and parse it again (e.g. the EEE samples row checks).
 */
export interface RowSink {
  line(line: number, row?: { text: string; value: unknown }): void;
}

/** A document's issue as a diagnostic at a position, with the type and version the document was checked as. */
export function diagnosticAt(
  file: string,
  at: { line: number; column: number },
  issue: DocumentIssue,
  verdict?: DocumentVerdict,
): Diagnostic {
  return {
    file,
    line: at.line,
    column: at.column,
    pointer: issue.pointer,
    severity: issue.severity,
    code: issue.code,
    message: issue.message,
    type: verdict?.type,
    schema_version: verdict?.schemaVersion,
  };
}

/** Accumulates one file's counts and diagnostics, keeping at most `limit` diagnostics. */
export class FileAccumulator {
  readonly result: FileResult;
  constructor(
    path: string,
    readonly limit: number = Number.POSITIVE_INFINITY,
    readonly rows?: RowSink,
  ) {
    this.result = emptyFileResult(path);
  }

  private sawUnknownType = false;

  add(d: Diagnostic): void {
    if (d.severity === 'error') this.result.errors++;
    else this.result.warnings++;
    if (d.code === UNKNOWN_TYPE) {
      if (this.sawUnknownType) {
        this.result.unknownTypeRepeats++;
        return;
      }
      this.sawUnknownType = true;
    }
    if (this.result.diagnostics.length < this.limit) this.result.diagnostics.push(d);
    else this.result.omitted++;
  }

  /**
   * Validates one document given as bytes or text. `firstLine` is the file line the text starts on (1 for a whole
   * file). Returns whether the document is valid.
   */
  document(engine: Engine, input: Uint8Array | string, firstLine: number, maxDepth?: number): boolean {
    return this.check(engine, input, firstLine, maxDepth) !== false;
  }

  /** As `document`; returns the verdict when the document is clean (no diagnostic at all), else whether it is valid. */
  private check(
    engine: Engine,
    input: Uint8Array | string,
    firstLine: number,
    maxDepth?: number,
  ): boolean | DocumentVerdict {
    const file = this.result.path;
    this.result.documents++;
    const parsed = parseStrictJson(input, { maxDepth });
    this.rows?.line(firstLine, parsed.ok && parsed.issues.length === 0 ? parsed : undefined);
    let invalid = false;
    const shift = firstLine - 1;
    let verdict: DocumentVerdict | undefined;
    if (parsed.ok) verdict = engine.check(parsed.value);
    countType(this.result, verdict);
    // Every strict-JSON issue is an error, except that with --schema-only the ones that still leave a value
    // (duplicate key, overflow, BOM) are warnings: the verdict is then the schema's alone, as any other
    // validator of the same schema would give it on the value JSON.parse returns.
    const lenient = engine.options.schemaOnly === true && parsed.ok;
    for (const i of parsed.issues) {
      if (!lenient) invalid = true;
      const severity = lenient ? 'warning' : 'error';
      this.add(diagnosticAt(file, { line: i.line + shift, column: i.column }, { ...i, severity }, verdict));
    }
    if (verdict && verdict.issues.length > 0) {
      const positions = locatePointers(
        parsed.text,
        verdict.issues.map((i) => i.pointer),
      );
      for (const i of verdict.issues) {
        const pos = positions.get(i.pointer) ?? { line: 1, column: 1 };
        if (i.severity === 'error') invalid = true;
        this.add(diagnosticAt(file, { line: pos.line + shift, column: pos.column }, i, verdict));
      }
    }
    if (invalid) this.result.invalid++;
    if (verdict && parsed.issues.length === 0 && verdict.issues.length === 0) return verdict;
    return !invalid;
  }

  line(engine: Engine, l: JsonlLine, maxDepth?: number): void {
    if (l.tooLong) {
      this.rows?.line(l.line);
      this.result.documents++;
      this.result.invalid++;
      countType(this.result, undefined);
      this.add({
        file: this.result.path,
        line: l.line,
        column: 1,
        pointer: '',
        severity: 'error',
        code: 'json.line-too-long',
        message: 'line too long to read (over the line length limit)',
      });
      return;
    }
    // The fast path (shape/row-shape.ts): a row of a learned shape is valid as it stands. A row sink still gets the
    // parsed row, as the exact path would give it (strict JSON without issue: the text as decoded, no BOM).
    const shapes = engine.options.rowShapes === false ? undefined : engine.shapes(maxDepth);
    const key = shapes?.match(l.bytes);
    if (key !== undefined) {
      this.result.documents++;
      this.result.types[key] = (this.result.types[key] ?? 0) + 1;
      if (this.rows) {
        const text = l.bytes.toString('utf8');
        this.rows.line(l.line, { text, value: JSON.parse(text) });
      }
      return;
    }
    const clean = this.check(engine, l.bytes, l.line, maxDepth);
    if (shapes?.learning && typeof clean === 'object') {
      const version = engine.learnableVersion(clean);
      if (version) shapes.learn(l.bytes, version, typeKey(clean));
    }
  }
}

export interface ReadOptions {
  /** Keep at most this many diagnostics per file. */
  maxDiagnostics?: number;
  maxDepth?: number;
  /** Called with the number of bytes consumed since the last call. */
  onBytes?: (n: number) => void;
  /** Fed every non-blank line of a JSONL file (see `RowSink`). */
  rows?: RowSink;
  /**
   * Read a JSONL file through a stream (the thread pool) instead of synchronously into one reused buffer: for a
   * thread that must stay responsive, such as the one that hands ranges to workers while it reads its own.
   */
  streamed?: boolean;
}

/** Validates lines from an async source of batches. */
export async function validateLines(
  acc: FileAccumulator,
  engine: Engine,
  batches: AsyncIterable<JsonlLine[]>,
  options: ReadOptions = {},
): Promise<void> {
  for await (const batch of batches) {
    let bytes = 0;
    for (const l of batch) {
      acc.line(engine, l, options.maxDepth);
      bytes += l.bytes.length + 1;
    }
    options.onBytes?.(bytes);
  }
}

/**
 * How a JSONL file is read: unless `streamed`, synchronously into one reused 1 MiB buffer (see readJsonlFile), which
 * saves the thread pool's round trips and the garbage of a new buffer per chunk.
 */
export function readOptions(options: { streamed?: boolean }): LineReaderOptions {
  return options.streamed ? {} : { readBuffer: Buffer.allocUnsafe(1024 * 1024) };
}

function ioError(path: string, error: unknown): IoError {
  return readError(path, error);
}

/** Validates one file on disk (`absPath`), reporting it as `path`. */
export async function validateFileAt(
  path: string,
  absPath: string,
  jsonl: boolean,
  engine: Engine,
  options: ReadOptions = {},
): Promise<FileResult> {
  const acc = new FileAccumulator(path, options.maxDiagnostics, jsonl ? options.rows : undefined);
  if (jsonl) {
    try {
      await validateLines(acc, engine, readJsonlFile(absPath, {}, readOptions(options)), options);
    } catch (error) {
      if (error instanceof IoError) throw error;
      if ((error as NodeJS.ErrnoException).code) throw ioError(path, error);
      throw error;
    }
    return acc.result;
  }
  let bytes: Buffer;
  try {
    bytes = await readRegularFile(absPath, path);
  } catch (error) {
    throw ioError(path, error);
  }
  acc.document(engine, bytes, 1, options.maxDepth);
  options.onBytes?.(bytes.length);
  return acc.result;
}

/**
 * Validates a stream. Unless told, it is JSON Lines when its first non-blank line is a complete JSON value by itself,
 * else one JSON document.
 */
export async function validateStreamAs(
  path: string,
  stream: AsyncIterable<Buffer | string>,
  engine: Engine,
  options: ReadOptions & { mode?: 'auto' | 'json' | 'jsonl' } = {},
): Promise<FileResult> {
  const acc = new FileAccumulator(path, options.maxDiagnostics);
  const iterator = stream[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let mode = options.mode ?? 'auto';
  let done = false;
  if (mode === 'auto') {
    // Read until the first non-blank line is complete, then decide.
    for (;;) {
      const next = await iterator.next();
      if (next.done) {
        done = true;
        break;
      }
      head.push(typeof next.value === 'string' ? Buffer.from(next.value) : next.value);
      const all = Buffer.concat(head);
      const firstLine = firstNonBlankLine(all);
      if (firstLine !== undefined) {
        mode = isCompleteJson(firstLine) ? 'jsonl' : 'json';
        break;
      }
    }
    if (mode === 'auto') {
      const all = Buffer.concat(head);
      const firstLine = firstNonBlankLine(all, true);
      mode = firstLine !== undefined && isCompleteJson(firstLine) ? 'jsonl' : 'json';
    }
  }
  const rest: AsyncIterable<Buffer | string> = {
    async *[Symbol.asyncIterator]() {
      for (const b of head) yield b;
      if (done) return;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    },
  };
  if (mode === 'jsonl') {
    await validateLines(acc, engine, splitLines(rest), options);
    return acc.result;
  }
  const chunks: Buffer[] = [];
  for await (const c of rest) chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
  const bytes = Buffer.concat(chunks);
  acc.document(engine, bytes, 1, options.maxDepth);
  options.onBytes?.(bytes.length);
  return acc.result;
}

function firstNonBlankLine(b: Buffer, atEnd = false): Buffer | undefined {
  let start = 0;
  for (;;) {
    const nl = b.indexOf(0x0a, start);
    if (nl === -1) {
      if (!atEnd) return undefined;
      const line = b.subarray(start);
      return line.toString('utf8').trim() === '' ? undefined : line;
    }
    const line = b.subarray(start, nl);
    if (line.toString('utf8').trim() !== '') return line;
    start = nl + 1;
  }
}

/** A line that is a whole JSON value by itself (or looks like a one-line object that is merely invalid). */
function isCompleteJson(line: Buffer): boolean {
  const text = line
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trim();
  try {
    JSON.parse(text);
    return true;
  } catch {
    return text.length > 1 && text.startsWith('{') && text.endsWith('}');
  }
}
