/**
 * Reading source files for converters: a whole JSON document (strict, errors with line:column), a JSONL file as a
 * stream of parsed lines (errors with the line number), and the digest of a file's bytes (which seeds record ids).
 * Every failure is a DataError (bad content) or an IoError (unreadable), naming the file.
 */
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { DataError, IoError } from '../errors.js';
import { readError } from '../io/file-kind.js';
import { readJsonlFile, type JsonlLine } from '../io/jsonl.js';
import { createRegularReadStream, readRegularFile } from '../io/regular-file.js';
import { parseStrictJson } from '../io/strict-json.js';
import { INVALID_UTF8, invalidUtf8At, invalidUtf8Message } from '../io/utf8.js';
import { contentDigest } from './record.js';
import { parsePythonJson, replacePythonNonFinite, revivePythonNonFiniteIn } from './source-json.js';

export interface JsonSource {
  value: unknown;
  /** sha256 of the file's bytes. */
  digest: string;
  bytes: number;
}

/** The file's bytes, through the shared regular-file guard (a FIFO or device is refused, never read). */
export function readBytes(path: string): Promise<Buffer> {
  return readRegularFile(path);
}

/**
 * The sha256 (hex) of a file's bytes, read as a stream (a file too large to hold, or one not parsed whole), through
 * the same regular-file guard as readBytes.
 */
export async function fileDigest(path: string): Promise<string> {
  const hash = createHash('sha256');
  try {
    for await (const chunk of createRegularReadStream(path, { highWaterMark: 1 << 20 }))
      hash.update(chunk as Buffer);
  } catch (error) {
    throw readError(path, error);
  }
  return hash.digest('hex');
}

/**
 * A JSON document, parsed strictly (duplicate keys, NaN, truncation are errors with their position); with `python`,
 * Python's bare NaN / Infinity / -Infinity read as those numbers (for files a Python tool wrote).
 */
export async function readJsonSource(path: string, options: { python?: boolean } = {}): Promise<JsonSource> {
  const bytes = await readBytes(path);
  return {
    ...parseJsonSource(path, bytes, options.python === true),
    digest: contentDigest(bytes),
    bytes: bytes.length,
  };
}

/** Parses bytes (or text) as strict JSON; the first fatal issue becomes a DataError with file:line:col. */
export function parseJsonSource(
  path: string,
  data: Uint8Array | string,
  pythonNumbers = false,
): { value: unknown } {
  let parsed = parseStrictJson(data);
  let python = false;
  if (!parsed.ok && pythonNumbers) {
    const text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
    const replaced = replacePythonNonFinite(text);
    if (replaced !== text) {
      const again = parseStrictJson(replaced);
      if (again.ok) ((parsed = again), (python = true));
    }
  }
  const fatal = parsed.ok ? undefined : parsed.issues[0];
  if (fatal || !parsed.ok)
    throw new DataError(
      'convert.bad-json',
      fatal ? `${path}:${fatal.line}:${fatal.column}: ${fatal.message}` : `${path}: not valid JSON`,
    );
  const duplicate = parsed.issues.find((i) => i.code === 'json.duplicate-key');
  if (duplicate)
    throw new DataError(
      'convert.bad-json',
      `${path}:${duplicate.line}:${duplicate.column}: ${duplicate.message}`,
    );
  return { value: python ? revivePythonNonFiniteIn(parsed.value) : parsed.value };
}

export interface JsonlValue {
  line: number;
  value: unknown;
}

/**
 * A DataError about one line of a file (`path:line: detail`) that keeps the line and the detail apart: a worker
 * that read a byte range numbers lines within it, and the line in the file is put in their place (see
 * row-blocks.ts). Its name is DataError, as for every other bad-content error.
 */
export class LineError extends DataError {
  readonly line: number;
  readonly detail: string;
  constructor(code: string, path: string, line: number, detail: string) {
    super(code, `${path}:${line}: ${detail}`);
    this.name = 'DataError';
    this.line = line;
    this.detail = detail;
  }
}

/**
 * The lines of a JSONL file (or of a byte range of it, lines then numbered from 1 within the range) as bytes, one
 * batch per chunk read (memory: one chunk plus one line; a batch is valid until the next is asked for). An unreadable
 * file is an IoError. `stats.lines` is set at the end to the number of lines read, blank ones included;
 * `readBuffer`: read into it again and again (see readJsonlFile).
 */
export async function* readJsonlLines(
  path: string,
  range: { start?: number; end?: number } = {},
  stats?: { lines: number },
  readBuffer?: Buffer,
): AsyncGenerator<JsonlLine[]> {
  try {
    yield* readJsonlFile(path, range, { stats, readBuffer, dropBom: !range.start });
  } catch (error) {
    if (error instanceof DataError) throw error;
    const e = error as NodeJS.ErrnoException;
    if (typeof e?.code === 'string') throw new IoError('io.read', `cannot read ${path}: ${e.message}`);
    throw error;
  }
}

/**
 * One line's text; a line too long to read, or not UTF-8 (the rule of io/utf8.ts), is a LineError naming file, line
 * (and column).
 */
export function jsonlLineText(path: string, l: JsonlLine): string {
  if (l.tooLong) throw new LineError('convert.bad-jsonl', path, l.line, 'the line is too long to read');
  // ASCII is UTF-8, and decodes to the same text as Latin-1, which is a copy (UTF-8 decoding checks each byte).
  if (isAscii(l.bytes)) return l.bytes.toString('latin1');
  const bad = invalidUtf8At(l.bytes);
  if (bad) throw new LineError(INVALID_UTF8, path, l.line, `${bad.column}: ${invalidUtf8Message(bad.byte)}`);
  return l.bytes.toString('utf8');
}

/** One line's JSON value; a line that is not JSON (or was too long to read) is a LineError naming file and line. */
export function parseJsonlLine(path: string, l: JsonlLine, text = jsonlLineText(path, l)): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    // Python's bare NaN / Infinity / -Infinity (lm-eval, oaieval write them): read as those numbers.
    const python = parsePythonJson(text);
    if (python !== undefined) return python;
    throw new LineError(
      'convert.bad-jsonl',
      path,
      l.line,
      `not valid JSON (${(error as Error).message}); the file may be truncated or corrupted`,
    );
  }
}

/**
 * The lines of a JSONL file (or of a byte range of it), parsed, one batch per chunk read. A line that is not JSON,
 * or a last line cut short, is a LineError naming file and line (see readJsonlLines for the other arguments).
 */
export async function* readJsonlBatches(
  path: string,
  range: { start?: number; end?: number } = {},
  stats?: { lines: number },
): AsyncGenerator<JsonlValue[]> {
  for await (const batch of readJsonlLines(path, range, stats)) {
    const out: JsonlValue[] = new Array(batch.length);
    for (let i = 0; i < batch.length; i++)
      out[i] = { line: batch[i].line, value: parseJsonlLine(path, batch[i]) };
    yield out;
  }
}

/** The lines of a JSONL file, parsed one at a time (see readJsonlBatches). */
export async function* readJsonlValues(path: string): AsyncGenerator<JsonlValue> {
  for await (const batch of readJsonlBatches(path)) yield* batch;
}
