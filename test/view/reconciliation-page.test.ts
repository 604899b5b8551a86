// The viewer in a real Chromium shows a result whose rows disagree with its source (the reconciliation outcome its
// record keeps): on the leaderboard (n marked, the note under the board), on the record page (each result against
// its source) and on the compare page. The store is built by `evalkit ingest` from a generated lm-eval run whose
// task "short" declares 312 samples and holds 8 rows.
// test-runner: own process (a real Chromium: as a job of its own it keeps the batches short).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { skipWithoutChromium } from '../helpers/browser.js';
import { writeReconcileRun } from '../convert/reconcile-fixture.js';
import { openStore } from '../../src/store/db.js';
import { ingestPaths } from '../../src/store/ingest.js';
import { startViewServer } from '../../src/view/server.js';
import { openView, viewUrl, watchedPage, withBrowser } from './harness.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-view-reconcile-'));
after(() => rmSync(temp, { recursive: true, force: true }));

const NOTE = 'rows disagree with the source: n 8 stored, 312 declared';

/** An lm-eval run of two tasks: "agree" (4 rows, 4 declared) and "short" (8 rows, 312 declared). */
const writeRun = (dir: string, model: string): string =>
  writeReconcileRun(dir, model, {
    agree: { score: 0.75, n: 4, values: [1, 0, 1, 1] },
    short: { score: 0.5, n: 312, values: [1, 0, 1, 0, 1, 0, 1, 0] },
  });

test(
  'viewer: leaderboard, record and compare pages show that rows disagree with the source',
  { skip: skipWithoutChromium(), timeout: 180_000 },
  async () => {
    const db = join(temp, 'store.duckdb');
    // Stored through the ingest library with the writer closed before the viewer opens the file, as the other
    // viewer tests do (an in-process CLI ingest beside the reader crashed this process once under load).
    const writer = await openStore(db, { readOnly: false });
    for (const model of ['org/model-a', 'org/model-b']) {
      const ingested = await ingestPaths(writer, [writeRun(join(temp, model), model)], { cwd: temp });
      assert.equal(ingested.summary.records, 1, JSON.stringify(ingested.summary));
    }
    writer.close();
    const store = await openStore(db, { readOnly: true });
    const [{ record_key: key }] = await store.all<{ record_key: string }>(
      "SELECT record_key FROM records WHERE model_id = 'org/model-a'",
    );
    const server = await startViewServer({ store, port: 0 });
    try {
      await withBrowser(async (context) => {
        const { page, problems } = await watchedPage(context, new URL(server.url).origin);
        await openView(page, viewUrl(server.url, '#/leaderboard?benchmark=short'));
        const board = await page.locator('[data-testid="disagreement"]').allInnerTexts();
        assert.deepEqual(board, [`! org/model-a: ${NOTE}`, `! org/model-b: ${NOTE}`]);
        await openView(page, viewUrl(server.url, '#/leaderboard?benchmark=agree'));
        assert.equal(await page.locator('[data-testid="disagreement"]').count(), 0);

        await openView(page, viewUrl(server.url, `#/record?key=${encodeURIComponent(key!)}`));
        assert.deepEqual(await page.locator('[data-testid="disagreement"]').allInnerTexts(), [NOTE]);
        assert.deepEqual(await page.locator('[data-testid="reconciliation"]').allInnerTexts(), [
          'reconciled',
        ]);

        await openView(page, viewUrl(server.url, '#/compare?a=org%2Fmodel-a&b=org%2Fmodel-b'));
        assert.deepEqual(await page.locator('[data-testid="source-disagreement"]').allInnerTexts(), [
          `! short — acc, A: ${NOTE}`,
          `! short — acc, B: ${NOTE}`,
        ]);
        assert.deepEqual(problems, []);
      });
    } finally {
      await server.close();
      store.close();
    }
  },
);
