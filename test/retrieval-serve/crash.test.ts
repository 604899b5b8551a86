// kill -9 of `evalkit retrieval serve` at random moments while 20 clients post events: after a restart, before
// anything is sent again, every event the server acknowledged is in the store exactly once; then sending
// everything again adds no copy.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, test } from 'node:test';
import { openStore } from '../../src/store/db.js';
import { cliCommand } from '../helpers/cli.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-serve-crash-'));
after(() => rmSync(temp, { recursive: true, force: true }));
const TOKEN = 'crash-token-0123456789';

async function start(db: string): Promise<{ child: ChildProcess; url: string; exited: Promise<unknown> }> {
  const child = spawn(
    process.execPath,
    [
      ...(await cliCommand()),
      'retrieval',
      'serve',
      '--db',
      db,
      '--port',
      '0',
      '--token',
      TOKEN,
      '--format',
      'json',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise((r) => child.once('exit', r));
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { child, exited, url: (JSON.parse(line) as { url: string }).url };
}

const event = (i: number) => ({
  type: 'evaluation_observation',
  request_id: `crash-${i}`,
  tool_id: 'search',
  ts: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, i)).toISOString(),
  latency_ms: i % 500,
});

/** Resolves to undefined when `work` has not settled in `ms` (a ref'd timer: a request cut by the kill never hangs the test). */
function within<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

async function load(
  url: string,
  next: () => number,
  acked: Set<number>,
  stop: { now: boolean },
): Promise<void> {
  while (!stop.now) {
    const i = next();
    const answer = await within(
      fetch(`${url}/v1/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify(event(i)) + '\n',
      })
        .then(async (res) => ({ status: res.status, body: (await res.json()) as { accepted?: number } }))
        .catch(() => undefined),
      10_000,
    );
    if (!answer) return; // the server is gone
    if (answer.status === 200 && answer.body.accepted === 1) acked.add(i);
  }
}

test(
  'kill -9 under load: every acknowledged event is stored exactly once after a restart',
  { timeout: 240_000 },
  async () => {
    const db = join(temp, 'serve.duckdb');
    const acked = new Set<number>();
    let counter = 0;
    const next = () => counter++;
    for (let round = 0; round < 3; round++) {
      const { child, url, exited } = await start(db);
      const stop = { now: false };
      const clients = Array.from({ length: 20 }, () => load(url, next, acked, stop));
      // Kill at a random moment once this round's clients are being answered.
      const before = acked.size;
      while (acked.size < before + 20) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 600)));
      child.kill('SIGKILL');
      stop.now = true;
      await Promise.all(clients);
      await exited;
    }
    assert.ok(acked.size > 50, `only ${acked.size} events were acknowledged`);

    // Restart once (the store recovers what it committed), stop cleanly, and count without sending anything: every
    // acknowledged event is there exactly once; an event cut by a kill before its answer may or may not be.
    const restarted = await start(db);
    restarted.child.kill('SIGTERM');
    await restarted.exited;
    const afterCrash = await storedCounts(db);
    for (const i of acked)
      assert.equal(afterCrash.get(`crash-${i}`), 1, `acknowledged event ${i} after the kills`);
    assert.ok(
      [...afterCrash.values()].every((n) => n === 1),
      'no event stored twice',
    );
    assert.ok(afterCrash.size <= counter);

    // Then send every event ever tried again (acknowledged or not): each is stored once, none twice.
    const { child, url, exited } = await start(db);
    try {
      for (let start = 0; start < counter; start += 500) {
        const body = Array.from({ length: Math.min(500, counter - start) }, (_, k) =>
          JSON.stringify(event(start + k)),
        ).join('\n');
        const res = await fetch(`${url}/v1/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}` },
          body,
        });
        assert.equal(res.status, 200);
      }
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    const stored = await storedCounts(db);
    assert.equal(stored.size, counter);
    assert.ok([...stored.values()].every((n) => n === 1));
  },
);

/** How often each request id is stored, read from the store file (no server running). */
async function storedCounts(db: string): Promise<Map<string, number>> {
  const store = await openStore(db, { readOnly: true });
  try {
    const rows = await store.all<{ request_id: string; n: number }>(
      `SELECT request_id, count(*)::INTEGER AS n FROM retrieval_events GROUP BY request_id`,
    );
    return new Map(rows.map((r) => [r.request_id, r.n]));
  } finally {
    store.close();
  }
}
