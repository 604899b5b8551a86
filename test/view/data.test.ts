// The viewer's queries over a real DuckDB store: the server's SQL paging and the static export's in-browser paging
// agree on every filter, search and sort; counts and details are those of the rows written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../src/store/db.js';
import {
  allSamples,
  inferevalDetail,
  modelResults,
  overview,
  querySamples,
  recordDetail,
  retrievalDetail,
  sampleDetail,
} from '../../src/view/data.js';
import { pageRequest, pageRows } from '../../src/view/shared/query.js';
import { MODELS, QUIZ_ROWS, buildFixtureStore, quizCorrect } from './fixture.js';

const A = 'a'.repeat(64);

async function withStore(use: (store: Store) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'evalkit-view-data-'));
  try {
    const path = join(dir, 'fixture.duckdb');
    await buildFixtureStore(path);
    const store = await openStore(path, { readOnly: true });
    try {
      await use(store);
    } finally {
      store.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('SQL paging and the static export paging give the same pages', async () => {
  await withStore(async (store) => {
    const all = await allSamples(store, A, 0);
    assert.equal(all.length, QUIZ_ROWS);
    const requests = [
      {},
      { filter: 'correct' },
      { filter: 'incorrect', sort: 'score' },
      { q: 'QUESTION 2', sort: '-score' },
      { q: 'i think', limit: '3', offset: '2' },
      { sort: '-score', offset: '35', limit: '10' },
      { q: 'no such text' },
      { offset: '100' },
    ];
    for (const params of requests) {
      const request = pageRequest(params);
      const sql = await querySamples(store, A, 0, request);
      assert.deepEqual(sql, pageRows(all, request), JSON.stringify(params));
    }
    const wrong = await querySamples(store, A, 0, pageRequest({ filter: 'incorrect' }));
    const expected = Array.from({ length: QUIZ_ROWS }, (_, i) => i).filter((i) => !quizCorrect('a', i));
    assert.equal(wrong.total, expected.length);
    assert.deepEqual(
      wrong.rows.map((r) => r.row_index),
      expected,
    );
  });
});

test('overview, model, record, sample, infereval and retrieval answers', async () => {
  await withStore(async (store) => {
    const o = await overview(store);
    assert.deepEqual(
      { ...o.counts },
      { collections: 1, benchmarks: 2, models: 3, records: 3, results: 4, samples: 83, documents: 2 },
    );
    assert.deepEqual(o.filters.developer, ['acme', 'bravo', 'evil']);
    assert.equal(o.ingests[0]!.rejected, 2);

    const m = await modelResults(store, MODELS.a);
    assert.deepEqual(
      m.results.map((r) => [r.evaluation_name, r.samples, r.score]),
      [
        ['agent tasks', 1, 1],
        ['quiz', QUIZ_ROWS, 30 / 40],
      ],
    );
    await assert.rejects(modelResults(store, 'nobody'), /no model/);

    const r = await recordDetail(store, 'c'.repeat(64));
    assert.equal(r.diagnostics.length, 1);
    assert.equal(r.record.sample_count, 2);
    assert.equal((r.raw as { model_info: { id: string } }).model_info.id, MODELS.x);

    const s = await sampleDetail(store, { record: A, row: '40' });
    assert.equal(s.interaction_type, 'agentic');
    const messages = (s.raw as { messages: unknown[] }).messages;
    assert.equal(messages.length, 4, 'the whole row rebuilt, transcript included');
    assert.equal((s.raw as { sample_id: string }).sample_id, 'tools-0001');

    const eta = await inferevalDetail(store, A);
    // Computed independently from examples/report/evaluation.json: 24 items, model × consensus counts.
    assert.equal(eta.items.length, 24);
    assert.equal(
      eta.confusion.flat().reduce((a, b) => a + b, 0),
      24,
    );
    assert.ok(
      eta.kappa_c.ci &&
        eta.kappa_c.ci[0] < eta.kappa_c.estimate! &&
        eta.kappa_c.estimate! < eta.kappa_c.ci[1],
    );

    const ret = await retrievalDetail(store, 'b'.repeat(64));
    assert.equal(ret.scored, 3);
    const q1 = ret.queries.find((q) => q.id === 'q1')!;
    // q1 retrieves doc-ferry-history (rank 1) and doc-founders (rank 4) of its 2 expected ids: P@5 = 2/5.
    assert.equal(q1.metrics.p_at_5, 0.4);
    assert.equal(q1.metrics.recall_at_5, 1);
  });
});
