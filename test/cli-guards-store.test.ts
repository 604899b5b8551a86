// The new commands stand on the shared output guard (io/preflight checkOutputs): convert, ingest, export parquet and
// view --export refuse an output that is one of their inputs before doing any work, with the one error code.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cli } from './helpers/cli.js';
import { projectRoot } from './helpers/shared.js';

let dir = '';
let db = '';
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'evalkit-store-guards-'));
  db = join(dir, 'store.duckdb');
  const r = await cli(['ingest', join(projectRoot, 'examples/eee/data'), '--db', db]);
  assert.equal(r.code, 0, r.stderr);
});
after(() => rmSync(dir, { recursive: true, force: true }));

const refused = (r: { code: number | null; stderr: string }): void => {
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /io\.output-is-input/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
};

test('ingest refuses a store that is also an input, and leaves it as it was', async () => {
  const before = readFileSync(db);
  refused(await cli(['ingest', db, '--db', db]));
  assert.ok(readFileSync(db).equals(before));
});

test('export parquet and view --export refuse to write over the store they read', async () => {
  refused(await cli(['export', 'parquet', db, '--db', db]));
  refused(await cli(['view', '--db', db, '--export', db]));
});

test('convert refuses a datastore root that is one of its inputs (not with --dry-run, which writes nothing)', async () => {
  const input = join(projectRoot, 'examples/convert');
  refused(await cli(['convert', input, '-o', input]));
  const dry = await cli(['convert', input, '-o', input, '--dry-run']);
  assert.notEqual(dry.code, 2, dry.stderr);
});

test('convert refuses a named pipe as input instead of waiting on it (the shared regular-file guard)', async () => {
  const fifo = join(dir, 'results.json');
  execFileSync('mkfifo', [fifo]);
  // Waiting on the pipe runs into the call's time limit, which fails the test.
  const r = await cli(['convert', fifo, '--from', 'lm-eval', '-o', join(dir, 'out')], { timeoutMs: 30_000 });
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /named pipe/);
});
