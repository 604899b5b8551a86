// evalkit view in a real Chromium, against its server: every page renders without console errors, filters and
// selection survive a reload, hostile record texts stay text.
// test-runner: own process (long: as a job of its own it keeps the batches short).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BrowserContext } from 'playwright-core';
import { skipWithoutChromium } from '../helpers/browser.js';
import { querySamples } from '../../src/view/data.js';
import { pageRequest } from '../../src/view/shared/query.js';
import { A, checkHostile, checkPagesRender, checkSamplesState } from './checks.js';
import {
  launchBrowser,
  openView,
  startFixture,
  viewUrl,
  watchedPage,
  type Fixture,
  type SharedBrowser,
} from './harness.js';

const browserTest = { skip: skipWithoutChromium(), timeout: 180_000 };

// One fixture store, server and browser for the file (the tests only read; each takes a fresh browser context).
let fx: Fixture;
let browser: SharedBrowser;
before(async () => {
  if (browserTest.skip) return;
  fx = await startFixture();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await fx?.close();
});

/** Every hashchange listener of the context's pages runs 300 ms late, as the app does on a loaded machine. */
async function delayHashchange(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const add = EventTarget.prototype.addEventListener;
    EventTarget.prototype.addEventListener = function (
      this: EventTarget,
      type: string,
      listener: EventListenerOrEventListenerObject | null,
      options?: boolean | AddEventListenerOptions,
    ) {
      if (type !== 'hashchange' || typeof listener !== 'function')
        return add.call(this, type, listener, options);
      return add.call(this, type, (e: Event) => setTimeout(() => listener.call(this, e), 300), options);
    };
  });
}

test(
  'server: every page renders without console errors, requests nothing elsewhere, and is screenshotted',
  browserTest,
  async () => {
    await browser.withContext((context) => checkPagesRender(context, fx.server.url, fx.shots));
    console.log(`screenshots in ${fx.shots}`);
  },
);

test(
  'server: samples filter, search, sort and page live in the URL, survive a reload, match the query function',
  browserTest,
  async () => {
    await browser.withContext((context) =>
      checkSamplesState(context, fx.server.url, async () =>
        (
          await querySamples(
            fx.store,
            A,
            0,
            pageRequest({ filter: 'incorrect', q: 'question 1', sort: '-score' }),
          )
        ).rows.map((r) => r.sample_id),
      ),
    );
  },
);

test(
  'server: hostile record texts are shown as text; no script runs, no element or javascript: link is made',
  browserTest,
  async () => {
    await browser.withContext((context) => checkHostile(context, fx.server.url, fx.shots));
  },
);

test(
  'server: the samples check holds when the app takes its time over each URL change (a loaded machine)',
  browserTest,
  async () => {
    await browser.withContext(async (context) => {
      // Every hashchange listener of the page runs 300 ms late: a check that reads the page, or changes the next
      // control, before the app has rendered the previous change sees the view before it.
      await delayHashchange(context);
      await checkSamplesState(context, fx.server.url);
    });
  },
);

test(
  'server: two quick changes of the controls both stay in the URL, even before the app has drawn the first',
  browserTest,
  async () => {
    await browser.withContext(async (context) => {
      // The app draws each change 300 ms late, as on a loaded machine; the user does not wait for it.
      await delayHashchange(context);
      const w = await watchedPage(context, new URL(fx.server.url).origin);
      await openView(w.page, viewUrl(fx.server.url, `#/samples?record=${A}&result=0`));
      await w.page.fill('input[name=q]', 'question 1');
      await w.page.press('input[name=q]', 'Enter');
      await w.page.selectOption('select[name=sort]', '-score');
      await w.page.waitForFunction(() => location.hash.includes('sort=-score'));
      const hash = new URLSearchParams(new URL(w.page.url()).hash.split('?')[1]);
      assert.equal(hash.get('q'), 'question 1', 'the search kept');
      assert.equal(hash.get('sort'), '-score');
    });
  },
);
