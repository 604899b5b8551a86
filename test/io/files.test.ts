import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { expandPaths, globToRegExp } from '../../src/io/files.js';

describe('globToRegExp', () => {
  it('has globstar semantics: ** matches zero or more directories', () => {
    const re = globToRegExp('outputs/**/*.json');
    assert.ok(re.test('outputs/a.json'));
    assert.ok(re.test('outputs/x/y/a.json'));
    assert.ok(!re.test('outputs/a.jsonl'));
    assert.ok(globToRegExp('**/output.json').test('output.json'));
    assert.ok(globToRegExp('benchmarks/**/results/**/*.json').test('benchmarks/x/results/a.json'));
    assert.ok(globToRegExp('*.{json,jsonl}').test('a.jsonl'));
    assert.ok(!globToRegExp('*.json').test('d/a.json'));
    assert.ok(globToRegExp('file[0-9].json').test('file7.json'));
  });
});

describe('expandPaths', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'evalkit-files-'));
    for (const f of [
      'a.json',
      'b/c.jsonl',
      'b/d/e.json',
      'b/notes.txt',
      'node_modules/x.json',
      '.git/y.json',
    ]) {
      await mkdir(join(dir, f, '..'), { recursive: true });
      await writeFile(join(dir, f), '{}');
    }
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('walks directories for data files, skipping .git and node_modules, sorted', async () => {
    assert.deepEqual(await expandPaths(['.'], dir), ['a.json', 'b/c.jsonl', 'b/d/e.json']);
  });

  it('expands globs and keeps "-" and plain files, without duplicates', async () => {
    assert.deepEqual(await expandPaths(['b/**/*.json', '-', 'a.json', 'b/d/e.json'], dir), [
      'b/d/e.json',
      '-',
      'a.json',
    ]);
    assert.deepEqual(await expandPaths(['**/*.jsonl'], dir), ['b/c.jsonl']);
  });

  it('fails with an I/O error for a missing file or a glob that matches nothing', async () => {
    await assert.rejects(expandPaths(['nope.json'], dir), { code: 'io.not-found' });
    await assert.rejects(expandPaths(['*.yaml'], dir), { code: 'io.not-found' });
  });
});
