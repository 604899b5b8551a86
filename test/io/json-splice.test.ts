// spliceJson edits JSON text without re-serialising it; spliceUncertainty is its use by `stats --in-place`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spliceJson } from '../../src/io/json-splice.js';
import { spliceUncertainty } from '../../src/metrics/eee/splice-uncertainty.js';
import { locatePointers } from '../../src/io/strict-json.js';
import { DataError, IoError } from '../../src/errors.js';
import { createRng } from '../../src/metrics/stats/rng.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const NUMBERS = [0, 1, 2.5, -3, 1e-5, 2.5e-7, 1e20, 0.1, 42];

function randomValue(r: () => number, depth: number): Json {
  const kind = Math.floor(r() * (depth > 2 ? 4 : 6));
  if (kind === 0) return NUMBERS[Math.floor(r() * NUMBERS.length)];
  if (kind === 1) return ['a', 'café', 'x"y', 'tab\there', ''][Math.floor(r() * 5)];
  if (kind === 2) return [true, false, null][Math.floor(r() * 3)];
  if (kind === 3) return Math.floor(r() * 1000) / 8;
  if (kind === 4) return Array.from({ length: Math.floor(r() * 3) }, () => randomValue(r, depth + 1));
  const o: { [k: string]: Json } = {};
  for (let i = Math.floor(r() * 4); i > 0; i--) o[`k${Math.floor(r() * 20)}`] = randomValue(r, depth + 1);
  return o;
}

/** Writes a value the way Python's json.dumps does: `1.0` for whole floats, `1e-05`, `\u00e9`, its separators. */
function pythonDumps(v: Json, indent: string | undefined, level = ''): string {
  if (typeof v === 'number') {
    if (Number.isInteger(v) && Math.abs(v) < 1e16) return v === 42 ? '42' : `${v}.0`;
    return String(v).replace(/e([+-])(\d)$/, 'e$10$2');
  }
  if (typeof v === 'string') return JSON.stringify(v).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`); // prettier-ignore
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  const entries: [string | undefined, Json][] = Array.isArray(v)
    ? v.map((x) => [undefined, x])
    : Object.entries(v);
  const [open, close] = Array.isArray(v) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) return open + close;
  const inner = indent === undefined ? '' : level + indent;
  const parts = entries.map(
    ([k, x]) => (k === undefined ? '' : `${JSON.stringify(k)}: `) + pythonDumps(x, indent, inner),
  );
  if (indent === undefined) return open + parts.join(', ') + close;
  return `${open}\n${inner}${parts.join(`,\n${inner}`)}\n${level}${close}`;
}

const STYLES: [string, (v: Json) => string][] = [
  ['JSON.stringify 2', (v) => JSON.stringify(v, null, 2)],
  ['JSON.stringify compact', (v) => JSON.stringify(v)],
  ['python indent=2', (v) => pythonDumps(v, '  ') + '\n'],
  ['python indent=4 CRLF', (v) => (pythonDumps(v, '    ') + '\n').replace(/\n/g, '\r\n')],
  ['python tabs', (v) => pythonDumps(v, '\t') + '\n'],
  ['python one line', (v) => pythonDumps(v, undefined)],
];

/** Every [pointer, value] of a document, containers included. */
function nodes(v: Json, pointer = ''): [string, Json][] {
  const out: [string, Json][] = [[pointer, v]];
  if (v !== null && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) out.push(...nodes(x, `${pointer}/${k}`));
  return out;
}

function at(doc: Json, pointer: string): Json {
  return pointer === ''
    ? doc
    : pointer
        .slice(1)
        .split('/')
        .reduce((o: any, k) => o[k], doc); // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Lengths of the common prefix and (non-overlapping) suffix of two texts. */
function commonEnds(a: string, b: string): [number, number] {
  let p = 0;
  while (p < a.length && p < b.length && a[p] === b[p]) p++;
  let s = 0;
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
  return [p, s];
}

function offsetOf(text: string, line: number, column: number): number {
  let o = 0;
  for (let l = 1; l < line; l++) o = text.indexOf('\n', o) + 1;
  return o + column - 1; // the generated documents escape everything beyond ASCII or keep it in the BMP
}

test('spliceJson: one inserted key is one contiguous insertion; one replaced leaf changes only its token', () => {
  const r = createRng(7);
  let inserts = 0;
  let replaces = 0;
  for (let round = 0; round < 300; round++) {
    const doc: Json = { root: randomValue(r, 0), more: randomValue(r, 1), n: 1 };
    const [styleName, write] = STYLES[round % STYLES.length];
    const text = write(doc);
    assert.equal(spliceJson(text, doc).text, text, 'nothing to change: the same text');
    const all = nodes(doc);
    const objects = all.filter(([, v]) => v !== null && typeof v === 'object' && !Array.isArray(v));
    const leaves = all.filter(([p, v]) => p !== '' && (v === null || typeof v !== 'object'));
    const after = structuredClone(doc);
    const insert = r() < 0.5 || leaves.length === 0;
    let pointer: string;
    if (insert) {
      [pointer] = objects[Math.floor(r() * objects.length)];
      (at(after, pointer) as Record<string, Json>)[`new${round}`] = randomValue(r, 1);
    } else {
      [pointer] = leaves[Math.floor(r() * leaves.length)];
      const parent = at(after, pointer.slice(0, pointer.lastIndexOf('/'))) as Record<string, Json>;
      parent[pointer.slice(pointer.lastIndexOf('/') + 1)] = `changed ${round}`;
    }
    const out = spliceJson(text, after);
    const context = `${styleName}, round ${round}, ${insert ? 'insert into' : 'replace'} ${pointer}`;
    assert.deepEqual(JSON.parse(out.text), after, context);
    assert.equal(spliceJson(out.text, after).text, out.text, `idempotent: ${context}`);
    const [p, s] = commonEnds(text, out.text);
    if (insert) {
      assert.equal(p + s, text.length, `only an insertion: ${context}`);
      inserts++;
    } else {
      const pos = locatePointers(text, [pointer]).get(pointer)!;
      const start = offsetOf(text, pos.line, pos.column);
      const token = /^("(?:[^"\\]|\\.)*"|[^,\]}\s]+)/.exec(text.slice(start))![0];
      assert.ok(p >= start && text.length - s <= start + token.length, `only the token changed: ${context}`);
      replaces++;
    }
    if (!styleName.includes('compact') && !styleName.includes('one line')) {
      assert.equal(out.text.endsWith('\n'), text.endsWith('\n'));
      if (styleName.includes('CRLF')) assert.equal(/[^\r]\n/.test(out.text), false, context);
      else assert.equal(out.text.includes('\r'), false, context);
    } else assert.equal(out.text.includes('\n'), false, `one line stays one line: ${context}`);
  }
  assert.ok(inserts > 100 && replaces > 100, `${inserts} inserts, ${replaces} replaces`);
});

test('spliceJson: deleted keys, longer arrays and several edits at once still parse to the wanted value', () => {
  const r = createRng(11);
  for (let round = 0; round < 200; round++) {
    const doc: Json = { a: randomValue(r, 0), b: randomValue(r, 0), c: [1, { d: 2 }] };
    const text = STYLES[round % STYLES.length][1](doc);
    const after = structuredClone(doc) as Record<string, Json>;
    if (round % 3 === 0) delete after.a;
    (after.c as Json[]).push(round);
    ((after.c as Json[])[1] as Record<string, Json>).e = randomValue(r, 2);
    after.b = randomValue(r, 0);
    const out = spliceJson(text, after);
    assert.deepEqual(JSON.parse(out.text), after);
    assert.deepEqual(spliceJson(out.text, after).edits, [], 'a second splice has nothing to do');
  }
});

test('spliceJson: values JSON.stringify would drop or change are written as it would', () => {
  const out = spliceJson('{"a": 1.0}', { a: 1, b: undefined, c: NaN, d: { toJSON: () => 'x' } });
  assert.equal(out.text, '{"a": 1.0, "c": null, "d": "x"}');
});

test('spliceJson: an empty object opens up like its parent; a byte order mark stays', () => {
  const pretty = '{\n  "a": {},\n  "b": {\n    "c": {}\n  }\n}\n';
  const out = spliceJson(pretty, { a: { x: [1, 2] }, b: { c: { y: 1 } } });
  assert.equal(out.text, '{\n  "a": {\n    "x": [\n      1,\n      2\n    ]\n  },\n  "b": {\n    "c": {\n      "y": 1\n    }\n  }\n}\n'); // prettier-ignore
  assert.equal(spliceJson('{"a":{}}', { a: { x: 1 } }).text, '{"a":{"x":1}}');
  assert.equal(spliceJson('\ufeff{"a": 1.0}', { a: 1, b: 2 }).text, '\ufeff{"a": 1.0, "b": 2}');
});

const aggregate = (details: string) =>
  `{\r\n    "schema_version": "0.3.0",\r\n    "evaluation_results": [\r\n        {\r\n            "evaluation_name": "x",\r\n            "metric_config": {"min_score": 0.0}${details}\r\n        }\r\n    ]\r\n}\r\n`;

test('spliceUncertainty adds score_details to a result that has none, in the file layout', () => {
  const text = aggregate('');
  const original = JSON.parse(text);
  const updated = structuredClone(original);
  updated.evaluation_results[0].score_details = { score: 1, uncertainty: { num_samples: 3 } };
  const out = spliceUncertainty(text, original, updated);
  assert.equal(out.changed, true);
  assert.equal(
    out.text,
    aggregate(
      ',\r\n            "score_details": {\r\n                "score": 1,\r\n                "uncertainty": {\r\n                    "num_samples": 3\r\n                }\r\n            }',
    ),
  );
  assert.equal(spliceUncertainty(out.text, updated, updated).changed, false);
});

test('spliceUncertainty refuses an update outside score_details, and a file that changed meanwhile', () => {
  const text = aggregate(',\r\n            "score_details": {"score": 1}');
  const original = JSON.parse(text);
  const updated = structuredClone(original);
  updated.evaluation_results[0].metric_config.min_score = 0.5;
  assert.throws(
    () => spliceUncertainty(text, original, updated, 'agg.json'),
    (e: unknown) =>
      e instanceof DataError &&
      e.code === 'eee.stats.in-place' &&
      e.message.includes('/evaluation_results/0/metric_config/min_score') &&
      e.message.includes('nothing was written'),
  );
  const stale = { ...original, schema_version: '0.2.2' };
  assert.throws(
    () => spliceUncertainty(text, stale, original, 'agg.json'),
    (e: unknown) => e instanceof IoError && e.code === 'eee.stats.file-changed',
  );
});
