// Crash tests that kill a child at a test pause hook (src/io/test-pause.ts, docs/testing.md), not after a delay.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { PAUSE_BEFORE_RENAME } from '../../src/io/atomic.js';

/**
 * Runs `node ARGV` with the first file it writes whole waiting before its rename (src/io/atomic.ts and the writers
 * that share its hook), kills it with SIGKILL there, asserts that the kill is what ended it, and resolves to the
 * path of the temporary file left behind.
 */
export async function killBeforeFirstRename(argv: string[], cwd?: string): Promise<string> {
  const child = spawn(process.execPath, argv, {
    cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, [PAUSE_BEFORE_RENAME]: '1' },
  });
  const exited = new Promise<NodeJS.Signals | null>((r) => child.on('close', (_code, signal) => r(signal)));
  let stderr = '';
  const paused = await new Promise<string | undefined>((resolve) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const m = /evalkit:before-rename (.+)\n/.exec(stderr);
      if (m) resolve(m[1]);
    });
    child.on('close', () => resolve(undefined));
  });
  assert.ok(paused, `the child paused before a rename: ${stderr}`);
  child.kill('SIGKILL');
  assert.equal(await exited, 'SIGKILL', 'the kill landed before the run ended');
  return paused;
}
