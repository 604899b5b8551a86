#!/usr/bin/env node
// Runs every test/**/*.test.ts (or those whose path contains one of the arguments): one Node process per file
// (node:test through tsx), several files at a time, the slowest known files first. With --lint, `npm run lint` runs
// as one more job beside the tests. Each file's output is printed in one piece when it ends; at the end come the
// failed files and the slowest ones.
//
//   node scripts/run-tests.mjs [--lint] [SUBSTRING ...]
//   TEST_CONCURRENCY=N      files at a time (default: the number of CPUs + 1, since many tests wait on I/O)
//   TEST_FILE_TIMEOUT_S=S   a file still running after S seconds is killed and fails (default 900)
//
// The run fails when any file (or the lint) fails, when a file is killed, and when no test ran at all.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';

const root = process.cwd();
/** tsx's loader by absolute URL: worker threads inherit the option, whatever their working directory. */
const TSX = import.meta.resolve('tsx');
/** Wall times of earlier runs, to start the slowest files first (.tmp/ is ignored by git). */
const TIMES_FILE = join(root, '.tmp', 'test-durations.json');

function findTests(dir) {
  const found = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (name.endsWith('.test.ts')) found.push(relative(root, path));
  }
  return found;
}

function readTimes() {
  try {
    return JSON.parse(readFileSync(TIMES_FILE, 'utf8'));
  } catch {
    return {};
  }
}

function writeTimes(times) {
  try {
    mkdirSync(join(TIMES_FILE, '..'), { recursive: true });
    writeFileSync(TIMES_FILE, `${JSON.stringify(times, null, 1)}\n`);
  } catch {
    // A read-only node_modules only costs the ordering of the next run.
  }
}

const args = process.argv.slice(2);
const lint = args.includes('--lint');
const filter = args.filter((a) => a !== '--lint');
const files = findTests('test').filter((f) => filter.length === 0 || filter.some((s) => f.includes(s)));
if (files.length === 0) {
  console.error('run-tests: no test files found');
  process.exit(1);
}

const concurrency = Math.max(1, Number(process.env.TEST_CONCURRENCY) || availableParallelism() + 1);
const timeoutMs = (Number(process.env.TEST_FILE_TIMEOUT_S) || 900) * 1000;
const known = readTimes();
// Longest first, so that no long file starts last. Files never timed go by size (the larger ones test more).
const order = (f) => known[f] ?? statSync(f).size / 1000;
const jobs = [...files]
  .sort((a, b) => order(b) - order(a))
  .map((file) => ({
    name: file,
    command: process.execPath,
    argv: ['--import', TSX, '--test-reporter=spec', file],
  }));
if (lint)
  jobs.unshift({ name: 'npm run lint', command: 'npm', argv: ['run', '--silent', 'lint'], lint: true });

const running = new Set();
const results = [];
let interrupted = false;

function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    interrupted = true;
    for (const child of running) killGroup(child, 'SIGKILL');
    process.exit(130);
  });
}

function runJob(job) {
  return new Promise((resolve) => {
    const started = performance.now();
    // Its own process group, so that a timeout also ends what the file started (servers, browsers, CLIs).
    const child = spawn(job.command, job.argv, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    running.add(child);
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child, 'SIGKILL');
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      const seconds = (performance.now() - started) / 1000;
      const output = Buffer.concat(chunks).toString('utf8');
      const count = (label) => Number(new RegExp(`^ℹ ${label} (\\d+)$`, 'm').exec(output)?.[1] ?? 0);
      const result = {
        name: job.name,
        lint: job.lint === true,
        seconds,
        ok: code === 0 && !timedOut,
        why: timedOut ? `killed after ${timeoutMs / 1000} s` : code === 0 ? '' : `exit ${code ?? signal}`,
        tests: count('tests'),
        pass: count('pass'),
        fail: count('fail'),
        skipped: count('skipped'),
      };
      if (!job.lint && result.ok && result.fail > 0) {
        result.ok = false;
        result.why = `${result.fail} failed`;
      }
      results.push(result);
      if (!interrupted) {
        const mark = result.ok ? '✔' : '✖';
        process.stdout.write(
          `\n${mark} ${job.name} (${seconds.toFixed(1)} s)${result.why ? ` — ${result.why}` : ''}\n`,
        );
        process.stdout.write(output.endsWith('\n') || output === '' ? output : `${output}\n`);
      }
      resolve();
    });
  });
}

const started = performance.now();
const queue = [...jobs];
await Promise.all(
  Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
    while (queue.length > 0) await runJob(queue.shift());
  }),
);
const wall = (performance.now() - started) / 1000;

const fileResults = results.filter((r) => !r.lint);
const times = Object.fromEntries(
  Object.entries(readTimes()).filter(([name]) => findTests('test').includes(name)),
);
for (const r of fileResults) times[r.name] = Math.round(r.seconds * 10) / 10;
writeTimes(times);

const sum = (key) => fileResults.reduce((n, r) => n + r[key], 0);
const failed = results.filter((r) => !r.ok);
console.log('\nrun-tests: slowest files');
for (const r of [...fileResults].sort((a, b) => b.seconds - a.seconds).slice(0, 10)) {
  console.log(`  ${r.seconds.toFixed(1).padStart(6)} s  ${r.name}`);
}
const lintResult = results.find((r) => r.lint);
if (lintResult) console.log(`  ${lintResult.seconds.toFixed(1).padStart(6)} s  (${lintResult.name})`);
console.log(
  `run-tests: ${fileResults.length} files, ${sum('tests')} tests, ${sum('pass')} passed, ${sum('fail')} failed, ` +
    `${sum('skipped')} skipped; ${wall.toFixed(1)} s with ${concurrency} at a time`,
);
if (failed.length > 0) {
  console.error(`run-tests: failed: ${failed.map((r) => `${r.name} (${r.why})`).join(', ')}`);
  process.exit(1);
}
if (sum('tests') === 0 || sum('pass') === 0) {
  console.error('run-tests: no test ran — failing the run');
  process.exit(1);
}
