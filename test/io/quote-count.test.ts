import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { countQuotesInText, countUnescapedQuotes } from '../../src/io/quote-count.js';
import { parseStrictJson } from '../../src/io/strict-json.js';
import { createRng } from '../../src/metrics/stats/rng.js';
import { assembleQuoteCount, QUOTE_COUNT_BYTES_FILE, quoteCountModuleText } from '../../scripts/wasm.js';

const root = join(fileURLToPath(import.meta.url), '..', '..', '..');
const onBytes = (text: string): number => countUnescapedQuotes(text, Buffer.from(text, 'utf8'));

describe('unescaped quote count', () => {
  it('the committed WebAssembly is what quote-count.wat assembles to (npm run wasm)', async () => {
    const committed = await readFile(join(root, QUOTE_COUNT_BYTES_FILE), 'utf8');
    assert.equal(committed, quoteCountModuleText(await assembleQuoteCount(root)));
  });

  it('escapes by backslash runs of each parity, also across the 16-byte blocks', () => {
    const cases: [string, number][] = [
      ['', 0],
      ['"a"', 2],
      ['"a\\"b"', 2],
      ['"a\\\\"', 2],
      ['"a\\\\\\""', 2],
      [`"${'x'.repeat(14)}\\"${'y'.repeat(20)}"`, 2],
      [`"${'x'.repeat(15)}\\"${'y'.repeat(20)}"`, 2],
      [`"${'x'.repeat(14)}\\\\"`, 2],
      [`"${'x'.repeat(15)}\\\\"`, 2],
      [`${'"'.repeat(33)}`, 33],
      ['"é数学\\"" "λ"', 4],
    ];
    for (const [text, want] of cases) {
      assert.equal(countQuotesInText(text), want, `string scan of ${JSON.stringify(text)}`);
      assert.equal(onBytes(text), want, `WebAssembly on ${JSON.stringify(text)}`);
    }
  });

  it('agrees with the string scan on 20,000 random texts of quotes, backslashes and other characters', () => {
    const next = createRng(7);
    const alphabet = ['"', '\\', 'a', ' ', 'é', '数', '\n', '\\\\', '\\"'];
    for (let k = 0; k < 20_000; k++) {
      const parts: string[] = [];
      const n = Math.floor(next() * 90);
      for (let i = 0; i < n; i++) parts.push(alphabet[Math.floor(next() * alphabet.length)]);
      const text = parts.join('');
      assert.equal(onBytes(text), countQuotesInText(text), `text ${JSON.stringify(text)}`);
    }
  });

  it('grows its memory for long lines and gives the same count', () => {
    const piece = '{"k":"v \\" w","x\\\\":"é"},';
    const text = `[${piece.repeat(20_000)}1]`;
    assert.ok(text.length > 256 * 1024);
    assert.equal(onBytes(text), countQuotesInText(text));
    assert.equal(onBytes(text), 20_000 * 8);
  });

  it('still finds a duplicate key in a line read as bytes, and passes one with escaped quotes', () => {
    const dup = parseStrictJson(Buffer.from('{"a":"x \\" y","b":1,"a":"z"}'));
    assert.deepEqual(
      dup.issues.map((i) => [i.code, i.pointer]),
      [['json.duplicate-key', '/a']],
    );
    assert.deepEqual(parseStrictJson(Buffer.from('{"a":"x \\" y","b\\\\":"\\"é\\""}')).issues, []);
  });
});
