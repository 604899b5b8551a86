/**
 * Reusing a source's own JSON text where it is already what JSON.stringify would write, so that a converter does not
 * decode a long string only to encode it again. Every function here reads a text that JSON.parse has accepted (the
 * caller parsed it first), so the grammar is trusted, not checked; each returns undefined whenever the source text
 * could differ from JSON.stringify of the parsed value, and the caller then serialises the value as usual.
 *
 * The identities relied on (V8's JSON.parse and JSON.stringify, ECMA-262):
 * - a string literal whose escapes are only `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t` is exactly what JSON.stringify
 *   writes for its value (it writes those escapes and no others, and copies every other character as it is; a
 *   `\u` or `\/` escape is spelt differently, so any such literal is declined);
 * - a number's text is written as `String(Number(text))` (`null` when not finite);
 * - an object's keys come out in source order unless a key repeats (the last value wins, at the first place) or is
 *   an array index (`"0"`, `"17"`: V8 orders those first), and both are declined.
 */

/** A value's text: `text.slice(start, end)`. */
export interface Span {
  start: number;
  end: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function skipSpace(text: string, i: number): number {
  while (isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** The index after the string literal that opens at `i`. */
function stringEnd(text: string, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = text.indexOf('"', from);
    let b = q - 1;
    while (text.charCodeAt(b) === BACKSLASH) b--;
    // An even number of backslashes before the quote: it is not escaped.
    if ((q - 1 - b) % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** The index after the number, `true`, `false` or `null` that starts at `i`. */
function scalarEnd(text: string, i: number): number {
  let j = i + 1;
  for (;;) {
    const c = text.charCodeAt(j);
    if (Number.isNaN(c) || c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c)) return j;
    j++;
  }
}

/** The index after the value that starts at `i`. */
function valueEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) return stringEnd(text, i);
  if (c !== OPEN_BRACE && c !== OPEN_BRACKET) return scalarEnd(text, i);
  let depth = 0;
  let j = i;
  for (;;) {
    const d = text.charCodeAt(j);
    if (d === QUOTE) {
      j = stringEnd(text, j);
      continue;
    }
    if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
    else if ((d === CLOSE_BRACE || d === CLOSE_BRACKET) && --depth === 0) return j + 1;
    j++;
  }
}

/** Whether the key literal spanning [start, end) stands for `key` (decoded only when it holds an escape). */
function keyIs(text: string, start: number, end: number, key: string): boolean {
  if (end - start - 2 === key.length && text.startsWith(key, start + 1)) return true;
  // Only a literal with an escape can spell the key otherwise (and then it is longer than the key).
  if (end - start - 2 <= key.length) return false;
  const b = text.indexOf('\\', start + 1);
  return b !== -1 && b < end && JSON.parse(text.slice(start, end)) === key;
}

/**
 * The spans of the values of an object's members named in `keys` (in that order; undefined for a key that is not
 * there, and the last of a repeated key, as JSON.parse keeps), or undefined when the span does not hold an object.
 */
export function memberSpans(
  text: string,
  span: Span,
  keys: readonly string[],
): (Span | undefined)[] | undefined {
  let i = skipSpace(text, span.start);
  if (text.charCodeAt(i) !== OPEN_BRACE) return undefined;
  const out: (Span | undefined)[] = keys.map(() => undefined);
  i = skipSpace(text, i + 1);
  while (text.charCodeAt(i) === QUOTE) {
    const keyEnd = stringEnd(text, i);
    const start = skipSpace(text, skipSpace(text, keyEnd) + 1);
    const end = valueEnd(text, start);
    for (let k = 0; k < keys.length; k++) if (keyIs(text, i, keyEnd, keys[k])) out[k] = { start, end };
    i = skipSpace(text, end);
    if (text.charCodeAt(i) === COMMA) i = skipSpace(text, i + 1);
  }
  return out;
}

/** The spans of an array's elements, or undefined when the span does not hold an array. */
export function elementSpans(text: string, span: Span): Span[] | undefined {
  let i = skipSpace(text, span.start);
  if (text.charCodeAt(i) !== OPEN_BRACKET) return undefined;
  const out: Span[] = [];
  i = skipSpace(text, i + 1);
  while (text.charCodeAt(i) !== CLOSE_BRACKET) {
    const end = valueEnd(text, i);
    out.push({ start: i, end });
    i = skipSpace(text, end);
    if (text.charCodeAt(i) === COMMA) i = skipSpace(text, i + 1);
  }
  return out;
}

/** The whole text as a span (its surrounding whitespace left out). */
export function wholeSpan(text: string): Span {
  let end = text.length;
  while (end > 0 && isSpace(text.charCodeAt(end - 1))) end--;
  return { start: skipSpace(text, 0), end };
}

const LETTER_U = 0x75;
const SLASH = 0x2f;

/**
 * A string literal's content escaped once more (each backslash and quote gets a backslash: `\"` → `\\\"`, `\n` →
 * `\\n`), or undefined when it holds an escape JSON.stringify does not write (`\u`, `\/`; see the module comment).
 * Its quotes are all escaped ones, so only its backslashes are visited.
 */
function escapedAgain(content: string): string | undefined {
  let b = content.indexOf('\\');
  if (b === -1) return content;
  let out = '';
  let from = 0;
  while (b !== -1) {
    const next = content.charCodeAt(b + 1);
    if (next === LETTER_U || next === SLASH) return undefined;
    out += `${content.slice(from, b)}\\\\${next === QUOTE || next === BACKSLASH ? '\\' : ''}${content[b + 1]}`;
    from = b + 2;
    b = content.indexOf('\\', from);
  }
  return out + content.slice(from);
}

/** A string literal's content holds only the escapes JSON.stringify writes. */
function plainEscapes(content: string): boolean {
  for (let b = content.indexOf('\\'); b !== -1; b = content.indexOf('\\', b + 2)) {
    const next = content.charCodeAt(b + 1);
    if (next === LETTER_U || next === SLASH) return false;
  }
  return true;
}

/** The span's text when it is a string literal exactly as JSON.stringify writes its value, else undefined. */
export function stringLiteralAt(text: string, span: Span): string | undefined {
  if (text.charCodeAt(span.start) !== QUOTE) return undefined;
  const literal = text.slice(span.start, span.end);
  return plainEscapes(literal) ? literal : undefined;
}

/** Array indices are ordered first by V8, whatever their place in the source. */
const ARRAY_INDEX = /^(?:0|[1-9][0-9]{0,9})$/;
const isArrayIndex = (key: string): boolean => ARRAY_INDEX.test(key) && Number(key) < 4294967295;

/**
 * `JSON.stringify(JSON.stringify(value))` for the value in the span, written from the source text: the value's
 * compact JSON as a string literal (what EEE's string maps hold for a structured source field). Undefined when a
 * string uses a `\u` or `\/` escape, or an object repeats a key or has an array-index key.
 */
export function compactJsonStringLiteral(text: string, span: Span): string | undefined {
  let out = '"';
  // The keys of each open object (to find repeats), innermost last; undefined for an open array.
  const keys: (string[] | undefined)[] = [];
  let expectKey = false;
  let i = span.start;
  while (i < span.end) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      const content = text.slice(i + 1, end - 1);
      const again = escapedAgain(content);
      if (again === undefined) return undefined;
      if (expectKey) {
        const key = content.includes('\\') ? (JSON.parse(text.slice(i, end)) as string) : content;
        const seen = keys[keys.length - 1]!;
        if (isArrayIndex(key) || seen.includes(key)) return undefined;
        seen.push(key);
        expectKey = false;
      }
      // Inside the outer literal, the inner one's quotes and its escapes are escaped once more.
      out += `\\"${again}\\"`;
      i = end;
      continue;
    }
    if (c === OPEN_BRACE) {
      keys.push([]);
      expectKey = true;
      out += '{';
    } else if (c === OPEN_BRACKET) {
      keys.push(undefined);
      out += '[';
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      keys.pop();
      expectKey = false;
      out += c === CLOSE_BRACE ? '}' : ']';
    } else if (c === COMMA) {
      expectKey = keys[keys.length - 1] !== undefined;
      out += ',';
    } else if (c === COLON) out += ':';
    else {
      const end = scalarEnd(text, i);
      const token = text.slice(i, end);
      if (token === 'true' || token === 'false' || token === 'null') out += token;
      else {
        const n = Number(token);
        out += Number.isFinite(n) ? String(n) : 'null';
      }
      i = end;
      continue;
    }
    i++;
  }
  return `${out}"`;
}

/**
 * `JSON.stringify(detailString(value))` from the source text (see record.ts: a string stays itself, any other value
 * becomes its compact JSON), or undefined as above.
 */
export function detailLiteralAt(text: string, span: Span): string | undefined {
  return text.charCodeAt(span.start) === QUOTE
    ? stringLiteralAt(text, span)
    : compactJsonStringLiteral(text, span);
}

/** Characters JSON.stringify writes escaped (all surrogates, to be safe about lone ones). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify(s), about twice as fast for the common string that needs no escape. */
export function jsonString(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}
