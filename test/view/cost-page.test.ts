// The viewer's score-versus-cost page in a real Chromium: each model with a cost is a point, the Pareto front (the
// models no other beats on both cost and score, derived here from the numbers) is marked and joined, and a model
// whose result states no cost is listed as such, never drawn at 0. The store is built by `evalkit ingest` from
// generated Inspect logs whose samples carry model_usage total_cost.
// test-runner: own process (a real Chromium: as a job of its own it keeps the batches short).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { skipWithoutChromium } from '../helpers/browser.js';
import { inspectLog } from '../store/partial-runs-fixture.js';
import { openStore } from '../../src/store/db.js';
import { ingestPaths } from '../../src/store/ingest.js';
import { startViewServer } from '../../src/view/server.js';
import { openView, viewUrl, watchedPage, withBrowser } from './harness.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-view-cost-'));
after(() => rmSync(temp, { recursive: true, force: true }));

const ones = (n: number, of: number) => Array.from({ length: of }, (_, i) => (i < n ? 1 : 0));

/** Four models on one benchmark: right answers of 30, and each sample's cost (null: the log states none). */
const MODELS: [string, number, number | null][] = [
  ['openai/gpt-cheap', 24, 0.002],
  ['openai/gpt-strong', 27, 0.01],
  ['openai/gpt-wasteful', 20, 0.005],
  ['openai/gpt-unpriced', 29, null],
];

/** The models on the Pareto front, from the numbers: no other is at most as costly and strictly better or cheaper. */
function expectedFront(): string[] {
  const priced = MODELS.filter(([, , c]) => c !== null);
  return priced
    .filter(
      ([m, s, c]) => !priced.some(([o, s2, c2]) => o !== m && c2! <= c! && s2 >= s && (c2! < c! || s2 > s)),
    )
    .map(([m]) => m)
    .sort();
}

test(
  'viewer: score versus cost per benchmark, the Pareto front marked, a model without cost listed, not drawn',
  { skip: skipWithoutChromium(), timeout: 180_000 },
  async () => {
    const dir = join(temp, 'logs');
    mkdirSync(dir);
    for (const [model, right, cost] of MODELS) {
      const log = inspectLog(model, 'success', ones(right, 30), 30, 0.05) as any;
      if (cost !== null)
        for (const s of log.samples)
          s.model_usage = {
            [model]: { input_tokens: 100, output_tokens: 10, total_tokens: 110, total_cost: cost },
          };
      writeFileSync(join(dir, `${model.replace('/', '_')}.json`), JSON.stringify(log));
    }
    const db = join(temp, 'store.duckdb');
    const writer = await openStore(db, { readOnly: false });
    const ingested = await ingestPaths(writer, [dir], { cwd: temp });
    assert.equal(ingested.summary.records, MODELS.length, JSON.stringify(ingested.summary));
    writer.close();
    const store = await openStore(db, { readOnly: true });
    const server = await startViewServer({ store, port: 0 });
    try {
      await withBrowser(async (context) => {
        const { page, problems } = await watchedPage(context, new URL(server.url).origin);
        await openView(page, viewUrl(server.url, '#/cost?benchmark=popularity'));
        const board = page.locator('[data-testid="cost-board"][data-benchmark="popularity"]');
        assert.equal(await board.count(), 1);
        const points = await board
          .locator('[data-testid="cost-point"]')
          .evaluateAll((els) =>
            els.map((e) => [
              e.getAttribute('data-model'),
              e.getAttribute('data-pareto'),
              Number(e.getAttribute('cx')),
              Number(e.getAttribute('cy')),
            ]),
          );
        // Drawn: every model with a cost, none without.
        assert.deepEqual(points.map((p) => p[0]).sort(), [
          'openai/gpt-cheap',
          'openai/gpt-strong',
          'openai/gpt-wasteful',
        ]);
        assert.deepEqual(
          points
            .filter((p) => p[1] === '1')
            .map((p) => p[0])
            .sort(),
          expectedFront(),
        );
        // Placed by cost (x grows with it) and score (y shrinks as it grows).
        const at = new Map(points.map((p) => [p[0], p as [string, string, number, number]]));
        assert.ok(at.get('openai/gpt-cheap')![2] < at.get('openai/gpt-wasteful')![2]);
        assert.ok(at.get('openai/gpt-wasteful')![2] < at.get('openai/gpt-strong')![2]);
        assert.ok(at.get('openai/gpt-strong')![3] < at.get('openai/gpt-cheap')![3]);
        assert.equal(await board.locator('[data-testid="pareto-front"]').count(), 1);
        // The table lists every model, the one without cost as such.
        const rows = await board
          .locator('[data-testid="cost-table"] tbody tr')
          .evaluateAll((trs) =>
            trs.map((tr) =>
              ['model', 'per-sample', 'pareto'].map(
                (c) => (tr.querySelector(`[data-col="${c}"]`) as HTMLElement).innerText,
              ),
            ),
          );
        const unpriced = rows.find((r) => r[0] === 'openai/gpt-unpriced')!;
        assert.deepEqual(unpriced.slice(1), ['no cost', '—']);
        assert.deepEqual(rows.find((r) => r[0] === 'openai/gpt-cheap')!.slice(1), ['$0.002', 'yes']);
        assert.deepEqual(problems, []);
      });
    } finally {
      await server.close();
      store.close();
    }
  },
);
