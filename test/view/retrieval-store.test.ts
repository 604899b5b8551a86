// The viewer's retrieval answers over a store filled by `evalkit ingest` of the loop example (gold, results, events)
// and a second system's rows scored on ingest: the systems' numbers are `retrievalLeaderboards`' own, a query's hits
// are the ranked ids found in its gold ids (counted here independently), the events are counted per 5-minute bucket,
// and feedback actions are active, expired or revoked by the clock given.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildRetrievalStore, loop, readJsonl, SECOND_MODEL } from './retrieval-fixture.js';
import { openStore } from '../../src/store/db.js';
import { storeEvents } from '../../src/store/retrieval/events.js';
import { retrievalLeaderboards } from '../../src/store/retrieval/stats.js';
import { startViewServer } from '../../src/view/server.js';
import { exportStaticSite } from '../../src/view/export.js';
import { canonicalQuery, exportKey } from '../../src/view/shared/query.js';
import { bucketSize, retrievalStoreOverview } from '../../src/view/retrieval-store.js';
import type { RetrievalQueryDetail, RetrievalStoreOverview } from '../../src/view/shared/types.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-view-retrieval-'));
after(() => rmSync(temp, { recursive: true, force: true }));

test('the retrieval store answers: systems = retrievalLeaderboards, hits, events over time, actions', async () => {
  const db = await buildRetrievalStore(temp);
  // A revocation, as `retrieval serve` stores one.
  {
    const store = await openStore(db, { readOnly: false });
    try {
      await storeEvents(store, [
        {
          event: {
            type: 'feedback_action_revoked',
            action_id: 'req-0004',
            revoked_by: 'ops',
            reason: 'tuned by hand',
            ts: '2026-03-02T10:40:00.000Z',
          },
          origin: 'revoke',
        },
      ]);
    } finally {
      store.close();
    }
  }
  const store = await openStore(db, { readOnly: true });
  const server = await startViewServer({ store, port: 0 });
  try {
    const get = async <T>(path: string): Promise<T> => {
      const response = await fetch(`${server.url}api/${path}`);
      assert.equal(response.status, 200, path);
      return (await response.json()) as T;
    };
    const o = await get<RetrievalStoreOverview>('retrieval-store');
    assert.equal(o.present, true);

    // Systems × metrics: the leaderboard's numbers, none computed again.
    const boards = await retrievalLeaderboards(store);
    assert.deepEqual(
      o.metrics,
      boards.map((b) => b.metric),
    );
    // A system is (model_id, tool_id, layer, agent_id): each model answers on three layers.
    const loopRows = readJsonl(join(loop, 'results.jsonl'));
    const layers = [...new Set(loopRows.map((r) => String(r.layer)))].sort();
    assert.deepEqual(
      o.systems.map((s) => `${s.model_id}/${s.layer}`).sort(),
      [SECOND_MODEL, 'embed-small-v3'].flatMap((m) => layers.map((l) => `${m}/${l}`)),
    );
    for (const b of boards)
      for (const r of b.rows) {
        const s = o.systems.find((x) => x.system === r.system)!;
        assert.deepEqual(s.metrics[b.metric], {
          rank: r.rank,
          tier: r.tier,
          score: r.score,
          ci: r.ci,
          n: r.n,
        });
      }
    assert.ok(o.lower_is_better.includes('p95_ms') && !o.lower_is_better.includes('ndcg_10'));
    // Each loop system's p_at_5 mean and n, from the file by hand.
    for (const layer of layers) {
      const rows = loopRows.filter((r) => r.layer === layer);
      const p5 = rows.reduce((sum, r) => sum + (r.metrics as { p_at_5: number }).p_at_5, 0) / rows.length;
      const system = o.systems.find((s) => s.model_id === 'embed-small-v3' && s.layer === layer)!;
      assert.ok(Math.abs(system.metrics.p_at_5.score - p5) < 1e-12, layer);
      assert.equal(system.n, rows.length);
    }

    // The gold list.
    const gold = readJsonl(join(loop, 'gold.jsonl'));
    assert.deepEqual(
      o.gold.map((g) => [g.id, g.expected, g.results]),
      gold.map((g) => [g.id, (g.expected_ids as string[]).length, 2]).sort(),
    );

    // One query: the gold ids, each system's ranked ids with hits marked as the gold ids say.
    for (const g of gold) {
      const q = await get<RetrievalQueryDetail>(`retrieval-query?id=${encodeURIComponent(String(g.id))}`);
      assert.deepEqual(q.expected_ids, g.expected_ids);
      assert.equal(q.query, g.query);
      const row = loopRows.find((r) => r.id === g.id)!;
      const expected = new Set(g.expected_ids as string[]);
      const retrieved = row.retrieved_ids as string[];
      const mine = q.rows.find((r) => r.system.includes('model_id=embed-small-v3'))!;
      assert.deepEqual(
        mine.retrieved.map((x) => x.id),
        retrieved,
      );
      assert.deepEqual(
        mine.retrieved.map((x) => x.hit),
        retrieved.map((id) => expected.has(id)),
      );
      assert.equal(mine.hits, retrieved.filter((id) => expected.has(id)).length);
      assert.deepEqual(mine.verdicts, row.verdicts);
      const other = q.rows.find((r) => r.system.includes(`model_id=${SECOND_MODEL}`))!;
      assert.deepEqual(
        other.retrieved.map((x) => x.id),
        [...retrieved].reverse(),
      );
    }
    assert.ok(
      (await fetch(`${server.url}api/retrieval-query?id=no-such-query`)).status >= 400,
      'an unknown query is an error',
    );

    // Events: 27 from the file and the revocation, in 5-minute buckets from 10:00 to 10:40.
    const events = readJsonl(join(loop, 'events.jsonl'));
    assert.equal(o.events.total, events.length + 1);
    assert.equal(o.events.bucket_ms, 5 * 60_000);
    const byBucket = new Map<string, number>();
    for (const e of events) {
      const start = Math.floor(Date.parse(String(e.ts)) / 300_000) * 300_000;
      const k = `${start}|${String(e.type)}`;
      byBucket.set(k, (byBucket.get(k) ?? 0) + 1);
    }
    byBucket.set(`${Date.parse('2026-03-02T10:40:00.000Z')}|feedback_action_revoked`, 1);
    const got = new Map<string, number>();
    for (const b of o.events.buckets)
      for (const [t, n] of Object.entries(b.counts)) got.set(`${b.start_ms}|${t}`, n);
    assert.deepEqual(got, byBucket);
    assert.equal(o.events.buckets.length, 9, 'empty buckets between the first and last are listed');
    const results = events.filter((e) => e.type === 'evaluation_result');
    assert.equal(o.events.gate_total, results.length);
    assert.equal(o.events.gate_failed, results.filter((e) => e.pass === false).length);
    assert.equal(o.events.gate[0].ts, '2026-03-02T10:21:17.250Z', 'newest first');

    // The static export holds the same answers, one file per gold query.
    const site = join(temp, 'site');
    const summary = await exportStaticSite(store, site);
    assert.deepEqual(summary.skipped, []);
    const exported = (endpoint: string, params: Record<string, string>) =>
      JSON.parse(
        readFileSync(join(site, 'data', endpoint, `${exportKey(canonicalQuery(params))}.json`), 'utf8'),
      ) as unknown;
    const { as_of_ms: _a, ...served } = o;
    const { as_of_ms: _b, ...written } = exported('retrieval-store', {}) as RetrievalStoreOverview;
    assert.deepEqual(written, served);
    for (const g of gold)
      assert.deepEqual(
        exported('retrieval-query', { id: String(g.id) }),
        await get<RetrievalQueryDetail>(`retrieval-query?id=${encodeURIComponent(String(g.id))}`),
      );

    // Actions by a clock between the two TTLs' ends: the 15-minute one expired, the 1-hour one active, the one
    // revoked revoked.
    const at = await retrievalStoreOverview(store, Date.parse('2026-03-02T10:50:00.000Z'));
    assert.deepEqual(Object.fromEntries(at.events.actions.map((a) => [a.action, a.status])), {
      rerank_tweak: 'active',
      source_blacklist: 'expired',
      retry_policy_tune: 'revoked',
    });
  } finally {
    await server.close();
    store.close();
  }
});

test('a store without retrieval rows gives empty answers', async () => {
  const db = join(temp, 'empty.duckdb');
  const made = await openStore(db, { readOnly: false });
  made.close();
  const store = await openStore(db, { readOnly: true });
  try {
    const o = await retrievalStoreOverview(store);
    assert.equal(o.present, false);
    assert.deepEqual([o.systems, o.gold, o.events.buckets], [[], [], []]);
  } finally {
    store.close();
  }
});

test('event buckets: at most 25 of them, whatever the span', () => {
  const year = 365 * 86_400_000;
  for (const span of [0, 59_000, 2 * 3_600_000, 40 * 86_400_000, 30 * year, 8.64e15 * 2]) {
    const size = bucketSize(span);
    assert.ok(Math.floor(span / size) + 1 <= 25, `${span} ms in ${size} ms buckets`);
  }
  assert.equal(bucketSize(26 * 60_000), 5 * 60_000);
});
