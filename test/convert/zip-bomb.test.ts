// A zip bomb in an Inspect `.eval`: a deflate member of a few GiB of zeros (a few MiB compressed), declared honestly
// or declared small, is refused with a clear error while the process stays well under 1 GB of memory; the caps
// can be lowered (and raised) with --zip-member-limit / --zip-archive-limit; a zstd frame asking for more than its
// member declares is refused before the decoder allocates it.
// test-runner: own process (it measures its own peak memory).
import assert from 'node:assert/strict';
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { constants, crc32, deflateRawSync } from 'node:zlib';
import { ZipReader } from '../../src/io/zip.js';
import { cli } from '../checks/cli-inproc.js';
import { runNode } from '../helpers/cli.js';
import { projectRoot } from '../helpers/shared.js';
import { tempRoot } from './helpers.js';

const MiB = 1024 ** 2;

interface RawMember {
  name: string;
  method: number;
  body: Buffer[];
  crc: number;
  size: number;
}

/** Writes a ZIP (32-bit fields) member by member, each body already compressed; streams to disk. */
function writeZip(path: string, members: RawMember[]): void {
  const fd = openSync(path, 'w');
  const central: Buffer[] = [];
  let offset = 0;
  const put = (b: Buffer): void => {
    writeSync(fd, b);
    offset += b.length;
  };
  for (const m of members) {
    const name = Buffer.from(m.name);
    const compressed = m.body.reduce((n, b) => n + b.length, 0);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(m.method, 8);
    local.writeUInt32LE(m.crc >>> 0, 14);
    local.writeUInt32LE(compressed, 18);
    local.writeUInt32LE(m.size, 22);
    local.writeUInt16LE(name.length, 26);
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE(20, 4);
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(m.method, 10);
    cd.writeUInt32LE(m.crc >>> 0, 16);
    cd.writeUInt32LE(compressed, 20);
    cd.writeUInt32LE(m.size, 24);
    cd.writeUInt16LE(name.length, 28);
    cd.writeUInt32LE(offset, 42);
    central.push(cd, name);
    put(local);
    put(name);
    for (const b of m.body) (writeSync(fd, b), (offset += b.length));
  }
  const cdBytes = Buffer.concat(central);
  const cdOffset = offset;
  put(cdBytes);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(members.length, 8);
  eocd.writeUInt16LE(members.length, 10);
  eocd.writeUInt32LE(cdBytes.length, 12);
  eocd.writeUInt32LE(cdOffset, 16);
  put(eocd);
  closeSync(fd);
}

/**
 * A raw deflate stream of `mib` MiB of zeros without ever holding them: one MiB compressed with a full flush (a
 * byte-aligned, self-contained non-final block run), repeated, then an empty final block.
 */
function zerosDeflate(mib: number): Buffer[] {
  const block = deflateRawSync(Buffer.alloc(MiB), { finishFlush: constants.Z_FULL_FLUSH });
  return [...Array.from({ length: mib }, () => block), deflateRawSync(Buffer.alloc(0))];
}

/** A small Inspect log of our own (format 2: a header and one sample), the base each bomb is added to. */
function baseMembers(): { name: string; data: Buffer }[] {
  const spec = {
    eval_id: 'E1',
    run_id: 'R1',
    task_id: 'T1',
    created: '2026-01-02T03:04:05+00:00',
    task: 'bomb_task',
    dataset: { name: 'bomb', samples: 2, sample_ids: [1, 2] },
    model: 'openai/gpt-4o-mini',
    config: {},
    packages: { inspect_ai: '0.3.150' },
    scorers: [{ name: 'match', options: {} }],
  };
  const sample = {
    id: 1,
    epoch: 1,
    input: 'q1',
    target: 't1',
    messages: [
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 't1' },
    ],
    output: {
      model: 'gpt-4o-mini',
      choices: [{ message: { role: 'assistant', content: 't1' } }],
      completion: 't1',
    },
    scores: { match: { value: 'C', answer: 't1' } },
  };
  const header = {
    version: 2,
    status: 'success',
    eval: spec,
    plan: { name: 'plan', steps: [{ solver: 'generate', params: {} }], config: {} },
    results: {
      total_samples: 2,
      completed_samples: 2,
      scores: [{ name: 'match', scorer: 'match', metrics: { accuracy: { name: 'accuracy', value: 1 } } }],
    },
    stats: { started_at: '2026-01-02T03:04:05+00:00', completed_at: '2026-01-02T03:05:00+00:00' },
  };
  return [
    { name: 'samples/1_epoch_1.json', data: Buffer.from(JSON.stringify(sample)) },
    { name: 'header.json', data: Buffer.from(JSON.stringify(header)) },
  ];
}

/** Our small log's members, deflated; `extra` are added as further sample members, before the header. */
function evalWith(path: string, extra: RawMember[]): void {
  const members: RawMember[] = baseMembers().map(({ name, data }) => ({
    name,
    method: 8,
    body: [deflateRawSync(data)],
    crc: crc32(data),
    size: data.length,
  }));
  const header = members.findIndex((m) => m.name === 'header.json');
  members.splice(header, 0, ...extra);
  writeZip(path, members);
}

/** Runs `convert` in a child process and reports its exit code, output and peak RSS (bytes). */
async function convertMeasured(
  args: string[],
): Promise<{ code: number | null; stdout: string; rss: number }> {
  const script =
    `const { main } = await import(${JSON.stringify(join(projectRoot, 'src/cli/main.ts'))});` +
    `const code = await main(['node', 'evalkit', ...${JSON.stringify(args)}]);` +
    `process.stderr.write('\\nRSS ' + process.resourceUsage().maxRSS * 1024 + '\\n'); process.exitCode = code;`;
  const r = await runNode(['--import', 'tsx', '--input-type=module', '-e', script], { timeoutMs: 120_000 });
  const rss = Number(/RSS (\d+)/.exec(r.stderr)?.[1] ?? NaN);
  return { code: r.code, stdout: r.stdout, rss };
}

const GiB_MIB = 1024;

test('a member of 3 GiB of zeros, declared as such: refused before decompressing, under 1 GB of memory', async (t) => {
  const dir = tempRoot();
  const path = join(dir, 'bomb.eval');
  evalWith(path, [
    {
      name: 'samples/2_epoch_1.json',
      method: 8,
      body: zerosDeflate(3 * GiB_MIB),
      crc: 0,
      size: 3 * 1024 ** 3,
    },
  ]);
  const r = await convertMeasured(['convert', path, '-o', join(dir, 'out'), '--format', 'json']);
  assert.equal(r.code, 1, r.stdout);
  const failure = JSON.parse(r.stdout).failures[0];
  assert.equal(failure.code, 'zip.too-large');
  assert.match(
    failure.message,
    /member samples\/2_epoch_1\.json expands to 3 GiB, more than the limit of 1 GiB/,
  );
  assert.match(failure.message, /--zip-member-limit/);
  t.diagnostic(`peak RSS ${(r.rss / 1e6).toFixed(0)} MB`);
  assert.ok(r.rss < 1e9, `peak RSS ${r.rss}`);
});

test('a member declared as 1,000 bytes that inflates to 3 GiB: stopped at its declared size, under 1 GB of memory', async (t) => {
  const dir = tempRoot();
  const path = join(dir, 'liar.eval');
  evalWith(path, [
    { name: 'samples/2_epoch_1.json', method: 8, body: zerosDeflate(3 * GiB_MIB), crc: 0, size: 1000 },
  ]);
  const r = await convertMeasured(['convert', path, '-o', join(dir, 'out'), '--format', 'json']);
  assert.equal(r.code, 1, r.stdout);
  const failure = JSON.parse(r.stdout).failures[0];
  assert.equal(failure.code, 'zip.invalid');
  assert.match(failure.message, /decompresses to more than the 1000 bytes the directory declares/);
  t.diagnostic(`peak RSS ${(r.rss / 1e6).toFixed(0)} MB`);
  assert.ok(r.rss < 1e9, `peak RSS ${r.rss}`);
});

test('the caps are options: a 64 MiB member over --zip-member-limit 32MiB, an archive over --zip-archive-limit', async () => {
  const dir = tempRoot();
  const path = join(dir, 'big.eval');
  evalWith(path, [
    { name: 'samples/2_epoch_1.json', method: 8, body: zerosDeflate(64), crc: 0, size: 64 * MiB },
  ]);
  const member = await cli([
    'convert',
    path,
    '-o',
    join(dir, 'a'),
    '--format',
    'json',
    '--zip-member-limit',
    '32MiB',
  ]);
  assert.equal(member.code, 1, member.stdout);
  assert.match(
    JSON.parse(member.stdout).failures[0].message,
    /expands to 64 MiB, more than the limit of 32 MiB per member/,
  );
  const total = await cli([
    'convert',
    path,
    '-o',
    join(dir, 'b'),
    '--format',
    'json',
    '--zip-archive-limit',
    '16KiB',
  ]);
  assert.equal(total.code, 1, total.stdout);
  assert.match(JSON.parse(total.stdout).failures[0].message, /past the limit of 16 KiB expanded in all/);
  const bad = await cli(['convert', path, '-o', join(dir, 'c'), '--zip-member-limit', 'lots']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--zip-member-limit expects a size/);
  // The same archive within the default caps reaches the member (not JSON: a data error of its own, not a cap).
  const plain = await cli(['convert', path, '-o', join(dir, 'd'), '--format', 'json']);
  assert.notEqual(JSON.parse(plain.stdout).failures[0]?.code, 'zip.too-large');
});

test('a zstd frame that declares more content than its member, or a huge window, is refused before decoding', async () => {
  const dir = tempRoot();
  const path = join(dir, 'z.zip');
  // Frame header: magic, flags (4-byte content size, single segment), content size 2 GiB; then one raw block.
  const frame = Buffer.alloc(9 + 3 + 4);
  frame.writeUInt32LE(0xfd2fb528, 0);
  frame[4] = 0xa0;
  frame.writeUInt32LE(2 * 1024 ** 3, 5);
  frame.writeUIntLE((4 << 3) | 1, 9, 3);
  // Window descriptor variant: no content size, window 2^(10+21) = 2 GiB.
  const windowed = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 21 << 3, 0x01, 0x00, 0x00]);
  writeZip(path, [
    { name: 'a.json', method: 93, body: [frame], crc: 0, size: 4 },
    { name: 'b.json', method: 93, body: [windowed], crc: 0, size: 4 },
  ]);
  const zip = await ZipReader.open(path);
  try {
    await assert.rejects(
      zip.read(zip.entries[0]),
      /its zstd frame declares 2147483648 bytes, more than the 4/,
    );
    await assert.rejects(zip.read(zip.entries[1]), /its zstd frame asks for a 2 GiB window/);
  } finally {
    await zip.close();
  }
});
