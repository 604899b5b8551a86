// The chunked conversion of large lm-eval samples files (src/convert/row-blocks.ts): worker threads and this thread
// map byte ranges, and this thread writes their blocks in order. It must give the same bytes as one thread, match the
// pinned digests below (of the output of the converter reading each file in one pass), name the line in the file
// for an error in a later chunk, and write nothing on failure. Chunks are made tiny so that small files have many.
// test-runner: own process (long: as a job of its own it keeps the batches short).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { convertPaths, isConvertFailure } from '../../src/convert/index.js';
import type { ParallelOptions } from '../../src/convert/types.js';
import { BlockEncoder } from '../../src/convert/row-blocks.js';
import { writeConverted } from '../../src/convert/write.js';
import { lineBoundaries } from '../../src/io/jsonl.js';
import { reference, skipWithoutReference } from '../helpers/shared.js';
import { tempRoot, treeBytes } from './helpers.js';
import { writeGeneratedRun } from './lm-eval-generated.js';

/** Workers on every file, in ranges of ~64 KiB. */
const CHUNKED: ParallelOptions = { jobs: 2, thresholdBytes: 0, chunkBytes: 64 * 1024 };
const ONE_THREAD: ParallelOptions = { jobs: 1 };

/** Converts and writes; returns the datastore root and the failures' messages. */
async function convert(
  paths: string[],
  parallel: ParallelOptions,
): Promise<{ root: string; errors: string[] }> {
  const root = tempRoot();
  const errors: string[] = [];
  for await (const item of convertPaths(paths, { parallel })) {
    if (isConvertFailure(item)) {
      errors.push(item.error.message);
      continue;
    }
    try {
      await writeConverted(item, root);
    } catch (error) {
      errors.push((error as Error).message);
    }
  }
  return { root, errors };
}

/** One digest of a whole output tree (paths and bytes). */
function treeDigest(root: string): string {
  const h = createHash('sha256');
  for (const [path, bytes] of treeBytes(root)) h.update(`${path}\0`).update(bytes);
  return h.digest('hex');
}

test('chunked conversion gives the same bytes as one thread and as the pinned digest (LF; CRLF with blank lines, no final newline)', async () => {
  const cases = [
    { options: {}, pinned: '6d586e4385f9558a26a8af3ff9bb1c25e50b9df7296d74f943249b4946b7668c' },
    {
      options: { crlf: true, finalNewline: false },
      pinned: 'd91186c3fbd69c0ae58fe90117910a630e97d92165c814223187570c8ed3e612',
    },
  ];
  for (const { options, pinned } of cases) {
    const run = writeGeneratedRun(join(tempRoot(), 'run'), 700_000, options);
    const chunked = await convert([run.results], CHUNKED);
    const single = await convert([run.results], ONE_THREAD);
    assert.deepEqual(chunked.errors, []);
    assert.deepEqual(single.errors, []);
    const nonBlank = (path: string): number =>
      readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '').length;
    const [, samples] = [...treeBytes(chunked.root)].find(([k]) => k.endsWith('_samples.jsonl'))!;
    assert.equal(
      samples.toString('utf8').split('\n').length - 1,
      nonBlank(run.generation) + nonBlank(run.choice),
      'one row per non-blank line',
    );
    assert.equal(treeDigest(chunked.root), treeDigest(single.root));
    assert.equal(treeDigest(chunked.root), pinned, 'the pinned bytes for this input');
  }
});

test(
  'the reference lm-eval runs (and every other source beside them) convert chunked to their pinned bytes',
  { skip: skipWithoutReference('peers-wild/MANIFEST.json') },
  async () => {
    const pinned: Record<string, string> = {
      peers: '9a8da6d315dd3591f278ab65154ad13b686b68cca502ea283a24bf1226f9c266',
      'peers-wild': 'e6370928054d22866d0682f9c6cc2cd8906fd16c862ca5430598e614a0b923e6',
    };
    for (const [dir, digest] of Object.entries(pinned)) {
      // Chunks of 2 KiB: the reference samples files are small.
      const { root } = await convert([reference(dir)!], { jobs: 2, thresholdBytes: 0, chunkBytes: 2048 });
      assert.equal(treeDigest(root), digest, dir);
    }
  },
);

test('an error in a later chunk names the line in the file, the same as one thread, and nothing is written', async () => {
  const run = writeGeneratedRun(join(tempRoot(), 'run'), 700_000);
  const lines = readFileSync(run.generation, 'utf8').split('\n');
  const bad = 1100; // 1-based line, well past the first 64 KiB chunk
  lines[bad - 1] = lines[bad - 1].slice(0, 100);
  lines[bad + 10] = '[1, 2]'; // a second, later problem: the first one in the file is reported
  writeFileSync(run.generation, lines.join('\n'));
  const chunked = await convert([run.results], CHUNKED);
  const single = await convert([run.results], ONE_THREAD);
  assert.equal(chunked.errors.length, 1);
  assert.match(chunked.errors[0], new RegExp(`samples_gen_task_[^:]+\\.jsonl:${bad}: not valid JSON`));
  assert.deepEqual(chunked.errors, single.errors);
  assert.deepEqual([...treeBytes(chunked.root).keys()], [], 'no partial pair, no temporary file');

  // A line that is JSON but not an object, alone: the mapper's own error, renumbered the same way.
  lines[bad - 1] = readFileSync(run.generation, 'utf8').split('\n')[bad - 2];
  writeFileSync(run.generation, lines.join('\n'));
  const notObject = await convert([run.results], CHUNKED);
  assert.match(notObject.errors[0], new RegExp(`\\.jsonl:${bad + 11}: a samples line must be a JSON object`));
  assert.deepEqual(notObject.errors, (await convert([run.results], ONE_THREAD)).errors);
});

test('whichever thread converts the failing chunk (a worker or this one), the error names the same line', async () => {
  const run = writeGeneratedRun(join(tempRoot(), 'run'), 400_000);
  const lines = readFileSync(run.generation, 'utf8').split('\n');
  const bad = 700;
  lines[bad - 1] = lines[bad - 1].slice(0, 50);
  writeFileSync(run.generation, lines.join('\n'));
  const expected = (await convert([run.results], ONE_THREAD)).errors;
  assert.equal(expected.length, 1);
  // Chunk sizes and thread counts that put the bad line in chunks of different numbers, taken by different threads;
  // one chunk as large as the file leaves no work for a worker (this thread converts it).
  for (const chunkBytes of [8 * 1024, 20 * 1024, 50 * 1024, 130 * 1024, 1 << 30])
    for (const jobs of [2, 3]) {
      const { errors, root } = await convert([run.results], { jobs, thresholdBytes: 0, chunkBytes });
      assert.deepEqual(errors, expected, `chunks of ${chunkBytes} bytes, ${jobs} threads`);
      assert.deepEqual([...treeBytes(root).keys()], []);
    }
});

test('a truncated last line fails at its line; an empty or blank samples file gives no rows, as with one thread', async () => {
  const run = writeGeneratedRun(join(tempRoot(), 'run'), 300_000);
  const text = readFileSync(run.choice);
  writeFileSync(run.choice, text.subarray(0, text.length - 30));
  const chunked = await convert([run.results], CHUNKED);
  assert.equal(chunked.errors.length, 1);
  assert.match(
    chunked.errors[0],
    new RegExp(`samples_mc_task_[^:]+\\.jsonl:${run.lines.choice}: not valid JSON`),
  );
  assert.deepEqual(chunked.errors, (await convert([run.results], ONE_THREAD)).errors);

  for (const content of ['', '\n\n  \r\n']) {
    writeFileSync(run.choice, content);
    const a = await convert([run.results], CHUNKED);
    const b = await convert([run.results], ONE_THREAD);
    assert.deepEqual(a.errors, []);
    assert.equal(treeDigest(a.root), treeDigest(b.root));
  }
});

test('a chunk cut that falls inside a multi-byte UTF-8 character moves to the next line; the bytes are unchanged', async () => {
  const run = writeGeneratedRun(join(tempRoot(), 'run'), 400_000);
  const bytes = readFileSync(run.generation);
  // The first chunk size whose first even cut lands on a UTF-8 continuation byte (the middle of a character).
  let chunkBytes = 0;
  for (let c = 20_000; c < 60_000 && chunkBytes === 0; c++) {
    const pieces = Math.ceil(bytes.length / c);
    const cut = Math.floor(bytes.length / pieces);
    if ((bytes[cut] & 0xc0) === 0x80) chunkBytes = c;
  }
  assert.ok(chunkBytes > 0, 'found a cut inside a character');
  const cuts = await lineBoundaries(run.generation, bytes.length, Math.ceil(bytes.length / chunkBytes));
  for (const cut of cuts.slice(1, -1)) assert.equal(bytes[cut - 1], 0x0a, 'every range starts a line');
  const chunked = await convert([run.results], { jobs: 2, thresholdBytes: 0, chunkBytes });
  const single = await convert([run.results], ONE_THREAD);
  assert.deepEqual(chunked.errors, []);
  assert.equal(treeDigest(chunked.root), treeDigest(single.root));
});

test('the block encoder: whole lines per block, lines longer than a block, multi-byte text, reused memory', () => {
  const lines = ['{"a":1}', `{"t":"${'é😀'.repeat(40)}"}`, 'x'.repeat(300), '{}', `"${'中'.repeat(10)}"`];
  const spare = new ArrayBuffer(64);
  const encoder = new BlockEncoder(64, [spare]);
  const blocks: Buffer[] = [];
  const memory: ArrayBufferLike[] = [];
  let rows = 0;
  const keep = (b: { bytes: Buffer; rows: number } | undefined): void => {
    if (!b) return;
    blocks.push(Buffer.from(b.bytes));
    memory.push(b.bytes.buffer);
    rows += b.rows;
    assert.equal(b.bytes[b.bytes.length - 1], 0x0a, 'a block ends with a whole line');
  };
  for (const l of lines) keep(encoder.add(l));
  keep(encoder.take());
  assert.equal(encoder.take(), undefined);
  assert.equal(rows, lines.length);
  assert.equal(memory[0], spare, 'the first block was written into the spare buffer');
  assert.ok(blocks.length >= 3);
  assert.equal(Buffer.concat(blocks).toString('utf8'), lines.map((l) => `${l}\n`).join(''));
});
