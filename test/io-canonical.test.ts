import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalJson, pythonFloatRepr, pythonJsonString } from '../src/io/canonical.js';

test('floats print as Python repr prints them', () => {
  // Values and their Python 3 repr(), written down from CPython.
  const cases: [number, string][] = [
    [1, '1.0'],
    [0.1, '0.1'],
    [1e-5, '1e-05'],
    [0.0001, '0.0001'],
    [1e16, '1e+16'],
    [1234567890123456.0, '1234567890123456.0'],
    [-2.5, '-2.5'],
    [1.5e300, '1.5e+300'],
    [123.456, '123.456'],
    [0, '0.0'],
  ];
  for (const [x, expected] of cases) assert.equal(pythonFloatRepr(x), expected, String(x));
});

test('canonical JSON sorts keys by code point and escapes non-ASCII like Python', () => {
  const s = canonicalJson(
    { b: 1, a: 'é😀', '\u{10000}': true, '\uffff': null, c: [0.5, 2] },
    { isFloat: (p) => p === '/b' },
  );
  assert.equal(s, '{"a":"\\u00e9\\ud83d\\ude00","b":1.0,"c":[0.5,2],"\\uffff":null,"\\ud800\\udc00":true}');
});

test('string literals as Python json.dumps writes them (ensure_ascii), ASCII fast path included', () => {
  // json.dumps(s) in CPython 3, written down: DEL and everything above it escaped, the rest as JSON.stringify.
  const cases: [string, string][] = [
    ['plain ascii ~', '"plain ascii ~"'],
    ['q"b\\n\n', '"q\\"b\\\\n\\n"'],
    ['del\x7f', '"del\\u007f"'],
    ['caf\u00e9', '"caf\\u00e9"'],
    ['\u0080', '"\\u0080"'],
    ['\u{1F600}', '"\\ud83d\\ude00"'],
    ['lone \ud800', '"lone \\ud800"'],
    ['\u0001', '"\\u0001"'],
  ];
  for (const [s, expected] of cases) {
    assert.equal(pythonJsonString(s), expected, JSON.stringify(s));
    assert.equal(pythonJsonString(s, JSON.stringify(s)), expected);
  }
});
