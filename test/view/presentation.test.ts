// The viewer on data shaped like real outputs, in real Chromium at 1,280 px: the overview lists one row per
// benchmark (lm-eval subtasks under their group, metrics inside), tables fit the window without a horizontal
// scroll (overview's models table, compare's table, the leaderboard), Unix timestamps render as dates and an
// unknown date as "unknown" (never 1970-01-01), chat-template prompts render as messages, and a ranking whose
// direction was guessed says "direction assumed". Also: the compare page offers the runs of a model.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { skipWithoutChromium } from '../helpers/browser.js';
import type { Store } from '../../src/store/db.js';
import { openStore } from '../../src/store/db.js';
import { startViewServer, type ViewServer } from '../../src/view/server.js';
import { freshStore, insertRecord, type FixtureResult, type FixtureSample } from '../store/stats-fixture.js';
import { launchBrowser, openView, viewUrl, watchedPage, type SharedBrowser } from './harness.js';

const browserTest = { skip: skipWithoutChromium(), timeout: 240_000 };

// Model ids as real stores hold them: long, some with no place to break.
const MODELS = [
  'meta-llama/Meta-Llama-3.1-70B-Instruct-Turbo-with-a-very-long-deployment-suffix',
  'local/scratch-users-someone-checkpoints-llama-3-8b-instruct-sft-dpo-v2-step-12000-merged-fp16',
  'mistralai/Mixtral-8x22B-Instruct-v0.1',
];
const SUBTASKS = ['mmlu_abstract_algebra', 'mmlu_anatomy', 'mmlu_astronomy', 'mmlu_business_ethics'];
const CHAT_PROMPT = JSON.stringify([
  { role: 'system', content: 'You are a careful grader.' },
  { role: 'user', content: 'What is 2 + 2?' },
]);

function resultsOf(): FixtureResult[] {
  const out: FixtureResult[] = [];
  for (const t of SUBTASKS)
    for (const metric of ['acc', 'acc_norm'])
      out.push({ evaluation_name: t, metric_name: metric, score: 0.5, details: { group: 'mmlu' } });
  for (const metric of ['acc', 'acc_norm'])
    out.push({ evaluation_name: 'mmlu', metric_name: metric, score: 0.5, details: { is_group: 'true' } });
  for (const metric of ['exact_match (strict-match)', 'exact_match (flexible-extract)'])
    out.push({ evaluation_name: 'gsm8k_cot_self_consistency_long_name', metric_name: metric, score: 0.5 });
  out.push({
    evaluation_name: 'harmbench',
    metric_name: 'attack_success_rate',
    score: 0.5,
    additional_details: { direction_status: 'assumed' },
  });
  return out;
}

function samplesOf(model: number): FixtureSample[] {
  return Array.from({ length: 12 }, (_, i) => ({
    evaluation_name: 'gsm8k_cot_self_consistency_long_name',
    sample_id: `doc-${i}-with-a-rather-long-identifier-${'x'.repeat(20)}`,
    sample_hash: `h${i}`,
    score: (i + model) % 3 === 0 ? 0 : 1,
    input: CHAT_PROMPT,
    reference: '4',
    output: `The answer is ${i}`,
  }));
}

/** Elements wider than their box: the page itself and every table wrapper. */
async function overflows(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth) out.push(`page ${root.scrollWidth} > ${root.clientWidth}`);
    document.querySelectorAll('.table-wrap').forEach((el, i) => {
      if (el.scrollWidth > el.clientWidth + 1) out.push(`table ${i}: ${el.scrollWidth} > ${el.clientWidth}`);
    });
    return out;
  });
}

describe('viewer presentation on real-shaped data', () => {
  let store: Store;
  let path: string;
  let done: () => void;
  let server: ViewServer;
  let reader: Store;
  // One browser for the file's tests (each takes a fresh context).
  let browser: SharedBrowser | undefined;
  before(async () => {
    if (!browserTest.skip) browser = await launchBrowser();
    ({ store, path, done } = await freshStore());
    for (const [i, model] of MODELS.entries())
      await insertRecord(store, {
        record_key: `r${i}`,
        model_id: model,
        developer: model.split('/')[0],
        retrieved_timestamp: String(1700000000 + i * 86400),
        results: resultsOf().map((r) =>
          r.evaluation_name.startsWith('gsm8k')
            ? { ...r, score: samplesOf(i).filter((s) => s.score === 1).length / 12 }
            : r,
        ),
        samples: samplesOf(i),
      });
    // a second run of the first model
    await insertRecord(store, {
      record_key: 'r0-again',
      model_id: MODELS[0]!,
      retrieved_timestamp: '1600000000',
      results: [
        {
          evaluation_name: 'gsm8k_cot_self_consistency_long_name',
          metric_name: 'exact_match (strict-match)',
          score: 0.5,
        },
      ],
      samples: samplesOf(1),
    });
    await store.connection.run(`UPDATE records SET evaluation_timestamp = '0' WHERE record_key = 'r1'`);
    await store.connection.run(
      `UPDATE records SET evaluation_timestamp = '1700000000' WHERE record_key = 'r0'`,
    );
    store.close();
    reader = await openStore(path, { readOnly: true });
    server = await startViewServer({ store: reader, port: 0 });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    reader?.close();
    done();
  });

  test(
    'overview: one row per benchmark, subtasks under their group, no horizontal scroll',
    browserTest,
    async () => {
      await browser!.withContext(async (context) => {
        const w = await watchedPage(context, new URL(server.url).origin);
        await openView(w.page, viewUrl(server.url, '#/overview'));
        const names = await w.page
          .locator('[data-testid=benchmarks] > tbody > tr > td[data-col=benchmark] > a')
          .allTextContents();
        assert.deepEqual(names, ['gsm8k_cot_self_consistency_long_name', 'harmbench', 'mmlu']);
        const mmluRow = w.page.locator('[data-testid=benchmarks] > tbody > tr').nth(2);
        assert.match((await mmluRow.locator('summary').textContent()) ?? '', /group of 4 tasks/);
        assert.deepEqual(await mmluRow.locator('td[data-col=metric] > .metric-links > a').allTextContents(), [
          'acc',
          'acc_norm',
        ]);
        assert.deepEqual(await overflows(w.page), []);
        assert.deepEqual(w.problems, []);
      });
    },
  );

  test('compare: the table fits 1,280 px; runs of a model are offered', browserTest, async () => {
    await browser!.withContext(async (context) => {
      const w = await watchedPage(context, new URL(server.url).origin);
      const url = `#/compare?a=${encodeURIComponent(MODELS[0]!)}&b=${encodeURIComponent(MODELS[1]!)}`;
      await openView(w.page, viewUrl(server.url, url));
      await w.page.waitForSelector('[data-testid=comparisons]');
      assert.deepEqual(await overflows(w.page), []);
      await w.page.waitForFunction(() => document.querySelectorAll('select[name=arun] option').length > 1);
      const runs = await w.page.locator('select[name=arun] option').allTextContents();
      assert.equal(runs.length, 3, runs.join(' | ')); // "latest …" and two runs
      assert.match(runs[1]!, /^eval\/r0 \(2023-11-14\)$/);
      // the same model twice, one run each: two runs compared
      const same = `#/compare?a=${encodeURIComponent(MODELS[0]!)}&arun=eval%2Fr0&b=${encodeURIComponent(MODELS[0]!)}&brun=eval%2Fr0-again`;
      await openView(w.page, viewUrl(server.url, same));
      await w.page.waitForSelector('[data-testid=comparisons] tbody tr');
      const pairs = await w.page
        .locator('[data-testid=comparisons] td[data-col=paired]')
        .first()
        .textContent();
      assert.equal(pairs, '12');
      assert.deepEqual(await overflows(w.page), []);
      assert.deepEqual(w.problems, []);
    });
  });

  test(
    'leaderboard: fits, dates as dates or unknown, direction assumed beside the ranking',
    browserTest,
    async () => {
      await browser!.withContext(async (context) => {
        const w = await watchedPage(context, new URL(server.url).origin);
        await openView(w.page, viewUrl(server.url, '#/leaderboard?benchmark=harmbench'));
        const board = w.page.locator('[data-testid=board]');
        assert.equal(await board.locator('[data-testid=direction-assumed]').count(), 1);
        const dates = await board.locator('td[data-col=date]').allTextContents();
        assert.ok(dates.includes('unknown'), dates.join(','));
        assert.ok(dates.includes('2023-11-14'), dates.join(','));
        assert.ok(!dates.some((d) => d.startsWith('1970')));
        assert.deepEqual(await overflows(w.page), []);
        await openView(w.page, viewUrl(server.url, '#/record?key=r0'));
        const fields = (await w.page.locator('.fields').textContent()) ?? '';
        assert.match(fields, /Evaluated2023-11-14 22:13 UTC/);
        assert.doesNotMatch(fields, /1970/);
        await openView(w.page, viewUrl(server.url, `#/model?id=${encodeURIComponent(MODELS[0]!)}`));
        assert.ok((await w.page.locator('[data-testid=direction-assumed]').count()) >= 1);
        assert.deepEqual(w.problems, []);
      });
    },
  );

  test('a chat-template prompt renders as messages, not escaped JSON', browserTest, async () => {
    await browser!.withContext(async (context) => {
      const w = await watchedPage(context, new URL(server.url).origin);
      await openView(w.page, viewUrl(server.url, '#/sample?record=r0&row=0'));
      const messages = w.page.locator('[data-testid=messages] [data-role]');
      assert.deepEqual(await messages.evaluateAll((els) => els.map((e) => e.getAttribute('data-role'))), [
        'system',
        'user',
      ]);
      const text = (await w.page.locator('main').textContent()) ?? '';
      assert.match(text, /What is 2 \+ 2\?/);
      assert.doesNotMatch(text, /\{"role"/);
      assert.deepEqual(w.problems, []);
    });
  });
});
