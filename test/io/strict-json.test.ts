import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { firstInvalidUtf8, locatePointers, parseStrictJson } from '../../src/io/strict-json.js';

function only(input: string | Buffer, maxDepth?: number) {
  const r = parseStrictJson(input, { maxDepth });
  assert.equal(r.issues.length, 1, `expected one issue, got ${JSON.stringify(r.issues)}`);
  return { ...r.issues[0], ok: r.ok };
}

describe('strict JSON: each mistake has a code and a position', () => {
  it('duplicate keys, each at its second occurrence, the value still usable', () => {
    const all = parseStrictJson('{\n  "a": 1,\n  "b": {"c": 1, "c": 2},\n  "a": 3\n}').issues;
    assert.deepEqual(
      all.map((x) => [x.code, x.line, x.column, x.pointer]),
      [
        ['json.duplicate-key', 3, 17, '/b/c'],
        ['json.duplicate-key', 4, 3, '/a'],
      ],
    );
    assert.equal(parseStrictJson('{"a": 1, "a": 2}').ok, true);
  });

  it('bare NaN and Infinity', () => {
    const nan = only('{"x": [1, NaN]}');
    assert.deepEqual(
      [nan.code, nan.line, nan.column, nan.pointer, nan.ok],
      ['json.nan', 1, 11, '/x/1', false],
    );
    const inf = only('{\n"x": -Infinity}');
    assert.deepEqual([inf.code, inf.line, inf.column], ['json.nan', 2, 6]);
    assert.equal(only('[Infinity]').code, 'json.nan');
  });

  it('numbers that overflow to Infinity', () => {
    const i = only('{"big": 1e400, "ok": 1e300}');
    assert.deepEqual([i.code, i.line, i.column, i.pointer], ['json.overflow', 1, 9, '/big']);
    assert.equal(only('[-9e999]').code, 'json.overflow');
  });

  it('invalid UTF-8 is located by line and column', () => {
    const bytes = Buffer.concat([
      Buffer.from('{\n  "é": "ab'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"\n}'),
    ]);
    const i = only(bytes);
    assert.deepEqual([i.code, i.line, i.column, i.ok], ['json.invalid-utf8', 2, 11, false]);
    // A literal U+FFFD that was in the file is fine.
    assert.equal(parseStrictJson(Buffer.from('"\uFFFD"')).issues.length, 0);
  });

  it('a byte order mark', () => {
    const i = only(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a": 1}')]));
    assert.deepEqual([i.code, i.line, i.column, i.ok], ['json.bom', 1, 1, true]);
  });

  it('trailing garbage after the value', () => {
    const i = only('{"a": 1}\n{"b": 2}\n');
    assert.deepEqual([i.code, i.line, i.column, i.ok], ['json.trailing', 2, 1, false]);
  });

  it('a truncated file', () => {
    const i = only('{\n  "a": [1, 2,\n    3');
    assert.deepEqual([i.code, i.line, i.column], ['json.truncated', 3, 6]);
    assert.equal(only('{"a": "unfinished').code, 'json.truncated');
    assert.equal(only('{"a"').code, 'json.truncated');
  });

  it('pathological nesting is refused without a crash', () => {
    const i = only('['.repeat(100_000) + ']'.repeat(100_000));
    assert.deepEqual([i.code, i.line, i.column], ['json.nesting', 1, 257]);
    assert.equal(only('{"a":'.repeat(50_000)).code, 'json.nesting');
    // At the limit is fine.
    assert.equal(parseStrictJson('['.repeat(10) + ']'.repeat(10), { maxDepth: 10 }).issues.length, 0);
    assert.equal(only('['.repeat(11) + ']'.repeat(11), 10).code, 'json.nesting');
  });

  it('plain syntax errors', () => {
    for (const [text, line, column] of [
      ['{"a": tru}', 1, 7],
      ['{"a": 1,}', 1, 9],
      ["{'a': 1}", 1, 2],
      ['[01]', 1, 2],
      ['{"a": "x\ty"}', 1, 9],
    ] as const) {
      const i = only(text);
      assert.deepEqual([i.code, i.line, i.column], ['json.syntax', line, column], text);
    }
    assert.equal(only('   ').code, 'json.empty');
  });

  it('columns count characters, not bytes or UTF-16 units', () => {
    const i = only('{"😀é": 1, "😀é": 2}');
    assert.deepEqual([i.line, i.column], [1, 11]);
  });
});

describe('strict JSON: the fast path', () => {
  it('gives the same value as JSON.parse for valid documents, with no issues', () => {
    const docs = [
      '{"a": "he said \\"hi\\"", "b": "back\\\\", "c": ["\\\\\\"", {"d": null}], "e": 1.5e10}',
      '[1, "two", {"three": [true, false]}, "\\u0022"]',
      '"just a string"',
      '42',
      '{"__proto__": {"x": 1}, "constructor": 2}',
    ];
    for (const d of docs) {
      const r = parseStrictJson(d);
      assert.deepEqual(r.issues, [], d);
      assert.deepEqual(r.value, JSON.parse(d));
    }
  });

  it('finds a duplicate even when escaped quotes surround it', () => {
    const r = parseStrictJson('{"k\\"": "v\\\\", "k\\"": "w"}');
    assert.deepEqual(
      r.issues.map((i) => i.code),
      ['json.duplicate-key'],
    );
  });
});

describe('locatePointers', () => {
  it('maps pointers to the start of their values, missing ones to the nearest ancestor', () => {
    const text = '{\n  "a": {"b": [1, {"c": 2}]},\n  "x~/y": 3\n}';
    const m = locatePointers(text, ['/a/b/1/c', '/x~0~1y', '/a/zz', '']);
    assert.deepEqual(m.get('/a/b/1/c'), { line: 2, column: 24 });
    assert.deepEqual(m.get('/x~0~1y'), { line: 3, column: 11 });
    assert.deepEqual(m.get('/a/zz'), { line: 2, column: 8 });
    assert.deepEqual(m.get(''), { line: 1, column: 1 });
  });
});

describe('firstInvalidUtf8', () => {
  it('rejects overlong forms, surrogates and truncated sequences', () => {
    assert.equal(firstInvalidUtf8(Buffer.from('héllo €😀')), -1);
    assert.equal(firstInvalidUtf8(Buffer.from([0x61, 0xc0, 0x80])), 1);
    assert.equal(firstInvalidUtf8(Buffer.from([0xed, 0xa0, 0x80])), 0);
    assert.equal(firstInvalidUtf8(Buffer.from([0x61, 0x62, 0xe2, 0x82])), 2);
  });
});

describe('strict JSON agrees with JSON.parse on seeded random mutations', () => {
  it('refuses what JSON.parse refuses, and accepts what it accepts with the same value', () => {
    const base =
      '{"a": [1, -2.5e3, true, null, "x\\"y"], "b": {"c": "é\\u00e9\\n", "d": [], "e": {}}, "f": 0.1, "g": "z"}';
    const alphabet = ['"', ',', ':', '{', '}', '[', ']', '\\', ' ', '\n', '1', 'e', '-', 'a', 'N', '.'];
    let seed = 12345;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const fatal = new Set(['json.syntax', 'json.truncated', 'json.trailing', 'json.nan', 'json.empty']);
    for (let k = 0; k < 3000; k++) {
      let text = base;
      for (let m = 0; m <= next(3); m++) {
        const at = next(text.length + 1);
        const op = next(3);
        if (op === 0) text = text.slice(0, at) + text.slice(at + 1);
        else if (op === 1) text = text.slice(0, at) + alphabet[next(alphabet.length)] + text.slice(at);
        else text = text.slice(0, at) + text.slice(at, at + next(8)) + text.slice(at);
      }
      let expected: unknown;
      let parses = true;
      try {
        expected = JSON.parse(text);
      } catch {
        parses = false;
      }
      const r = parseStrictJson(text);
      if (parses) {
        assert.equal(r.ok, true, text);
        assert.deepEqual(r.value, expected, text);
        for (const i of r.issues)
          assert.ok(['json.duplicate-key', 'json.overflow'].includes(i.code), `${text}: ${i.code}`);
      } else {
        assert.equal(r.ok, false, text);
        assert.ok(
          r.issues.length > 0 && r.issues.some((i) => fatal.has(i.code)),
          `${text}: ${JSON.stringify(r.issues)}`,
        );
        for (const i of r.issues) assert.ok(i.line >= 1 && i.column >= 1);
      }
    }
  });
});

describe('the fast path never misses a duplicate key', () => {
  it('seeded objects with a repeated key among escaped quotes and backslashes', () => {
    const pieces = ['plain', 'q\\"uote', 'back\\\\', 'both\\\\\\"', '\\u0041', 'é', ':', '{x}'];
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let k = 0; k < 2000; k++) {
      const keys = Array.from({ length: 2 + next(4) }, (_, i) => `k${i}${pieces[next(pieces.length)]}`);
      const value = (): string =>
        [`"${pieces[next(pieces.length)]}"`, '1', 'null', `["${pieces[next(pieces.length)]}"]`, '{"in":"x"}'][
          next(5)
        ];
      const members = keys.map((key) => `"${key}":${value()}`);
      const dupOf = next(keys.length);
      members.splice(next(members.length + 1), 0, `"${keys[dupOf]}":${value()}`);
      const text = next(2) ? `{${members.join(',')}}` : `[1,{"wrap":{${members.join(', ')}}}]`;
      const r = parseStrictJson(text);
      assert.deepEqual(
        r.issues.map((i) => i.code),
        ['json.duplicate-key'],
        text,
      );
    }
  });
});
