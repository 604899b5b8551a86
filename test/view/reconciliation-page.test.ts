// The viewer in a real Chromium shows a result whose rows disagree with its source (the reconciliation outcome its
// record keeps): on the leaderboard (n marked, the note under the board), on the record page (each result against
// its source) and on the compare page. The store is built by `evalkit ingest` from a generated lm-eval run whose
// task "short" declares 312 samples and holds 8 rows.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { skipWithoutChromium } from '../helpers/browser.js';
import { cli } from '../helpers/cli.js';
import { openStore } from '../../src/store/db.js';
import { startViewServer } from '../../src/view/server.js';
import { openView, viewUrl, watchedPage, withBrowser } from './harness.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-view-reconcile-'));
after(() => rmSync(temp, { recursive: true, force: true }));

const TS = '2025-05-06T07-08-09.101112';
const NOTE = 'rows disagree with the source: n 8 stored, 312 declared';

/** An lm-eval run of two tasks: "agree" (4 rows, 4 declared) and "short" (8 rows, 312 declared). */
function writeRun(dir: string, model: string): string {
  mkdirSync(dir, { recursive: true });
  const line = (task: string, doc: number, acc: number) => {
    const prompt = `${task} question ${doc}?`;
    return JSON.stringify({
      doc_id: doc,
      target: 0,
      arguments: {
        gen_args_0: { arg_0: prompt, arg_1: ' yes' },
        gen_args_1: { arg_0: prompt, arg_1: ' no' },
      },
      resps: [[['-0.5', 'True']], [['-1.5', 'False']]],
      filtered_resps: [
        ['-0.5', 'True'],
        ['-1.5', 'False'],
      ],
      filter: 'none',
      metrics: ['acc'],
      acc,
    });
  };
  const tasks = { agree: [1, 0, 1, 1], short: [1, 0, 1, 0, 1, 0, 1, 0] };
  for (const [task, accs] of Object.entries(tasks))
    writeFileSync(
      join(dir, `samples_${task}_${TS}.jsonl`),
      `${accs.map((a, i) => line(task, i, a)).join('\n')}\n`,
    );
  const path = join(dir, `results_${TS}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      results: { agree: { 'acc,none': 0.75 }, short: { 'acc,none': 0.5 } },
      'n-samples': { agree: { original: 4, effective: 4 }, short: { original: 312, effective: 312 } },
      configs: {
        agree: { task: 'agree', output_type: 'multiple_choice' },
        short: { task: 'short', output_type: 'multiple_choice' },
      },
      model_name: model,
      lm_eval_version: '0.4.8',
    }),
  );
  return path;
}

test(
  'viewer: leaderboard, record and compare pages show that rows disagree with the source',
  { skip: skipWithoutChromium(), timeout: 180_000 },
  async () => {
    const db = join(temp, 'store.duckdb');
    for (const model of ['org/model-a', 'org/model-b']) {
      const r = await cli(['ingest', '--db', db, '--no-progress', writeRun(join(temp, model), model)]);
      assert.equal(r.code, 0, r.stdout + r.stderr);
    }
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
