// SIGTERM and SIGINT stop `evalkit run` while its scorer is in a catastrophic regex: every answer takes the `pattern`
// scorer to its time bound, so an uninterrupted run would take a second a sample and finish (exit 1); the signal
// ends it as an interrupt instead, with no record written.
// test-runner: own process (it spawns the CLI and signals it).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliCommand } from '../helpers/cli.js';
import { startProviderServer } from '../helpers/provider-server.js';
import { projectRoot } from '../helpers/shared.js';
import { openaiRun, writeTask } from './helpers.js';

const SAMPLES = 60;

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal} stops a run whose scorer meets a catastrophic regex`, { timeout: 120_000 }, async () => {
    const server = await startProviderServer({ script: () => ({ text: 'a'.repeat(40000) + '!' }) });
    const dir = mkdtempSync(join(tmpdir(), 'evalkit-run-regex-signal-'));
    try {
      const task = writeTask(
        dir,
        'redos',
        'name: redos\ndataset: {path: redos.jsonl}\nscorers: [{pattern: {regex: "(a+)+$"}}]\n',
        Array.from({ length: SAMPLES }, (_, i) => ({ id: `s${i}`, input: `q${i}`, target: 'a' })),
      );
      const out = join(dir, 'out');
      const child = spawn(
        process.execPath,
        [...(await cliCommand()), ...openaiRun(task, server.openaiBaseUrl, out, ['--concurrency', '1'])],
        { cwd: projectRoot, env: { ...process.env, NO_COLOR: '1' }, stdio: 'ignore' },
      );
      const done = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
        child.on('close', (code, sig) => resolve({ code, signal: sig })),
      );
      let finished = false;
      void done.then(() => (finished = true));
      // The second request goes out once the first answer was scored (concurrency 1): scoring is under way.
      while (!finished && server.requests.length < 2) await new Promise((r) => setTimeout(r, 5));
      assert.equal(finished, false, 'the run ended before it was signalled');
      child.kill(signal);
      const end = await done;
      assert.ok(
        end.code !== 0 && end.code !== 1,
        `the run went on to the end (exit ${end.code}) instead of stopping at ${signal}`,
      );
      assert.ok(server.requests.length < SAMPLES, 'every sample was requested');
      assert.equal(existsSync(join(out, 'data')), false, 'an interrupted run writes no record');
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
