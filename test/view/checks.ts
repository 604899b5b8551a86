// The browser checks of the viewer, run against the server and against a static export served by a plain file
// server: each takes a browser context and the app's base URL.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { MODELS, QUIZ_ROWS, XSS, quizCorrect } from './fixture.js';
import { eventually, openView, viewUrl, watchedPage } from './harness.js';

export const A = 'a'.repeat(64);
export const C = 'c'.repeat(64);

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
  ['leaderboard', '#/leaderboard'],
  ['leaderboard-composite', '#/leaderboard?composite=1'],
  ['leaderboard-filtered', '#/leaderboard?developer=acme'],
  [
    'compare',
    `#/compare?a=${encodeURIComponent(MODELS.a)}&b=${encodeURIComponent(MODELS.b)}&dbench=quiz&dmetric=Accuracy`,
  ],
];

/**
 * Every page renders without console errors or foreign requests; a screenshot of each goes to `shots`. The pages
 * are loaded one after another in one tab (each a whole load of the page, see openView), what it saw kept per
 * page: a new tab for each cost twice the CPU (a renderer started and the app compiled again every time).
 */
export async function checkPagesRender(
  context: BrowserContext,
  base: string,
  shots: string,
  prefix = '',
  pages: [string, string][] = PAGES,
): Promise<void> {
  const origin = new URL(base).origin;
  const w = await watchedPage(context, origin);
  for (const [name, hash] of pages) {
    w.problems.length = 0;
    w.foreign.length = 0;
    await openView(w.page, viewUrl(base, hash));
    assert.equal(
      await w.page.locator('.error').count(),
      0,
      `${name}: ${await w.page.locator('main').innerText()}`,
    );
    assert.ok((await w.page.locator('main h1').count()) > 0, `${name} has a heading`);
    await w.page.screenshot({ path: join(shots, `${prefix}${name}.png`), fullPage: true });
    assert.deepEqual(w.problems, [], `${name}: no console errors`);
    assert.deepEqual(w.foreign, [], `${name}: no request leaves the server`);
  }
  await w.page.close();
}

/**
 * Filter, search and sort of the samples live in the URL and survive a reload; the rows shown are the expected
 * ones (computed here from the fixture's rule) and, when given, the same as `library` returns.
 */
export async function checkSamplesState(
  context: BrowserContext,
  base: string,
  library?: () => Promise<string[]>,
): Promise<void> {
  const fx = { server: { url: base } };

  const w = await watchedPage(context, new URL(base).origin);
  const page = w.page;
  await openView(page, viewUrl(fx.server.url, `#/samples?record=${A}&result=0`));
  const rows = page.locator('[data-testid=samples] tbody tr');
  assert.equal(await rows.count(), QUIZ_ROWS, 'all 40 rows on the first page');

  const ids = () => page.locator('[data-testid=samples] tbody td[data-col=id]').allInnerTexts();
  const sampleIds = (indexes: number[]) => indexes.map((i) => `q-${String(i).padStart(3, '0')}`);
  const wrong = Array.from({ length: QUIZ_ROWS }, (_, i) => i).filter((i) => !quizCorrect('a', i));
  // Independently: wrong answers among questions whose text holds "question 1" (1, 10-19).
  const expected = sampleIds(wrong.filter((i) => `question ${i}:`.startsWith('question 1')));

  // Each change is read back from the rows the app shows for it (after its hashchange and the data it loads),
  // never from the hash alone: the next control's change is made from the view the app has rendered.
  await page.selectOption('select[name=filter]', 'incorrect');
  await page.waitForFunction(() => location.hash.includes('filter=incorrect'));
  await eventually(page, ids, sampleIds(wrong), 'the filter applies in the page');
  await openView(page, page.url());
  assert.equal(await rows.count(), wrong.length);

  await page.fill('input[name=q]', 'question 1');
  await page.press('input[name=q]', 'Enter');
  await page.waitForFunction(() => location.hash.includes('q=question'));
  await eventually(page, ids, expected, 'the search applies in the page');
  await page.selectOption('select[name=sort]', '-score');
  await page.waitForFunction(() => location.hash.includes('sort=-score'));
  await page.reload();
  await openView(page, page.url());
  assert.equal(await page.inputValue('input[name=q]'), 'question 1', 'the search survives a reload');
  assert.equal(await page.inputValue('select[name=filter]'), 'incorrect');
  assert.equal(await page.inputValue('select[name=sort]'), '-score');
  const shown = await ids();
  assert.deepEqual(shown, expected);
  if (library) assert.deepEqual(shown, await library());
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
}

/** Hostile texts are shown as text: nothing runs, no element or link is made from them. */
export async function checkHostile(
  context: BrowserContext,
  base: string,
  shots: string,
  prefix = '',
): Promise<void> {
  const fx = { server: { url: base }, shots };

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
      badLinks: [...document.querySelectorAll('a')].filter((a) => !a.getAttribute('href')?.startsWith('#/'))
        .length,
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
  await page.screenshot({ path: join(fx.shots, `${prefix}hostile-last.png`), fullPage: true });
  assert.deepEqual(w.problems, []);
}
