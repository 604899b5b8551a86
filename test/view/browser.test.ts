// evalkit view in a real Chromium: every page renders without console errors, filters and selection survive a
// reload, hostile record texts stay text, and the numbers on the pages are the library's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { skipWithoutChromium } from '../helpers/browser.js';
import { MODELS, QUIZ_ROWS, XSS, quizCorrect } from './fixture.js';
import { openView, startFixture, viewUrl, watchedPage, withBrowser } from './harness.js';
import { querySamples } from '../../src/view/data.js';
import { pageRequest } from '../../src/view/shared/query.js';

const A = 'a'.repeat(64);
const C = 'c'.repeat(64);

/** The pages (hash routes) every build must render cleanly, with a name for the screenshot. */
export const PAGES: [string, string][] = [
  ['overview', '#/overview'],
  ['model', `#/model?id=${encodeURIComponent(MODELS.a)}`],
  ['record', `#/record?key=${A}`],
  ['record-hostile', `#/record?key=${C}`],
  ['samples', `#/samples?record=${A}&result=0`],
  ['samples-hostile', `#/samples?record=${C}&result=0`],
  ['sample-transcript', `#/sample?record=${A}&row=40`],
  ['sample-hostile', `#/sample?record=${C}&row=0`],
  ['infereval', `#/infereval?key=${A}`],
  ['retrieval', `#/retrieval?key=${'b'.repeat(64)}`],
];

test(
  'every page renders without console errors, requests nothing elsewhere, and is screenshotted',
  { skip: skipWithoutChromium(), timeout: 180_000 },
  async () => {
    const fx = await startFixture();
    try {
      await withBrowser(async (context) => {
        const origin = new URL(fx.server.url).origin;
        for (const [name, hash] of PAGES) {
          const w = await watchedPage(context, origin);
          await openView(w.page, viewUrl(fx.server.url, hash));
          assert.equal(
            await w.page.locator('.error').count(),
            0,
            `${name}: ${await w.page.locator('main').innerText()}`,
          );
          assert.ok((await w.page.locator('main h1').count()) > 0, `${name} has a heading`);
          await w.page.screenshot({ path: join(fx.shots, `${name}.png`), fullPage: true });
          assert.deepEqual(w.problems, [], `${name}: no console errors`);
          assert.deepEqual(w.foreign, [], `${name}: no request leaves the server`);
          await w.page.close();
        }
      });
      console.log(`screenshots in ${fx.shots}`);
    } finally {
      await fx.close();
    }
  },
);

test(
  'samples: filter, search, sort and page live in the URL, survive a reload and match the query function',
  { skip: skipWithoutChromium(), timeout: 120_000 },
  async () => {
    const fx = await startFixture();
    try {
      await withBrowser(async (context) => {
        const w = await watchedPage(context, new URL(fx.server.url).origin);
        const page = w.page;
        await openView(page, viewUrl(fx.server.url, `#/samples?record=${A}&result=0`));
        const rows = page.locator('[data-testid=samples] tbody tr');
        assert.equal(await rows.count(), QUIZ_ROWS, 'all 40 rows on the first page');

        await page.selectOption('select[name=filter]', 'incorrect');
        await page.waitForFunction(() => location.hash.includes('filter=incorrect'));
        await openView(page, page.url());
        const wrong = Array.from({ length: QUIZ_ROWS }, (_, i) => i).filter((i) => !quizCorrect('a', i));
        assert.equal(await rows.count(), wrong.length);

        await page.fill('input[name=q]', 'question 1');
        await page.press('input[name=q]', 'Enter');
        await page.waitForFunction(() => location.hash.includes('q=question'));
        await page.selectOption('select[name=sort]', '-score');
        await page.waitForFunction(() => location.hash.includes('sort=-score'));
        await page.reload();
        await openView(page, page.url());
        assert.equal(await page.inputValue('input[name=q]'), 'question 1', 'the search survives a reload');
        assert.equal(await page.inputValue('select[name=filter]'), 'incorrect');
        assert.equal(await page.inputValue('select[name=sort]'), '-score');
        const shown = await page.locator('[data-testid=samples] tbody td[data-col=id]').allInnerTexts();
        // Independently: wrong answers among questions whose text holds "question 1" (1, 10-19).
        const expected = wrong
          .filter((i) => `question ${i}:`.startsWith('question 1'))
          .map((i) => `q-${String(i).padStart(3, '0')}`);
        assert.deepEqual(shown, expected);
        const fromLibrary = await querySamples(
          fx.store,
          A,
          0,
          pageRequest({ filter: 'incorrect', q: 'question 1', sort: '-score' }),
        );
        assert.deepEqual(
          shown,
          fromLibrary.rows.map((r) => r.sample_id),
        );
        assert.match(
          await page.locator('.pager-status').first().innerText(),
          new RegExp(`1–${expected.length} of ${expected.length}`),
        );

        // A row links to its detail, which a reload keeps.
        await page.locator('[data-testid=samples] tbody td[data-col=row] a').first().click();
        await page.waitForFunction(() => location.hash.startsWith('#/sample?'));
        await openView(page, page.url());
        await page.reload();
        await openView(page, page.url());
        assert.match(await page.locator('main h1').innerText(), new RegExp(expected[0]!));
        assert.deepEqual(w.problems, []);
      });
    } finally {
      await fx.close();
    }
  },
);

test(
  'hostile record texts are shown as text: no script runs, no element or javascript: link is made from them',
  { skip: skipWithoutChromium(), timeout: 120_000 },
  async () => {
    const fx = await startFixture();
    try {
      await withBrowser(async (context) => {
        const w = await watchedPage(context, new URL(fx.server.url).origin);
        const page = w.page;
        for (const hash of [
          `#/record?key=${C}`,
          `#/samples?record=${C}&result=0`,
          `#/sample?record=${C}&row=0`,
          `#/sample?record=${C}&row=1`,
          `#/model?id=${encodeURIComponent(MODELS.x)}`,
          '#/overview',
        ]) {
          await openView(page, viewUrl(fx.server.url, hash));
          const seen = await page.evaluate(() => ({
            pwned: (window as unknown as { __pwned?: number }).__pwned ?? null,
            title: document.title,
            images: document.querySelectorAll('main img').length,
            scripts: document.querySelectorAll('main script').length,
            badLinks: [...document.querySelectorAll('a')].filter(
              (a) => !a.getAttribute('href')?.startsWith('#/'),
            ).length,
            text: document.querySelector('main')!.textContent ?? '',
          }));
          assert.equal(seen.pwned, null, `${hash}: nothing ran`);
          assert.equal(seen.title, 'evalkit view', `${hash}: the title is untouched`);
          assert.equal(seen.images, 0, `${hash}: no image element`);
          assert.equal(seen.scripts, 0, `${hash}: no script element`);
          assert.equal(seen.badLinks, 0, `${hash}: every link is one of the app's own`);
          if (hash.startsWith('#/record')) {
            assert.ok(seen.text.includes(XSS.script), 'the script shown as text');
            assert.ok(seen.text.includes(XSS.img), 'the img tag shown as text');
            assert.ok(seen.text.includes(XSS.link), 'the javascript: URL shown as text');
            assert.ok(seen.text.includes('Valid with 1 warning'), 'validation status');
            assert.ok(seen.text.includes('eee.rules.suspicious'), 'its diagnostic');
          }
          if (hash.endsWith('row=1')) assert.ok(seen.text.includes(XSS.markdownLink));
        }
        await page.screenshot({ path: join(fx.shots, 'hostile-last.png'), fullPage: true });
        assert.deepEqual(w.problems, []);
      });
    } finally {
      await fx.close();
    }
  },
);
