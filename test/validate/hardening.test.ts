// validate and paths: nothing found is said (and --fail-on-empty fails), detect.unknown-type is said once per
// file with its row count, --exclude, per-file types in --format json; `paths` fails on an unreadable folder and
// has --problems-only.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cli, cliCommand } from '../helpers/cli.js';
import { projectRoot } from '../helpers/shared.js';

let dir = '';
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'evalkit-validate-hardening-'));
  chmodSync(dir, 0o755);
});
after(() => rmSync(dir, { recursive: true, force: true }));
const fixture = (name: string) => join(projectRoot, 'test/fixtures/validate', name);

describe('validate', () => {
  it('says that nothing was found in an empty folder; --fail-on-empty exits 2', async () => {
    const empty = join(dir, 'empty');
    mkdirSync(join(empty, 'sub'), { recursive: true });
    writeFileSync(join(empty, 'sub', 'notes.txt'), 'not data');
    const r = await cli(['validate', empty]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /nothing to validate: no \.json, \.jsonl or \.ndjson file was found/);
    assert.doesNotMatch(r.stdout, /all valid/);
    const strict = await cli(['validate', empty, '--fail-on-empty']);
    assert.equal(strict.code, 2);
    assert.match(strict.stderr, /error validate\.nothing-found/);
  });

  it('says detect.unknown-type once per file, with the number of rows it applies to', async () => {
    const rows = join(dir, 'unknown.jsonl');
    writeFileSync(rows, Array.from({ length: 480 }, (_, i) => `{"row": ${i}}`).join('\n') + '\n');
    const r = await cli(['validate', rows]);
    assert.equal(r.code, 1);
    const lines = r.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 2, 'one diagnostic and the summary');
    assert.match(
      lines[0],
      /unknown\.jsonl:1:1 error detect\.unknown-type .*\[the same for 479 more rows of this file; said once\]/,
    );
    // the counts stay exact
    assert.match(lines[1], /480 documents: 0 valid, 480 invalid \(480 errors/);
  });

  it('--exclude leaves out matching files at any depth', async () => {
    const tree = join(dir, 'tree');
    mkdirSync(join(tree, 'old'), { recursive: true });
    copyFileSync(fixture('good.jsonl'), join(tree, 'good.jsonl'));
    copyFileSync(fixture('bad.jsonl'), join(tree, 'old', 'bad.jsonl'));
    copyFileSync(fixture('bad.jsonl'), join(tree, 'draft.bak.jsonl'));
    assert.equal((await cli(['validate', tree])).code, 1);
    const r = await cli(['validate', tree, '--exclude', 'old/**', '--exclude', '*.bak.jsonl']);
    assert.equal(r.code, 0, r.stdout);
    assert.match(r.stdout, /1 file, 3 documents: all valid/);
  });

  it('--format json gives each file its detected types and versions', async () => {
    const r = await cli(['validate', '--format', 'json', fixture('good.jsonl'), join(dir, 'unknown.jsonl')]);
    const files = JSON.parse(r.stdout).files;
    assert.deepEqual(files[0].types, [{ type: 'eee.instance', schema_version: '0.3.0', documents: 3 }]);
    assert.deepEqual(files[1].types, [{ type: null, schema_version: null, documents: 480 }]);
  });
});

describe('paths', () => {
  it('exits 2 and names a folder it cannot read', async () => {
    const root = join(dir, 'repo');
    mkdirSync(join(root, 'outputs', 'b'), { recursive: true });
    mkdirSync(join(root, 'private'));
    writeFileSync(join(root, 'outputs', 'b', 'run.json'), '{}');
    chmodSync(join(root, 'private'), 0);
    // root reads every folder: run the CLI as an unprivileged user then
    const asRoot = process.getuid?.() === 0;
    const r = spawnSync(process.execPath, [...(await cliCommand()), 'paths', root], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
      ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
    });
    chmodSync(join(root, 'private'), 0o755);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /cannot read folder .*private: permission denied/);
    assert.match(r.stdout, /1 folder\(s\) could not be read/);
  });

  it('--problems-only lists only deprecated files', async () => {
    const root = join(dir, 'repo2');
    mkdirSync(join(root, 'outputs', 'b'), { recursive: true });
    writeFileSync(join(root, 'outputs', 'b', 'run.json'), '{}');
    copyFileSync(join(projectRoot, 'examples/bench-output/legacy/results.json'), join(root, 'results.json'));
    const r = await cli(['paths', root, '--problems-only']);
    assert.equal(r.code, 1);
    const lines = r.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 2);
    assert.match(lines[0], /^deprecated +results\.json/);
    assert.match(lines[1], /2 JSON file\(s\): 1 allowed, 1 deprecated/);
  });
});
