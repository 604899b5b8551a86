import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cli } from './helpers/cli.js';

test('evalkit --help lists the commands and exits 0', async () => {
  const r = await cli(['--help']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /Usage: evalkit/);
  assert.match(r.stdout, /validate/);
});

test('an unknown command is a usage error (exit 2) without a stack trace', async () => {
  const r = await cli(['no-such-command']);
  assert.equal(r.code, 2);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});
