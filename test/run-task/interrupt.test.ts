// `evalkit run` stopped by Ctrl-C (SIGINT) or SIGTERM says how far it got and how to go on, with the shell's exit
// code for the signal (130, 143); after kill -9 the next run takes the stale lock over with a one-line note (issue 39
// item 9). The CLI is a real process; the signal is sent once the journal shows progress and the server holds the
// rest of the requests (a condition, not a time).
// test-runner: own process (it spawns the CLI and signals it).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cliCommand } from '../helpers/cli.js';
import { startProviderServer, type ProviderServer } from '../helpers/provider-server.js';
import { projectRoot } from '../helpers/shared.js';
import { openaiRun, requestKey, writeTask } from './helpers.js';

let server: ProviderServer;
let dir: string;
before(async () => {
  server = await startProviderServer();
  dir = mkdtempSync(join(tmpdir(), 'evalkit-run-interrupt-'));
});
after(async () => {
  server.release();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The journal's call lines. */
function journaled(path: string): number {
  if (!existsSync(path)) return 0;
  const text = readFileSync(path, 'utf8');
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((l) => l.includes('"type":"sample"')).length;
}

/** Resolves once `condition` holds (checked every few milliseconds: the wait ends on the condition, not on a time). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 5));
}

function start(args: string[]) {
  let stderr = '';
  return cliCommand().then((command) => {
    const child = spawn(process.execPath, [...command, ...args], {
      cwd: projectRoot,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr!.on('data', (c) => (stderr += String(c)));
    const done = new Promise<{ code: number | null; signal: string | null; stderr: string }>((resolve) =>
      child.on('close', (code, signal) => resolve({ code, signal, stderr })),
    );
    return { child, done };
  });
}

/** A task of `samples` samples (with a judge when asked); the server holds every request after the first `answered`. */
function setUp(name: string, samples: number, judged: boolean, answered: number) {
  const task = writeTask(
    join(dir, name),
    name,
    [
      `name: ${name}`,
      `dataset: {path: ${name}.jsonl}`,
      'epochs: 2',
      'scorers:',
      '  - includes',
      ...(judged ? ['  - {model_graded: {grades: {C: 1, I: 0}}}'] : []),
      '',
    ].join('\n'),
    Array.from({ length: samples }, (_, i) => ({ id: `s${i}`, input: `question ${i}`, target: 'yes' })),
  );
  let count = 0;
  server.release();
  server.setScript((ctx) => {
    if (++count === answered) server.hold();
    return { text: ctx.body.model === 'judge' ? 'GRADE: C' : requestKey(ctx.sampleId).sample };
  });
  const out = join(dir, `${name}-out`);
  const args = openaiRun(
    task,
    server.openaiBaseUrl,
    out,
    ['--concurrency', '2', ...(judged ? ['--judge-model', 'judge'] : [])],
    ['acme/m'],
  );
  return { args, journal: join(`${out}.journal`, name, 'openai--acme_m.jsonl') };
}

for (const [signal, code, judged, total] of [
  ['SIGINT', 130, false, 20 * 2],
  ['SIGTERM', 143, true, 20 * 2 * 2],
] as const)
  test(`${signal}: "interrupted: N of ${total} calls journaled; rerun the same command to resume", exit ${code}; the rerun finishes`, async () => {
    const name = `sig-${signal.toLowerCase()}`;
    const { args, journal } = setUp(name, 20, judged, 8);
    const run = await start(args);
    // Some calls journaled, the rest held by the server: the run is mid-way.
    await until(() => journaled(journal) >= 4);
    run.child.kill(signal);
    const ended = await run.done;
    assert.equal(ended.code, code, ended.stderr);
    const n = journaled(journal);
    assert.ok(n >= 4 && n < total, `journaled ${n}`);
    assert.equal(
      ended.stderr.trim().split('\n').at(-1),
      `evalkit: interrupted: ${n} of ${total} calls journaled; rerun the same command to resume`,
    );
    server.release();
    server.setScript((ctx) => ({ text: ctx.body.model === 'judge' ? 'GRADE: C' : 'yes' }));
    const again = await (await start(args)).done;
    assert.equal(again.code, 0, again.stderr);
    assert.equal(journaled(journal), total);
  });

test('after kill -9 the next run takes the stale lock over with a one-line note', async () => {
  const { args, journal } = setUp('sig-kill', 10, false, 4);
  const run = await start(args);
  await until(() => journaled(journal) >= 2);
  run.child.kill('SIGKILL');
  assert.equal((await run.done).signal, 'SIGKILL');
  assert.ok(existsSync(`${journal}.lock`), 'kill -9 leaves the lock');
  server.release();
  server.setScript(() => ({ text: 'yes' }));
  const again = await (await start(args)).done;
  assert.equal(again.code, 0, again.stderr);
  const notes = again.stderr.split('\n').filter((l) => /lock/.test(l));
  assert.equal(notes.length, 1, again.stderr);
  assert.match(
    notes[0],
    new RegExp(
      `^evalkit: note: taking over .*openai--acme_m\\.jsonl\\.lock: its process ${run.child.pid} \\(started .*\\) is gone$`,
    ),
  );
  assert.equal(existsSync(`${journal}.lock`), false);
  // A run whose lock is its own (no stale one) says nothing about locks.
  const third = await (await start(args)).done;
  assert.doesNotMatch(third.stderr, /lock/);
});

test('evaluate, interrupted the same way, says how far it got (30 calls: 6 items × 5 samples); after kill -9 its lock is taken over with a note', async () => {
  let count = 0;
  server.release();
  server.setScript(() => {
    if (++count === 6) server.hold();
    return { text: 'GOOD' };
  });
  const eta = join(dir, 'birds.eta.json');
  const journal = `${eta}.journal.jsonl`;
  const args = [
    'evaluate',
    join(projectRoot, 'examples/run/birds.benchmark.json'),
    '--provider',
    'openai',
    '--model',
    'acme/m',
    '--base-url',
    server.openaiBaseUrl,
    '--concurrency',
    '2',
    '-o',
    eta,
  ];
  const run = await start(args);
  await until(() => journaled(journal) >= 3);
  run.child.kill('SIGINT');
  const ended = await run.done;
  assert.equal(ended.code, 130, ended.stderr);
  const n = journaled(journal);
  assert.equal(
    ended.stderr.trim().split('\n').at(-1),
    `evalkit: interrupted: ${n} of 30 calls journaled; rerun the same command to resume`,
  );
  // kill -9 leaves the lock beside the η; the next run takes it over with a note, and finishes.
  let more = 0;
  server.release();
  server.setScript(() => {
    if (++more === 4) server.hold();
    return { text: 'GOOD' };
  });
  const killed = await start(args);
  await until(() => journaled(journal) > n);
  killed.child.kill('SIGKILL');
  await killed.done;
  assert.ok(existsSync(`${eta}.lock`));
  server.release();
  const again = await (await start(args)).done;
  assert.equal(again.code, 0, again.stderr);
  const notes = again.stderr.split('\n').filter((l) => /lock/.test(l));
  assert.equal(notes.length, 1, again.stderr);
  assert.match(
    notes[0],
    new RegExp(
      `^evalkit: note: taking over .*birds\\.eta\\.json\\.lock: its process ${killed.child.pid} \\(started .*\\) is gone$`,
    ),
  );
});
