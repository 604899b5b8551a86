import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ZipReader } from '../../src/io/zip.js';
import { DataError } from '../../src/errors.js';
import { buildZip, ZipBuilder, type ZipMember } from '../helpers/zip-writer.js';
import { reference, skipWithoutReference } from '../helpers/shared.js';

async function withTemp<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'evalkit-zip-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const big = 'x'.repeat(3 << 20) + 'end'; // over the 1 MiB one-read limit: read as a stream of chunks

test('stored, deflate and zstd members read back byte for byte, small and streamed', async () => {
  await withTemp(async (dir) => {
    const path = join(dir, 'a.zip');
    const members = [
      { name: 'stored.json', data: '{"a":1}', method: 0 as const },
      { name: 'deflate.json', data: '{"b":"é ünïcode"}', method: 8 as const },
      { name: 'zstd.json', data: '{"c":[1,2,3]}', method: 93 as const },
      { name: 'big-deflate.txt', data: big, method: 8 as const },
      { name: 'big-zstd.txt', data: big, method: 93 as const },
      { name: 'empty.txt', data: '', method: 8 as const },
    ];
    await writeFile(path, buildZip(members));
    const zip = await ZipReader.open(path);
    try {
      assert.deepEqual(
        zip.entries.map((e) => [e.name, e.method]),
        members.map((m) => [m.name, m.method]),
      );
      for (const m of members) assert.equal(await zip.readText(zip.entry(m.name)!), m.data, m.name);
      let chunks = 0;
      let length = 0;
      for await (const c of zip.stream(zip.entry('big-zstd.txt')!)) (chunks++, (length += c.length));
      assert.equal(length, big.length);
      assert.ok(chunks >= 3, `streamed in ${chunks} chunks`);
    } finally {
      await zip.close();
    }
  });
});

test('a name written twice resolves to its last member; ZIP64 end records are read', async () => {
  await withTemp(async (dir) => {
    const path = join(dir, 'b.zip');
    await writeFile(
      path,
      buildZip(
        [
          { name: 'samples/1_epoch_1.json', data: 'old' },
          { name: 'header.json', data: '{}' },
          { name: 'samples/1_epoch_1.json', data: 'new' },
        ],
        { zip64: true },
      ),
    );
    const zip = await ZipReader.open(path);
    try {
      assert.equal(zip.entries.length, 3);
      assert.equal(await zip.readText(zip.entry('samples/1_epoch_1.json')!), 'new');
      assert.deepEqual(
        zip.uniqueEntries().map((e) => e.name),
        ['samples/1_epoch_1.json', 'header.json'],
      );
    } finally {
      await zip.close();
    }
  });
});

test('more than 65,535 members (ZIP64 count)', async () => {
  await withTemp(async (dir) => {
    const path = join(dir, 'many.zip');
    const b = new ZipBuilder();
    for (let i = 0; i < 70_000; i++) b.add({ name: `m/${i}`, data: String(i), method: 0 });
    await writeFile(path, b.finish());
    const zip = await ZipReader.open(path);
    try {
      assert.equal(zip.entries.length, 70_000);
      assert.equal(await zip.readText(zip.entries[69_999]), '69999');
    } finally {
      await zip.close();
    }
  });
});

async function expectZipError(path: string, member: string | undefined, pattern: RegExp): Promise<void> {
  await assert.rejects(
    async () => {
      const zip = await ZipReader.open(path);
      try {
        for (const e of zip.entries) await zip.read(e);
      } finally {
        await zip.close();
      }
    },
    (error: unknown) => {
      assert.ok(error instanceof DataError, String(error));
      assert.ok(error.message.startsWith(path), error.message);
      if (member) assert.ok(error.message.includes(`member ${member}`), error.message);
      assert.match(error.message, pattern);
      return true;
    },
  );
}

test('truncated archives, corrupted members and unknown methods are DataErrors naming file and member', async () => {
  await withTemp(async (dir) => {
    const good = buildZip([
      { name: 'header.json', data: '{"version":2}'.repeat(50), method: 8 },
      { name: 'samples/1_epoch_1.json', data: '{"id":1}'.repeat(50), method: 93 },
    ]);
    const truncated = join(dir, 'truncated.zip');
    await writeFile(truncated, good.subarray(0, good.length - 30));
    await expectZipError(truncated, undefined, /end-of-central-directory|truncated/);

    const tiny = join(dir, 'tiny.zip');
    await writeFile(tiny, 'PK');
    await expectZipError(tiny, undefined, /too short/);

    // Flip a byte inside the deflate data of the first member.
    const corrupt = Buffer.from(good);
    corrupt[30 + 'header.json'.length + 3] ^= 0xff;
    const corruptPath = join(dir, 'corrupt.zip');
    await writeFile(corruptPath, corrupt);
    await expectZipError(corruptPath, 'header.json', /invalid|CRC-32|bytes/);

    // Flip a byte inside the zstd (raw block) data of the second member: the CRC catches it.
    const second = good.indexOf(Buffer.from('samples/1_epoch_1.json')) + 'samples/1_epoch_1.json'.length + 20;
    const corrupt2 = Buffer.from(good);
    corrupt2[second] ^= 0x01;
    const corrupt2Path = join(dir, 'corrupt2.zip');
    await writeFile(corrupt2Path, corrupt2);
    await expectZipError(corrupt2Path, 'samples/1_epoch_1.json', /CRC-32 mismatch/);

    const bzip = Buffer.from(good);
    const cdAt = bzip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    bzip.writeUInt16LE(12, cdAt + 10); // bzip2 in the central directory
    const bzipPath = join(dir, 'bzip.zip');
    await writeFile(bzipPath, bzip);
    await expectZipError(bzipPath, 'samples/1_epoch_1.json', /method 12 is not supported/);
  });
});

test(
  'the real Inspect .eval logs, including zstd members, read and match their CRCs',
  { skip: skipWithoutReference('peers-wild/inspect_ai') },
  async () => {
    const files = [
      'peers/inspect_ai/log_read_sample.eval',
      'peers-wild/inspect_ai/cdinu-grounded-tools-zstd/2026-06-30T11-12-44-00-00_civic-misinfo-grounded_3vahqniExoXv52eWg7PeRg.eval',
      'peers-wild/inspect_ai/inspectai-tests-streaming-epochs/log_streaming.eval',
      'peers-wild/inspect_ai/inspectai-tests-v3-dedup/log_message_deduplication.eval',
    ];
    for (const f of files) {
      const path = reference(f)!;
      const zip = await ZipReader.open(path);
      try {
        for (const e of zip.entries) {
          const text = await zip.readText(e);
          assert.equal(Buffer.byteLength(text), e.uncompressedSize);
          JSON.parse(text);
        }
        assert.ok(zip.entry('header.json'), f);
      } finally {
        await zip.close();
      }
    }
    const zstd = await ZipReader.open(reference(files[1])!);
    try {
      assert.ok(zstd.entries.every((e) => e.method === 93));
      const header = JSON.parse(await zstd.readText(zstd.entry('header.json')!));
      assert.equal(header.eval.task, 'civic_misinfo_grounded');
    } finally {
      await zstd.close();
    }
    assert.ok((await readFile(reference(files[0])!)).length > 0);
  },
);

test('readMany reads many members through one window, larger ones on their own, in file order', async () => {
  await withTemp(async (dir) => {
    const path = join(dir, 'many.zip');
    const members: ZipMember[] = [];
    for (let i = 0; i < 300; i++)
      members.push({
        name: `samples/${i}.json`,
        data: JSON.stringify({ i, pad: 'y'.repeat(i * 97) }),
        method: i % 3 === 0 ? 93 : 8,
      });
    members.splice(150, 0, { name: 'big.bin', data: 'z'.repeat(5 << 20), method: 0 });
    await writeFile(path, buildZip(members));
    const zip = await ZipReader.open(path);
    try {
      const seen: string[] = [];
      for await (const { entry, data } of zip.readMany([...zip.entries].reverse())) {
        seen.push(entry.name);
        assert.equal(data.toString('utf8'), members.find((m) => m.name === entry.name)!.data);
      }
      assert.deepEqual(
        seen,
        members.map((m) => m.name),
      );
    } finally {
      await zip.close();
    }
  });
});
