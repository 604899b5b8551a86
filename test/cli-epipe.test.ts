// `evalkit validate … | head -1` must not print an EPIPE stack; the process ends quietly with
// the exit code the command would have had.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliCommand } from './helpers/cli.js';
import { projectRoot } from './helpers/shared.js';

const CLI = await cliCommand();

/** Runs the CLI and closes its stdout after the first chunk, as `| head -1` does. */
function runClosingStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...CLI, ...args], {
      cwd: projectRoot,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.stdout.once('data', () => child.stdout.destroy());
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stderr });
    });
  });
}

describe('a closed stdout (EPIPE)', () => {
  let dir = '';
  let many = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'evalkit-epipe-'));
    // 20,000 invalid rows: far more output than a pipe buffer holds, so writes go on after the reader left.
    const bad = (await readFile(join(projectRoot, 'test/fixtures/validate/bad.jsonl'), 'utf8')).split(
      '\n',
    )[1];
    many = join(dir, 'many.jsonl');
    await writeFile(many, `${Array.from({ length: 20_000 }, () => bad).join('\n')}\n`);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  for (const format of ['text', 'json']) {
    it(`validate --format ${format} ends quietly with its usual exit code`, async () => {
      const result = await runClosingStdout(['validate', '--format', format, many]);
      assert.doesNotMatch(result.stderr, /EPIPE|Unhandled|internal error|at /);
      assert.equal(result.code, 1); // the rows are invalid: the usual code, not a crash
    });
  }
});
