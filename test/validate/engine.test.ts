// The engine against a small document type defined here, so that grouping, alternatives, detection and rules are
// tested independently of the real formats.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { Type } from 'typebox';
import type { DocumentType } from '../../src/formats/types.js';
import { validateStream, validateValue } from '../../src/validate/index.js';

const Shape = Type.Union([
  Type.Object({ kind: Type.Literal('circle'), radius: Type.Number() }, { additionalProperties: false }),
  Type.Object(
    { kind: Type.Literal('rect'), width: Type.Number(), height: Type.Number() },
    { additionalProperties: false },
  ),
]);

const widget: DocumentType = {
  id: 'test.widget',
  family: 'bench',
  title: 'Test widget',
  looksLike: (d) => 'widget' in d,
  versions: [1, 2].map((n) => ({
    version: `${n}.0`,
    dialect: '2020-12' as const,
    schemaVersionValues: [`${n}.0`, `widget_${n}`],
    schema: Type.Object(
      {
        schema_version: Type.String(),
        widget: Type.String(),
        count: Type.Integer({ minimum: 0 }),
        color: Type.Union([Type.Literal('red'), Type.Literal('blue')]),
        owner: Type.String(),
        shape: Type.Optional(Shape),
        picked: Type.Optional(
          Type.Unsafe<string | string[]>({ oneOf: [Type.String(), Type.Array(Type.String())] }),
        ),
      },
      { additionalProperties: false },
    ),
    rules: [
      {
        code: 'test.even-count',
        description: 'count is even',
        check: (d: unknown) =>
          (d as { count: number }).count % 2 === 1
            ? [{ pointer: '/count', code: 'test.even-count', message: 'count must be even' }]
            : [],
      },
    ],
    explainSchemaError: (e) =>
      e.instancePath === '/owner' && e.keyword === 'type' ? 'owner is a name' : undefined,
  })),
};
const types = [widget];
const good = { schema_version: '2.0', widget: 'w', count: 2, color: 'red', owner: 'me' };

function codes(r: { diagnostics: { code: string; pointer: string }[] }): string[] {
  return r.diagnostics.map((d) => `${d.code} ${d.pointer}`);
}

describe('validateValue', () => {
  it('accepts a valid document and reports its type and version', () => {
    const r = validateValue(good, { types });
    assert.deepEqual(
      [r.valid, r.type, r.schema_version, r.diagnostics.length],
      [true, 'test.widget', '2.0', 0],
    );
    assert.equal(validateValue({ ...good, schema_version: 'widget_1' }, { types }).schema_version, '1.0');
  });

  it('one missing-field message names exactly the missing fields', () => {
    const { color: _c, owner: _o, ...rest } = good;
    const r = validateValue(rest, { types });
    assert.equal(r.diagnostics.length, 1);
    assert.equal(r.diagnostics[0].code, 'schema.required');
    assert.match(r.diagnostics[0].message, /missing required fields "color", "owner"$/);
  });

  it('unexpected fields of one object are one message', () => {
    const r = validateValue({ ...good, x: 1, y: 2 }, { types });
    assert.deepEqual(codes(r), ['schema.additional-properties ']);
    assert.match(r.diagnostics[0].message, /"x", "y"/);
    const one = validateValue({ ...good, x: 1 }, { types });
    assert.deepEqual(codes(one), ['schema.additional-properties /x']);
  });

  it('a failed alternative reports only the closest branch', () => {
    const r = validateValue({ ...good, shape: { kind: 'rect', width: 2 } }, { types });
    assert.equal(r.diagnostics.length, 1, JSON.stringify(r.diagnostics));
    assert.equal(r.diagnostics[0].code, 'schema.required');
    assert.match(r.diagnostics[0].message, /"height".*closest of 2 alternatives: #2/);
    const wrongType = validateValue({ ...good, shape: { kind: 'circle', radius: 'big' } }, { types });
    assert.deepEqual(codes(wrongType), ['schema.type /shape/radius']);
    assert.match(wrongType.diagnostics[0].message, /must be number, found string.*#1/);
  });

  it('a oneOf where several branches match says so', () => {
    const Both = Type.Unsafe<string>({ oneOf: [Type.String(), Type.String({ minLength: 1 })] });
    const t: DocumentType = {
      ...widget,
      versions: [{ ...widget.versions[0], schema: Type.Object({ widget: Both }) }],
    };
    const r = validateValue({ widget: 'x' }, { types: [t] });
    assert.equal(r.diagnostics.length, 1);
    assert.equal(r.diagnostics[0].code, 'schema.one-of');
    assert.match(r.diagnostics[0].message, /more than one alternative \(#1 and #2\)/);
  });

  it('a `not` restating a type error, or an explanation repeated inside its object, is one message', () => {
    const t: DocumentType = {
      ...widget,
      versions: [
        {
          ...widget.versions[0],
          schema: Type.Unsafe({
            type: 'object',
            properties: { out: { type: 'object', not: { type: 'null' }, required: ['raw'] } },
            if: { properties: { kind: { const: 'single' } } },
            then: { required: ['out'], properties: { extra: { type: 'null' } } },
          }),
          explainSchemaError: (e) =>
            e.schemaPath.startsWith('#/then') ? 'a single row needs out' : undefined,
        },
      ],
    };
    const nullOut = validateValue({ widget: 'w', out: null }, { types: [t] });
    assert.deepEqual(codes(nullOut), ['schema.type /out']);
    const single = validateValue({ widget: 'w', kind: 'single', extra: 1 }, { types: [t] });
    assert.deepEqual(
      single.diagnostics.map((d) => `${d.pointer} ${d.message}`),
      [' a single row needs out'],
    );
  });

  it('lists allowed values and applies the explainSchemaError hook', () => {
    const r = validateValue({ ...good, color: 'green', owner: 5 }, { types });
    const byPointer = new Map(r.diagnostics.map((d) => [d.pointer, d]));
    assert.equal(byPointer.get('/owner')?.message, 'owner is a name');
    assert.match(byPointer.get('/color')?.message ?? '', /"red".*"blue".*"green"|closest/);
  });

  it('runs cross-field rules after the schema, but not with schemaOnly', () => {
    const odd = { ...good, count: 3 };
    assert.deepEqual(codes(validateValue(odd, { types })), ['test.even-count /count']);
    assert.deepEqual(validateValue(odd, { types, schemaOnly: true }).diagnostics, []);
  });

  it('says what was expected when the type or version cannot be told', () => {
    const unknown = validateValue({ hello: 1 }, { types });
    assert.equal(unknown.diagnostics[0].code, 'detect.unknown-type');
    assert.match(unknown.diagnostics[0].message, /expected one of test\.widget/);
    const badVersion = validateValue({ ...good, schema_version: '9' }, { types });
    assert.equal(badVersion.diagnostics[0].code, 'detect.unknown-version');
    assert.match(badVersion.diagnostics[0].message, /"1\.0", "widget_1", "2\.0", "widget_2"/);
    const noVersion = validateValue({ widget: 'w' }, { types });
    assert.match(noVersion.diagnostics[0].message, /missing schema_version/);
  });

  it('--type and --schema-version force detection', () => {
    const forced = validateValue(
      { ...good, widget: undefined, schema_version: undefined },
      { types, type: 'test.widget', schemaVersion: '1.0' },
    );
    assert.equal(forced.schema_version, '1.0');
    assert.deepEqual(codes(forced), ['schema.required ']);
    assert.throws(() => validateValue(good, { types, type: 'nope' }), { code: 'usage.unknown-type' });
    assert.throws(() => validateValue(good, { types, type: 'test.widget', schemaVersion: '7' }), {
      code: 'usage.unknown-version',
    });
  });
});

describe('validateStream', () => {
  it('reads JSON Lines with positions for schema errors', async () => {
    const lines = [
      JSON.stringify(good),
      '',
      `{"schema_version": "2.0", "widget": "w", "count": -1, "color": "red", "owner": "me"}`,
    ];
    const r = await validateStream(Readable.from([Buffer.from(lines.join('\n'))]), { types });
    assert.deepEqual([r.documents, r.invalid, r.errors], [2, 1, 1]);
    const d = r.diagnostics[0];
    assert.deepEqual([d.file, d.line, d.column, d.pointer, d.code], ['-', 3, 51, '/count', 'schema.minimum']);
  });

  it('reads one pretty-printed JSON document', async () => {
    const text = JSON.stringify({ ...good, count: 'two' }, null, 2);
    const r = await validateStream(Readable.from([Buffer.from(text)]), { types, name: 'doc' });
    assert.deepEqual([r.documents, r.invalid], [1, 1]);
    assert.deepEqual(
      [r.diagnostics[0].line, r.diagnostics[0].column, r.diagnostics[0].pointer],
      [4, 12, '/count'],
    );
  });
});
