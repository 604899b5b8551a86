// The retrieval page in real Chromium over a store filled by `evalkit ingest` of the loop example: the systems
// table shows `retrievalLeaderboards`' means, a gold query's hits are marked in each system's ranked ids, another
// query is picked through the URL, markup in a query stays text, the gate and events tables show, and the page fits a 1,280 px window.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skipWithoutChromium } from '../helpers/browser.js';
import { cli } from '../helpers/cli.js';
import { openStore } from '../../src/store/db.js';
import { retrievalLeaderboards } from '../../src/store/retrieval/stats.js';
import { fmt } from '../../src/view/shared/format.js';
import { startViewServer } from '../../src/view/server.js';
import { eventually, openView, viewUrl, watchedPage, withBrowser } from './harness.js';
import { buildRetrievalStore, loop, readJsonl } from './retrieval-fixture.js';

const HOSTILE = '<img src=x onerror="alert(1)"> <b>bold</b>';
const HOSTILE_ID = 'doc:<script>alert(2)</script>';
const temp = mkdtempSync(join(tmpdir(), 'evalkit-view-retrieval-page-'));
after(() => rmSync(temp, { recursive: true, force: true }));

test(
  'retrieval page: systems table, hits marked, a query picked by URL, markup as text, gate and events, fits 1,280 px',
  { skip: skipWithoutChromium(), timeout: 180_000 },
  async () => {
    const db = await buildRetrievalStore(temp);
    // A query whose texts are markup: the page shows them as text.
    const hostile = join(temp, 'hostile');
    mkdirSync(hostile);
    writeFileSync(
      join(hostile, 'gold.jsonl'),
      JSON.stringify({
        schema_version: '0.1',
        id: 'qx',
        query: HOSTILE,
        expected_ids: [HOSTILE_ID],
        layers: ['L9'],
      }) + '\n',
    );
    writeFileSync(
      join(hostile, 'results.jsonl'),
      JSON.stringify({
        schema_version: '0.1',
        id: 'qx',
        request_id: 'req-x',
        model_id: 'embed-small-v3',
        layer: 'L9',
        retrieved_ids: ['doc:other', HOSTILE_ID],
        metrics: { p95_ms: 10 },
      }) + '\n',
    );
    const added = await cli([
      'ingest',
      '--db',
      db,
      join(hostile, 'gold.jsonl'),
      join(hostile, 'results.jsonl'),
    ]);
    assert.equal(added.code, 0, added.stderr + added.stdout);
    const store = await openStore(db, { readOnly: true });
    const server = await startViewServer({ store, port: 0 });
    try {
      const boards = await retrievalLeaderboards(store, { metric: 'p_at_5' });
      const gold = new Map(
        readJsonl(join(loop, 'gold.jsonl')).map((g) => [g.id, g.expected_ids as string[]]),
      );
      const results = readJsonl(join(loop, 'results.jsonl'));
      await withBrowser(async (context) => {
        const w = await watchedPage(context, new URL(server.url).origin);
        await openView(w.page, viewUrl(server.url, '#/retrieval?query=q1'));

        // The systems table: one row per system, p_at_5 means as the leaderboard has them.
        const systems = w.page.locator('[data-testid=retrieval-systems] tbody tr');
        assert.equal(await systems.count(), boards[0].rows.length);
        for (const r of boards[0].rows) {
          const row = systems.filter({ hasText: r.system });
          assert.equal(await row.count(), 1, r.system);
          assert.match(
            await row.locator('td[data-col=p_at_5] .score').innerText(),
            new RegExp(`^${fmt(r.score, 3)}$`),
          );
        }

        // q1: the loop system's ranked ids, hits marked where the id is a gold id.
        const check = async (id: string) => {
          const expected = new Set(gold.get(id)!);
          const ranked = results.find((r) => r.id === id)!.retrieved_ids as string[];
          const row = w.page
            .locator('[data-testid=retrieval-query-rows] tbody tr')
            .filter({ hasText: 'model_id=embed-small-v3' });
          const items = row.locator('ol.ranked li');
          assert.deepEqual(
            await items.evaluateAll((lis) =>
              lis.map((li) => [li.querySelector('.mono')!.textContent, li.className]),
            ),
            ranked.map((x) => [x, expected.has(x) ? 'hit' : 'miss']),
          );
          assert.ok(
            ranked.some((x) => expected.has(x)),
            `${id} has a hit to show`,
          );
          assert.deepEqual(await w.page.locator('.gold-ids li').allInnerTexts(), [...expected]);
        };
        await check('q1');

        // Another query, picked in the select: the URL carries it and the page shows its hits.
        await w.page.selectOption('select[name=query]', 'q2');
        await w.page.waitForFunction(() => location.hash.includes('query=q2'));
        await openView(w.page, w.page.url());
        await check('q2');

        // Sorting the systems is a URL parameter of its own (the documents' table below has `sort`).
        await w.page.locator('[data-testid=retrieval-systems] button.sort', { hasText: 'p_at_5' }).click();
        await w.page.waitForFunction(() => location.hash.includes('systems_sort=p_at_5'));
        await eventually(
          w.page,
          () => w.page.locator('[data-testid=retrieval-systems] td[data-col=p_at_5] .score').allInnerTexts(),
          [...boards[0].rows].sort((a, b) => a.score - b.score).map((r) => fmt(r.score, 3)),
          'the systems sorted by p_at_5',
        );

        // Markup in a query's text and ids stays text.
        await w.page.selectOption('select[name=query]', 'qx');
        await w.page.waitForFunction(() => location.hash.includes('query=qx'));
        await openView(w.page, w.page.url());
        assert.equal(await w.page.locator('.query-text').innerText(), HOSTILE);
        assert.deepEqual(
          await w.page.locator('[data-testid=retrieval-query-rows] ol.ranked li.hit .mono').allInnerTexts(),
          [HOSTILE_ID],
        );
        assert.equal(await w.page.locator('main img, main script').count(), 0);

        // Gate verdicts, feedback actions and events over time are there.
        assert.ok((await w.page.locator('[data-testid=retrieval-gate] tbody tr').count()) > 0);
        assert.ok((await w.page.locator('[data-testid=retrieval-gate] .verdict.fail').count()) > 0);
        // Actions by the browser's clock (after every TTL here has run out): the one without a TTL stays active.
        assert.deepEqual(
          await w.page
            .locator('[data-testid=retrieval-actions] tbody tr')
            .evaluateAll((trs) =>
              trs.map((tr) => [
                tr.querySelector('td[data-col=action]')!.textContent,
                tr.querySelector('td[data-col=status]')!.textContent,
              ]),
            ),
          [
            ['retry_policy_tune', 'active'],
            ['source_blacklist', 'expired'],
            ['rerank_tweak', 'expired'],
          ],
        );
        assert.equal(await w.page.locator('[data-testid=retrieval-events] tbody tr').count(), 6);

        // Nothing wider than the window.
        assert.ok(
          await w.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
          'the page fits 1,280 px',
        );
        const shots = join(tmpdir(), 'evalkit-view-shots');
        mkdirSync(shots, { recursive: true });
        await w.page.screenshot({ path: join(shots, 'retrieval-store.png'), fullPage: true });
        assert.deepEqual(w.problems, []);
        assert.deepEqual(w.foreign, []);
      });
    } finally {
      await server.close();
      store.close();
    }
  },
);
