// The CLI run from a working directory outside the project (as a user runs it on their own files).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from './helpers/cli.js';

test('validate resolves relative paths against the working directory, wherever it is', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'evalkit-cwd-'));
  try {
    writeFileSync(join(dir, 'not-json.json'), '{"a": 1,}');
    const r = await cli(['validate', 'not-json.json', '--format', 'json'], { cwd: dir });
    assert.equal(r.code, 1, r.stderr);
    const out = JSON.parse(r.stdout) as {
      files: { path: string; diagnostics: { code: string; line: number }[] }[];
    };
    assert.equal(out.files[0].path, 'not-json.json');
    assert.equal(out.files[0].diagnostics[0].code, 'json.syntax');
    assert.equal(out.files[0].diagnostics[0].line, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
