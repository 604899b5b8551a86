// The in-process CLI the tests use (test/helpers/cli.ts): the bundle built for it prints what the sources print,
// starts its worker threads, and a call leaves the process as it found it (working directory, exit code).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, cliFromSource } from './helpers/cli.js';

test('the built in-process CLI prints what the CLI from source prints, with a worker too', async () => {
  const cases = [
    ['--help'],
    [
      'validate',
      'examples/eee',
      'examples/infereval',
      '--format',
      'json',
      '--max-errors',
      '0',
      '--jobs',
      '2',
    ],
    ['no-such-command'],
  ];
  for (const args of cases) {
    const [built, source] = [await cli(args), await cliFromSource(args)];
    assert.equal(built.code, source.code, args.join(' '));
    assert.equal(built.stdout, source.stdout, args.join(' '));
    assert.equal(built.stderr, source.stderr, args.join(' '));
  }
});

test('a call runs in its working directory and gives the process its own back', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'evalkit-inprocess-'));
  try {
    writeFileSync(join(dir, 'broken.json'), '{"a": 1,}');
    const home = process.cwd();
    const r = await cli(['validate', 'broken.json'], { cwd: dir });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^broken\.json:1:\d+ error json\.syntax /m);
    assert.equal(process.cwd(), home);
    assert.equal(process.exitCode, undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
