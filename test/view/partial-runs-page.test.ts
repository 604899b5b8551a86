// Issue 30, defect 4 in the viewer, in a real Chromium: a run that did not finish is not ranked beside finished ones
// unless "Include partial runs" is ticked (URL state `partial=1`), then marked with its status; the record page of
// such a run says so instead of only "Valid: no warnings", and a zero-width interval from it is not shown as a
// measurement; the compare page names each side's unfinished run; the static export carries the toggled boards. The
// store is built by `evalkit ingest` from generated Inspect logs, plus the real errored and cancelled logs of
// ../shared/reference/peers-wild-2 when present.
// test-runner: own process (a real Chromium: as a job of its own it keeps the batches short).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Page } from 'playwright-core';
import { skipWithoutChromium } from '../helpers/browser.js';
import { cli } from '../helpers/cli.js';
import { reference, withReference } from '../helpers/shared.js';
import { CANCELLED, ERRORED, inspectLog } from '../store/partial-runs-fixture.js';
import { openStore, type Store } from '../../src/store/db.js';
import { exportStaticSite } from '../../src/view/export.js';
import { startViewServer } from '../../src/view/server.js';
import { canonicalQuery, exportKey } from '../../src/view/shared/query.js';
import type { Leaderboards } from '../../src/view/shared/types.js';
import { openView, viewUrl, watchedPage, withBrowser } from './harness.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-view-partial-'));
after(() => rmSync(temp, { recursive: true, force: true }));

const ones = (n: number, of: number) => Array.from({ length: of }, (_, i) => (i < n ? 1 : 0));

/** The store's record of a model (the one record each model has here). */
async function recordOf(store: Store, model: string): Promise<string> {
  const rows = await store.all<{ record_key: string }>(`SELECT record_key FROM records WHERE model_id = $1`, [
    model,
  ]);
  assert.equal(rows.length, 1, `one record of ${model}`);
  return rows[0]!.record_key;
}

/** The popularity board's rows: [model cell, CI cell, CI method cell]. */
async function boardRows(page: Page): Promise<string[][]> {
  return page
    .locator('[data-testid="board"][data-benchmark="popularity"] tbody tr')
    .evaluateAll((trs) =>
      trs.map((tr) =>
        ['model', 'ci', 'method'].map(
          (col) => (tr.querySelector(`[data-col="${col}"]`) as HTMLElement).innerText,
        ),
      ),
    );
}

/**
 * A store of three generated runs (one finished, two errored) plus the real errored and cancelled logs when
 * present (`real`: their paths).
 */
async function buildStore(name: string, withReal: boolean): Promise<{ db: string; real: string[] }> {
  const dir = join(temp, name);
  mkdirSync(dir);
  const logs: [string, object][] = [
    ['done.json', inspectLog('openai/gpt-4o', 'success', ones(24, 30), 30, 0.08)],
    // Stopped at 20 of 30 samples, every one right.
    ['errored.json', inspectLog('anthropic/claude-x', 'error', ones(20, 20), 30, 0)],
    // Errored before any sample: a headline of 0 with a stderr of 0, a zero-width interval.
    ['stalled.json', inspectLog('anthropic/claude-stalled', 'error', [], 30, 0)],
  ];
  for (const [file, log] of logs) writeFileSync(join(dir, file), JSON.stringify(log));
  const real = withReal ? [ERRORED, CANCELLED].map((p) => reference(p)).filter((p) => p !== undefined) : [];
  const db = join(temp, `${name}.duckdb`);
  const r = await cli(['ingest', '--db', db, '--no-progress', dir, ...real]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  return { db, real };
}

test(
  'viewer: unfinished runs on the leaderboard (toggle, badge), the record page (run status, no zero-width CI) and compare',
  { skip: skipWithoutChromium(), timeout: 240_000 },
  async (t) => {
    const { db, real } = await buildStore('logs', true);
    const store = await openStore(db, { readOnly: true });
    const server = await startViewServer({ store, port: 0 });
    try {
      await withBrowser(async (context) => {
        const { page, problems } = await watchedPage(context, new URL(server.url).origin);

        // Leaderboard: finished runs only, and a note of how many were left out.
        await openView(page, viewUrl(server.url, '#/leaderboard?benchmark=popularity'));
        assert.deepEqual(
          (await boardRows(page)).map(([model]) => model),
          ['openai/gpt-4o'],
        );
        assert.equal(await page.locator('input[name="partial"]').isChecked(), false);
        const unranked = 2 + real.length;
        assert.match(
          await page.locator('[data-testid="unranked-partial"]').innerText(),
          new RegExp(`^${unranked} unfinished runs .* not ranked; "Include partial runs" ranks them`),
        );

        // Ticked: the URL keeps it, every run is ranked, the unfinished ones marked; no zero-width CI is shown.
        await page.locator('input[name="partial"]').check();
        await page.waitForFunction(() => location.hash.includes('partial=1'));
        await page.waitForFunction(
          (n) => document.querySelectorAll('[data-testid="board"] tbody tr').length === n,
          1 + unranked,
        );
        const rows = await boardRows(page);
        const byModel = new Map(rows.map(([model, ci, method]) => [model, [ci, method]]));
        assert.deepEqual(byModel.get('openai/gpt-4o')?.[1], 'Wilson');
        assert.ok(byModel.has('anthropic/claude-x [run error]'), rows.join('\n'));
        assert.deepEqual(byModel.get('anthropic/claude-stalled [run error]'), ['—', '—'], rows.join('\n'));
        assert.equal(await page.locator('[data-testid="unranked-partial"]').count(), 0);
        await withReference(t, ERRORED, 'the real errored log is ranked only when asked, marked', () => {
          assert.deepEqual(byModel.get('unknown/model [run error]'), ['—', '—'], rows.join('\n'));
        });
        await withReference(t, CANCELLED, 'the real cancelled log is ranked only when asked, marked', () => {
          assert.ok(byModel.has('openai/gpt-4o-mini [run cancelled]'), rows.join('\n'));
        });
        // Reloaded from its URL, the view is the same.
        await page.reload();
        await openView(page, page.url());
        assert.equal(await page.locator('input[name="partial"]').isChecked(), true);
        assert.equal((await boardRows(page)).length, 1 + unranked);

        // Record pages: the run status beside the validation, and no interval from the stalled run.
        const recordPage = async (model: string) => {
          const key = await recordOf(store, model);
          await openView(page, viewUrl(server.url, `#/record?key=${encodeURIComponent(key)}`));
          return {
            validation: await page.locator('[data-testid="validation"]').getAttribute('class'),
            status: await page.locator('[data-testid="run-status"]').allInnerTexts(),
            ci: await page.locator('td[data-col="ci"]').allInnerTexts(),
            withheld: await page.locator('[data-testid="ci-withheld"]').allInnerTexts(),
          };
        };
        const done = await recordPage('openai/gpt-4o');
        assert.equal(done.validation, 'status ok');
        assert.deepEqual(done.status, []);
        const stalled = await recordPage('anthropic/claude-stalled');
        assert.equal(stalled.validation, 'status warn');
        assert.equal(stalled.status.length, 1);
        assert.match(
          stalled.status[0]!,
          /^Run error: the run did not finish \(RuntimeError: the provider went away\), so its results/,
        );
        assert.deepEqual(stalled.ci, ['—']);
        assert.deepEqual(stalled.withheld, ['none: zero width, run error']);
        const errored = await recordPage('anthropic/claude-x');
        assert.match(errored.status.join(), /^Run error/);
        assert.deepEqual(errored.withheld, []);
        await withReference(t, ERRORED, 'the record page of the real errored log', async () => {
          const realErrored = await recordPage('unknown/model');
          assert.equal(realErrored.validation, 'status warn');
          assert.match(realErrored.status.join(), /^Run error: the run did not finish/);
          assert.deepEqual(realErrored.ci, ['—']);
          assert.deepEqual(realErrored.withheld, ['none: zero width, run error']);
        });
        await withReference(t, CANCELLED, 'the record page of the real cancelled log', async () => {
          const cancelled = await recordPage('openai/gpt-4o-mini');
          assert.match(cancelled.status.join(), /^Run cancelled: the run did not finish/);
        });

        // Compare: the side whose run did not finish is named.
        await openView(page, viewUrl(server.url, '#/compare?a=anthropic%2Fclaude-x&b=openai%2Fgpt-4o'));
        await page.locator('[data-testid="run-status"]', { hasText: 'accuracy, A:' }).first().waitFor();
        assert.deepEqual(await page.locator('[data-testid="run-status"]').allInnerTexts(), [
          '! popularity — accuracy, A: the run did not finish (run error); its result covers only the samples it got through',
        ]);
        await openView(page, viewUrl(server.url, '#/compare?a=openai%2Fgpt-4o&b=anthropic%2Fclaude-stalled'));
        // Only a hash changed since the last page: wait for this comparison to be drawn, not the previous one.
        await page.locator('[data-testid="run-status"]', { hasText: 'accuracy, B:' }).first().waitFor();
        assert.deepEqual(
          (await page.locator('[data-testid="run-status"]').allInnerTexts()).map((s) => s.split(':')[0]),
          ['! popularity — accuracy, B'],
        );
        assert.deepEqual(problems, []);
      });
    } finally {
      await server.close();
      store.close();
    }
  },
);

test('static export: a board that leaves unfinished runs out is also exported with them ranked', async () => {
  const { db } = await buildStore('export', false);
  const store = await openStore(db, { readOnly: true });
  const site = join(temp, 'site');
  try {
    await exportStaticSite(store, site);
  } finally {
    store.close();
  }
  const board = (params: Record<string, string>): Leaderboards | undefined => {
    const file = join(site, 'data', 'leaderboard', `${exportKey(canonicalQuery(params))}.json`);
    return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
  };
  const models = (b: Leaderboards | undefined) => b?.leaderboards[0]?.rows.map((r) => r.model_id);
  const boards: Record<string, string>[] = [
    {},
    { benchmark: 'popularity' },
    { benchmark: 'popularity', metric: 'accuracy' },
  ];
  for (const params of boards) {
    assert.deepEqual(models(board(params)), ['openai/gpt-4o'], JSON.stringify(params));
    assert.equal(board(params)?.unranked_partial_runs, 2);
    assert.deepEqual(
      models(board({ ...params, partial: '1' })),
      ['anthropic/claude-x', 'openai/gpt-4o', 'anthropic/claude-stalled'],
      JSON.stringify(params),
    );
  }
  // A board with nothing left out has no second copy.
  assert.equal(board({ composite: '1', partial: '1' }), undefined);
});
