// SIGTERM to a real `evalkit retrieval serve` while one client sends its body slowly (issue 31, item 12): the
// server drains for a bounded time, then cuts the open connections, keeps every acknowledged event, exits 0 and
// releases the store, instead of staying alive (holding the lock) for as long as the slow client likes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, test } from 'node:test';
import { openStore } from '../../src/store/db.js';
import { cliCommand } from '../helpers/cli.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-serve-stop-'));
after(() => rmSync(temp, { recursive: true, force: true }));
const TOKEN = 'stop-token-0123456789';

async function start(db: string, extra: string[]) {
  const args = ['retrieval', 'serve', '--db', db, '--port', '0', '--token', TOKEN, '--format', 'json'];
  const child = spawn(process.execPath, [...(await cliCommand()), ...args, ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { child, exited, url: new URL((JSON.parse(line) as { url: string }).url) };
}

const event = (i: number) =>
  JSON.stringify({
    type: 'evaluation_observation',
    request_id: `stop-${i}`,
    ts: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, i)).toISOString(),
  });

/** A client that sends the headers of a POST and then its body one byte every 200 ms, never finishing. */
function slowClient(url: URL): { socket: Socket; stop(): void } {
  const socket = connect(Number(url.port), url.hostname);
  const body = event(999);
  socket.write(
    `POST /v1/events HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${TOKEN}\r\n` +
      `Content-Length: ${body.length * 1000}\r\n\r\n`,
  );
  let sent = 0;
  const timer = setInterval(() => socket.write(body[sent++ % body.length]), 200);
  socket.on('error', () => clearInterval(timer));
  socket.on('close', () => clearInterval(timer));
  return { socket, stop: () => (clearInterval(timer), socket.destroy()) };
}

/** Resolves to the exit code, or 'still running' after `ms`. */
function exitWithin(exited: Promise<number | null>, ms: number): Promise<number | null | 'still running'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still running'>((r) => (timer = setTimeout(() => r('still running'), ms)));
  return Promise.race([exited, late]).finally(() => clearTimeout(timer));
}

for (const { drain, flags } of [
  { drain: 5, flags: [] },
  { drain: 1, flags: ['--drain', '1'] },
])
  test(`SIGTERM with a slow-body client: exits after about ${drain} s of drain, keeps what it acknowledged`, async () => {
    const db = join(temp, `stop-${drain}.duckdb`);
    const { child, exited, url } = await start(db, flags);
    const slow = slowClient(url);
    try {
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`${url.origin}/v1/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}` },
          body: event(i),
        });
        assert.deepEqual(await res.json(), { accepted: 1, rejected: [] });
      }
      await new Promise((r) => setTimeout(r, 500)); // the slow body is under way
      const stoppedAt = Date.now();
      child.kill('SIGTERM');
      const code = await exitWithin(exited, (drain + 8) * 1000);
      const took = (Date.now() - stoppedAt) / 1000;
      assert.equal(code, 0, `the server had not exited ${took} s after SIGTERM`);
      assert.ok(took >= drain - 0.5, `exited after ${took} s, before the drain of ${drain} s`);
      assert.ok(slow.socket.destroyed || slow.socket.readableEnded, 'the slow connection was closed');
    } finally {
      slow.stop();
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    }
    // The lock is released: the store opens for writing, with every acknowledged event and nothing of the cut one.
    const store = await openStore(db, { readOnly: false });
    try {
      const rows = await store.all<{ request_id: string }>(
        `SELECT request_id FROM retrieval_events ORDER BY request_id`,
      );
      assert.deepEqual(
        rows.map((r) => r.request_id),
        ['stop-0', 'stop-1', 'stop-2', 'stop-3', 'stop-4'],
      );
    } finally {
      store.close();
    }
  });
