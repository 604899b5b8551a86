// The per-member cap of the archive reader has a ceiling (issue 31, item 13): a member is read whole and decoded as
// one text, and past 2 GiB - 1 byte V8 ends the process (`kMaxInt >= len`, exit 133) instead of throwing. Asking
// for more is refused with the reason; a member whose directory declares more is refused before anything is
// allocated, whatever caps a library caller passes. No GiB is written: the sizes are the directory's.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { DEFAULT_ZIP_LIMITS, MAX_MEMBER_CEILING, setDefaultZipLimits, ZipReader } from '../../src/io/zip.js';
import { cli } from '../helpers/cli.js';
import { buildZip } from '../helpers/zip-writer.js';

const dir = mkdtempSync(join(tmpdir(), 'evalkit-zip-ceiling-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const GiB = 1024 ** 3;

/** A small `.eval`-like archive whose directory says its sample member expands to `declared` bytes. */
function archiveDeclaring(declared: number): string {
  const zip = buildZip([
    { name: 'header.json', data: '{"version": 2, "status": "success"}' },
    { name: 'samples/1_epoch_1.json', data: '{"id": 1}' },
  ]);
  // Patch the second central-directory entry's uncompressed size (offset 24 of its header).
  let at = -1;
  for (let seen = 0; seen < 2; seen++) at = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), at + 1);
  zip.writeUInt32LE(declared, at + 24);
  const path = join(dir, `declares-${declared}.eval`);
  writeFileSync(path, zip);
  return path;
}

test('--zip-member-limit above the ceiling is refused with the reason (the 4GiB / 8GiB case), before any read', async () => {
  const path = archiveDeclaring(9);
  for (const command of [
    ['convert', path, '-o', join(dir, 'out')],
    ['ingest', path, '--db', join(dir, 'store.duckdb')],
  ]) {
    for (const limit of ['4GiB', '2GiB', '2147483648']) {
      const r = await cli([...command, '--zip-member-limit', limit, '--zip-archive-limit', '8GiB']);
      assert.equal(r.code, 2, `${command[0]} ${limit}: ${r.stderr}`);
      assert.match(
        r.stderr,
        new RegExp(
          `usage\\.bad-option: --zip-member-limit ${limit}: .* above the ceiling of 2 GiB .*read whole`,
        ),
      );
    }
  }
  const help = await cli(['convert', '--help']);
  assert.match(help.stdout.replace(/\s+/g, ' '), /at most 2 GiB: a member is read whole/);
});

test('the ceiling itself is a usable cap; the library refuses more', () => {
  try {
    setDefaultZipLimits({ maxMemberBytes: MAX_MEMBER_CEILING });
    assert.throws(() => setDefaultZipLimits({ maxMemberBytes: 4 * GiB }), {
      code: 'usage.bad-option',
      message: /above the ceiling/,
    });
  } finally {
    setDefaultZipLimits(DEFAULT_ZIP_LIMITS);
  }
});

test('a member declaring 3 GiB is refused before it is read, whatever caps the reader was given', async () => {
  const path = archiveDeclaring(3 * GiB);
  const reader = await ZipReader.open(path, { maxMemberBytes: 4 * GiB, maxArchiveBytes: 8 * GiB });
  try {
    const entry = reader.entry('samples/1_epoch_1.json')!;
    assert.equal(entry.uncompressedSize, 3 * GiB);
    for (const read of [() => reader.read(entry), () => reader.readText(entry)])
      await assert.rejects(read(), {
        code: 'zip.too-large',
        message: /member samples\/1_epoch_1\.json expands to 3 GiB: .* above the ceiling of 2 GiB/,
      });
    // A member within the ceiling still reads.
    assert.equal(await reader.readText(reader.entry('header.json')!), '{"version": 2, "status": "success"}');
  } finally {
    await reader.close();
  }
  // Through convert, at the largest cap allowed: a failure of that file with its code, never a crash.
  const r = await cli([
    'convert',
    path,
    '-o',
    join(dir, 'c'),
    '--format',
    'json',
    '--zip-member-limit',
    '2047MiB',
  ]);
  assert.notEqual(r.code, 2, r.stderr);
  assert.doesNotMatch(r.stdout + r.stderr, /kMaxInt|FATAL/);
});
