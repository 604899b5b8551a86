// kill -9 during an ingest, each time while a randomly chosen record's rows are being written (a child process
// that prints the ingest's progress ticks): afterwards the store opens, the records committed before the kill are
// there whole, the record cut is absent, no row lacks its record, and running the ingest again completes it. A
// second test kills it exactly between a record's last insert and its COMMIT (the writer's test hook
// EVALKIT_TEST_PAUSE_BEFORE_COMMIT, src/store/write.ts): a store writing outside one transaction fails it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ensureBenchData } from '../../bench/_store-data.js';
import { createRng } from '../../src/metrics/stats/rng.js';
import { openStore } from '../../src/store/db.js';
import { cli } from '../helpers/cli.js';
import { projectRoot } from '../helpers/shared.js';

const MODELS = 3;
const QUESTIONS = 2000;
const KILLS = 2;

const temp = mkdtempSync(join(tmpdir(), 'evalkit-store-crash-'));
after(() => rmSync(temp, { recursive: true, force: true }));

const TSX = import.meta.resolve('tsx');
const CHILD = join(projectRoot, 'test/store/ingest-child.ts');

/**
 * Runs an ingest (test/store/ingest-child.ts, which prints each progress tick) and SIGKILLs it while its
 * `target`-th new record (0-based) is being written: at the first tick inside that record once `fraction` of its
 * samples file is read (DuckDB stores the rows while the validator reads them; after the last tick come the record, its
 * items and the commit). Resolves with whether the kill landed there and how many new records the child had
 * reported as committed by then.
 */
function ingestKilledInRecord(
  root: string,
  db: string,
  target: number,
  fraction: number,
  samplesBytes: number,
): Promise<{ killed: boolean; committed: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, CHILD, db, root], {
      cwd: projectRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let killedAt: number | undefined;
    let seen = 0;
    let unitStart = 0;
    let records = 0;
    /** Whether this record's tick was counted already. */
    let counted = false;
    child.stderr.on('data', (c) => (err += c));
    child.stdout.on('data', (c) => {
      out += c;
      const lines = out.split('\n');
      out = lines.pop()!;
      for (const line of lines) {
        if (killedAt !== undefined || line === 'done') continue;
        const [r, , bytes] = line.split(' ').map(Number) as [number, number, number];
        // A tick that ends a unit: a record committed, or a unit skipped whole (already stored).
        if (r !== records || bytes - unitStart > samplesBytes) {
          records = r;
          unitStart = bytes;
          counted = false;
          continue;
        }
        if (counted || bytes - unitStart < fraction * samplesBytes) continue;
        counted = true;
        if (seen++ === target) {
          killedAt = r;
          child.kill('SIGKILL');
        }
      }
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal === 'SIGKILL' && killedAt !== undefined) resolve({ killed: true, committed: killedAt });
      else if (code === 0) resolve({ killed: false, committed: records });
      else reject(new Error(`ingest child exited ${code ?? signal}: ${err}`));
    });
  });
}

/** The store's invariants: each record with exactly its rows, no orphan rows; returns the records stored. */
async function checkInvariants(db: string): Promise<number> {
  const store = await openStore(db, { readOnly: true });
  try {
    const partial = await store.all(
      `SELECT record_key, sample_count FROM records r
        WHERE sample_count <> (SELECT count(*) FROM samples s WHERE s.record_key = r.record_key)`,
    );
    assert.deepEqual(partial, [], 'a record without all of its rows');
    const [{ orphans }] = await store.all<{ orphans: number }>(
      `SELECT count(*) AS orphans FROM samples WHERE record_key NOT IN (SELECT record_key FROM records)`,
    );
    assert.equal(orphans, 0, 'rows without their record');
    const [{ n }] = await store.all<{ n: number }>('SELECT count(*) AS n FROM records');
    const [{ rows }] = await store.all<{ rows: number }>('SELECT count(*) AS rows FROM samples');
    assert.equal(rows, n * QUESTIONS);
    return n;
  } finally {
    store.close();
  }
}

test('SIGKILL while a record is written: all of a record or none of it, and a re-run completes the store', async (t) => {
  const data = ensureBenchData({ models: MODELS, questions: QUESTIONS, dir: join(temp, 'datastore') });
  // The largest samples file: a tick further than that from the last boundary ends a unit (its aggregate counted).
  const samplesBytes = Math.max(
    ...readdirSync(join(data.root, 'data'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('_samples.jsonl'))
      .map((f) => statSync(join(data.root, 'data', f)).size),
  );
  const db = join(temp, 'store.duckdb');
  const next = createRng(20261123);
  let stored = 0;
  for (let k = 0; k < KILLS && stored < MODELS - 1; k++) {
    // Which of the records not stored yet is cut in the middle (never the only one left: the re-run completes).
    const target = Math.floor(next() * (MODELS - stored));
    // Up to 90% of its files: the last tick inside a record comes once its last chunk is read (here at 99%).
    const fraction = 0.9 * next();
    const root = join(data.root, 'data');
    const { killed, committed } = await ingestKilledInRecord(root, db, target, fraction, samplesBytes);
    assert.ok(killed, `kill ${k + 1} landed while record ${stored + target + 1} was being written`);
    assert.equal(committed, target, 'the records before it were committed');
    const now = await checkInvariants(db);
    // The record cut is absent, unless the kill came after its last tick and its commit beat the signal.
    assert.ok(now === stored + committed || now === stored + committed + 1, `${now} records stored`);
    t.diagnostic(
      `kill ${k + 1} in record ${stored + target + 1}, ${Math.round(fraction * 100)}% read: ${now} records stored`,
    );
    stored = now;
  }
  const rerun = await cli(['ingest', join(data.root, 'data'), '--db', db, '--format', 'json']);
  assert.equal(rerun.code, 0, rerun.stderr);
  const summary = JSON.parse(rerun.stdout).summary;
  assert.equal(summary.records + summary.skipped, MODELS);
  assert.equal(summary.skipped, stored);
  assert.equal(await checkInvariants(db), MODELS);
});

/**
 * Runs an ingest with the writer's pause before its `nth` commit and SIGKILLs it once paused there; resolves with the
 * key of the record cut (its rows, record, results and items inserted, not committed).
 */
function ingestKilledBeforeCommit(root: string, db: string, nth: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, CHILD, db, root], {
      cwd: projectRoot,
      env: { ...process.env, EVALKIT_TEST_PAUSE_BEFORE_COMMIT: String(nth) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    let key: string | undefined;
    child.stderr.on('data', (c) => {
      err += c;
      const m = /^evalkit:paused-before-commit (\S+)$/m.exec(err);
      if (m && key === undefined) {
        key = m[1];
        child.kill('SIGKILL');
      }
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal === 'SIGKILL' && key !== undefined) resolve(key);
      else
        reject(
          new Error(`the ingest child never paused before commit ${nth} (exit ${code ?? signal}): ${err}`),
        );
    });
  });
}

test('SIGKILL between the inserts of a record and its COMMIT: the record is absent, the earlier ones whole', async (t) => {
  const data = ensureBenchData({ models: MODELS, questions: QUESTIONS, dir: join(temp, 'datastore') });
  const root = join(data.root, 'data');
  const db = join(temp, 'store-before-commit.duckdb');
  // The record cut, drawn from all of them: the first (nothing committed yet) and the last may be cut too.
  const nth = 1 + Math.floor(createRng(20261127)() * MODELS);
  const key = await ingestKilledBeforeCommit(root, db, nth);
  t.diagnostic(`killed before the commit of record ${nth} of ${MODELS} (${key.slice(0, 12)})`);
  assert.equal(await checkInvariants(db), nth - 1, 'the records committed before it, and not the one cut');
  const store = await openStore(db, { readOnly: true });
  try {
    for (const table of ['records', 'results', 'samples', 'result_items', 'result_item_sets', 'documents']) {
      const [{ n }] = await store.all<{ n: number }>(
        `SELECT count(*) AS n FROM ${table} WHERE record_key = $1`,
        [key],
      );
      assert.equal(n, 0, `${table} rows of the record cut before its commit`);
    }
    // The earlier records whole: every result with its item set, every item set with its result.
    const [{ unpaired }] = await store.all<{ unpaired: number }>(
      `SELECT count(*) AS unpaired FROM results r FULL JOIN result_item_sets s USING (record_key, result_index)
        WHERE r.record_key IS NULL OR s.record_key IS NULL`,
    );
    assert.equal(unpaired, 0, 'results without their items, or items without their result');
  } finally {
    store.close();
  }
  const rerun = await cli(['ingest', root, '--db', db, '--format', 'json']);
  assert.equal(rerun.code, 0, rerun.stderr);
  const summary = JSON.parse(rerun.stdout).summary;
  assert.deepEqual([summary.records, summary.skipped], [MODELS - nth + 1, nth - 1]);
  assert.equal(await checkInvariants(db), MODELS);
});
