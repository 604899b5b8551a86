/**
 * Strict JSON: the grammar of RFC 8259 with the mistakes `JSON.parse` forgives (or reports without a position)
 * turned into positioned issues with stable codes.
 *
 * Fast path: `JSON.parse`, then one cheap walk of the result that counts string tokens and sees non-finite numbers
 * and deep nesting, compared with a count of unescaped quotes in the text. A valid document costs about one
 * `JSON.parse`. Only when the parse fails or the counts disagree does the slow, position-tracking scanner run.
 */

import { isUtf8 } from 'node:buffer';
import { countUnescapedQuotes } from './quote-count.js';

export type JsonIssueCode =
  | 'json.syntax'
  | 'json.truncated'
  | 'json.trailing'
  | 'json.duplicate-key'
  | 'json.nan'
  | 'json.overflow'
  | 'json.invalid-utf8'
  | 'json.bom'
  | 'json.nesting'
  | 'json.empty';

export interface JsonIssue {
  code: JsonIssueCode;
  message: string;
  /** 1-based line and column (columns count Unicode characters). */
  line: number;
  column: number;
  /** JSON pointer of the value concerned, when known ("" for the whole document). */
  pointer: string;
}

export interface StrictParseResult {
  /** The parsed value; undefined when the text is not JSON at all (a fatal issue). */
  value: unknown;
  /** Whether `value` is usable (false after a fatal issue). */
  ok: boolean;
  /** Every issue found; empty for a clean document. */
  issues: JsonIssue[];
  /** The decoded text (without BOM), for mapping pointers to positions later. */
  text: string;
}

export interface StrictParseOptions {
  /** Deepest nesting of arrays/objects accepted (default 256). */
  maxDepth?: number;
}

export const DEFAULT_MAX_DEPTH = 256;

const UTF8_BOM = 0xfeff;

/** Parses one JSON document from bytes or text. Never throws on bad input. */
export function parseStrictJson(
  input: Uint8Array | string,
  options: StrictParseOptions = {},
): StrictParseResult {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const issues: JsonIssue[] = [];
  let text: string;
  if (typeof input === 'string') {
    text = input;
  } else {
    const bytes = Buffer.isBuffer(input)
      ? input
      : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
    text = bytes.toString('utf8');
    if (!isUtf8(bytes)) {
      const bad = firstInvalidUtf8(input);
      if (bad >= 0) {
        const before = Buffer.from(input.buffer, input.byteOffset, bad).toString('utf8');
        const pos = positionAtEnd(before);
        issues.push({
          code: 'json.invalid-utf8',
          message: `invalid UTF-8 byte 0x${input[bad].toString(16).padStart(2, '0')} at byte ${bad}`,
          line: pos.line,
          column: pos.column,
          pointer: '',
        });
        return { value: undefined, ok: false, issues, text };
      }
    }
  }
  if (text.charCodeAt(0) === UTF8_BOM) {
    issues.push({
      code: 'json.bom',
      message: 'the file starts with a byte order mark (U+FEFF); JSON text must not',
      line: 1,
      column: 1,
      pointer: '',
    });
    text = text.slice(1);
  }
  let value: unknown;
  let parsed = false;
  try {
    value = JSON.parse(text);
    parsed = true;
  } catch {
    parsed = false;
  }
  if (parsed && fastCheck(text, typeof input === 'string' ? undefined : input, value, maxDepth)) {
    return { value, ok: true, issues, text };
  }
  const scan = scanJson(text, maxDepth);
  // The first line of a BOM file is one character shorter after slicing: report columns as in the file.
  if (issues.length > 0) for (const i of scan.issues) if (i.line === 1) i.column += 1;
  issues.push(...scan.issues);
  if (!scan.fatal && !parsed) {
    // NaN / Infinity were reported (the scanner reads past them); the document has no JSON value.
    if (scan.issues.length > 0) return { value: undefined, ok: false, issues, text };
    // JSON.parse refused something the scanner accepted: keep the verdict strict.
    issues.push({ code: 'json.syntax', message: 'not valid JSON', line: 1, column: 1, pointer: '' });
    return { value: undefined, ok: false, issues, text };
  }
  return { value: scan.fatal ? undefined : value, ok: !scan.fatal, issues, text };
}

// ---------------------------------------------------------------------------------------------------------------
// Fast check: counts string tokens in the parsed value and unescaped quotes in the text. JSON.parse keeps the last
// of duplicate keys, so a duplicate always shows as more string tokens in the text than in the value.

let stringTokens = 0;
let tooDeep = false;
let nonFinite = false;

function walk(v: unknown, depth: number): void {
  if (typeof v !== 'object' || v === null) {
    if (typeof v === 'string') stringTokens++;
    else if (typeof v === 'number' && !Number.isFinite(v)) nonFinite = true;
    return;
  }
  if (depth >= walkLimit) {
    tooDeep = true;
    return;
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (typeof x === 'object' && x !== null) walk(x, depth + 1);
      else if (typeof x === 'string') stringTokens++;
      else if (typeof x === 'number' && !Number.isFinite(x)) nonFinite = true;
    }
    return;
  }
  for (const k in v as Record<string, unknown>) {
    stringTokens++;
    const x = (v as Record<string, unknown>)[k];
    if (typeof x === 'object' && x !== null) walk(x, depth + 1);
    else if (typeof x === 'string') stringTokens++;
    else if (typeof x === 'number' && !Number.isFinite(x)) nonFinite = true;
  }
}
let walkLimit = DEFAULT_MAX_DEPTH;

function fastCheck(text: string, bytes: Uint8Array | undefined, value: unknown, maxDepth: number): boolean {
  stringTokens = 0;
  tooDeep = false;
  nonFinite = false;
  walkLimit = maxDepth;
  walk(value, 0);
  if (tooDeep || nonFinite) return false;
  return countUnescapedQuotes(text, bytes) === stringTokens * 2;
}

// ---------------------------------------------------------------------------------------------------------------
// The slow scanner: a small iterative recogniser that tracks line and column and the JSON pointer of each value.

interface ScanResult {
  issues: JsonIssue[];
  fatal: boolean;
}

/** Escapes one JSON pointer segment (RFC 6901). */
export function escapePointerSegment(s: string): string {
  return s.includes('~') || s.includes('/') ? s.replace(/~/g, '~0').replace(/\//g, '~1') : s;
}

/** Thrown to stop the scanner; not an Error, so that no stack trace is captured for every invalid line. */
class Fatal {}

/**
 * A position-tracking JSON scanner. With `onValue` it reports the start of every value with its pointer;
 * it records duplicate keys, NaN/Infinity, overflowing numbers and deep nesting; the first syntax error is fatal.
 */
class Scanner {
  i = 0;
  line = 1;
  lineStart = 0;
  issues: JsonIssue[] = [];
  constructor(
    readonly text: string,
    readonly maxDepth: number,
    /** Called at the start of every value; `line` and `column(offset)` are then its position. */
    readonly onValue?: (pointer: string, offset: number) => boolean | void,
  ) {}

  column(offset: number): number {
    // Count code points between the line start and offset.
    let col = 1;
    for (let k = this.lineStart; k < offset; k++) {
      const c = this.text.charCodeAt(k);
      if (c < 0xdc00 || c > 0xdfff) col++;
    }
    return col;
  }

  issue(code: JsonIssueCode, message: string, offset: number, pointer: string): JsonIssue {
    const i: JsonIssue = { code, message, line: this.line, column: this.column(offset), pointer };
    this.issues.push(i);
    return i;
  }

  fatal(code: JsonIssueCode, message: string, offset: number, pointer: string): never {
    this.issue(code, message, offset, pointer);
    throw new Fatal();
  }

  skipWs(): void {
    const t = this.text;
    for (;;) {
      const c = t.charCodeAt(this.i);
      if (c === 0x20 || c === 0x09 || c === 0x0d) this.i++;
      else if (c === 0x0a) {
        this.i++;
        this.line++;
        this.lineStart = this.i;
      } else return;
    }
  }

  describe(offset: number): string {
    if (offset >= this.text.length) return 'end of input';
    const cp = this.text.codePointAt(offset)!;
    const ch = String.fromCodePoint(cp);
    return cp < 0x20 || cp === 0x7f ? `U+${cp.toString(16).toUpperCase().padStart(4, '0')}` : `'${ch}'`;
  }

  unexpected(what: string, pointer: string): never {
    if (this.i >= this.text.length) {
      this.fatal(
        'json.truncated',
        `unexpected end of input: expected ${what} (the file may be truncated)`,
        this.i,
        pointer,
      );
    }
    this.fatal('json.syntax', `unexpected ${this.describe(this.i)}: expected ${what}`, this.i, pointer);
  }

  run(): void {
    this.skipWs();
    if (this.i >= this.text.length)
      this.fatal('json.empty', 'empty document: expected a JSON value', this.i, '');
    this.value('', 0);
    this.skipWs();
    if (this.i < this.text.length) {
      this.fatal(
        'json.trailing',
        `unexpected ${this.describe(this.i)} after the end of the JSON value (trailing content)`,
        this.i,
        '',
      );
    }
  }

  value(pointer: string, depth: number): void {
    const t = this.text;
    const c = t.charCodeAt(this.i);
    if (this.onValue && this.onValue(pointer, this.i) === true) throw new Fatal();
    if (c === 0x7b || c === 0x5b) {
      if (depth >= this.maxDepth) {
        this.fatal('json.nesting', `nesting deeper than ${this.maxDepth} levels`, this.i, '');
      }
      if (c === 0x7b) this.object(pointer, depth + 1);
      else this.array(pointer, depth + 1);
      return;
    }
    if (c === 0x22) {
      this.string(pointer);
      return;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      this.number(pointer);
      return;
    }
    if (t.startsWith('true', this.i)) return void (this.i += 4);
    if (t.startsWith('false', this.i)) return void (this.i += 5);
    if (t.startsWith('null', this.i)) return void (this.i += 4);
    if (t.startsWith('NaN', this.i) || t.startsWith('Infinity', this.i)) {
      const word = t.startsWith('NaN', this.i) ? 'NaN' : 'Infinity';
      this.issue(
        'json.nan',
        `${word} is not a JSON value (write null, or a string if the format allows)`,
        this.i,
        pointer,
      );
      this.i += word.length;
      return;
    }
    this.unexpected('a JSON value', pointer);
  }

  object(pointer: string, depth: number): void {
    const t = this.text;
    this.i++; // {
    this.skipWs();
    if (t.charCodeAt(this.i) === 0x7d) {
      this.i++;
      return;
    }
    const seen = new Set<string>();
    for (;;) {
      this.skipWs();
      if (t.charCodeAt(this.i) !== 0x22) this.unexpected('a property name in double quotes', pointer);
      const keyStart = this.i;
      const keyLine = this.line;
      const key = this.string(pointer);
      const child = `${pointer}/${escapePointerSegment(key)}`;
      if (seen.has(key)) {
        const saveLine = this.line;
        this.line = keyLine;
        this.issue(
          'json.duplicate-key',
          `duplicate key "${key}" (JSON.parse would silently keep the last)`,
          keyStart,
          child,
        );
        this.line = saveLine;
      } else seen.add(key);
      this.skipWs();
      if (t.charCodeAt(this.i) !== 0x3a) this.unexpected("':' after the property name", child);
      this.i++;
      this.skipWs();
      this.value(child, depth);
      this.skipWs();
      const c = t.charCodeAt(this.i);
      if (c === 0x2c) {
        this.i++;
        this.skipWs();
        if (t.charCodeAt(this.i) === 0x7d)
          this.fatal('json.syntax', "trailing comma before '}'", this.i, pointer);
        continue;
      }
      if (c === 0x7d) {
        this.i++;
        return;
      }
      this.unexpected("',' or '}'", pointer);
    }
  }

  array(pointer: string, depth: number): void {
    const t = this.text;
    this.i++; // [
    this.skipWs();
    if (t.charCodeAt(this.i) === 0x5d) {
      this.i++;
      return;
    }
    for (let index = 0; ; index++) {
      this.skipWs();
      this.value(`${pointer}/${index}`, depth);
      this.skipWs();
      const c = t.charCodeAt(this.i);
      if (c === 0x2c) {
        this.i++;
        this.skipWs();
        if (t.charCodeAt(this.i) === 0x5d)
          this.fatal('json.syntax', "trailing comma before ']'", this.i, pointer);
        continue;
      }
      if (c === 0x5d) {
        this.i++;
        return;
      }
      this.unexpected("',' or ']'", pointer);
    }
  }

  /** Reads a string token and returns its decoded value. */
  string(pointer: string): string {
    const t = this.text;
    const start = ++this.i;
    let simple = true;
    for (;;) {
      if (this.i >= t.length)
        this.fatal('json.truncated', 'unterminated string (the file may be truncated)', start - 1, pointer);
      const c = t.charCodeAt(this.i);
      if (c === 0x22) break;
      if (c === 0x5c) {
        simple = false;
        const e = t.charCodeAt(this.i + 1);
        if (e === 0x75) {
          if (!/^[0-9a-fA-F]{4}$/.test(t.slice(this.i + 2, this.i + 6))) {
            this.fatal('json.syntax', 'invalid \\u escape: expected four hex digits', this.i, pointer);
          }
          this.i += 6;
          continue;
        }
        if ('"\\/bfnrt'.includes(t[this.i + 1] ?? '')) {
          this.i += 2;
          continue;
        }
        if (this.i + 1 >= t.length)
          this.fatal('json.truncated', 'unterminated string (the file may be truncated)', start - 1, pointer);
        this.fatal('json.syntax', `invalid escape '\\${t[this.i + 1]}' in a string`, this.i, pointer);
      }
      if (c < 0x20) {
        this.fatal(
          'json.syntax',
          c === 0x0a
            ? 'unterminated string (raw line break inside a string)'
            : `raw control character U+${c.toString(16).toUpperCase().padStart(4, '0')} inside a string: escape it`,
          this.i,
          pointer,
        );
      }
      this.i++;
    }
    const raw = t.slice(start, this.i);
    this.i++; // closing quote
    return simple ? raw : (JSON.parse(`"${raw}"`) as string);
  }

  number(pointer: string): void {
    const t = this.text;
    const start = this.i;
    const m = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
    m.lastIndex = start;
    const found = m.exec(t);
    if (!found) {
      if (t.startsWith('-Infinity', start)) {
        this.issue(
          'json.nan',
          '-Infinity is not a JSON value (write null, or a string if the format allows)',
          start,
          pointer,
        );
        this.i += 9;
        return;
      }
      if (start + 1 >= t.length) this.unexpected('a digit', pointer);
      this.i = start + 1;
      this.unexpected('a digit', pointer);
    }
    const token = found[0];
    this.i = start + token.length;
    const next = t.charCodeAt(this.i);
    if (next === 0x2e || (next >= 0x30 && next <= 0x39 && token === '0') || next === 0x65 || next === 0x45) {
      if (this.i >= t.length) this.unexpected('a digit', pointer);
      this.fatal('json.syntax', `malformed number '${t.slice(start, this.i + 1)}'`, start, pointer);
    }
    if (!Number.isFinite(Number(token))) {
      this.issue(
        'json.overflow',
        `number ${token.length > 40 ? token.slice(0, 40) + '…' : token} overflows to ${token.startsWith('-') ? '-' : ''}Infinity`,
        start,
        pointer,
      );
    }
  }
}

function scanJson(text: string, maxDepth: number): ScanResult {
  const s = new Scanner(text, maxDepth);
  try {
    s.run();
    return { issues: s.issues, fatal: false };
  } catch (error) {
    if (error instanceof Fatal) return { issues: s.issues, fatal: true };
    if (error instanceof RangeError) {
      return {
        issues: [
          { code: 'json.nesting', message: 'nesting too deep to read', line: s.line, column: 1, pointer: '' },
        ],
        fatal: true,
      };
    }
    throw error;
  }
}

export interface TextPosition {
  line: number;
  column: number;
}

/**
 * Maps JSON pointers to the line:column where their value starts in `text` (one pass). A pointer that does not
 * exist maps to its deepest existing ancestor. Call it only for documents that have diagnostics.
 */
export function locatePointers(text: string, pointers: Iterable<string>): Map<string, TextPosition> {
  const wanted = new Set<string>();
  for (const p of pointers) {
    wanted.add(p);
    // Ancestors, so that a missing value falls back to its parent.
    let q = p;
    while (q !== '') {
      q = q.slice(0, q.lastIndexOf('/'));
      wanted.add(q);
    }
  }
  const found = new Map<string, TextPosition>();
  let remaining = wanted.size;
  let offset = 0;
  if (text.charCodeAt(0) === UTF8_BOM) {
    text = text.slice(1);
    offset = 1;
  }
  // The column (a count of code points from the line start) only for the values wanted.
  const s: Scanner = new Scanner(text, Number.MAX_SAFE_INTEGER, (pointer, at) => {
    if (wanted.has(pointer) && !found.has(pointer)) {
      const line = s.line;
      const column = s.column(at);
      found.set(pointer, { line, column: line === 1 ? column + offset : column });
      remaining--;
      if (remaining === 0) return true;
    }
  });
  try {
    s.run();
  } catch {
    // Stop at the first syntax error or when every pointer was found.
  }
  const result = new Map<string, TextPosition>();
  for (const p of pointers) {
    let q = p;
    for (;;) {
      const pos = found.get(q);
      if (pos) {
        result.set(p, pos);
        break;
      }
      if (q === '') {
        result.set(p, { line: 1, column: 1 });
        break;
      }
      q = q.slice(0, q.lastIndexOf('/'));
    }
  }
  return result;
}

/** Line and column just after the end of `text`. */
function positionAtEnd(text: string): TextPosition {
  const nl = text.lastIndexOf('\n');
  const lastLine = text.slice(nl + 1);
  return { line: text.split('\n').length, column: [...lastLine].length + 1 };
}

/** Byte offset of the first byte that is not valid UTF-8, or -1. */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  const n = b.length;
  while (i < n) {
    const c = b[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (c >= 0xc2 && c <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      min = 0x10000;
    } else return i;
    if (i + need >= n) return i;
    let cp = c & (need === 1 ? 0x1f : need === 2 ? 0x0f : 0x07);
    for (let k = 1; k <= need; k++) {
      const cc = b[i + k];
      if (cc === undefined || (cc & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}
