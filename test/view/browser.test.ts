// evalkit view in a real Chromium, against its server: every page renders without console errors, filters and
// selection survive a reload, hostile record texts stay text.
// test-runner: own process (long: as a job of its own it keeps the batches short).
import { test } from 'node:test';
import { skipWithoutChromium } from '../helpers/browser.js';
import { querySamples } from '../../src/view/data.js';
import { pageRequest } from '../../src/view/shared/query.js';
import { A, checkHostile, checkPagesRender, checkSamplesState } from './checks.js';
import { startFixture, withBrowser } from './harness.js';

const browserTest = { skip: skipWithoutChromium(), timeout: 180_000 };

test(
  'server: every page renders without console errors, requests nothing elsewhere, and is screenshotted',
  browserTest,
  async () => {
    const fx = await startFixture();
    try {
      await withBrowser((context) => checkPagesRender(context, fx.server.url, fx.shots));
      console.log(`screenshots in ${fx.shots}`);
    } finally {
      await fx.close();
    }
  },
);

test(
  'server: samples filter, search, sort and page live in the URL, survive a reload, match the query function',
  browserTest,
  async () => {
    const fx = await startFixture();
    try {
      await withBrowser((context) =>
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
    } finally {
      await fx.close();
    }
  },
);

test(
  'server: hostile record texts are shown as text; no script runs, no element or javascript: link is made',
  browserTest,
  async () => {
    const fx = await startFixture();
    try {
      await withBrowser((context) => checkHostile(context, fx.server.url, fx.shots));
    } finally {
      await fx.close();
    }
  },
);
