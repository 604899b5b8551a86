import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readJsonlFile, splitLines, type JsonlLine } from '../../src/io/jsonl.js';

async function* chunks(data: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

async function collect(source: AsyncIterable<JsonlLine[]>): Promise<[number, string][]> {
  const out: [number, string][] = [];
  for await (const batch of source)
    for (const l of batch) out.push([l.line, l.tooLong ? '<too long>' : l.bytes.toString('utf8')]);
  return out;
}

describe('splitLines', () => {
  const text = '{"a":1}\r\n\n  \r\n{"b":"é€😀"}\n{"c":3}';
  const expected: [number, string][] = [
    [1, '{"a":1}'],
    [4, '{"b":"é€😀"}'],
    [5, '{"c":3}'],
  ];

  it('handles CRLF, blank lines and a last line without newline, whatever the chunk size', async () => {
    const data = Buffer.from(text);
    for (const size of [1, 2, 3, 7, 64, 1 << 20]) {
      assert.deepEqual(await collect(splitLines(chunks(data, size))), expected, `chunk size ${size}`);
    }
  });

  it('counts every line, blank ones included', async () => {
    const stats = { lines: 0 };
    await collect(splitLines(chunks(Buffer.from('a\n\nb\n'), 2), { stats }));
    assert.equal(stats.lines, 3);
  });

  it('keeps a BOM on the first line for the parser to report', async () => {
    const data = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{}\n')]);
    const [first] = await collect(splitLines(chunks(data, 2)));
    assert.equal(first[1], '\uFEFF{}');
  });

  it('reports a line longer than the limit instead of holding it', async () => {
    const data = Buffer.from(`{"a":1}\n${'x'.repeat(1000)}\n{"b":2}\n`);
    const got = await collect(splitLines(chunks(data, 100), { maxLineBytes: 500 }));
    assert.deepEqual(got, [
      [1, '{"a":1}'],
      [2, '<too long>'],
      [3, '{"b":2}'],
    ]);
  });

  it('reads a byte range of a file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'evalkit-jsonl-'));
    try {
      const path = join(dir, 'x.jsonl');
      await writeFile(path, 'l1\nl2\nl3\nl4\n');
      assert.deepEqual(await collect(readJsonlFile(path, { start: 3, end: 9 })), [
        [1, 'l2'],
        [2, 'l3'],
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
