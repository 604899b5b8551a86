// kill -9 during an ingest, at random moments (a real child process running the CLI): afterwards the store opens,
// every record has all of its rows or is absent, no row lacks its record, and running the ingest again completes it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ensureBenchData } from '../../bench/_store-data.js';
import { createRng } from '../../src/metrics/stats/rng.js';
import { openStore } from '../../src/store/db.js';
import { cli, cliCommand } from '../helpers/cli.js';
import { projectRoot } from '../helpers/shared.js';

const MODELS = 6;
const QUESTIONS = 3000;
const KILLS = 4;

const temp = mkdtempSync(join(tmpdir(), 'evalkit-store-crash-'));
after(() => rmSync(temp, { recursive: true, force: true }));

const CLI = await cliCommand();

/** Starts `evalkit ingest` and SIGKILLs it `delayMs` after it has created the store file (or when it ends). */
function ingestKilledAfter(root: string, db: string, delayMs: number): Promise<{ killed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI, 'ingest', root, '--db', db, '--no-progress'], {
      cwd: projectRoot,
      stdio: 'ignore',
    });
    let killed = false;
    const poll = setInterval(() => {
      if (!existsSync(db)) return;
      clearInterval(poll);
      setTimeout(() => {
        killed = child.kill('SIGKILL');
      }, delayMs);
    }, 20);
    child.on('error', reject);
    child.on('exit', (_code, signal) => {
      clearInterval(poll);
      resolve({ killed: killed && signal === 'SIGKILL' });
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

test('SIGKILL at random moments: all of a record or none of it, and a re-run completes the store', async (t) => {
  const data = ensureBenchData({ models: MODELS, questions: QUESTIONS, dir: join(temp, 'datastore') });
  const db = join(temp, 'store.duckdb');
  const next = createRng(20261123);
  const seen: number[] = [];
  for (let k = 0; k < KILLS; k++) {
    const delay = Math.floor(next() * 6000);
    const { killed } = await ingestKilledAfter(join(data.root, 'data'), db, delay);
    const stored = await checkInvariants(db);
    seen.push(stored);
    t.diagnostic(
      `kill ${k + 1} after ${delay} ms: ${killed ? 'killed' : 'had finished'}, ${stored} records stored`,
    );
    if (stored === MODELS) break;
  }
  const rerun = await cli(['ingest', join(data.root, 'data'), '--db', db, '--format', 'json']);
  assert.equal(rerun.code, 0, rerun.stderr);
  const summary = JSON.parse(rerun.stdout).summary;
  assert.equal(summary.records + summary.skipped, MODELS);
  assert.equal(summary.skipped, seen[seen.length - 1]);
  assert.equal(await checkInvariants(db), MODELS);
});
