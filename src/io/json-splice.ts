/**
 * Edits JSON text without re-serialising it: given the text and the value it should parse to afterwards, only the
 * values that differ are rewritten and every other byte stays as it was (number spellings such as `1.0` or
 * `1e-05`, key order, whitespace, newline style, the trailing newline).
 *
 * New members go after an object's last member, indented like their siblings with the file's indent unit and
 * newline; members of a one-line object stay on one line. Whole values are rewritten where a finer edit would be
 * guesswork: a value whose type changes, an array whose length changes, an object that loses a key.
 *
 * The text must be valid JSON (read it strictly first): the span scanner below does not validate.
 */
import { isDeepStrictEqual } from 'node:util';
import { escapePointerSegment } from './strict-json.js';
import { isObject } from './json-value.js';

/** One change: the text in [start, end) of the original is replaced by `replacement`. */
export interface TextEdit {
  start: number;
  end: number;
  replacement: string;
  /** Pointers of the values this edit writes (one for a replacement, one per key for an insertion). */
  pointers: string[];
}

export interface SpliceResult {
  text: string;
  /** The edits applied, in text order; empty when the text already parses to the wanted value. */
  edits: TextEdit[];
}

// ---------------------------------------------------------------------------------------------------------------
// Spans: where each value starts and ends in the text, with the members of objects and the items of arrays.

interface Span {
  start: number;
  /** Offset just after the value. */
  end: number;
  members?: Member[];
  items?: Span[];
}

interface Member {
  key: string;
  keyStart: number;
  keyEnd: number;
  value: Span;
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
/** Whether a character ends a number or literal: space, ',', ']' or '}'. */
const endsScalar = (c: number) => isSpace(c) || c === 0x2c || c === 0x5d || c === 0x7d;

function skipSpace(text: string, at: number): number {
  while (at < text.length && isSpace(text.charCodeAt(at))) at++;
  return at;
}

/** Offset just after the string token whose opening quote is at `at`. */
function stringEnd(text: string, at: number): number {
  for (let k = at + 1; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x5c) k++;
    else if (c === 0x22) return k + 1;
  }
  return text.length;
}

/** The decoded key of the string token in [start, end). */
function keyOf(text: string, start: number, end: number): string {
  const raw = text.slice(start + 1, end - 1);
  return raw.includes('\\') ? (JSON.parse(text.slice(start, end)) as string) : raw;
}

function spanAt(text: string, at: number): Span {
  const c = text[at];
  if (c === '{') {
    const members: Member[] = [];
    let k = skipSpace(text, at + 1);
    if (text[k] === '}') return { start: at, end: k + 1, members };
    for (;;) {
      const keyStart = k;
      const keyEnd = stringEnd(text, k);
      k = skipSpace(text, skipSpace(text, keyEnd) + 1); // past ':'
      const value = spanAt(text, k);
      members.push({ key: keyOf(text, keyStart, keyEnd), keyStart, keyEnd, value });
      k = skipSpace(text, value.end);
      if (text[k] !== ',') return { start: at, end: k + 1, members };
      k = skipSpace(text, k + 1);
    }
  }
  if (c === '[') {
    const items: Span[] = [];
    let k = skipSpace(text, at + 1);
    if (text[k] === ']') return { start: at, end: k + 1, items };
    for (;;) {
      const item = spanAt(text, k);
      items.push(item);
      k = skipSpace(text, item.end);
      if (text[k] !== ',') return { start: at, end: k + 1, items };
      k = skipSpace(text, k + 1);
    }
  }
  if (c === '"') return { start: at, end: stringEnd(text, at) };
  let k = at;
  while (k < text.length && !endsScalar(text.charCodeAt(k))) k++;
  return { start: at, end: k };
}

// ---------------------------------------------------------------------------------------------------------------
// Layout: how the file writes JSON, so that what is inserted looks like what is there.

interface Layout {
  newline: string;
  /** One level of indentation (the smallest indentation of any line). */
  unit: string;
  /** Between a key and its value, e.g. ": " or ":". */
  keySeparator: string;
  /** Between siblings on one line, e.g. ", " or ",". */
  inlineSeparator: string;
  /** Before the line break between siblings on separate lines, usually ",". */
  lineSeparator: string;
}

function detectLayout(text: string, root: Span): Layout {
  const newline = text.includes('\r\n') ? '\r\n' : '\n';
  let unit: string | undefined;
  for (const line of text.split('\n').slice(1)) {
    const indent = /^[ \t]*/.exec(line)![0];
    if (indent.length === 0 || indent.length === line.replace(/\r$/, '').length) continue;
    if (unit === undefined || indent.length < unit.length) unit = indent;
  }
  let keySeparator: string | undefined;
  let inlineSeparator: string | undefined;
  let lineSeparator: string | undefined;
  const seeSeparator = (between: string) => {
    const nl = between.search(/[\r\n]/);
    if (nl < 0) inlineSeparator ??= between;
    else lineSeparator ??= between.slice(0, nl);
  };
  const visit = (span: Span) => {
    if (keySeparator !== undefined && inlineSeparator !== undefined && lineSeparator !== undefined) return;
    const members = span.members ?? [];
    members.forEach((m, i) => {
      keySeparator ??= text.slice(m.keyEnd, m.value.start);
      if (i > 0) seeSeparator(text.slice(members[i - 1].value.end, m.keyStart));
      visit(m.value);
    });
    const items = span.items ?? [];
    items.forEach((item, i) => {
      if (i > 0) seeSeparator(text.slice(items[i - 1].end, item.start));
      visit(item);
    });
  };
  visit(root);
  keySeparator ??= ': ';
  return {
    newline,
    unit: unit ?? '  ',
    keySeparator,
    inlineSeparator: inlineSeparator ?? (keySeparator.endsWith(' ') ? ', ' : ','),
    lineSeparator: lineSeparator ?? ',',
  };
}

/** The leading spaces and tabs of the line that holds `offset`. */
function indentOfLine(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart, offset))![0];
}

/** Whether a container puts its children on separate lines (an empty one follows its parent). */
function isMultiline(text: string, span: Span, parentMultiline: boolean): boolean {
  const first = span.members?.[0]?.keyStart ?? span.items?.[0]?.start;
  if (first === undefined) return parentMultiline || text.slice(span.start, span.end).includes('\n');
  return text.slice(span.start, first).includes('\n');
}

/** A value as JSON in the file's layout; `indent` is the indentation of the line it starts on. */
function render(value: unknown, indent: string, multiline: boolean, layout: Layout): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const entries: [string | undefined, unknown][] = Array.isArray(value)
    ? value.map((v) => [undefined, v])
    : Object.entries(value);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) return open + close;
  const inner = multiline ? indent + layout.unit : '';
  const parts = entries.map(
    ([key, v]) =>
      (key === undefined ? '' : JSON.stringify(key) + layout.keySeparator) +
      render(v, inner, multiline, layout),
  );
  if (!multiline) return open + parts.join(layout.inlineSeparator) + close;
  const nl = layout.newline;
  return open + nl + inner + parts.join(layout.lineSeparator + nl + inner) + nl + indent + close;
}

// ---------------------------------------------------------------------------------------------------------------
// The edits: a walk of the old and new values side by side over the spans of the old text.

type Obj = Record<string, unknown>;

function collectEdits(
  text: string,
  layout: Layout,
  span: Span,
  before: unknown,
  after: unknown,
  pointer: string,
  parentMultiline: boolean,
  edits: TextEdit[],
): void {
  if (isDeepStrictEqual(before, after)) return;
  if (isObject(before) && isObject(after) && span.members) {
    const keepsEveryKey = Object.keys(before).every((k) => Object.hasOwn(after, k));
    if (keepsEveryKey) {
      const multiline = isMultiline(text, span, parentMultiline);
      const byKey = new Map(span.members.map((m) => [m.key, m])); // the last of duplicates, as JSON.parse
      const added: string[] = [];
      for (const key of Object.keys(after)) {
        const member = byKey.get(key);
        const child = `${pointer}/${escapePointerSegment(key)}`;
        if (member)
          collectEdits(text, layout, member.value, before[key], after[key], child, multiline, edits);
        else added.push(key);
      }
      if (added.length > 0) edits.push(insertMembers(text, layout, span, after, added, pointer, multiline));
      return;
    }
  }
  if (Array.isArray(before) && Array.isArray(after) && span.items && before.length === after.length) {
    const multiline = isMultiline(text, span, parentMultiline);
    span.items.forEach((item, i) =>
      collectEdits(text, layout, item, before[i], after[i], `${pointer}/${i}`, multiline, edits),
    );
    return;
  }
  edits.push({
    start: span.start,
    end: span.end,
    replacement: render(after, indentOfLine(text, span.start), parentMultiline, layout),
    pointers: [pointer],
  });
}

function insertMembers(
  text: string,
  layout: Layout,
  span: Span,
  after: Obj,
  keys: string[],
  pointer: string,
  multiline: boolean,
): TextEdit {
  const pointers = keys.map((k) => `${pointer}/${escapePointerSegment(k)}`);
  const last = span.members!.at(-1);
  const nl = layout.newline;
  const member = (key: string, indent: string) =>
    JSON.stringify(key) + layout.keySeparator + render(after[key], indent, multiline, layout);
  if (last) {
    const at = last.value.end;
    if (!multiline) {
      const replacement = keys.map((k) => layout.inlineSeparator + member(k, '')).join('');
      return { start: at, end: at, replacement, pointers };
    }
    const indent = indentOfLine(text, last.keyStart);
    const replacement = keys.map((k) => layout.lineSeparator + nl + indent + member(k, indent)).join('');
    return { start: at, end: at, replacement, pointers };
  }
  // An empty object: its inside (only whitespace) is replaced.
  const inside = { start: span.start + 1, end: span.end - 1, pointers };
  if (!multiline)
    return { ...inside, replacement: keys.map((k) => member(k, '')).join(layout.inlineSeparator) };
  const outer = indentOfLine(text, span.start);
  const indent = outer + layout.unit;
  const lines = keys.map((k) => indent + member(k, indent));
  return { ...inside, replacement: nl + lines.join(layout.lineSeparator + nl) + nl + outer };
}

/**
 * Rewrites `text` so that it parses to `after` (as `JSON.stringify` would write it: undefined members dropped,
 * NaN as null), changing only the values that differ. Throws when the text is not JSON, and (a bug, never
 * expected) when the result would not parse to `after`: nothing half-right is returned.
 */
export function spliceJson(text: string, after: unknown): SpliceResult {
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const body = bom ? text.slice(1) : text;
  const before: unknown = JSON.parse(body);
  const wanted: unknown = JSON.parse(JSON.stringify(after) ?? 'null');
  const root = spanAt(body, skipSpace(body, 0));
  const layout = detectLayout(body, root);
  const edits: TextEdit[] = [];
  collectEdits(
    body,
    layout,
    root,
    before,
    wanted,
    '',
    body.slice(root.start, root.end).includes('\n'),
    edits,
  );
  edits.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const e of edits) {
    out += body.slice(at, e.start) + e.replacement;
    at = e.end;
  }
  out += body.slice(at);
  if (!isDeepStrictEqual(JSON.parse(out), wanted)) {
    throw new Error('the spliced text does not parse to the wanted value (a bug in json-splice)');
  }
  const shifted = edits.map((e) => ({ ...e, start: e.start + bom, end: e.end + bom }));
  return { text: (bom ? text[0] : '') + out, edits: shifted };
}
