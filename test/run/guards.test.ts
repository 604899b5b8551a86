// evaluate and sweep guard their outputs and inputs: a lock beside the output, outputs never onto inputs, special
// files refused as inputs, and every output checked before the first request is paid for. The CLI in process against
// a real local HTTP server; where a lock is held by another process, that process is a real child.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cli, runCli, type CliResult } from '../helpers/cli.js';
import {
  hashedVerdicts,
  startProviderServer,
  evaluateAgainst,
  providerArgs,
  type ProviderServer,
} from '../helpers/provider-server.js';
import { projectRoot } from '../helpers/shared.js';

const bench = join(projectRoot, 'examples/run/birds.benchmark.json');
const fixture = join(projectRoot, 'examples/run/birds.fixture.jsonl');
let server: ProviderServer;
let dir: string;
before(async () => {
  server = await startProviderServer({ script: hashedVerdicts });
  dir = mkdtempSync(join(tmpdir(), 'evalkit-run-guards-'));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const evaluateArgs = (...extra: string[]) => [
  ...evaluateAgainst(server, bench),
  '--n-samples',
  '2',
  '--retry-base-ms',
  '1',
  ...extra,
];
const env = { OPENAI_API_KEY: 'test-key' };

function assertRefused(r: CliResult, code: string, text?: RegExp): void {
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, new RegExp(`error ${code.replace('.', '\\.')}:`));
  if (text) assert.match(r.stderr, text);
  assert.doesNotMatch(r.stderr, /internal error|\bat .*\.([cm]?js|ts):\d+/);
}

test('a second evaluate with the same -o is refused while the first runs; no request is sent twice', async () => {
  server.requests.length = 0;
  server.hold(); // the first request waits until the second run has been refused
  const out = join(dir, 'locked.eta.json');
  const first = runCli(evaluateArgs('-o', out, '--concurrency', '1'), { env }); // another process holds the lock
  while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 20));
  const second = await cli(evaluateArgs('-o', out, '--concurrency', '1'), { env });
  server.release();
  assertRefused(second, 'io.locked', /locked\.eta\.json is in use by process \d+ on \S+, started \d{4}-/);
  const done = await first;
  // Every request is answered: the run that held the lock finishes cleanly.
  assert.equal(done.code, 0, done.stderr);
  const eta = JSON.parse(readFileSync(out, 'utf8'));
  assert.equal(eta.items.length, 6);
  // 6 items × 2 samples, each sent exactly once
  const ids = server.requests.map((r) => r.sampleId);
  assert.equal(ids.length, 12);
  assert.equal(new Set(ids).size, 12);
  assert.equal(existsSync(`${out}.lock`), false, 'the lock is released at the end');
});

test('a lock left by a process that is gone is taken over', async () => {
  const out = join(dir, 'stale.eta.json');
  const dead = Number(execFileSync('sh', ['-c', 'echo $$']));
  const host = hostname();
  writeFileSync(
    `${out}.lock`,
    JSON.stringify({ pid: dead, host, started_at: '2020-01-01T00:00:00Z', purpose: 'evaluate' }),
  );
  const r = await cli(evaluateArgs('-o', out), { env });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(existsSync(out));
  assert.equal(existsSync(`${out}.lock`), false);
});

test('an output that is an input is refused before anything is sent, and the input is untouched', async () => {
  server.requests.length = 0;
  const copy = join(dir, 'B.json');
  writeFileSync(copy, readFileSync(bench));
  const before_ = readFileSync(copy);
  const cases = [
    [...evaluateAgainst(server, copy), '-o', copy],
    [...evaluateAgainst(server, copy), '-o', join(dir, 'x.json'), '--log', copy],
    [
      'evaluate',
      bench,
      '--provider',
      'replay',
      '--model',
      'demo-model',
      '--replay-from',
      fixture,
      '--record',
      fixture,
      '-o',
      join(dir, 'y.json'),
    ],
  ];
  for (const args of cases) {
    const r = await cli(args, { env });
    assertRefused(r, 'io.output-is-input', /the output .* is the input /);
  }
  assert.deepEqual(readFileSync(copy), before_);
  assert.equal(server.requests.length, 0);
});

test('bad output paths are usage/I-O errors before the first request (no EISDIR, EEXIST or ENOTDIR after paying)', async () => {
  server.requests.length = 0;
  const aDir = join(dir, 'a-folder');
  mkdirSync(aDir, { recursive: true });
  const aFile = join(dir, 'a-file');
  writeFileSync(aFile, 'x');
  const eta = join(dir, 'never.eta.json');
  assertRefused(
    await cli(evaluateArgs('-o', eta, '--log', aDir), { env }),
    'io.is-directory',
    /a-folder: it is a directory/,
  );
  assertRefused(await cli(evaluateArgs('-o', eta, '--record', aDir), { env }), 'io.is-directory');
  assertRefused(
    await cli(evaluateArgs('-o', join(aFile, 'eta.json')), { env }),
    'io.parent-not-directory',
    /a-file is a file, not a folder/,
  );
  assertRefused(
    await cli(evaluateArgs('-o', eta, '--eee-out', aFile), { env }),
    'io.not-directory',
    /a-file: it is a regular file, not a folder/,
  );
  assert.equal(server.requests.length, 0, 'nothing was paid for');
  assert.equal(existsSync(eta), false);
});

test('a FIFO or a device as --replay-from is refused at once, saying what it is', async () => {
  const fifo = join(dir, 'fixture.fifo');
  execFileSync('mkfifo', [fifo]);
  const args = (from: string) => [
    'evaluate',
    bench,
    '--provider',
    'replay',
    '--model',
    'demo-model',
    '--replay-from',
    from,
    '-o',
    join(dir, 'r.json'),
  ];
  assertRefused(await cli(args(fifo), { timeoutMs: 20_000 }), 'io.not-regular', /is a named pipe \(FIFO\)/);
  assertRefused(
    await cli(args('/dev/zero'), { timeoutMs: 20_000 }),
    'io.not-regular',
    /is a character device/,
  );
});

test('sweep and evaluate refuse values that would exhaust memory or that no provider accepts', async () => {
  const sweep = (...a: string[]) =>
    cli([
      'sweep',
      bench,
      '--provider',
      'replay',
      '--model',
      'demo-model',
      '--replay-from',
      fixture,
      '-o',
      join(dir, 'sw'),
      ...a,
    ]);
  assertRefused(await sweep('--vary', 'n_samples', '--values', '1e9'), 'sweep.bad-value', /in \[1, 1000\]/);
  assertRefused(
    await sweep('--vary', 'temperature', '--values', '0.5,1e9'),
    'sweep.bad-value',
    /in \[0, 2\]/,
  );
  assertRefused(
    await sweep('--vary', 'paraphrase_variant', '--values', '0,7'),
    'sweep.bad-value',
    /variants 0\.\.1/,
  );
  const r = await cli(evaluateArgs('-o', join(dir, 'big.json'), '--n-samples', '1000000000'), { env });
  assertRefused(r, 'usage.bad-option', /--n-samples expects an integer in \[1, 1000\]/);
});

test('two sweeps into one folder: the second is refused', async () => {
  server.requests.length = 0;
  server.hold();
  const outDir = join(dir, 'sweep-locked');
  const args = [
    'sweep',
    bench,
    ...providerArgs(server),
    '--vary',
    'n_samples',
    '--values',
    '1,2',
    '--concurrency',
    '1',
    '-o',
    outDir,
  ];
  const first = runCli(args, { env }); // another process holds the lock
  while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 20));
  const second = await cli(args, { env });
  server.release();
  assertRefused(second, 'io.locked', /in use by process \d+/);
  const done = await first;
  // Every request is answered: the run that held the lock finishes cleanly.
  assert.equal(done.code, 0, done.stderr);
  assert.ok(existsSync(join(outDir, 'sweep-summary.json')));
});
