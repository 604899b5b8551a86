// Workers over byte ranges must give exactly the diagnostics of one thread, with file line numbers.
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { availableParallelism } from 'node:os';
import { AUTO_JOBS_MIN_BYTES, autoJobs, validatePaths } from '../../src/validate/index.js';
import { rangeTargets, validateInWorkers, workersPay } from '../../src/validate/parallel.js';
import { stat } from 'node:fs/promises';
import { instanceRow, jsonl, makeTree } from './fixtures.js';

let root = '';
before(async () => {
  root = await makeTree({});
  const rows: unknown[] = [];
  for (let i = 0; i < 600; i++) {
    if (i % 97 === 5) rows.push(instanceRow(i, { evaluation: { score: 'x', is_correct: true } }));
    else if (i % 131 === 7) rows.push('{"broken": ');
    else if (i % 50 === 0) rows.push('');
    else rows.push(instanceRow(i));
  }
  await writeFile(join(root, 'big.jsonl'), jsonl(rows));
  await writeFile(join(root, 'one.json'), JSON.stringify(instanceRow(1), null, 2));
});
after(() => rm(root, { recursive: true, force: true }));

describe('validatePaths with jobs', () => {
  it('jobs 2 and 3 (this thread and 1 or 2 workers) over small ranges equal jobs 1', async () => {
    const opts = { cwd: root, schemaOnly: true };
    const one = await validatePaths(['big.jsonl', 'one.json'], { ...opts, jobs: 1 });
    const two = await validatePaths(['big.jsonl', 'one.json'], { ...opts, jobs: 2, rangeBytes: 8 * 1024 });
    assert.ok(one.summary.invalid >= 10, JSON.stringify(one.summary));
    assert.deepEqual(two, one);
    const three = await validatePaths(['big.jsonl', 'one.json'], { ...opts, jobs: 3, rangeBytes: 4 * 1024 });
    assert.deepEqual(three, one);
    const lines = one.files[0].diagnostics.map((d) => d.line);
    assert.ok(lines.includes(6) && lines.includes(8), `lines ${lines.join(',')}`);
  });

  it('jobs "auto": one thread below 128 MiB or with custom types, one per CPU (at most 8) above', async () => {
    assert.equal(autoJobs(AUTO_JOBS_MIN_BYTES - 1, false), 1);
    assert.equal(autoJobs(AUTO_JOBS_MIN_BYTES, false), Math.min(8, availableParallelism()));
    assert.equal(autoJobs(10 * AUTO_JOBS_MIN_BYTES, true), 1);
    const opts = { cwd: root, schemaOnly: true };
    const auto = await validatePaths(['big.jsonl', 'one.json'], { ...opts, jobs: 'auto' });
    assert.deepEqual(auto, await validatePaths(['big.jsonl', 'one.json'], { ...opts, jobs: 1 }));
  });
});

describe('rangeTargets', () => {
  it('cuts guided ranges: at most rangeBytes, shrinking towards the end, none below the smallest but the last', () => {
    for (const [size, jobs, rangeBytes] of [
      [200e6, 2, 16 * 1024 * 1024],
      [200e6, 8, 16 * 1024 * 1024],
      [20e6, 2, 16 * 1024 * 1024],
      [40_000, 3, 4096],
    ]) {
      const targets = rangeTargets(size, jobs, rangeBytes);
      const ends = [...targets, size];
      const sizes = ends.map((end, k) => end - (k === 0 ? 0 : ends[k - 1]));
      const smallest = Math.min(1024 * 1024, Math.ceil(rangeBytes / 4));
      assert.ok(
        sizes.every((s) => s > 0 && s <= rangeBytes),
        `${size}: ${sizes.join(' ')}`,
      );
      assert.ok(
        sizes.slice(0, -1).every((s) => s >= smallest),
        `${size}: ${sizes.join(' ')}`,
      );
      assert.ok(sizes.every((s, k) => k === 0 || s <= sizes[k - 1] || k === sizes.length - 1));
      assert.ok(sizes.at(-1)! <= smallest, 'the last range is a small one');
    }
  });
});

describe('--jobs auto starts workers only when they pay (issue 41)', () => {
  const MB = 1e6;
  it('workersPay: the fast path on a 183 MB file keeps one thread; 1 GB, or the slow path on 183 MB, gets workers', () => {
    // The first 16 MiB range read at the fast path's ~360 MB/s, then at the slow path's ~90 MB/s.
    const fast = { bytes: 16.8 * MB, seconds: 16.8 / 360 };
    const slow = { bytes: 16.8 * MB, seconds: 16.8 / 90 };
    assert.equal(workersPay(fast, 183 * MB - fast.bytes), false);
    assert.equal(workersPay(fast, 300 * MB - fast.bytes), false);
    assert.equal(workersPay(fast, 1000 * MB - fast.bytes), true);
    assert.equal(workersPay(slow, 183 * MB - slow.bytes), true);
    assert.equal(workersPay(slow, 40 * MB), false);
  });

  it('adaptive: no worker when the first task says they do not pay, workers when they do; the same result', async () => {
    const path = join(root, 'big.jsonl');
    const files = [{ path: 'big.jsonl', absPath: path, jsonl: true, size: (await stat(path)).size }];
    const run = async (adaptive: boolean | (() => boolean), maxDiagnostics?: number) => {
      let threads = 0;
      const results = await validateInWorkers(files, 2, {
        engine: { schemaOnly: true },
        rangeBytes: 8 * 1024,
        maxDiagnostics,
        adaptive,
        onThreads: (n) => (threads = n),
      });
      return { threads, results };
    };
    const always = await run(false);
    const never = await run(() => false);
    const pays = await run(() => true);
    assert.equal(always.threads, 2);
    assert.equal(never.threads, 1);
    assert.equal(pays.threads, 2);
    assert.deepEqual(never.results, always.results);
    assert.deepEqual(pays.results, always.results);
    const one = await validatePaths(['big.jsonl'], { cwd: root, schemaOnly: true, jobs: 1 });
    assert.deepEqual(always.results, one.files);
    // Without workers the rest of the file is read as one range: the same diagnostics kept and omitted.
    const capped = await run(false, 3);
    assert.ok(capped.results[0]!.omitted > 0);
    assert.deepEqual((await run(() => false, 3)).results, capped.results);
  });
});
