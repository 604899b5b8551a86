// `retrieval serve` as a hostile or careless client meets it (issue 31): the Host header is checked, malformed
// revocations answer 400, nothing accepted is stored altered (overflowing numbers, impossible dates), depth is
// bounded per line and one line never fails another request's batch, concurrent revocations succeed once, a
// mistyped gate or an unusable token stops the start. Real HTTP, a real DuckDB store.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parseThresholds } from '../../src/metrics/retrieval/thresholds.js';
import { CommitQueue } from '../../src/serve/retrieval/commit-queue.js';
import type { StagedEvent } from '../../src/serve/retrieval/event-sink.js';
import { startRetrievalServer, type RetrievalServeOptions } from '../../src/serve/retrieval/server.js';
import { openStore, type Store } from '../../src/store/db.js';
import { cli } from '../helpers/cli.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-serve-hard-'));
after(() => rmSync(temp, { recursive: true, force: true }));
let n = 0;
const freshDb = (): string => join(temp, `h${n++}.duckdb`);
const TOKEN = 'hard-token-0123456789';
const T0 = Date.parse('2026-11-25T12:00:00.000Z');
const AUTH = { authorization: `Bearer ${TOKEN}` };

async function serve(extra: Partial<RetrievalServeOptions> = {}) {
  const store = await openStore(freshDb(), { readOnly: false });
  const server = await startRetrievalServer({
    store,
    token: TOKEN,
    now: () => T0,
    gateIntervalMs: 3_600_000,
    ...extra,
  });
  return {
    store,
    server,
    async close() {
      await server.close();
      store.close();
    },
  };
}

/** One raw HTTP request (node:http, so that the Host header is ours to set). */
function call(
  port: number,
  method: string,
  path: string,
  options: { host?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: {
          host: options.host ?? `127.0.0.1:${port}`,
          ...(options.body === undefined
            ? {}
            : { 'content-length': String(Buffer.byteLength(options.body)) }),
          ...options.headers,
        },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
const codeOf = (body: string): string => (JSON.parse(body) as { error: { code: string } }).error.code;

const post = (url: string, body: string) =>
  fetch(`${url}/v1/events`, { method: 'POST', headers: AUTH, body }).then(
    async (res) =>
      ({ status: res.status, ...(await res.json()) }) as {
        status: number;
        accepted: number;
        rejected: { line: number; code: string; message: string }[];
      },
  );
const count = async (store: Store, where = 'true') =>
  (await store.all<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM retrieval_events WHERE ${where}`))[0].n;
const observation = (i: number, extra: Record<string, unknown> = {}) => ({
  type: 'evaluation_observation',
  request_id: `req-${i}`,
  tool_id: 'search',
  ts: new Date(T0 - 1000 + i).toISOString(),
  latency_ms: 100 + i,
  ...extra,
});

// ---------------------------------------------------------------------------------------------------------------
// 14. Host

test('a Host header that is not this server is refused (421) on every endpoint, before the token', async () => {
  const h = await serve();
  try {
    const port = h.server.port;
    for (const path of ['/v1/actions', '/v1/metrics', '/healthz']) {
      const evil = await call(port, 'GET', path, { host: 'evil.example.com' });
      assert.equal(evil.status, 421, path);
      assert.equal(codeOf(evil.body), 'http.bad-host');
      // A rebinding page's name with this server's port is no better.
      assert.equal((await call(port, 'GET', path, { host: `evil.example.com:${port}` })).status, 421);
    }
    // Even with the token, a write through a foreign name is refused and stores nothing.
    const write = await call(port, 'POST', '/v1/events', {
      host: 'evil.example.com',
      headers: AUTH,
      body: JSON.stringify(observation(1)),
    });
    assert.equal(write.status, 421);
    assert.equal(await count(h.store), 0);
    // The loopback names with this port are answered; another port is not this server.
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`])
      assert.equal((await call(port, 'GET', '/v1/actions', { host })).status, 200, host);
    assert.equal((await call(port, 'GET', '/v1/actions', { host: '127.0.0.1:1' })).status, 421);
  } finally {
    await h.close();
  }
});

test('--allow-host adds a name; the CLI takes it, repeatable', async () => {
  const h = await serve({ allowHosts: ['evals.internal', 'proxy.example.org'] });
  try {
    const port = h.server.port;
    assert.equal((await call(port, 'GET', '/v1/actions', { host: `evals.internal:${port}` })).status, 200);
    assert.equal((await call(port, 'GET', '/v1/actions', { host: `proxy.example.org:${port}` })).status, 200);
    assert.equal((await call(port, 'GET', '/v1/actions', { host: `other.internal:${port}` })).status, 421);
  } finally {
    await h.close();
  }
  const help = await cli(['retrieval', 'serve', '--help']);
  assert.match(help.stdout, /--allow-host <name>/);
});

test('malformed DELETE paths and revocation bodies that are not an object answer 400, not 500', async () => {
  const h = await serve();
  try {
    await post(
      h.server.url,
      JSON.stringify({
        type: 'feedback_action',
        request_id: 'act-1',
        action: 'rerank_tweak',
        scope: {},
        ttl_ms: 600_000,
        ts: new Date(T0 - 1000).toISOString(),
      }),
    );
    const port = h.server.port;
    for (const path of ['/v1/actions/%E0%A4%A', '/v1/actions/%', '/v1/actions/%FF'])
      assert.deepEqual(
        await call(port, 'DELETE', path, { headers: AUTH }).then((r) => [r.status, codeOf(r.body)]),
        [400, 'http.bad-path'],
        path,
      );
    for (const body of ['null', '[]', '"x"', '7', '{"by": 5}', '{"reason": null}'])
      assert.deepEqual(
        await call(port, 'DELETE', '/v1/actions/act-1', { headers: AUTH, body }).then((r) => [
          r.status,
          codeOf(r.body),
        ]),
        [400, 'retrieval.bad-revocation'],
        body,
      );
    assert.equal(
      (await call(port, 'DELETE', '/v1/actions/act-1', { headers: AUTH, body: '{"by": ' })).status,
      400,
    );
    // None of them revoked it.
    assert.equal(await count(h.store, `type = 'feedback_action_revoked'`), 0);
    const ok = await call(port, 'DELETE', '/v1/actions/act-1', { headers: AUTH, body: '{"by": "me"}' });
    assert.equal(ok.status, 200);
  } finally {
    await h.close();
  }
});

// ---------------------------------------------------------------------------------------------------------------
// 4. Nothing accepted is stored altered

test('overflowing numbers and impossible dates are rejected per line with a code; the rest is stored as sent', async () => {
  const h = await serve();
  try {
    const good = [
      observation(1),
      observation(2, { ts: '2024-02-29T00:00:00Z' }),
      observation(3, { ts: '2026-02-28T23:59:59.999+01:00' }),
    ];
    const lines = [
      JSON.stringify(good[0]),
      '{"type": "evaluation_observation", "request_id": "big", "ts": "2026-11-25T11:00:00Z", "latency_ms": 1e999}',
      '{"type": "evaluation_result", "request_id": "neg", "metric": "p_at_5", "value": -1e999, "ts": "2026-11-25T11:00:00Z"}',
      JSON.stringify(observation(4, { ts: '2026-02-30T00:00:00Z' })),
      JSON.stringify(good[1]),
      JSON.stringify(observation(5, { ts: '2025-02-29T00:00:00Z' })),
      JSON.stringify(observation(6, { ts: '2026-04-31T10:00:00Z' })),
      JSON.stringify(observation(7, { ts: '2026-01-01T24:00:00Z' })),
      JSON.stringify(observation(8, { ts: '2026-01-01' })),
      '{"type": "evaluation_observation", "request_id": "dup", "request_id": "dup2", "ts": "2026-11-25T11:00:00Z"}',
      JSON.stringify(good[2]),
    ];
    const body = await post(h.server.url, lines.join('\n'));
    assert.equal(body.status, 200);
    assert.deepEqual(
      body.rejected.map((r) => [r.line, r.code]),
      [
        [2, 'json.overflow'],
        [3, 'json.overflow'],
        [4, 'retrieval.bad-time'],
        [6, 'retrieval.bad-time'],
        [7, 'retrieval.bad-time'],
        [8, 'retrieval.bad-time'],
        [9, 'retrieval.bad-time'],
        [10, 'json.duplicate-key'],
      ],
    );
    assert.match(body.rejected[0].message, /1e999.*\/latency_ms/);
    assert.equal(body.accepted, 3);
    const stored = await h.store.all<{ raw: string; ts: string; ts_ms: number }>(
      `SELECT raw::VARCHAR AS raw, ts, ts_ms FROM retrieval_events ORDER BY request_id`,
    );
    assert.deepEqual(
      stored.map((r) => JSON.parse(r.raw) as unknown),
      good,
    );
    for (const r of stored) assert.equal(r.ts_ms, Date.parse(r.ts));
    // The same faults inside a JSON array body refuse their element only.
    const arr = await post(
      h.server.url,
      `[${JSON.stringify(observation(9))}, {"type": "evaluation_observation", "request_id": "x", "ts": "2026-11-25T11:00:00Z", "latency_ms": -1e999}, ${JSON.stringify(observation(10, { ts: '2026-02-30T00:00:00Z' }))}]`,
    );
    assert.deepEqual(
      arr.rejected.map((r) => [r.line, r.code]),
      [
        [2, 'json.overflow'],
        [3, 'retrieval.bad-time'],
      ],
    );
    assert.equal(arr.accepted, 1);
    assert.equal(await count(h.store), 4);
  } finally {
    await h.close();
  }
});

test('`ingest` and `validate` refuse the impossible date as serve does', async () => {
  const file = join(temp, 'impossible.jsonl');
  writeFileSync(file, JSON.stringify(observation(1, { ts: '2026-02-30T00:00:00Z' })) + '\n');
  const validated = await cli(['validate', file]);
  assert.equal(validated.code, 1);
  assert.match(validated.stdout + validated.stderr, /retrieval\.bad-time/);
  const db = freshDb();
  const ingested = await cli(['ingest', file, '--db', db]);
  assert.match(ingested.stdout + ingested.stderr, /1 rejected/);
  const store = await openStore(db, { readOnly: true });
  try {
    assert.equal(await count(store), 0);
  } finally {
    store.close();
  }
});

// ---------------------------------------------------------------------------------------------------------------
// 11. Depth, and one request's fault stays its own

const deep = (depth: number): string =>
  `{"type": "evaluation_observation", "request_id": "deep-${depth}", "ts": "2026-11-25T11:00:00Z", "extra": ${'['.repeat(depth)}${']'.repeat(depth)}}`;

test('a 4,000-deep event posted among 60 clients is rejected alone, with a code; every other client is stored', async () => {
  const h = await serve();
  try {
    const clients = Array.from({ length: 60 }, (_, i) => post(h.server.url, JSON.stringify(observation(i))));
    const deepOne = post(h.server.url, deep(4000));
    const answers = await Promise.all(clients);
    for (const a of answers) assert.deepEqual([a.status, a.accepted, a.rejected], [200, 1, []]);
    const d = await deepOne;
    assert.equal(d.status, 200);
    assert.deepEqual(
      d.rejected.map((r) => [r.line, r.code]),
      [[1, 'json.nesting']],
    );
    assert.equal(await count(h.store), 60);
    // Variant: in one NDJSON body a 3,000-deep line and a 300-deep line are refused, the lines around them kept;
    // 200 levels are well inside the bound and stored.
    const mixed = await post(
      h.server.url,
      [
        JSON.stringify(observation(100)),
        deep(3000),
        deep(300),
        deep(200),
        JSON.stringify(observation(101)),
      ].join('\n'),
    );
    assert.deepEqual(
      mixed.rejected.map((r) => [r.line, r.code]),
      [
        [2, 'json.nesting'],
        [3, 'json.nesting'],
      ],
    );
    assert.equal(mixed.accepted, 3);
    assert.equal(await count(h.store), 63);
  } finally {
    await h.close();
  }
});

test('a shared commit that fails is retried request by request: only the request at fault is refused', async () => {
  const written: string[][] = [];
  const queue = new CommitQueue(async (events) => {
    const keys = events.map((e) => e.row[0] as string);
    if (keys.includes('poison')) throw new Error('this batch cannot be stored');
    written.push(keys);
  });
  const staged = (key: string): StagedEvent => ({ row: [key], receivedAt: 0 });
  // The first commit starts alone; the next three gather into one batch while it runs.
  const first = queue.commit([staged('a')]);
  const rest = [queue.commit([staged('b')]), queue.commit([staged('poison')]), queue.commit([staged('c')])];
  const settled = await Promise.allSettled([first, ...rest]);
  assert.deepEqual(
    settled.map((s) => s.status),
    ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
  );
  assert.deepEqual(written.flat().sort(), ['a', 'b', 'c']);
});

// ---------------------------------------------------------------------------------------------------------------
// 5. Concurrent revocations

test('of twenty parallel revocations of one action exactly one succeeds, the rest are 409', async () => {
  const h = await serve();
  try {
    const action = (id: string) => ({
      type: 'feedback_action',
      request_id: id,
      action: 'tool_blacklist',
      scope: { tool_id: 'search' },
      ttl_ms: 600_000,
      ts: new Date(T0 - 1000).toISOString(),
    });
    assert.equal(
      (await post(h.server.url, [action('act-1'), action('act-2')].map((a) => JSON.stringify(a)).join('\n')))
        .accepted,
      2,
    );
    const revoke = (id: string) =>
      fetch(`${h.server.url}/v1/actions/${id}`, { method: 'DELETE', headers: AUTH }).then((r) => r.status);
    const statuses = await Promise.all(Array.from({ length: 20 }, () => revoke('act-1')));
    assert.deepEqual(
      [statuses.filter((s) => s === 200).length, statuses.filter((s) => s === 409).length],
      [1, 19],
    );
    assert.equal(await count(h.store, `type = 'feedback_action_revoked' AND action_id = 'act-1'`), 1);
    // Variant: two actions revoked at once, ten times each, interleaved: one success each.
    const both = await Promise.all(Array.from({ length: 20 }, (_, i) => revoke(i % 2 ? 'act-2' : 'act-1')));
    assert.deepEqual([both.filter((s) => s === 200).length, both.filter((s) => s === 409).length], [1, 19]);
    assert.equal(await count(h.store, `type = 'feedback_action_revoked'`), 2);
  } finally {
    await h.close();
  }
});

// ---------------------------------------------------------------------------------------------------------------
// 6. One thresholds reader; the token

test('a mistyped gate metric stops `retrieval serve` as it stops `retrieval gate`', async () => {
  const thresholds = join(temp, 'typo.json');
  writeFileSync(thresholds, JSON.stringify({ thresholds: { p95ms: 1 } }));
  const events = join(temp, 'events.jsonl');
  writeFileSync(events, JSON.stringify(observation(1)) + '\n');
  const gate = await cli(['retrieval', 'gate', '--events', events, '--thresholds', thresholds]);
  const served = await cli([
    'retrieval',
    'serve',
    '--db',
    freshDb(),
    '--port',
    '0',
    '--thresholds',
    thresholds,
  ]);
  for (const r of [gate, served]) {
    assert.equal(r.code, 1);
    assert.match(r.stderr, /retrieval\.unknown-metric.*"p95ms" \(did you mean "p95_ms"\?\)/);
  }
  assert.equal(served.stdout, '');
  // Variant: the library refuses the same threshold set, and a name neither a gate nor `score` computes.
  const store = await openStore(freshDb(), { readOnly: false });
  try {
    for (const metric of ['p95ms', 'latency'])
      await assert.rejects(
        startRetrievalServer({
          store,
          token: TOKEN,
          thresholds: parseThresholds({ thresholds: { [metric]: 1 } }),
        }),
        { code: 'retrieval.unknown-metric' },
      );
  } finally {
    store.close();
  }
});

test('a token no request can carry (whitespace, non-ASCII) is refused at start', async () => {
  for (const token of [
    'abc def ghi',
    ' token-123456',
    'token-123456 ',
    'tab\ttoken-1234',
    'tökenTOKEN1234',
  ]) {
    const r = await cli(['retrieval', 'serve', '--db', freshDb(), '--port', '0', '--token', token]);
    assert.equal(r.code, 2, JSON.stringify(token));
    assert.match(r.stderr, /usage\.bad-option.*--token: .*visible ASCII/);
    assert.equal(r.stdout, '');
  }
  const store = await openStore(freshDb(), { readOnly: false });
  try {
    await assert.rejects(startRetrievalServer({ store, token: 'padded token 12' }), {
      code: 'usage.bad-option',
    });
  } finally {
    store.close();
  }
});
