// A folder with nothing convertible is a usage error (exit 2 with a message), for convert and ingest alike; a
// folder with something to do still exits 0.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../checks/cli-inproc.js';
import { tempRoot } from './helpers.js';
import { writeFixture } from './lm-eval-fixture.js';

test('convert of an empty folder, or one with nothing recognised, exits 2 and says so', async () => {
  const base = tempRoot();
  const empty = join(base, 'empty');
  mkdirSync(empty);
  const r = await cli(['convert', empty, '-o', join(base, 'out')]);
  assert.equal(r.code, 2, r.stdout);
  assert.match(r.stderr, /usage\.nothing-to-convert: no known tool output found in .*empty/);
  const notes = join(base, 'notes');
  mkdirSync(notes);
  writeFileSync(join(notes, 'readme.md'), 'hello\n');
  const j = await cli(['convert', notes, '-o', join(base, 'out'), '--format', 'json']);
  assert.equal(j.code, 2);
  assert.equal(JSON.parse(j.stdout).skipped.length, 1);
  assert.match(j.stderr, /1 file\(s\) skipped/);
  const dry = await cli(['convert', empty, '-o', join(base, 'out'), '--dry-run']);
  assert.equal(dry.code, 2);
  assert.equal(existsSync(join(base, 'out', 'data')), false);
});

test('ingest of an empty folder exits 2 and says so; a real run still exits 0', async () => {
  const base = tempRoot();
  mkdirSync(join(base, 'empty'));
  const db = join(base, 'store.duckdb');
  const r = await cli(['ingest', join(base, 'empty'), '--db', db]);
  assert.equal(r.code, 2, r.stdout);
  assert.match(r.stderr, /usage\.nothing-to-ingest/);
  writeFixture(join(base, 'run'));
  const ok = await cli(['ingest', join(base, 'run'), '--db', db]);
  assert.equal(ok.code, 0, ok.stdout + ok.stderr);
  const again = await cli(['ingest', join(base, 'run'), '--db', db]);
  assert.equal(again.code, 0, 'already stored is not "nothing found"');
});
