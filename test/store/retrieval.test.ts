// Retrieval in the store: gold, results and events ingested into their tables (idempotent), result rows without
// metrics scored on ingest as `retrieval score` scores them, and `leaderboard --retrieval` / `compare --retrieval`
// checked against numbers computed independently (means by hand, scipy.stats.ttest_rel and binomtest values).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { scoreResults } from '../../src/metrics/retrieval/score.js';
import { openStore } from '../../src/store/db.js';
import { runMain } from '../metrics-retrieval/run-main.js';
import { projectRoot } from '../helpers/shared.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-store-retrieval-'));
after(() => rmSync(temp, { recursive: true, force: true }));
let n = 0;
const freshDb = (): string => join(temp, `s${n++}.duckdb`);
const loop = join(projectRoot, 'examples', 'retrieval', 'loop');
const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
const readJsonl = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);

test('ingest stores gold, results and events in their tables; a second ingest adds nothing', async () => {
  const db = freshDb();
  const files = ['gold.jsonl', 'results.jsonl', 'events.jsonl'].map((f) => join(loop, f));
  const first = await runMain(['ingest', '--db', db, '--format', 'json', ...files]);
  assert.equal(first.code, 0, first.stderr);
  const report = JSON.parse(first.stdout) as {
    retrieval: { kind: string; added: number; skipped: number }[];
  };
  const byKind = Object.fromEntries(report.retrieval.map((r) => [r.kind, r]));
  assert.equal(byKind.gold.added, readJsonl(files[0]).length);
  assert.equal(byKind.result.added, readJsonl(files[1]).length);
  assert.equal(byKind.event.added, readJsonl(files[2]).length);
  const again = JSON.parse((await runMain(['ingest', '--db', db, '--format', 'json', ...files])).stdout) as {
    retrieval: { added: number; skipped: number }[];
  };
  assert.ok(again.retrieval.every((r) => r.added === 0 && r.skipped > 0));
  const store = await openStore(db, { readOnly: true });
  try {
    const counts = await store.all<{ t: string; n: number }>(
      `SELECT 'gold' AS t, count(*)::INTEGER AS n FROM retrieval_gold UNION ALL
       SELECT 'results', count(*)::INTEGER FROM retrieval_results UNION ALL
       SELECT 'events', count(*)::INTEGER FROM retrieval_events`,
    );
    assert.deepEqual(
      counts.map((c) => c.n),
      [readJsonl(files[0]).length, readJsonl(files[1]).length, readJsonl(files[2]).length],
    );
    // Every metric is also a column.
    const p5 = await store.all<{ s: number }>(`SELECT sum(p_at_5) AS s FROM retrieval_results`);
    const expected = readJsonl(files[1]).reduce(
      (s, r) => s + ((r.metrics as { p_at_5: number }).p_at_5 ?? 0),
      0,
    );
    assert.ok(Math.abs(p5[0].s - expected) < 1e-12);
    const types = await store.all<{ type: string; n: number }>(
      `SELECT type, count(*)::INTEGER AS n FROM retrieval_events GROUP BY type ORDER BY type`,
    );
    assert.ok(types.length >= 2);
  } finally {
    store.close();
  }
});

test('result rows without metrics are scored on ingest as `retrieval score` scores them; a wrong carried metric is a warning', async () => {
  const db = freshDb();
  const gold = readJsonl(join(loop, 'gold.jsonl'));
  const results = readJsonl(join(loop, 'results.jsonl'));
  const bare = results.map(({ verdicts: _v, ...r }) => ({ ...r, metrics: {} }));
  const wrong = {
    ...results[0],
    id: results[0].id,
    request_id: 'wrong-1',
    metrics: { ...(results[0].metrics as object), p_at_5: 0.99 },
  };
  writeFileSync(join(temp, 'bare.jsonl'), jsonl([...bare, wrong]));
  // Gold given after the results on the command line: gold files are stored first.
  const out = await runMain([
    'ingest',
    '--db',
    db,
    '--format',
    'json',
    join(temp, 'bare.jsonl'),
    join(loop, 'gold.jsonl'),
  ]);
  assert.equal(out.code, 0, out.stderr);
  const report = JSON.parse(out.stdout) as {
    retrieval: { kind: string; scored: number }[];
    diagnostics: { code: string; pointer: string; line: number }[];
  };
  assert.equal(report.retrieval.find((r) => r.kind === 'result')!.scored, bare.length);
  const mismatch = report.diagnostics.filter((d) => d.code === 'retrieval.metric-mismatch');
  assert.deepEqual(
    mismatch.map((d) => [d.line, d.pointer]),
    [[bare.length + 1, '/metrics/p_at_5']],
  );
  const expected = scoreResults(
    gold.map((value, i) => ({ value, line: i + 1 })),
    bare.map((value, i) => ({ value, line: i + 1 })),
  ).rows;
  const store = await openStore(db, { readOnly: true });
  try {
    const stored = await store.all<{ request_id: string; metrics: string; scored_on_ingest: boolean }>(
      `SELECT request_id, metrics::VARCHAR AS metrics, scored_on_ingest FROM retrieval_results WHERE request_id <> 'wrong-1'`,
    );
    assert.equal(stored.length, bare.length);
    for (const row of stored) {
      const want = expected.find((r) => r.request_id === row.request_id)!.metrics;
      const got = JSON.parse(row.metrics) as Record<string, number>;
      for (const name of ['p_at_5', 'recall_at_5', 'ndcg_10', 'mrr_10', 'cov_entities'])
        if (typeof want[name] === 'number')
          assert.ok(Math.abs(got[name] - (want[name] as number)) < 1e-12, name);
      assert.equal(row.scored_on_ingest, true);
    }
  } finally {
    store.close();
  }
});

/** Two systems on five gold queries with known values. */
function twoSystems(): string {
  const gold = Array.from({ length: 5 }, (_, i) => ({
    schema_version: '0.1',
    id: `q${i}`,
    query: `query ${i}`,
    expected_ids: [`d${i}`],
    layers: ['L1'],
  }));
  const a = [0.6, 0.8, 0.5, 0.7, 0.9];
  const b = [0.4, 0.4, 0.4, 0.4, 0.5];
  const rows = [
    ...a.map((v, i) => ({
      schema_version: '0.1',
      id: `q${i}`,
      request_id: `a${i}`,
      tool_id: 'hybrid',
      layer: 'L1',
      model_id: 'embed-1',
      metrics: { p_at_5: v, p95_ms: 100 + i },
    })),
    ...b.map((v, i) => ({
      schema_version: '0.1',
      id: `q${i}`,
      request_id: `b${i}`,
      tool_id: 'bm25',
      layer: 'L1',
      model_id: 'embed-1',
      metrics: { p_at_5: v, p95_ms: 50 + i },
    })),
    // A repeated query of system a counts once (its rows are averaged).
    {
      schema_version: '0.1',
      id: 'q0',
      request_id: 'a0-again',
      tool_id: 'hybrid',
      layer: 'L1',
      model_id: 'embed-1',
      metrics: { p_at_5: 0.6, p95_ms: 100 },
    },
  ];
  writeFileSync(join(temp, 'gold5.jsonl'), jsonl(gold));
  writeFileSync(join(temp, 'two.jsonl'), jsonl(rows));
  return [join(temp, 'gold5.jsonl'), join(temp, 'two.jsonl')].join('\n');
}

test('leaderboard --retrieval ranks systems per metric with the direction, n queries, a CI and tiers', async () => {
  const db = freshDb();
  const files = twoSystems().split('\n');
  assert.equal((await runMain(['ingest', '--db', db, ...files])).code, 0);
  const out = await runMain(['leaderboard', '--retrieval', '--db', db, '--format', 'json']);
  assert.equal(out.code, 0, out.stderr);
  const boards = (
    JSON.parse(out.stdout) as {
      leaderboards: {
        metric: string;
        lower_is_better: boolean;
        rows: {
          tool_id: string;
          score: number;
          n: number;
          ci: [number, number];
          tier: number;
          rank: number;
        }[];
      }[];
    }
  ).leaderboards;
  const p5 = boards.find((b) => b.metric === 'p_at_5')!;
  assert.equal(p5.lower_is_better, false);
  assert.deepEqual(
    p5.rows.map((r) => r.tool_id),
    ['hybrid', 'bm25'],
  );
  assert.ok(Math.abs(p5.rows[0].score - 0.7) < 1e-12);
  assert.ok(Math.abs(p5.rows[1].score - 0.42) < 1e-12);
  assert.deepEqual(
    p5.rows.map((r) => r.n),
    [5, 5],
  );
  for (const r of p5.rows) assert.ok(r.ci[0] <= r.score && r.score <= r.ci[1]);
  // scipy.stats.ttest_rel(a, b).pvalue = 0.00864 < 0.05 (a single gap: Holm leaves it): two tiers.
  assert.deepEqual(
    p5.rows.map((r) => r.tier),
    [1, 2],
  );
  const latency = boards.find((b) => b.metric === 'p95_ms')!;
  assert.equal(latency.lower_is_better, true);
  assert.deepEqual(
    latency.rows.map((r) => r.tool_id),
    ['bm25', 'hybrid'],
  );
  const text = await runMain(['leaderboard', '--retrieval', '--db', db]);
  assert.match(text.stdout, /retrieval · p_at_5 \(higher is better\)/);
});

test('compare --retrieval pairs two systems on common queries: t test as scipy, exact sign test, names resolved', async () => {
  const db = freshDb();
  assert.equal((await runMain(['ingest', '--db', db, ...twoSystems().split('\n')])).code, 0);
  const out = await runMain([
    'compare',
    '--retrieval',
    'hybrid',
    'tool_id=bm25',
    '--db',
    db,
    '--format',
    'json',
    '--bootstrap',
    '2000',
  ]);
  assert.equal(out.code, 0, out.stderr);
  const report = JSON.parse(out.stdout) as {
    model_a: string;
    comparisons: {
      metric: string;
      n_paired: number;
      difference: number;
      p_value: number;
      df: number;
      sign_test: { a_higher: number; b_higher: number; p_value: number };
      bootstrap: { ci: [number, number] };
    }[];
  };
  assert.equal(report.model_a, 'model_id=embed-1,tool_id=hybrid,layer=L1');
  const p5 = report.comparisons.find((c) => c.metric === 'p_at_5')!;
  assert.equal(p5.n_paired, 5);
  assert.ok(Math.abs(p5.difference - 0.28) < 1e-12);
  // scipy.stats.ttest_rel([.6,.8,.5,.7,.9], [.4,.4,.4,.4,.5]): statistic 4.80196, pvalue 0.0086358, df 4.
  assert.ok(Math.abs(p5.p_value - 0.00863579260755155) < 1e-9);
  assert.equal(p5.df, 4);
  // scipy.stats.binomtest(5, 5).pvalue = 0.0625
  assert.deepEqual([p5.sign_test.a_higher, p5.sign_test.b_higher], [5, 0]);
  assert.ok(Math.abs(p5.sign_test.p_value - 0.0625) < 1e-12);
  assert.ok(p5.bootstrap.ci[0] > 0 && p5.bootstrap.ci[1] <= 0.5);

  const ambiguous = await runMain(['compare', '--retrieval', 'embed-1', 'bm25', '--db', db]);
  assert.equal(ambiguous.code, 1);
  assert.match(ambiguous.stderr, /matches 2 retrieval systems/);
  assert.match(ambiguous.stderr, /tool_id=hybrid/);
  assert.match(ambiguous.stderr, /tool_id=bm25/);
});

test('compare --retrieval with no variance in the differences says the t test is undefined and uses the exact test', async () => {
  const db = freshDb();
  const gold = Array.from({ length: 3 }, (_, i) => ({
    schema_version: '0.1',
    id: `z${i}`,
    query: 'q',
    expected_ids: ['x'],
    layers: ['L1'],
  }));
  const rows = [0, 1, 2].flatMap((i) => [
    { schema_version: '0.1', id: `z${i}`, request_id: `x${i}`, tool_id: 'good', metrics: { hit: 1 } },
    { schema_version: '0.1', id: `z${i}`, request_id: `y${i}`, tool_id: 'bad', metrics: { hit: 0 } },
  ]);
  writeFileSync(join(temp, 'zg.jsonl'), jsonl(gold));
  writeFileSync(join(temp, 'zr.jsonl'), jsonl(rows));
  assert.equal(
    (await runMain(['ingest', '--db', db, join(temp, 'zg.jsonl'), join(temp, 'zr.jsonl')])).code,
    0,
  );
  const out = await runMain(['compare', '--retrieval', 'good', 'bad', '--db', db, '--format', 'json']);
  const c = (
    JSON.parse(out.stdout) as {
      comparisons: { p_value: null; se: null; reason: string; mcnemar: { p_value: number } }[];
    }
  ).comparisons[0];
  assert.equal(c.p_value, null);
  assert.equal(c.se, null);
  assert.match(c.reason, /no variance/);
  assert.ok(Math.abs(c.mcnemar.p_value - 0.25) < 1e-12); // McNemar exact with 3 discordant pairs, all one way
  const text = await runMain(['compare', '--retrieval', 'good', 'bad', '--db', db]);
  assert.doesNotMatch(text.stdout, /p < 1e-/);
  assert.match(text.stdout, /no significant difference/);
});

test('export parquet carries the retrieval tables, and ingesting the export restores them row for row', async () => {
  const db = freshDb();
  const files = ['gold.jsonl', 'results.jsonl', 'events.jsonl'].map((f) => join(loop, f));
  assert.equal((await runMain(['ingest', '--db', db, ...files])).code, 0);
  const dir = join(temp, `export-${n}`);
  const exported = await runMain(['export', 'parquet', dir, '--db', db]);
  assert.equal(exported.code, 0, exported.stderr);
  const copy = freshDb();
  const back = await runMain(['ingest', '--db', copy, '--format', 'json', dir]);
  assert.equal(back.code, 0, back.stderr);
  const dump = async (path: string) => {
    const store = await openStore(path, { readOnly: true });
    try {
      return {
        gold: await store.all(`SELECT row_key, raw::VARCHAR AS raw FROM retrieval_gold ORDER BY row_key`),
        results: await store.all(
          `SELECT row_key, raw::VARCHAR AS raw, p_at_5 FROM retrieval_results ORDER BY row_key`,
        ),
        events: await store.all(
          `SELECT event_key, type, ts_ms, raw::VARCHAR AS raw FROM retrieval_events ORDER BY event_key`,
        ),
      };
    } finally {
      store.close();
    }
  };
  const original = await dump(db);
  assert.ok(original.events.length > 0 && original.results.length > 0 && original.gold.length > 0);
  assert.deepEqual(await dump(copy), original);
});
