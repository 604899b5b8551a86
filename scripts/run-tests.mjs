#!/usr/bin/env node
// Runs every test/**/*.test.ts (or those whose path contains one of the arguments) with node:test through tsx,
// several jobs at a time, the slowest known first. Most files share a process: they are packed into a few batches
// (scripts/test-batch.mjs runs a batch's files one after another, each in a suite named after its path), which
// saves each file the start of a Node process, tsx and the modules every test loads. A file whose first lines say
// `test-runner: own process` runs alone in its own process (it measures its memory, or it is long enough to be a
// job of its own). With --lint, `npm run lint` runs as one more job. Each job's output is printed in one piece when
// it ends; at the end come the failed files, the slowest ones, and every skipped test or check with its reason
// (a test skips when what it needs is absent: the reference data in ../shared, chromium, a pty).
//
//   node scripts/run-tests.mjs [--lint] [--save-durations] [SUBSTRING ...]
//   --save-durations        also write this run's file times to scripts/test-durations.json (committed: the order
//                           of a fresh clone's first run)
//   TEST_CONCURRENCY=N      jobs at a time (default: the number of CPUs + 1, since many tests wait on I/O)
//   TEST_BATCHES=N          batches the shared-process files are packed into (default: twice the concurrency)
//   TEST_FILE_TIMEOUT_S=S   a job still running after S seconds is killed and fails (default 900)
//
// The run fails when any file (or the lint) fails, when a job is killed, and when no test ran at all.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';

const root = process.cwd();
/** tsx's loader by absolute URL: worker threads inherit the option, whatever their working directory. */
const TSX = import.meta.resolve('tsx');
/** Wall times of earlier runs, to start the slowest files first (.tmp/ is ignored by git). */
const TIMES_FILE = join(root, '.tmp', 'test-durations.json');
/**
 * The same, as committed: what a fresh clone (no .tmp/ yet) orders by. Without it the order fell back on file
 * sizes, which put the long files that run alone after the batches, so a run ended with one of them running
 * alone for minutes while the other cores idled. Refresh it with `--save-durations` after a full run.
 */
const KNOWN_TIMES_FILE = join(root, 'scripts', 'test-durations.json');

function findTests(dir) {
  const found = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (name.endsWith('.test.ts')) found.push(relative(root, path));
  }
  return found;
}

function readTimes(file = TIMES_FILE) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
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
const saveDurations = args.includes('--save-durations');
const filter = args.filter((a) => a !== '--lint' && a !== '--save-durations');
const files = findTests('test').filter((f) => filter.length === 0 || filter.some((s) => f.includes(s)));
if (files.length === 0) {
  console.error('run-tests: no test files found');
  process.exit(1);
}

const concurrency = Math.max(1, Number(process.env.TEST_CONCURRENCY) || availableParallelism() + 1);
const batchCount = Math.max(1, Number(process.env.TEST_BATCHES) || 2 * concurrency);
const timeoutMs = (Number(process.env.TEST_FILE_TIMEOUT_S) || 900) * 1000;
const known = { ...readTimes(KNOWN_TIMES_FILE), ...readTimes() };
/** Whether the file asks for a process of its own, in its first lines. */
const ownProcess = (f) => /test-runner: own process/.test(readFileSync(f, 'utf8').slice(0, 2000));
const longest = Math.max(0, ...Object.values(known).filter((v) => typeof v === 'number'));
// Estimated seconds: the last run's (or the committed ones), else a file of its own process is taken to be as
// long as the longest known (it says it is long), and a shared one by its size (the larger files test more).
const cost = (f) => known[f] ?? (ownProcess(f) ? Math.max(longest, 60) : statSync(f).size / 1000);

const alone = [];
const shared = [];
for (const f of files) (ownProcess(f) ? alone : shared).push(f);
shared.sort((a, b) => cost(b) - cost(a));
// Longest first into the batch with the least so far, so that the batches end close together.
const batches = Array.from({ length: Math.min(batchCount, shared.length) }, () => ({ files: [], cost: 0 }));
for (const file of shared) {
  const batch = batches.reduce((least, b) => (b.cost < least.cost ? b : least));
  batch.files.push(file);
  batch.cost += cost(file);
}
const jobs = [
  // Through test-batch.mjs too (a batch of one), which prints the file's CPU time.
  ...alone.map((file) => ({
    name: file,
    batch: true,
    files: [file],
    cost: cost(file),
    command: process.execPath,
    argv: ['--import', TSX, '--test-reporter=spec', join(root, 'scripts', 'test-batch.mjs'), file],
  })),
  ...batches.map((b, i) => ({
    name: `batch ${i + 1} (${b.files.length} files)`,
    batch: true,
    files: b.files,
    cost: b.cost,
    command: process.execPath,
    argv: ['--import', TSX, '--test-reporter=spec', join(root, 'scripts', 'test-batch.mjs'), ...b.files],
  })),
].sort((a, b) => b.cost - a.cost);
if (lint)
  jobs.unshift({
    name: 'npm run lint',
    files: [],
    command: 'npm',
    argv: ['run', '--silent', 'lint'],
    lint: true,
  });

/**
 * Each file's wall seconds and whether it passed: a file alone takes its job's; in a batch, its suite's line
 * (`✔ test/x.test.ts (1234.5ms)` at the start of a line).
 */
function fileOutcomes(job, output, seconds, ok) {
  if (!job.batch) return [{ name: job.files[0], seconds, ok }];
  const seen = new Map();
  for (const m of output.matchAll(/^([✔✖]) (test\/\S+\.test\.ts) \(([\d.]+)ms\)$/gmu)) {
    seen.set(m[2], { name: m[2], seconds: Number(m[3]) / 1000, ok: m[1] === '✔' });
  }
  // A file with no line did not finish (the process died in it or before it).
  return job.files.map((f) => seen.get(f) ?? { name: f, seconds: 0, ok: false, unfinished: true });
}

/**
 * The skipped tests and checks in a job's spec output (`﹣ name (1.2ms) # reason`), each with its file: the job's own,
 * or in a batch the file suite (`▶ test/x.test.ts`) the line comes after.
 */
function skipsOf(job, output) {
  const out = [];
  let file = job.files[0];
  for (const line of output.split('\n')) {
    const suite = /^▶ (test\/\S+\.test\.ts)$/u.exec(line);
    if (suite) file = suite[1];
    const skip = /^\s*﹣ (.*) \([\d.]+ms\) # (.*)$/u.exec(line);
    if (skip) out.push({ file, name: skip[1], reason: skip[2] });
  }
  return out;
}

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
      result.files = job.lint ? [] : fileOutcomes(job, output, seconds, result.ok);
      result.skips = job.lint ? [] : skipsOf(job, output);
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

const fileResults = results.flatMap((r) => r.files);
const times = Object.fromEntries(
  Object.entries(readTimes()).filter(([name]) => findTests('test').includes(name)),
);
for (const r of fileResults) if (!r.unfinished) times[r.name] = Math.round(r.seconds * 10) / 10;
writeTimes(times);
if (saveDurations) {
  const sorted = Object.fromEntries(Object.entries(times).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(KNOWN_TIMES_FILE, `${JSON.stringify(sorted, null, 1)}\n`);
}

const jobResults = results.filter((r) => !r.lint);
const sum = (key) => jobResults.reduce((n, r) => n + r[key], 0);
console.log('\nrun-tests: slowest files (wall seconds)');
for (const r of [...fileResults].sort((a, b) => b.seconds - a.seconds).slice(0, 10))
  console.log(`  ${r.seconds.toFixed(1).padStart(6)} s  ${r.name}`);
const lintResult = results.find((r) => r.lint);
if (lintResult) console.log(`  ${lintResult.seconds.toFixed(1).padStart(6)} s  (${lintResult.name})`);
console.log(
  `run-tests: ${fileResults.length} files in ${jobResults.length} processes, ${sum('tests')} tests, ` +
    `${sum('pass')} passed, ${sum('fail')} failed, ${sum('skipped')} skipped; ${wall.toFixed(1)} s with ` +
    `${concurrency} at a time`,
);
// The skipped tests and checks, the same check in several tests of a file once with its count.
const skips = new Map();
for (const s of jobResults.flatMap((r) => r.skips)) {
  const line = `${s.file}: ${s.name} — ${s.reason}`;
  skips.set(line, (skips.get(line) ?? 0) + 1);
}
if (skips.size > 0) {
  const total = [...skips.values()].reduce((a, b) => a + b, 0);
  console.log(`\nrun-tests: ${total} tests or checks did not run:`);
  for (const [line, n] of [...skips].sort(([a], [b]) => a.localeCompare(b)))
    console.log(`  ${n > 1 ? line.replace(' — ', ` (×${n}) — `) : line}`);
}
const failed = results.filter((r) => !r.ok);
if (failed.length > 0) {
  const names = failed.flatMap((r) => {
    const files = r.files
      .filter((f) => !f.ok)
      .map((f) => (f.unfinished ? `${f.name} (did not finish)` : f.name));
    return files.length > 0 ? files : [r.name];
  });
  console.error(`run-tests: failed: ${failed.map((r) => `${r.name} (${r.why})`).join(', ')}`);
  console.error(`run-tests: failing files: ${names.join(', ')}`);
  process.exit(1);
}
if (sum('tests') === 0 || sum('pass') === 0) {
  console.error('run-tests: no test ran — failing the run');
  process.exit(1);
}
