// `evalkit view PATH...` serves a temporary store; the process is the point here, so these tests run the real CLI
// in a child process and signal it: SIGTERM, SIGINT and SIGHUP each stop it cleanly and remove the temporary store,
// and what a kill -9 leaves is swept by the next run.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cliCommand } from '../helpers/cli.js';

/** The CLI from the tests' shared build (a start costs 0.3 s of CPU, not the 2.4 s of tsx). */
let CLI: string[] = [];
before(async () => {
  CLI = await cliCommand();
});
import { projectRoot } from '../helpers/shared.js';

const TSX = import.meta.resolve('tsx');
/** An EEE record of the project's own examples: the signals are the point here, not the data. */
const RECORD = join(
  projectRoot,
  'examples/eee/data/demo-bench/acme/tiny-model-1b/7c2f4e1a-93b5-4d6e-8a0f-2b1c3d4e5f60.json',
);

/** Starts `evalkit view RECORD` and resolves once it serves, with the temporary store's folder. */
function startView(): Promise<{
  child: ChildProcessWithoutNullStreams;
  folder: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}> {
  const child = spawn(process.execPath, [...CLI, 'view', RECORD, '--port', '0', '--no-open'], {
    cwd: projectRoot,
    env: { ...process.env, NO_COLOR: '1', DISPLAY: '', WAYLAND_DISPLAY: '' },
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    child.stdout.on('data', (c) => {
      out += c;
      const serving = /serving (.*) read-only/.exec(out);
      if (serving) resolve({ child, folder: dirname(serving[1]!), exited });
    });
    child.on('close', (code) => reject(new Error(`view exited ${code}: ${err}`)));
  });
}

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  test(`view PATH removes its temporary store on ${signal}`, { timeout: 120_000 }, async () => {
    const { child, folder, exited } = await startView();
    assert.match(folder, /evalkit-view-store-\d+-/);
    assert.ok(existsSync(join(folder, 'view.duckdb')), 'the temporary store exists while serving');
    child.kill(signal);
    assert.deepEqual(await exited, { code: 0, signal: null }, 'a clean stop');
    assert.ok(!existsSync(folder), `${folder} removed on ${signal}`);
  });
}

test('what a kill -9 of view PATH leaves is swept by the next view PATH', { timeout: 120_000 }, async () => {
  const first = await startView();
  first.child.kill('SIGKILL');
  await first.exited;
  assert.ok(existsSync(first.folder), 'kill -9 cannot clean up');
  const second = await startView();
  try {
    assert.ok(!existsSync(first.folder), 'the leftover of the killed run is swept');
  } finally {
    second.child.kill('SIGTERM');
    await second.exited;
  }
  assert.ok(!existsSync(second.folder));
});

test(
  'a temporary folder is removed on each signal when nothing else handles it (the ingest phase)',
  { timeout: 60_000 },
  async () => {
    const { mkdtemp } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
      const folder = await mkdtemp(join(tmpdir(), 'evalkit-remove-on-exit-'));
      const module = join(projectRoot, 'src/io/remove-on-exit.ts');
      const child = spawn(
        process.execPath,
        [
          '--import',
          TSX,
          '-e',
          `import(${JSON.stringify(module)}).then((m) => { m.removeOnExit(${JSON.stringify(folder)}); console.log('ready'); setInterval(() => {}, 1000); })`,
        ],
        { cwd: projectRoot },
      );
      const ended = new Promise<NodeJS.Signals | null>((resolve) =>
        child.on('close', (_code, s) => resolve(s)),
      );
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      child.kill(signal);
      assert.equal(await ended, signal, `the process still ends by ${signal}`);
      assert.ok(!existsSync(folder), `removed on ${signal}`);
    }
  },
);
