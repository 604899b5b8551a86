// The row-shape fast path (src/validate/shape/) may only call a row valid when the exact path (strict JSON,
// detection, the schema, the rules) finds it clean: checked here on many thousands of generated rows, near-valid and
// adversarial (escapes, unicode, invalid UTF-8, numbers like 1e400/-0/NaN, duplicate, extra and reordered keys,
// other array lengths), on a schema that uses every keyword the fast path understands, and the WebAssembly string
// scan against the JavaScript one. Whole files: row-shape-files.test.ts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { eeeInstanceType } from '../../src/formats/eee/index.js';
import { documentTypes } from '../../src/formats/registry.js';
import type { DocumentType } from '../../src/formats/types.js';
import { stageBytes, stagedStringEnd, stringEnd } from '../../src/io/string-scan.js';
import { createRng } from '../../src/metrics/stats/rng.js';
import { Detector } from '../../src/validate/detect.js';
import { Engine } from '../../src/validate/engine.js';
import { DETECTION_READS, learnShape } from '../../src/validate/shape/row-shape.js';
import { RowShapes } from '../../src/validate/shape/shapes.js';
import { assembleWasm, STRING_SCAN, wasmModuleText } from '../../scripts/wasm.js';
import { mutations } from '../helpers/mutate.js';
import { projectRoot } from '../helpers/shared.js';
import {
  baseRow,
  exactClean,
  jsonlFiles,
  learnFrom,
  pick,
  readLines,
  STRINGS,
  textMutation,
  valueMutation,
  type Rng,
} from './row-shape-fixtures.js';

const INSTANCE_030 = eeeInstanceType.versions.find((v) => v.version === '0.3.0')!;

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
      const exact = new Engine({ rowShapes: false });
      const bases = Array.from({ length: 3 }, (_, k) => baseRow(next, round * 10 + k));
      const baseTexts = bases.map((r) => JSON.stringify(r));
      // The base rows are clean: the shapes the engine would learn of them (the engine's resting policy aside).
      const direct = baseTexts.map((t) => {
        assert.equal(exactClean(exact, Buffer.from(t)), 'eee.instance@0.3.0');
        return learnShape(Buffer.from(t), INSTANCE_030, 'eee.instance@0.3.0')!;
      });
      for (let n = 0; n < 600; n++) {
        const base = pick(next, bases);
        const mode = next();
        let bytes: Buffer;
        if (mode < 0.3) bytes = Buffer.from(JSON.stringify(baseRow(next, round * 1000 + n)));
        else if (mode < 0.65) bytes = Buffer.from(JSON.stringify(valueMutation(next, base)));
        else if (mode < 0.9) bytes = textMutation(next, JSON.stringify(base));
        else bytes = textMutation(next, JSON.stringify(valueMutation(next, base)));
        const fast = direct.find((shape) => shape.matches(bytes))?.key;
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

describe('row shapes on rows of many shapes', () => {
  it('rest for a while when most rows match no shape, then try again', () => {
    const next = createRng(3);
    const base = Buffer.from(JSON.stringify(baseRow(next, 1)));
    const other = (k: number): Buffer =>
      Buffer.from(
        JSON.stringify({ ...baseRow(next, 2), output: { raw: Array.from({ length: k }, () => 'x') } }),
      );
    const shapes = new RowShapes(undefined);
    shapes.learn(base, INSTANCE_030, 'eee.instance@0.3.0');
    assert.equal(shapes.match(base), 'eee.instance@0.3.0');
    // A window of rows that match nothing: the fast path rests (no trying, no learning).
    for (let k = 0; k < 64; k++) assert.equal(shapes.match(other(2 + k)), undefined);
    assert.equal(shapes.match(base), undefined);
    assert.equal(shapes.learning, false);
    let rested = 1;
    while (shapes.match(base) === undefined) rested++;
    assert.ok(rested > 1000 && rested <= 64 * 64, `rested ${rested} rows`);
    assert.equal(shapes.learning, true);
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
      const version = type.versions[0];
      const shapes = learned
        .filter((row) => exactClean(exact, row) !== undefined)
        .map((row) => learnShape(row, version, 'test.rich@1')!);
      for (let n = 0; n < 100; n++) {
        const bytes =
          next() < 0.8
            ? Buffer.from(JSON.stringify(richDoc(next, pick(next, layouts))))
            : textMutation(next, pick(next, learned).toString('utf8'));
        const fast = shapes.find((shape) => shape.matches(bytes))?.key;
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
