// The viewer under load, on a real store through real HTTP: answers are bounded (long texts cut, with a marker and a
// way to fetch the rest), a client that goes away stops its query, and other requests are answered while a slow
// one runs.
// test-runner: own process (it measures its own memory).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../src/store/db.js';
import type { DuckDBValue } from '@duckdb/node-api';
import { startViewServer } from '../../src/view/server.js';
import { TEXT_CAP, type Truncation } from '../../src/view/cap.js';
import { buildLoadStore } from './load-store.js';

const ROWS = 150_000;
const HUGE = 10 * 1024 * 1024;
let dir: string;
let store: Store;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evalkit-view-load-'));
  await buildLoadStore(join(dir, 'load.duckdb'), { rows: ROWS, hugeChars: HUGE });
  store = await openStore(join(dir, 'load.duckdb'), { readOnly: true });
});
after(async () => {
  store?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A search no earlier request prepared: it lower-cases every text of the result first (seconds on this store). */
let searches = 0;
const slowSearch = () => `api/samples?record=rec&result=0&q=${encodeURIComponent(`perhaps ${searches++}x`)}`;

test(
  'a sample of 10 MB texts comes back cut, marked, and small; the rest is fetched in pieces',
  { timeout: 180_000 },
  async () => {
    const server = await startViewServer({ store, port: 0 });
    try {
      const response = await fetch(`${server.url}api/sample?record=rec&row=0`);
      assert.equal(response.status, 200);
      const body = await response.text();
      assert.ok(body.length < 4 * TEXT_CAP * 3, `the answer is ${body.length} bytes, not tens of MB`);
      const sample = JSON.parse(body) as {
        input_text: string;
        output_text: string;
        raw: Record<string, unknown>;
        truncated_texts: Truncation[];
      };
      assert.match(
        sample.input_text,
        /^I+\n\[… evalkit view cut this text: [\d,]+ of 10,485,760 characters shown; the rest: \/api\/text\?/,
      );
      const cut = new Map(sample.truncated_texts.map((t) => [t.pointer, t]));
      const output = cut.get('/output_text');
      assert.ok(output?.rest, 'the output is listed as cut, with where the rest is');
      assert.equal(output.chars, HUGE + 1);
      // The rest, piece by piece, joined to what was shown, is the whole text (its last character is not ASCII).
      let text = sample.output_text.slice(0, sample.output_text.lastIndexOf('\n[… evalkit view cut'));
      assert.equal([...text].length, output.shown);
      let next: string | undefined = output.rest;
      let pieces = 0;
      while (next) {
        const piece = (await (await fetch(`${server.url}${next.slice(1)}`)).json()) as {
          text: string;
          next?: string;
          total: number;
        };
        assert.equal(piece.total, HUGE + 1);
        text += piece.text;
        next = piece.next;
        pieces++;
      }
      assert.ok(pieces > 1, 'fetched in more than one piece');
      assert.equal(text.length, HUGE + 1);
      assert.ok(text.endsWith('O✓') && /^O+✓$/.test(text), 'the whole output, unchanged');
      // The row's JSON (which holds both texts) is not sent whole either; it says where it is.
      assert.match(String(sample.raw['…']), /this row's JSON is [\d,]+ characters.*\/api\/text\?field=raw/);

      // Twenty readers of that sample at once: all answered, in bounded memory.
      const rss = process.memoryUsage().rss;
      const sizes = await Promise.all(
        Array.from(
          { length: 20 },
          // An extra parameter per reader, so that each answer is made, not taken from the answer cache.
          async (_, i) =>
            (await (await fetch(`${server.url}api/sample?record=rec&row=0&reader=${i}`)).text()).length,
        ),
      );
      assert.ok(sizes.every((n) => n === body.length));
      const grown = (process.memoryUsage().rss - rss) / 1024 / 1024;
      assert.ok(grown < 500, `memory grew by ${grown.toFixed(0)} MB for 20 readers`);

      assert.equal((await fetch(`${server.url}api/sample?record=rec&row=99999999999999999999`)).status, 400);
      assert.equal((await fetch(`${server.url}api/text?record=rec&row=0&field=nope`)).status, 400);
    } finally {
      await server.close();
    }
  },
);

/** How a query ended: settled normally, or failed (an interrupted query fails). */
type Outcome = 'done' | 'failed';

/**
 * The store (and every connection the server opens from it) with its queries watched: `onQuery` hears each query
 * as it starts, with how it will end; `hold` (when given) keeps a query's answer back until the promise it returns
 * settles. The events the code exposes, instead of timing: a query started, a query ended.
 */
function watched(
  store: Store,
  onQuery: (sql: string, ended: Promise<Outcome>) => void,
  hold?: (sql: string) => Promise<void> | undefined,
): Store {
  const wrap = (s: Store): Store => ({
    ...s,
    all: async <T>(sql: string, params?: DuckDBValue[]): Promise<T[]> => {
      const run = s.all<T>(sql, params);
      onQuery(
        sql,
        run.then(
          () => 'done',
          () => 'failed',
        ),
      );
      const rows = await run;
      await hold?.(sql);
      return rows;
    },
    connect: async () => wrap(await s.connect()),
  });
  return wrap(store);
}

/** The slow part of a search no earlier request prepared: lower-casing every text of the result. */
const isSearchTable = (sql: string) => sql.includes('CREATE TEMP TABLE evalkit_view_search_');

test(
  'a client that goes away stops its query: the only connection is free again at once',
  { timeout: 180_000 },
  async () => {
    // A store opened afresh: no search prepared on its connections by an earlier test.
    const own = await openStore(join(dir, 'load.duckdb'), { readOnly: true });
    const leaving = new AbortController();
    // The server's interrupts of its one connection (the store's own), as they happen.
    let interrupted!: () => void;
    const firstInterrupt = new Promise<void>((resolve) => (interrupted = resolve));
    let interrupts = 0;
    const interrupt = own.connection.interrupt.bind(own.connection);
    own.connection.interrupt = () => {
      interrupts++;
      interrupt();
      interrupted();
    };
    let began!: (ended: Promise<Outcome>) => void;
    const searchBegan = new Promise<Promise<Outcome>>((resolve) => (began = resolve));
    const store = watched(own, (sql, ended) => {
      if (isSearchTable(sql)) began(ended);
    });
    // The hardest moment to leave: the client goes away as the search is handed to the connection, and DuckDB only
    // begins the query after the server has reacted (its first interrupt), so that interrupt comes before the query
    // has begun executing.
    const server = await startViewServer({
      store: {
        ...store,
        all: async <T>(sql: string, params?: DuckDBValue[]): Promise<T[]> => {
          if (isSearchTable(sql)) {
            leaving.abort();
            await firstInterrupt;
          }
          return store.all<T>(sql, params);
        },
      },
      port: 0,
      connections: 1,
    });
    try {
      const abandoned = await fetch(`${server.url}${slowSearch()}`, { signal: leaving.signal }).catch(
        () => 'aborted',
      );
      assert.equal(abandoned, 'aborted');
      assert.equal(await await searchBegan, 'failed', 'the search was interrupted, not run to its end');
      assert.ok(interrupts >= 1);
      // The connection is free again and no interrupt of the abandoned request reaches the next one's queries.
      const next = await fetch(`${server.url}api/overview`);
      assert.equal(next.status, 200, await next.text());
      const afterNext = interrupts;
      assert.equal((await fetch(`${server.url}api/overview?again=1`)).status, 200);
      assert.equal(interrupts, afterNext, 'no interrupt once the abandoned work has ended');
    } finally {
      await server.close();
      own.close();
    }
  },
);

test('requests are answered while a slow one runs', { timeout: 180_000 }, async () => {
  // A store opened afresh: no search prepared on its connections by an earlier test.
  const own = await openStore(join(dir, 'load.duckdb'), { readOnly: true });
  // The search's answer is held back until the other requests are answered: it is running all along.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let searchStarted!: () => void;
  const started = new Promise<void>((resolve) => (searchStarted = resolve));
  let searchEnded = false;
  const server = await startViewServer({
    store: watched(
      own,
      (sql, ended) => {
        if (!isSearchTable(sql)) return;
        searchStarted();
        void ended.then(() => (searchEnded = true));
      },
      (sql) => (isSearchTable(sql) ? released : undefined),
    ),
    port: 0,
  });
  try {
    const slow = fetch(`${server.url}${slowSearch()}`).then((r) => r.status);
    await started;
    for (const path of [
      'api/overview',
      'api/record?key=rec',
      'api/samples?record=rec&result=0&offset=100',
      'api/sample?record=rec&row=7',
    ]) {
      const r = await fetch(`${server.url}${path}`);
      assert.equal(r.status, 200, path);
    }
    release();
    assert.equal(await slow, 200, 'the slow search is answered once released');
    assert.ok(searchEnded, "the search's query ran to its end");
  } finally {
    release();
    await server.close();
    own.close();
  }
});
