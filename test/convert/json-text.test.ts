// The source-text reuse of json-text.ts against what it stands for, on seeded random JSON written in the styles real
// tools write (compact as JSON.stringify, Python's default `, ` and `: ` separators, indented, non-ASCII escaped as
// Python's ensure_ascii does, `\/` as some writers do), with repeated keys, array-index keys and hostile strings:
// whatever the function returns is exactly what JSON.stringify gives for the parsed value, and it declines only
// where the module says it must.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  compactJsonStringLiteral,
  detailLiteralAt,
  elementSpans,
  jsonString,
  memberSpans,
  stringLiteralAt,
  wholeSpan,
} from '../../src/convert/json-text.js';
import { createRng } from '../../src/metrics/stats/rng.js';

/** A JSON value as a writer holds it: objects as entry lists (so a key can repeat), numbers with their text. */
type Node =
  | { kind: 'string'; value: string }
  | { kind: 'number'; text: string }
  | { kind: 'literal'; text: 'true' | 'false' | 'null' }
  | { kind: 'array'; items: Node[] }
  | { kind: 'object'; entries: [string, Node][] };

interface Style {
  name: string;
  comma: string;
  colon: string;
  indent?: string;
  /** Non-ASCII as \uXXXX (Python's ensure_ascii=True). */
  asciiOnly?: boolean;
  /** `/` as `\/`. */
  escapeSlash?: boolean;
}

const STYLES: Style[] = [
  { name: 'compact', comma: ',', colon: ':' },
  { name: 'python default', comma: ', ', colon: ': ' },
  { name: 'indented', comma: ',', colon: ': ', indent: '  ' },
  { name: 'python ensure_ascii', comma: ', ', colon: ': ', asciiOnly: true },
  { name: 'escaped slashes', comma: ',', colon: ':', escapeSlash: true },
];

const PIECES = [
  'a',
  'word ',
  'Problem: what is 2 + 2?',
  '"',
  '\\',
  '\\u',
  '\\/',
  '/',
  '\n',
  '\t',
  '\r',
  '\b',
  '\f',
  '\u0001',
  '\u001f',
  '\u007f',
  'é',
  'ß',
  '\u2028',
  '😀',
  '\ud800',
  '"quoted"',
  '{"json": [1, 2]}',
];
const KEYS = [
  'a',
  'b',
  'doc',
  'text',
  '0',
  '17',
  '4294967294',
  '4294967295',
  '-1',
  '01',
  '__proto__',
  'k"q',
  'k\\',
  'ключ',
];
const NUMBERS = [
  '0',
  '-0',
  '1',
  '-17',
  '1.0',
  '2.50',
  '0.1',
  '1e21',
  '1E+21',
  '1e-7',
  '123456789012345678901',
  '1e400',
  '-1e400',
  '3.14159',
];

function writeString(s: string, style: Style): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (ch === '/' && style.escapeSlash) out += '\\/';
    else if (c < 0x20 || (c >= 0xd800 && c <= 0xdfff) || (style.asciiOnly && c > 0x7e))
      for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

function write(node: Node, style: Style, depth = 0): string {
  const nl = style.indent === undefined ? '' : `\n${style.indent.repeat(depth + 1)}`;
  const close = style.indent === undefined ? '' : `\n${style.indent.repeat(depth)}`;
  switch (node.kind) {
    case 'string':
      return writeString(node.value, style);
    case 'number':
    case 'literal':
      return node.text;
    case 'array':
      return node.items.length === 0
        ? '[]'
        : `[${node.items.map((n) => nl + write(n, style, depth + 1)).join(style.comma)}${close}]`;
    case 'object':
      return node.entries.length === 0
        ? '{}'
        : `{${node.entries.map(([k, v]) => `${nl}${writeString(k, style)}${style.colon}${write(v, style, depth + 1)}`).join(style.comma)}${close}}`;
  }
}

function generate(random: () => number, depth: number): Node {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
  const r = random();
  if (depth <= 0 || r < 0.35) {
    const n = Math.floor(random() * 4);
    let value = '';
    for (let i = 0; i < n; i++) value += pick(PIECES);
    return { kind: 'string', value };
  }
  if (r < 0.5) return { kind: 'number', text: pick(NUMBERS) };
  if (r < 0.58) return { kind: 'literal', text: pick(['true', 'false', 'null'] as const) };
  const size = Math.floor(random() * 5);
  if (r < 0.75)
    return { kind: 'array', items: Array.from({ length: size }, () => generate(random, depth - 1)) };
  return {
    kind: 'object',
    entries: Array.from({ length: size }, () => [pick(KEYS), generate(random, depth - 1)] as [string, Node]),
  };
}

/** Nothing the module must decline: no `\u` or `\/` in the text, no repeated or array-index key. */
function declinable(node: Node, text: string): boolean {
  if (/\\[u/]/.test(text)) return true;
  const walk = (n: Node): boolean => {
    if (n.kind === 'array') return n.items.some(walk);
    if (n.kind !== 'object') return false;
    const keys = n.entries.map(([k]) => k);
    if (new Set(keys).size !== keys.length) return true;
    if (keys.some((k) => /^(?:0|[1-9][0-9]*)$/.test(k) && Number(k) < 4294967295)) return true;
    return n.entries.some(([, v]) => walk(v));
  };
  return walk(node);
}

const CASES = 3000;

test('compactJsonStringLiteral: JSON.stringify(JSON.stringify(JSON.parse(text))) whenever it answers, and it answers whenever nothing forbids it', () => {
  const random = createRng(20261124);
  let answered = 0;
  for (let i = 0; i < CASES; i++) {
    const node = generate(random, 4);
    const style = STYLES[i % STYLES.length];
    const text = `${i % 3 === 0 ? ' ' : ''}${write(node, style)}${i % 4 === 0 ? '\n' : ''}`;
    const expected = JSON.stringify(JSON.stringify(JSON.parse(text)));
    const got = compactJsonStringLiteral(text, wholeSpan(text));
    if (got !== undefined) {
      answered++;
      assert.equal(got, expected, `case ${i} (${style.name}): ${text}`);
    } else assert.ok(declinable(node, text), `case ${i} (${style.name}) declined for no reason: ${text}`);
  }
  // The module is of no use if it always declines: most generated cases have nothing to decline.
  assert.ok(answered > CASES / 4, `answered ${answered} of ${CASES}`);
});

test('detailLiteralAt: a string stays itself, anything else becomes its compact JSON, as record.ts detailString does', () => {
  const random = createRng(7);
  for (let i = 0; i < 1000; i++) {
    const node = generate(random, 3);
    const text = write(node, STYLES[i % STYLES.length]);
    const value: unknown = JSON.parse(text);
    const got = detailLiteralAt(text, wholeSpan(text));
    const expected = JSON.stringify(typeof value === 'string' ? value : JSON.stringify(value));
    if (got !== undefined) assert.equal(got, expected, text);
  }
});

test('memberSpans, elementSpans and stringLiteralAt find the values JSON.parse keeps (the last of a repeated key)', () => {
  const random = createRng(99);
  let literals = 0;
  for (let i = 0; i < CASES; i++) {
    const style = STYLES[i % STYLES.length];
    const node: Node = {
      kind: 'object',
      entries: Array.from({ length: 1 + Math.floor(random() * 6) }, () => [
        KEYS[Math.floor(random() * KEYS.length)],
        generate(random, 3),
      ]),
    };
    const text = write(node, style);
    const parsed = JSON.parse(text) as Record<string, unknown>;
    const keys = [...new Set(node.entries.map(([k]) => k)), 'absent'];
    const spans = memberSpans(text, wholeSpan(text), keys)!;
    keys.forEach((key, k) => {
      const span = spans[k];
      if (key === 'absent') return assert.equal(span, undefined);
      assert.ok(span, `case ${i}: no span for ${key}`);
      const slice = text.slice(span.start, span.end);
      assert.deepEqual(JSON.parse(slice), parsed[key], `case ${i}: ${key} in ${text}`);
      const literal = stringLiteralAt(text, span);
      if (literal !== undefined) {
        literals++;
        assert.equal(literal, JSON.stringify(parsed[key]), `case ${i}: literal of ${key}`);
      } else if (typeof parsed[key] === 'string') assert.match(slice, /\\[u/]/, `case ${i}: ${key} declined`);
      const value = parsed[key];
      if (Array.isArray(value)) {
        const items = elementSpans(text, span)!;
        assert.deepEqual(
          items.map((s) => JSON.parse(text.slice(s.start, s.end)) as unknown),
          value,
        );
      } else assert.equal(elementSpans(text, span), undefined);
    });
  }
  assert.ok(literals > 100, `only ${literals} string literals reused`);
  assert.equal(memberSpans('[1, 2]', wholeSpan('[1, 2]'), ['a']), undefined);
});

test('memberSpans matches a key however it is spelt (escapes of any length), and no other key of that length', () => {
  const text = String.raw`{"\u0061": 1, "a\"b": 2, "\u00e9t\u00E9": 3, "ab": 4, "\ud83d\ude00": 5, "a\\": 6, "\/": 7}`;
  const keys = ['a', 'a"b', 'été', 'ab', '😀', 'a\\', '/', 'ac', 'b'];
  const spans = memberSpans(text, wholeSpan(text), keys)!;
  const parsed = JSON.parse(text) as Record<string, unknown>;
  keys.forEach((key, k) =>
    assert.deepEqual(
      spans[k] && (JSON.parse(text.slice(spans[k].start, spans[k].end)) as unknown),
      parsed[key],
      key,
    ),
  );
});

test('jsonString is JSON.stringify for every string, lone surrogates and control characters included', () => {
  const random = createRng(5);
  for (let i = 0; i < 5000; i++) {
    let s = '';
    for (let n = Math.floor(random() * 6); n > 0; n--) s += PIECES[Math.floor(random() * PIECES.length)];
    if (i % 7 === 0) s += String.fromCharCode(Math.floor(random() * 0x10000));
    assert.equal(jsonString(s), JSON.stringify(s));
  }
});
