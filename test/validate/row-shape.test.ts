// The row-shape fast path (src/validate/shape/) may only call a row valid when the exact path (strict JSON,
// detection, the schema, the rules) finds it clean: checked here on many thousands of generated rows, near-valid and
// adversarial (escapes, unicode, invalid UTF-8, numbers like 1e400/-0/NaN, duplicate, extra and reordered keys,
// other array lengths), on a schema that uses every keyword the fast path understands, and on whole files (real ones
// from ../shared/reference and generated ones) whose results must equal those of the exact path alone.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { eeeInstanceType } from '../../src/formats/eee/index.js';
import { documentTypes } from '../../src/formats/registry.js';
import { stageBytes, stagedStringEnd, stringEnd } from '../../src/io/string-scan.js';
import type { DocumentType } from '../../src/formats/types.js';
import { createRng } from '../../src/metrics/stats/rng.js';
import { Detector } from '../../src/validate/detect.js';
import { Engine } from '../../src/validate/engine.js';
import { FileAccumulator } from '../../src/validate/file.js';
import { validatePaths } from '../../src/validate/index.js';
import { DETECTION_READS, learnShape } from '../../src/validate/shape/row-shape.js';
import { assembleWasm, STRING_SCAN, wasmModuleText } from '../../scripts/wasm.js';
import { mutations } from '../helpers/mutate.js';
import { projectRoot, reference, skipWithoutReference } from '../helpers/shared.js';
import { copyTree } from '../checks/tree-fixture.js';
import { instanceRow, makeTree } from './fixtures.js';

type Rng = () => number;
const INSTANCE_030 = eeeInstanceType.versions.find((v) => v.version === '0.3.0')!;
const pick = <T>(next: Rng, xs: readonly T[]): T => xs[Math.floor(next() * xs.length)];

/** The exact path's verdict on one row: its "type@version" when it has no diagnostic at all, else undefined. */
function exactClean(engine: Engine, bytes: Buffer): string | undefined {
  const acc = new FileAccumulator('row.jsonl');
  acc.document(engine, bytes, 1);
  const r = acc.result;
  if (r.errors + r.warnings + r.invalid > 0 || r.diagnostics.length > 0) return undefined;
  return Object.keys(r.types)[0];
}

/** Feeds rows through the exact path (and learning) of `engine`, as a JSONL file's rows are. */
function learnFrom(engine: Engine, rows: readonly Buffer[]): void {
  const acc = new FileAccumulator('learn.jsonl');
  rows.forEach((bytes, k) => acc.line(engine, { line: k + 1, bytes }));
}

// ---------------------------------------------------------------------------------------------------------------
// Adversarial text: byte-level changes of a row's JSON text.

const STRINGS = [
  '',
  'plain',
  'quote " inside',
  'back\\slash',
  'new\nline',
  'tab\t',
  '\u0001ctl',
  '\u007f',
  'café naïve',
  '数学 λ',
  '😀 emoji',
  '\ud800 lone',
  '\u2028\u2029',
  'single_turn',
  'multi_turn',
  '0.3.0',
  '0.2.2',
];
const NUMBERS = [
  0,
  -0,
  1,
  -1,
  2,
  1.5,
  -2.5,
  0.1,
  1e-7,
  1e21,
  123456789012345,
  1234567890123456,
  2 ** 53 + 2,
  100,
];
const RAW_NUMBERS = [
  '1e400',
  '-1e400',
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '1.0',
  '3.000',
  '01',
  '1.',
  '.5',
  '1e5',
  '1E-5',
  '-',
  '2.50',
  '1234567890123456789',
  '0.1234567890123456789',
];
const BYTES = [
  [0x22],
  [0x5c],
  [0x01],
  [0x7f],
  [0x7b],
  [0x7d],
  [0x2c],
  [0x3a],
  [0x5b],
  [0x5d],
  [0x20],
  [0x09],
  [0x0d],
  [0xff],
  [0xc0, 0x80],
  [0xed, 0xa0, 0x80],
  [0xc3, 0xa9],
  [0xf0, 0x9f, 0x98, 0x80],
  [0xe6, 0x95],
  [0x61],
  [0x30],
  [0x2d],
];

function spliceBytes(b: Buffer, at: number, remove: number, insert: readonly number[]): Buffer {
  return Buffer.concat([b.subarray(0, at), Buffer.from(insert), b.subarray(at + remove)]);
}

/** One byte-level change of a row's text (several kinds, all seeded). */
function textMutation(next: Rng, text: string): Buffer {
  const b = Buffer.from(text);
  const at = Math.floor(next() * b.length);
  switch (Math.floor(next() * 12)) {
    case 0: {
      // a number literal replaced by a raw token
      const numbers = [...text.matchAll(/(?<=[:,[])-?\d[\d.eE+-]*/g)];
      if (numbers.length === 0) return b;
      const m = pick(next, numbers);
      return Buffer.from(
        text.slice(0, m.index) + pick(next, RAW_NUMBERS) + text.slice(m.index! + m[0].length),
      );
    }
    case 1: {
      // a duplicate key: an existing key repeated just after its object's opening brace
      const keys = [...text.matchAll(/"([a-z_]+)":/g)];
      const opens = [...text.matchAll(/\{/g)];
      const k = pick(next, keys);
      const o = pick(next, opens);
      return Buffer.from(
        `${text.slice(0, o.index! + 1)}"${k[1]}":${pick(next, ['1', '"x"', 'null'])},${text.slice(o.index! + 1)}`,
      );
    }
    case 2:
      return spliceBytes(b, at, 0, pick(next, [[0x20], [0x09], [0x0d], [0x0a], [0x20, 0x20]]));
    case 3:
      return spliceBytes(b, at, 1, pick(next, BYTES));
    case 4:
      return spliceBytes(b, at, 0, pick(next, BYTES));
    case 5:
      return spliceBytes(b, at, 1, []);
    case 6:
      return b.subarray(0, at);
    case 7: {
      // a key spelled with an escape
      const keys = [...text.matchAll(/"([a-z]+)_([a-z_]*)":/g)];
      if (keys.length === 0) return b;
      const k = pick(next, keys);
      return Buffer.from(text.replace(k[0], `"${k[1]}\\u005f${k[2]}":`));
    }
    case 8: {
      // a letter of a string value written as an escape (or a bad escape)
      const i = text.indexOf('a', at);
      if (i < 0) return b;
      return Buffer.from(
        text.slice(0, i) + pick(next, ['\\u0061', '\\u00', '\\x61', '\\a', '\\/', '\\"']) + text.slice(i + 1),
      );
    }
    case 9:
      return Buffer.concat([b, Buffer.from(pick(next, [' ', ' x', ',', '}', '\t', '{}']))]);
    case 10:
      return Buffer.concat([Buffer.from(pick(next, [[0xef, 0xbb, 0xbf], [0x20], [0x0d]])), b]);
    default: {
      // two keys of one object swapped (another order)
      const m = /"input":\{"raw":("(?:[^"\\]|\\.)*"),"reference":(\[[^\]]*\])/.exec(text);
      if (!m) return b;
      return Buffer.from(text.replace(m[0], `"input":{"reference":${m[2]},"raw":${m[1]}`));
    }
  }
}

/** A value-level change of a row (before it is written as JSON). */
function valueMutation(next: Rng, row: Record<string, unknown>): unknown {
  const copy = structuredClone(row) as Record<string, any>;
  const set = (value: unknown): void => {
    const places: [Record<string, any>, string | number][] = [];
    const visit = (v: any): void => {
      if (v === null || typeof v !== 'object') return;
      for (const k of Object.keys(v)) {
        places.push([v, Array.isArray(v) ? Number(k) : k]);
        visit(v[k]);
      }
    };
    visit(copy);
    const [holder, key] = pick(next, places);
    holder[key] = value;
  };
  switch (Math.floor(next() * 8)) {
    case 0:
      set(pick(next, STRINGS));
      break;
    case 1:
      set(pick(next, NUMBERS));
      break;
    case 2:
      set(pick(next, [true, false, null, [], {}, ['x'], { a: 'b' }]));
      break;
    case 3:
      copy[pick(next, ['extra', 'metadata', 'error', 'messages', 'evaluation_result_id'])] = pick(next, [
        'x',
        null,
        { k: 'v' },
        [],
      ]);
      break;
    case 4:
      delete copy[pick(next, Object.keys(copy))];
      break;
    case 5:
      copy.input.reference = pick(next, [[], ['A', 'B'], ['A', 'A'], [1]]);
      break;
    case 6:
      copy.evaluation.score = pick(next, NUMBERS);
      copy.answer_attribution[0].turn_idx = pick(next, [0, 1, -1, 2.5, 1e21, 7]);
      break;
    default:
      copy.output.raw = [...copy.output.raw, pick(next, STRINGS)];
  }
  return copy;
}

/** A realistic EEE 0.3.0 row with seeded free text. */
function baseRow(next: Rng, i: number): Record<string, unknown> {
  const words = (n: number): string =>
    Array.from({ length: n }, () =>
      pick(next, ['the', 'model', '"q"', 'café', '数学', '\n', 'x\\y', 'λ']),
    ).join(' ');
  const row = instanceRow(i, {
    sample_hash: next() < 0.5 ? null : `h${i}`,
    input: { raw: words(20), reference: [pick(next, ['A', 'B'])], choices: ['A', 'B', 'C', 'D'] },
    output: { raw: [words(8)], reasoning_trace: null },
    token_usage: { input_tokens: i, output_tokens: 3, total_tokens: i + 3 },
    performance: { latency_ms: next() * 900, time_to_first_token_ms: null, generation_time_ms: null },
  });
  (row.evaluation as Record<string, unknown>).score = Math.round(next() * 100) / 100;
  return row;
}

describe('row-shape fast path against the exact path', () => {
  it('detection reads the keys and only the top-level values named in DETECTION_READS', () => {
    const keys = new Set<string>(['schema_version', 'type', 'query', 'request_id', 'dataset', 'scorers']);
    for (const type of documentTypes)
      for (const version of type.versions) {
        const schema = version.schema as { properties?: object; required?: string[] };
        for (const k of [...Object.keys(schema.properties ?? {}), ...(schema.required ?? [])]) keys.add(k);
      }
    const read = new Set<string>();
    const watched = (doc: Record<string, unknown>): Record<string, unknown> =>
      new Proxy(doc, {
        get(target, key, receiver) {
          if (typeof key === 'string') read.add(key);
          return Reflect.get(target, key, receiver) as unknown;
        },
      });
    const all = [...keys];
    const docs: Record<string, unknown>[] = [Object.fromEntries(all.map((k) => [k, null]))];
    for (const type of documentTypes)
      for (const version of type.versions) {
        const schema = version.schema as { required?: string[] };
        docs.push(
          Object.fromEntries((schema.required ?? []).map((k) => [k, version.schemaVersionValues[0]])),
        );
      }
    const next = createRng(7);
    for (let n = 0; n < 300; n++)
      docs.push(
        Object.fromEntries(all.filter(() => next() < 0.3).map((k) => [k, pick(next, ['query', '0.3.0', 1])])),
      );
    const detector = new Detector();
    for (const doc of docs) {
      for (const type of documentTypes) type.looksLike(watched(doc));
      // A document no type claims is never learned (its legacy hints may read more): only claimed ones here.
      if (documentTypes.some((t) => t.looksLike(doc))) detector.detect(watched(doc));
    }
    const outside = [...read].filter((k) => !DETECTION_READS.includes(k));
    assert.deepEqual(outside, [], `detection reads values the fast path does not pin: ${outside.join(', ')}`);
  });

  it('never calls a row valid that the exact path does not find clean (EEE rows, 24,000 variants)', () => {
    const next = createRng(20261127);
    let matched = 0;
    let changedAndMatched = 0;
    let exactInvalid = 0;
    for (let round = 0; round < 40; round++) {
      const engine = new Engine();
      const exact = new Engine({ rowShapes: false });
      const bases = Array.from({ length: 3 }, (_, k) => baseRow(next, round * 10 + k));
      const baseTexts = bases.map((r) => JSON.stringify(r));
      learnFrom(
        engine,
        baseTexts.map((t) => Buffer.from(t)),
      );
      const shapes = engine.shapes(undefined);
      const direct = baseTexts.map((t) => learnShape(Buffer.from(t), INSTANCE_030, 'eee.instance@0.3.0')!);
      for (let n = 0; n < 600; n++) {
        const base = pick(next, bases);
        const mode = next();
        let bytes: Buffer;
        if (mode < 0.3) bytes = Buffer.from(JSON.stringify(baseRow(next, round * 1000 + n)));
        else if (mode < 0.65) bytes = Buffer.from(JSON.stringify(valueMutation(next, base)));
        else if (mode < 0.9) bytes = textMutation(next, JSON.stringify(base));
        else bytes = textMutation(next, JSON.stringify(valueMutation(next, base)));
        const fast = shapes.match(bytes);
        // The WebAssembly string scan and the JavaScript one agree on every row, for every learned shape.
        for (const shape of direct) assert.equal(shape.matches(bytes), shape.matches(bytes, null));
        const verdict = exactClean(exact, bytes);
        if (verdict === undefined) exactInvalid++;
        if (fast === undefined) continue;
        matched++;
        if (!baseTexts.includes(bytes.toString('latin1'))) changedAndMatched++;
        assert.equal(
          verdict,
          fast,
          `the fast path said ${fast} for a row the exact path does not find clean:\n${bytes.toString('utf8')}`,
        );
      }
    }
    // Not vacuous: many rows went each way.
    assert.ok(matched > 5000, `matched ${matched}`);
    assert.ok(changedAndMatched > 3000, `changed and matched ${changedAndMatched}`);
    assert.ok(exactInvalid > 5000, `invalid ${exactInvalid}`);
  });

  it('mutated variants of each example document type agree too', () => {
    // Every JSONL example: learn its rows, then the shared mutation generator's variants of each row.
    const files = jsonlFiles(join(projectRoot, 'examples'));
    assert.ok(files.length > 0);
    let matched = 0;
    for (const file of files) {
      const rows = readLines(file);
      const engine = new Engine();
      const exact = new Engine({ rowShapes: false });
      learnFrom(engine, rows);
      const shapes = engine.shapes(undefined);
      for (const [k, row] of rows.slice(0, 20).entries()) {
        let doc: unknown;
        try {
          doc = JSON.parse(row.toString('utf8'));
        } catch {
          continue;
        }
        for (const m of mutations(doc, { seed: k + 1, count: 60, maxStack: 2 })) {
          const bytes = Buffer.from(JSON.stringify(m.doc));
          const fast = shapes.match(bytes);
          if (fast === undefined) continue;
          matched++;
          assert.equal(exactClean(exact, bytes), fast, `${relative(projectRoot, file)}: ${m.label}`);
        }
      }
    }
    assert.ok(matched > 0, 'some variants matched');
  });
});

// ---------------------------------------------------------------------------------------------------------------
// A schema with every keyword the fast path understands, and value keywords it does not evaluate.

const richSchema = {
  type: 'object',
  required: ['kind', 'n', 'tags'],
  additionalProperties: false,
  properties: {
    kind: { type: 'string', enum: ['a', 'b'] },
    code: { type: 'string', pattern: '^[A-Z]{2}$' },
    name: { type: 'string', minLength: 2, maxLength: 8 },
    label: { type: 'string', format: 'date' },
    n: { type: 'integer', minimum: 0, exclusiveMaximum: 100 },
    x: { type: ['number', 'null'], maximum: 1.5 },
    m: { type: 'number', multipleOf: 0.5 },
    flag: { type: 'boolean', const: true },
    free: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' }, uniqueItems: true, maxItems: 3 },
    pair: { type: 'array', items: [{ type: 'integer' }, { type: 'string' }], additionalItems: false },
    any: {
      anyOf: [
        { type: 'string', maxLength: 3 },
        { type: 'integer', multipleOf: 2 },
      ],
    },
    one: {
      oneOf: [
        { type: 'number', minimum: 10 },
        { type: 'number', maximum: 20 },
      ],
    },
    meta: {
      type: 'object',
      patternProperties: { '^x_': { type: 'integer' } },
      additionalProperties: { type: 'string' },
    },
    deep: { type: 'object', properties: { v: { type: 'string' } }, enum: [{ v: 'p' }, { v: 'q' }] },
    neg: { not: { type: 'string', pattern: 'bad' } },
    nested: {
      type: 'array',
      items: {
        type: 'object',
        properties: { w: { type: 'integer' }, s: { type: 'string' } },
        required: ['w'],
      },
      minItems: 1,
    },
  },
  if: { properties: { kind: { const: 'a' } } },
  then: { required: ['code'] },
  else: { properties: { n: { maximum: 50 } } },
  dependencies: { free: ['flag'], name: { properties: { n: { minimum: 1 } } } },
};

function richType(schema: object): DocumentType {
  return {
    id: 'test.rich',
    family: 'bench',
    title: 'rich',
    looksLike: (doc) => 'kind' in doc,
    versions: [{ version: '1', dialect: 'draft-07', schema: schema as never, schemaVersionValues: ['1'] }],
  };
}

/**
 * A document of the rich type: the members of `layout` (plus the required ones), each with a value drawn from its
 * valid ones (free values vary from document to document) or, now and then, from its invalid ones.
 */
function richDoc(next: Rng, layout: readonly string[]): Record<string, unknown> {
  const int = (lo: number, hi: number): number => lo + Math.floor(next() * (hi - lo));
  const str = (): string => pick(next, STRINGS);
  const values: Record<string, { ok: () => unknown[]; bad: unknown[] }> = {
    kind: { ok: () => ['a', 'b'], bad: ['c'] },
    code: { ok: () => ['AB', 'XY'], bad: ['abc', 'A'] },
    name: { ok: () => ['ok', 'fine', 'café', '😀😀'], bad: ['x', 'muchtoolongname'] },
    label: { ok: () => ['2026-01-01', 'not a date'], bad: [1] },
    n: { ok: () => [int(1, 50), 1, 49], bad: [0, 50, 51, 99, 100, -1, 2.5] },
    x: { ok: () => [null, 0, 1.5, next() * 1.5, -next()], bad: [1.51, 'x'] },
    m: { ok: () => [0.5, int(-9, 9), 2.5], bad: [1.25] },
    flag: { ok: () => [true], bad: [false] },
    free: { ok: () => [true, false], bad: [null] },
    tags: { ok: () => [['a'], ['b'], ['a', 'b']], bad: [[], ['a', 'a'], ['a', 'b', 'c', 'd'], [1]] },
    pair: {
      ok: () => [[int(-5, 5), str()]],
      bad: [
        [1.5, 'a'],
        [1, 2],
        [1, 'a', 'extra'],
      ],
    },
    any: { ok: () => ['ab', 2 * int(-5, 5)], bad: ['abcd', 3, true] },
    one: { ok: () => [int(0, 10), int(21, 90), -0.5], bad: [15, 10, 20] },
    meta: {
      ok: () => [{ x_a: int(-9, 9), y: str() }],
      bad: [
        { x_a: 1.5, y: 's' },
        { x_a: 1, y: 2 },
      ],
    },
    deep: { ok: () => [{ v: 'p' }, { v: 'q' }], bad: [{ v: 'r' }] },
    neg: { ok: () => ['good', int(0, 9), null, str()], bad: ['bad'] },
    nested: { ok: () => [[{ w: int(0, 9), s: str() }]], bad: [[{ s: 'x' }], [{ w: 1.5, s: 'y' }], []] },
  };
  const doc: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(values))
    if (['kind', 'n', 'tags'].includes(k) || layout.includes(k))
      doc[k] = next() < 0.04 ? pick(next, v.bad) : pick(next, v.ok());
  return doc;
}

describe('row-shape fast path on a schema with every understood keyword', () => {
  it('agrees with Ajv and the exact path on 30,000 generated documents', () => {
    const type = richType(richSchema);
    const next = createRng(99);
    let matched = 0;
    let matchedDiffering = 0;
    for (let round = 0; round < 300; round++) {
      const engine = new Engine({ types: [type] });
      const exact = new Engine({ types: [type], rowShapes: false });
      // A few layouts per round (keys drawn once), values drawn for every document.
      const keys = [
        'code',
        'name',
        'label',
        'x',
        'm',
        'flag',
        'free',
        'pair',
        'any',
        'one',
        'meta',
        'deep',
        'neg',
        'nested',
      ];
      const layouts = Array.from({ length: 3 }, () => keys.filter(() => next() < 0.5));
      const learned = Array.from({ length: 40 }, () =>
        Buffer.from(JSON.stringify(richDoc(next, pick(next, layouts)))),
      );
      learnFrom(engine, learned);
      const shapes = engine.shapes(undefined);
      for (let n = 0; n < 100; n++) {
        const bytes =
          next() < 0.8
            ? Buffer.from(JSON.stringify(richDoc(next, pick(next, layouts))))
            : textMutation(next, pick(next, learned).toString('utf8'));
        const fast = shapes.match(bytes);
        if (fast === undefined) continue;
        matched++;
        if (!learned.some((l) => l.equals(bytes))) matchedDiffering++;
        assert.equal(exactClean(exact, bytes), fast, bytes.toString('utf8'));
      }
    }
    assert.ok(matched > 300, `matched ${matched}`);
    assert.ok(matchedDiffering > 100, `matched and differing from every learned row ${matchedDiffering}`);
  });

  it('pins what it cannot evaluate and keeps the bounds it can', () => {
    const version = richType(richSchema).versions[0];
    const row = Buffer.from(
      JSON.stringify({
        kind: 'a',
        code: 'AB',
        n: 7,
        x: 1.25,
        tags: ['a'],
        free: true,
        flag: true,
        meta: { x_a: 1, y: 's' },
      }),
    );
    const shape = learnShape(row, version, 'test.rich@1')!;
    const variant = (patch: Record<string, unknown>): boolean =>
      shape.matches(Buffer.from(JSON.stringify({ ...(JSON.parse(row.toString()) as object), ...patch })));
    assert.equal(variant({}), true);
    assert.equal(variant({ n: 42 }), true, 'a free integer within the same bounds');
    assert.equal(variant({ n: 100 }), false, 'exclusiveMaximum 100 gives another verdict');
    assert.equal(variant({ n: 7.5 }), false, 'an integer-only place');
    assert.equal(variant({ x: 0.5 }), true);
    assert.equal(variant({ x: 2 }), false, 'maximum 1.5');
    assert.equal(variant({ kind: 'b' }), false, 'enum: pinned');
    assert.equal(variant({ code: 'XY' }), false, 'pattern: pinned');
    assert.equal(variant({ tags: ['b'] }), false, 'uniqueItems: the whole array pinned');
    assert.equal(variant({ free: false }), true, 'a free boolean');
    assert.equal(
      variant({ meta: { x_a: 5, y: 'other' } }),
      true,
      'patternProperties and additionalProperties',
    );
    // An exponent, a 16-digit integer, -0 and whitespace.
    assert.equal(shape.matches(Buffer.from(row.toString().replace('"n":7', '"n":7e0'))), false);
    assert.equal(shape.matches(Buffer.from(row.toString().replace('"n":7', '"n":1234567890123456'))), false);
    assert.equal(shape.matches(Buffer.from(row.toString().replace('"x":1.25', '"x":-0'))), true);
    // `dependencies` applies minimum 1 to n only when `name` is there; the fast path keeps it anyway (a superset of
    // the schemas that may apply), so -0 takes the exact path.
    assert.equal(shape.matches(Buffer.from(row.toString().replace('"n":7', '"n":-0'))), false);
    // Whitespace is part of the learned bytes: a row written with other spacing takes the exact path.
    assert.equal(shape.matches(Buffer.from(` ${row.toString().replace(/,/g, ' ,\t')} `)), false);
    // A keyword it does not know: no shape at all.
    const unknown = richType({ ...richSchema, propertyNames: { maxLength: 9 } }).versions[0];
    assert.equal(learnShape(row, unknown, 'test.rich@1'), undefined);
    const withRef = richType({ ...richSchema, properties: { ...richSchema.properties, n: { $ref: '#/x' } } });
    assert.equal(learnShape(row, withRef.versions[0], 'test.rich@1'), undefined);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Whole files: the results with the fast path equal those of the exact path alone, in one thread and with workers.

function jsonlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...jsonlFiles(path));
    else if (/\.(jsonl|ndjson)$/.test(name)) out.push(path);
  }
  return out;
}

function readLines(path: string): Buffer[] {
  return readFileSync(path)
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => Buffer.from(l.replace(/\r$/, '')));
}

describe('row-shape fast path on whole files', () => {
  let root = '';
  before(async () => {
    const next = createRng(4242);
    const lines: (string | Buffer)[] = [];
    for (let i = 0; i < 3000; i++) {
      const base = baseRow(next, i);
      const r = next();
      if (r < 0.8) lines.push(JSON.stringify(base));
      else if (r < 0.9) lines.push(JSON.stringify(valueMutation(next, base)));
      else lines.push(textMutation(next, JSON.stringify(base)));
    }
    const bytes = Buffer.concat(lines.map((l) => Buffer.concat([Buffer.from(l), Buffer.from('\n')])));
    root = await makeTree({ 'rows.jsonl': bytes });
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('a generated file of valid, near-valid and broken rows: the same results, 1 and 2 jobs', async () => {
    const exact = await validatePaths(['rows.jsonl'], { cwd: root, rowShapes: false, jobs: 1 });
    assert.ok(exact.summary.invalid > 300 && exact.summary.valid > 2000, JSON.stringify(exact.summary));
    assert.deepEqual(await validatePaths(['rows.jsonl'], { cwd: root, jobs: 1 }), exact);
    const ranges = { cwd: root, jobs: 2, rangeBytes: 64 * 1024 };
    assert.deepEqual(await validatePaths(['rows.jsonl'], ranges), exact);
    const schemaOnly = { cwd: root, jobs: 1, schemaOnly: true };
    assert.deepEqual(
      await validatePaths(['rows.jsonl'], schemaOnly),
      await validatePaths(['rows.jsonl'], { ...schemaOnly, rowShapes: false }),
    );
  });

  it(
    'every JSONL file of the reference data and of examples/: the same results',
    { skip: skipWithoutReference() },
    async () => {
      const files = [...jsonlFiles(reference()!), ...jsonlFiles(join(projectRoot, 'examples'))];
      assert.ok(
        files.some((f) => f.includes('instances-0.2.1')),
        'the real EEE 0.2.1 samples file is among them',
      );
      for (const file of files)
        for (const schemaOnly of [true, false])
          for (const forced of [{}, { type: 'eee.instance', schemaVersion: '0.2.1' }]) {
            const options = { cwd: '/', schemaOnly, ...forced };
            const exact = await validatePaths([file], { ...options, rowShapes: false });
            assert.deepEqual(
              await validatePaths([file], options),
              exact,
              `${file} ${JSON.stringify(options)}`,
            );
          }
    },
  );
});

// The real file, written a second time with generated variants of its rows: the same results either way.
describe('row-shape fast path on the real EEE 0.2.1 samples file, with generated variants', () => {
  const path = 'eee/records/instances-0.2.1/mmlu_gpt2_samples.jsonl';
  it('the same results', { skip: skipWithoutReference(path) }, async () => {
    const rows = readLines(reference(path)!);
    const next = createRng(11);
    const out: Buffer[] = [];
    for (const row of rows) {
      out.push(row);
      for (let k = 0; k < 5; k++) out.push(textMutation(next, row.toString('utf8')));
    }
    const root = await makeTree({
      'variants.jsonl': Buffer.concat(out.map((b) => Buffer.concat([b, Buffer.from('\n')]))),
    });
    try {
      const exact = await validatePaths(['variants.jsonl'], { cwd: root, rowShapes: false });
      assert.ok(
        exact.summary.valid > rows.length && exact.summary.invalid > rows.length,
        JSON.stringify(exact.summary),
      );
      assert.deepEqual(await validatePaths(['variants.jsonl'], { cwd: root }), exact);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

// A datastore tree: its samples file's rows also feed the row checks (unique sample_id, canonical sample_hash,
// foreign keys), which must see the rows the fast path accepted as they see the others.
describe('row-shape fast path in a datastore tree', () => {
  it('the row checks find the same faults in rows the fast path accepted', async () => {
    const t = copyTree('current');
    try {
      const rows = t.readRows();
      const next = createRng(5);
      const more: unknown[] = [...rows];
      for (let i = 0; i < 600; i++) {
        const row = structuredClone(pick(next, rows)) as Record<string, unknown>;
        const r = next();
        if (r < 0.6) row.sample_id = `gen-${i}`;
        else if (r < 0.7) row.evaluation_id = 'someone-else';
        else if (r < 0.8) row.sample_hash = `${String(row.sample_hash)}0`;
        // else: a duplicate sample_id
        more.push(r < 0.9 ? row : valueMutation(next, row));
      }
      t.writeRows(more);
      for (const jobs of [1, 2]) {
        const options = { cwd: t.root, jobs, rangeBytes: 4096 };
        const exact = await validatePaths(['.'], { ...options, rowShapes: false });
        const codes = new Set(exact.files.flatMap((f) => f.diagnostics.map((d) => d.code)));
        for (const code of ['eee.sample-id-duplicate', 'eee.foreign-key', 'eee.sample-hash'])
          assert.ok(codes.has(code), `${code} in ${[...codes].join(', ')}`);
        assert.deepEqual(await validatePaths(['.'], options), exact, `jobs ${jobs}`);
      }
    } finally {
      t.cleanup();
    }
  });
});

describe('string scan: WebAssembly and JavaScript', () => {
  it('the committed WebAssembly is what string-scan.wat assembles to (npm run wasm)', async () => {
    const committed = readFileSync(join(projectRoot, STRING_SCAN.bytesFile), 'utf8');
    assert.equal(committed, wasmModuleText(STRING_SCAN, await assembleWasm(projectRoot, STRING_SCAN)));
  });

  it('agree on where every string ends, on 20,000 random texts full of quotes, escapes and control bytes', () => {
    const next = createRng(31);
    const alphabet = [
      0x61, 0x22, 0x5c, 0x75, 0x30, 0x41, 0x66, 0x67, 0x6e, 0x2f, 0x01, 0x1f, 0x20, 0x7f, 0x80, 0xff,
    ];
    let strings = 0;
    let ends = 0;
    for (let k = 0; k < 20000; k++) {
      // Leave bytes behind in the WebAssembly memory first: a scan must stop at the text's end all the same.
      stageBytes(Buffer.alloc(200, pick(next, [0x61, 0x22, 0x5c])));
      const length = Math.floor(next() * (next() < 0.2 ? 300 : 70));
      const b = Buffer.from(Array.from({ length }, () => pick(next, alphabet)));
      const staged = stageBytes(b);
      assert.ok(staged, 'WebAssembly SIMD is available here');
      for (let i = 0; i < b.length; i++) {
        if (b[i] !== 0x22) continue;
        strings++;
        const want = stringEnd(b, i, b.length);
        if (want >= 0) ends++;
        assert.equal(stagedStringEnd(staged, i, b.length), want, `${b.toString('hex')} at ${i}`);
      }
    }
    assert.ok(strings > 30000 && ends > 8000, `${strings} strings, ${ends} ended`);
  });
});
