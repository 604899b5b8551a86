// `retrieval serve` over a real DuckDB store and real HTTP: auth, body cap, bad lines, idempotency, rolling
// metrics, gate evaluation, one action per breach, expiry, revoke, and a restart that keeps active actions only.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parseThresholds } from '../../src/metrics/retrieval/thresholds.js';
import { openStore, type Store } from '../../src/store/db.js';
import { parsePolicy } from '../../src/serve/retrieval/loop.js';
import { startRetrievalServer, type RetrievalServeOptions } from '../../src/serve/retrieval/server.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-serve-'));
after(() => rmSync(temp, { recursive: true, force: true }));
let n = 0;
const freshDb = (): string => join(temp, `s${n++}.duckdb`);
const TOKEN = 'test-token-0123456789';
const T0 = Date.parse('2026-11-25T12:00:00.000Z');

function observation(i: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'evaluation_observation',
    request_id: `req-${i}`,
    layer: 'L1',
    tool_id: 'search',
    model_id: 'embed-a',
    ts: new Date(T0 - 1000 + i).toISOString(),
    latency_ms: 100 + i,
    outcome: i % 10 === 0 ? 'error' : 'ok',
    ...extra,
  };
}

function result(i: number, value: number, metric = 'p_at_5'): Record<string, unknown> {
  return {
    type: 'evaluation_result',
    request_id: `req-${i}`,
    metric,
    value,
    ts: new Date(T0 - 1000 + i).toISOString(),
  };
}

interface Harness {
  store: Store;
  url: string;
  clock: { now: number };
  close(): Promise<void>;
  runGates(): Promise<{ results: number; actions: number }>;
}

async function serve(path = freshDb(), extra: Partial<RetrievalServeOptions> = {}): Promise<Harness> {
  const store = await openStore(path, { readOnly: false });
  const clock = { now: T0 };
  const server = await startRetrievalServer({
    store,
    token: TOKEN,
    now: () => clock.now,
    gateIntervalMs: 3_600_000,
    ...extra,
  });
  return {
    store,
    url: server.url,
    clock,
    runGates: () => server.runGates(),
    async close() {
      await server.close();
      store.close();
    },
  };
}

const post = (url: string, body: string, token: string | null = TOKEN) =>
  fetch(`${url}/v1/events`, {
    method: 'POST',
    headers: token ? { authorization: `Bearer ${token}` } : {},
    body,
  });
const ndjson = (events: unknown[]) => events.map((e) => JSON.stringify(e)).join('\n') + '\n';
const count = async (store: Store, where = 'true') =>
  (await store.all<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM retrieval_events WHERE ${where}`))[0].n;

test('writes need the bearer token; reads on loopback do not; healthz answers', async () => {
  const h = await serve();
  try {
    assert.equal((await post(h.url, ndjson([observation(1)]), null)).status, 401);
    assert.equal((await post(h.url, ndjson([observation(1)]), 'wrong-token-0000000')).status, 401);
    assert.equal(await count(h.store), 0);
    assert.equal((await fetch(`${h.url}/v1/actions`)).status, 200);
    assert.deepEqual(await (await fetch(`${h.url}/healthz`)).json(), { ok: true });
    const del = await fetch(`${h.url}/v1/actions/x`, { method: 'DELETE' });
    assert.equal(del.status, 401);
  } finally {
    await h.close();
  }
});

test('a body over the cap is refused with 413 and nothing is stored', async () => {
  const h = await serve(freshDb(), { maxBodyBytes: 2048 });
  try {
    const big = ndjson(Array.from({ length: 40 }, (_, i) => observation(i)));
    assert.ok(big.length > 2048);
    const res = await post(h.url, big);
    assert.equal(res.status, 413);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'http.body-too-large');
    assert.equal(await count(h.store), 0);
  } finally {
    await h.close();
  }
});

test('each line is judged on its own: bad JSON, unknown types, schema errors and clock skew are rejected by line', async () => {
  const h = await serve();
  try {
    const lines = [
      JSON.stringify(observation(1)),
      '{"type": "evaluation_observation", ',
      JSON.stringify({ type: 'page_view', request_id: 'x', ts: new Date(T0).toISOString() }),
      JSON.stringify({
        type: 'evaluation_result',
        request_id: 'r',
        metric: 'p_at_5',
        ts: new Date(T0).toISOString(),
      }),
      JSON.stringify(observation(2, { ts: new Date(T0 + 3_600_000).toISOString() })),
      '',
      JSON.stringify(observation(3)),
    ];
    const res = await post(h.url, lines.join('\n'));
    assert.equal(res.status, 200);
    const body = (await res.json()) as { accepted: number; rejected: { line: number; code: string }[] };
    assert.equal(body.accepted, 2);
    assert.deepEqual(
      body.rejected.map((r) => [r.line, r.code]),
      [
        [2, 'json.truncated'],
        [3, 'retrieval.event-unknown-type'],
        [4, 'schema.required'],
        [5, 'retrieval.event-clock-skew'],
      ],
    );
    assert.equal(await count(h.store), 2);
    // A JSON array is taken as well, numbered from 1.
    const arr = await post(h.url, JSON.stringify([observation(4), { type: 'nope' }]));
    const arrBody = (await arr.json()) as { accepted: number; rejected: { line: number }[] };
    assert.equal(arrBody.accepted, 1);
    assert.deepEqual(
      arrBody.rejected.map((r) => r.line),
      [2],
    );
  } finally {
    await h.close();
  }
});

test('an acknowledged event is committed before the answer, and re-sending it stores it once', async () => {
  const h = await serve();
  // A connection of its own sees only what is committed (not the writer's open transaction).
  const reader = await h.store.connect();
  try {
    const events = Array.from({ length: 30 }, (_, i) => observation(i));
    const answers = await Promise.all(
      events.map(async (e) => {
        const res = await post(h.url, ndjson([e]));
        return [res.status, ((await res.json()) as { accepted: number }).accepted];
      }),
    );
    assert.deepEqual(answers, Array(30).fill([200, 1]), 'every event acknowledged');
    // Read the moment the last answer arrived, before anything else runs on the server or the store.
    assert.equal(await count(reader), 30, 'every acknowledged event is committed when its answer arrives');
    const again = await post(h.url, ndjson(events));
    assert.equal(again.status, 200);
    assert.equal(await count(reader), 30, 're-sent events are not stored twice');
  } finally {
    reader.close();
    await h.close();
  }
});

test('rolling metrics per group: count, means of results, latency p50/p95, error rate', async () => {
  const h = await serve();
  try {
    const obs = Array.from({ length: 20 }, (_, i) =>
      observation(i, { tool_id: i < 12 ? 'search' : 'graph' }),
    );
    const res = Array.from({ length: 20 }, (_, i) => result(i, (i % 5) / 5));
    // An old observation outside a 60 s window.
    const old = observation(99, { ts: new Date(T0 - 600_000).toISOString() });
    await post(h.url, ndjson([...obs, ...res, old]));
    const body = (await (await fetch(`${h.url}/v1/metrics?window=60&by=tool_id`)).json()) as {
      groups: {
        group: { tool_id: string };
        observations: number;
        latency_p50_ms: number;
        latency_p95_ms: number;
        error_rate: number;
        metrics: Record<string, { mean: number; n: number }>;
      }[];
    };
    const byTool = new Map(body.groups.map((g) => [g.group.tool_id, g]));
    // Latency quantiles computed outside the project (R's type 7, as numpy.percentile and
    // python3 -c 'import statistics as s; d=range(100,112); print(s.median(d), s.quantiles(d,n=100,method="inclusive")[94])'):
    // search 100…111 ms → p50 105.5, p95 110.45; graph 112…119 ms → p50 115.5, p95 118.65.
    const quantiles = { search: [105.5, 110.45], graph: [115.5, 118.65] };
    for (const [tool, idx] of [
      ['search', [...Array(12).keys()]],
      ['graph', [12, 13, 14, 15, 16, 17, 18, 19]],
    ] as const) {
      const g = byTool.get(tool)!;
      assert.equal(g.observations, idx.length);
      const [p50, p95] = quantiles[tool];
      assert.ok(Math.abs(g.latency_p50_ms - p50) < 1e-9, `${tool} p50 ${g.latency_p50_ms}`);
      assert.ok(Math.abs(g.latency_p95_ms - p95) < 1e-9, `${tool} p95 ${g.latency_p95_ms}`);
      assert.equal(g.error_rate, idx.filter((i) => i % 10 === 0).length / idx.length);
      const values = idx.map((i) => (i % 5) / 5);
      assert.ok(Math.abs(g.metrics.p_at_5.mean - values.reduce((a, b) => a + b, 0) / values.length) < 1e-12);
      assert.equal(g.metrics.p_at_5.n, idx.length);
    }
    assert.equal((await fetch(`${h.url}/v1/metrics?window=-1`)).status, 400);
    assert.equal((await fetch(`${h.url}/v1/metrics?by=colour`)).status, 400);
  } finally {
    await h.close();
  }
});

const thresholds = parseThresholds({ thresholds: { p_at_5: 0.5, p95_ms: 1000 } });
const policy = parsePolicy({ p_at_5: { action: 'rerank_tweak', ttl_ms: 60_000 } });

test('gates write evaluation_result events; a breach issues one action until it expires or is revoked', async () => {
  const path = freshDb();
  const h = await serve(path, { thresholds, policy, windowMs: 120_000 });
  try {
    await post(
      h.url,
      ndjson([
        ...Array.from({ length: 5 }, (_, i) => observation(i)),
        ...Array.from({ length: 5 }, (_, i) => result(i, 0.2)),
      ]),
    );
    const first = await h.runGates();
    assert.deepEqual(first, { results: 2, actions: 1 });
    const gates = await h.store.all<{ metric: string; pass: boolean; value: number; raw: string }>(
      `SELECT metric, pass, value, raw::VARCHAR AS raw FROM retrieval_events WHERE origin = 'gate' ORDER BY metric`,
    );
    assert.deepEqual(
      gates.map((g) => [g.metric, g.pass]),
      [
        ['p95_ms', true],
        ['p_at_5', false],
      ],
    );
    const gate = JSON.parse(gates[1].raw) as { threshold: number; observation_ids: string[] };
    assert.equal(gate.threshold, 0.5);
    assert.deepEqual([...gate.observation_ids].sort(), ['req-0', 'req-1', 'req-2', 'req-3', 'req-4']);
    // The gate's own results do not feed the next window's means.
    const m = (await (await fetch(`${h.url}/v1/metrics?window=120`)).json()) as {
      groups: { metrics: Record<string, { n: number }> }[];
    };
    assert.equal(m.groups[0].metrics.p_at_5.n, 5);

    // Still failing on the next ticks: no second action while the first is active.
    h.clock.now += 10_000;
    assert.equal((await h.runGates()).actions, 0);
    const listed = (await (await fetch(`${h.url}/v1/actions`)).json()) as {
      actions: {
        id: string;
        action: string;
        scope: Record<string, string>;
        ttl_ms: number;
        expires_at: string;
      }[];
    };
    assert.equal(listed.actions.length, 1);
    const action = listed.actions[0];
    assert.equal(action.action, 'rerank_tweak');
    assert.deepEqual(action.scope, { tool_id: 'search', layer: 'L1', model_id: 'embed-a' });
    assert.equal(action.expires_at, new Date(T0 + 60_000).toISOString());

    // Expired: gone from the list; the gate still fails, so a new one is issued.
    h.clock.now = T0 + 61_000;
    assert.equal(
      ((await (await fetch(`${h.url}/v1/actions`)).json()) as { actions: unknown[] }).actions.length,
      0,
    );
    assert.equal((await h.runGates()).actions, 1);
    const second = ((await (await fetch(`${h.url}/v1/actions`)).json()) as { actions: { id: string }[] })
      .actions[0];
    assert.notEqual(second.id, action.id);

    // Revoked: gone, recorded with who and why; a second revoke is a conflict; an unknown id is 404.
    const revoke = await fetch(`${h.url}/v1/actions/${second.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ by: 'oncall@example.org', reason: 'false alarm' }),
    });
    assert.equal(revoke.status, 200);
    const audit = await h.store.all<{ raw: string }>(
      `SELECT raw::VARCHAR AS raw FROM retrieval_events WHERE type = 'feedback_action_revoked'`,
    );
    assert.equal(audit.length, 1);
    assert.deepEqual(
      { ...(JSON.parse(audit[0].raw) as object), ts: undefined },
      {
        type: 'feedback_action_revoked',
        action_id: second.id,
        revoked_by: 'oncall@example.org',
        reason: 'false alarm',
        ts: undefined,
      },
    );
    assert.equal(
      ((await (await fetch(`${h.url}/v1/actions`)).json()) as { actions: unknown[] }).actions.length,
      0,
    );
    const again = await fetch(`${h.url}/v1/actions/${second.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(again.status, 409);
    const unknown = await fetch(`${h.url}/v1/actions/nope`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(unknown.status, 404);
  } finally {
    await h.close();
  }
});

test('restart: an active action survives, an expired one does not come back', async () => {
  const path = freshDb();
  let h = await serve(path, {
    thresholds,
    policy: parsePolicy({ p_at_5: { action: 'tool_blacklist', ttl_ms: 30_000, scope_fields: ['tool_id'] } }),
    windowMs: 120_000,
  });
  await post(h.url, ndjson([observation(1), result(1, 0.1)]));
  assert.equal((await h.runGates()).actions, 1);
  await h.close();

  h = await serve(path, { thresholds, windowMs: 120_000 });
  try {
    h.clock.now = T0 + 10_000;
    const active = (
      (await (await fetch(`${h.url}/v1/actions`)).json()) as { actions: { action: string; scope: object }[] }
    ).actions;
    assert.deepEqual(
      active.map((a) => [a.action, a.scope]),
      [['tool_blacklist', { tool_id: 'search' }]],
    );
    h.clock.now = T0 + 31_000;
    assert.equal(
      ((await (await fetch(`${h.url}/v1/actions`)).json()) as { actions: unknown[] }).actions.length,
      0,
    );
  } finally {
    await h.close();
  }
  h = await serve(path);
  try {
    h.clock.now = T0 + 40_000;
    assert.equal(
      ((await (await fetch(`${h.url}/v1/actions`)).json()) as { actions: unknown[] }).actions.length,
      0,
    );
  } finally {
    await h.close();
  }
});

test('off loopback, reads need the token too', async () => {
  const store = await openStore(freshDb(), { readOnly: false });
  const server = await startRetrievalServer({ store, host: '0.0.0.0', token: TOKEN });
  try {
    const url = `http://127.0.0.1:${server.port}`;
    assert.equal((await fetch(`${url}/v1/actions`)).status, 401);
    assert.equal(
      (await fetch(`${url}/v1/actions`, { headers: { authorization: `Bearer ${TOKEN}` } })).status,
      200,
    );
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
  } finally {
    await server.close();
    store.close();
  }
});
