// The leaderboard and compare pages show the numbers of the library functions behind `evalkit leaderboard` and
// `evalkit compare` (and of their `--format json` when those commands are there), and their filters and selection
// survive a reload.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { skipWithoutChromium } from '../helpers/browser.js';
import { cli } from '../helpers/cli.js';
import { projectRoot } from '../helpers/shared.js';
import { leaderboards } from '../../src/store/leaderboard.js';
import { compareModels, disagreements } from '../../src/store/compare.js';
import { fmt, fmtCi, fmtP } from '../../src/view/shared/format.js';
import { MODELS, QUIZ, QUIZ_METRIC, QUIZ_ROWS, quizCorrect } from './fixture.js';
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
const hasCommand = (name: string) => existsSync(join(projectRoot, 'src/cli/commands', `${name}.ts`));

/** The cells of each board's table, by column key. */
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

async function boardsOnPage(page: Page) {
  return page.locator('[data-testid=board]').evaluateAll((boards) =>
    boards.map((b) => ({
      benchmark: b.getAttribute('data-benchmark'),
      metric: b.getAttribute('data-metric'),
      // No named helper inside: the page runs this function's source as it is.
      rows: [...b.querySelectorAll('tbody tr')].map((tr) =>
        Object.fromEntries(
          ['rank', 'tier', 'model', 'score', 'ci', 'n'].map((k) => [
            k,
            tr.querySelector(`td[data-col=${k}]`)?.textContent ?? '',
          ]),
        ),
      ),
    })),
  );
}

type Boards = Awaited<ReturnType<typeof leaderboards>>;

function expectedBoards(lib: Boards) {
  return lib.leaderboards.map((b) => ({
    benchmark: b.benchmark,
    metric: b.metric,
    rows: b.rows.map((r) => ({
      rank: fmt(r.rank),
      tier: fmt(r.tier),
      model: r.model_id,
      score: fmt(r.score, 4),
      ci: fmtCi(r.ci, 4),
      n: fmt(r.n),
    })),
  }));
}

test(
  'leaderboard page = leaderboards() (= leaderboard --format json); a filter survives a reload',
  browserTest,
  async () => {
    const all = await leaderboards(fx.store, {});
    const acme = await leaderboards(fx.store, { developer: 'acme' });
    assert.ok(
      all.leaderboards.some((b) => b.benchmark === QUIZ && b.rows.length === 3),
      'the quiz board ranks 3 models',
    );
    if (hasCommand('leaderboard')) {
      const printed = await cli(['leaderboard', '--db', fx.dbPath, '--format', 'json']);
      assert.equal(printed.code, 0, printed.stderr);
      assert.deepEqual(
        JSON.parse(printed.stdout).leaderboards,
        all.leaderboards,
        'the CLI prints the same function',
      );
    }
    await browser.withContext(async (context) => {
      const w = await watchedPage(context, new URL(fx.server.url).origin);
      await openView(w.page, viewUrl(fx.server.url, '#/leaderboard'));
      assert.deepEqual(await boardsOnPage(w.page), expectedBoards(all));
      assert.ok((await w.page.locator('svg.ci-bar circle.estimate').count()) >= 3, 'CI bars drawn');

      await w.page.selectOption('select[name=developer]', 'acme');
      await w.page.waitForFunction(() => location.hash.includes('developer=acme'));
      await w.page.reload();
      await openView(w.page, w.page.url());
      assert.equal(await w.page.inputValue('select[name=developer]'), 'acme', 'the filter survives a reload');
      assert.deepEqual(await boardsOnPage(w.page), expectedBoards(acme));

      // The model page shows the same interval and rank for the model's quiz result.
      const quizRow = all.leaderboards
        .find((b) => b.benchmark === QUIZ)!
        .rows.find((r) => r.model_id === MODELS.a)!;
      await openView(w.page, viewUrl(fx.server.url, `#/model?id=${encodeURIComponent(MODELS.a)}`));
      const modelRow = w.page.locator('tbody tr', { hasText: QUIZ_METRIC });
      assert.equal(await modelRow.locator('td[data-col=ci]').innerText(), fmtCi(quizRow.ci, 4));
      assert.equal(await modelRow.locator('td[data-col=rank]').innerText(), `${quizRow.rank} of 3`);
      await openView(w.page, viewUrl(fx.server.url, '#/leaderboard?developer=acme'));

      // Sorting by a column is a URL parameter too.
      await w.page
        .locator('[data-testid=board]')
        .first()
        .locator('button.sort', { hasText: 'Model' })
        .click();
      await w.page.waitForFunction(() => location.hash.includes('sort=model'));
      await w.page.reload();
      await openView(w.page, w.page.url());
      assert.match(await w.page.locator('th[aria-sort=ascending]').first().innerText(), /Model/);
      assert.deepEqual(w.problems, []);
    });
  },
);

test(
  'compare page = compareModels() (= compare --format json); the disagreements side by side survive a reload',
  browserTest,
  async () => {
    const lib = await compareModels(fx.store, MODELS.a, MODELS.b, {});
    const quiz = lib.comparisons.find((c) => c.benchmark === QUIZ && c.metric === QUIZ_METRIC)!;
    // Independently from the fixture's rule: 40 paired questions, A right on 30, B on 22.
    const aOnly = Array.from({ length: QUIZ_ROWS }, (_, i) => i).filter(
      (i) => quizCorrect('a', i) && !quizCorrect('b', i),
    );
    const bOnly = Array.from({ length: QUIZ_ROWS }, (_, i) => i).filter(
      (i) => !quizCorrect('a', i) && quizCorrect('b', i),
    );
    assert.equal(quiz.n_paired, QUIZ_ROWS);
    assert.deepEqual([quiz.mcnemar?.a_only, quiz.mcnemar?.b_only], [aOnly.length, bOnly.length]);
    if (hasCommand('compare')) {
      const r = await cli(['compare', MODELS.a, MODELS.b, '--db', fx.dbPath, '--format', 'json']);
      assert.equal(r.code, 0, r.stderr);
      const printed = JSON.parse(r.stdout) as typeof lib;
      for (const [i, c] of printed.comparisons.entries()) {
        const { bootstrap: _b, ...rest } = c;
        const { bootstrap: _l, ...mine } = lib.comparisons[i]!;
        assert.deepEqual(rest, mine, 'the CLI prints the same function (its bootstrap aside)');
      }
    }
    const disagreed = await disagreements(fx.store, MODELS.a, MODELS.b, QUIZ, QUIZ_METRIC, {
      offset: 0,
      limit: 20,
    });
    assert.equal(disagreed.total, aOnly.length + bOnly.length);

    await browser.withContext(async (context) => {
      const w = await watchedPage(context, new URL(fx.server.url).origin);
      await openView(w.page, viewUrl(fx.server.url, '#/compare'));
      await w.page.selectOption('select[name=a]', MODELS.a);
      await w.page.waitForFunction(() => location.hash.includes('a='));
      // B is chosen from the view the app rendered for A (its run select shows), not from the one before.
      await w.page.waitForSelector('select[name=arun]');
      await w.page.selectOption('select[name=b]', MODELS.b);
      await w.page.waitForFunction(() => location.hash.includes('b='));
      await openView(w.page, w.page.url());
      const row = w.page.locator('[data-testid=comparisons] tbody tr', { hasText: QUIZ });
      const cell = (k: string) => row.locator(`td[data-col=${k}]`).innerText();
      assert.equal(await cell('paired'), fmt(quiz.n_paired));
      assert.equal(await cell('mean_a'), fmt(quiz.mean_a, 4));
      assert.equal(await cell('mean_b'), fmt(quiz.mean_b, 4));
      assert.equal(await cell('difference'), fmt(quiz.difference, 4));
      // The page shows the library's interval and names its method (issue 39: Newcombe's for 0/1 scores,
      // inside [−1, 1]; the page computes nothing of its own).
      assert.equal(quiz.ci_method, 'newcombe');
      assert.ok(quiz.ci![0] >= -1 && quiz.ci![1] <= 1);
      assert.equal(await cell('ci'), `${fmtCi(quiz.ci, 4)}\nNewcombe, paired 0/1`);
      assert.equal(await cell('p'), fmtP(quiz.p_value));
      assert.equal(await cell('p_holm'), fmtP(quiz.p_holm));
      assert.equal(
        await cell('mcnemar'),
        `${fmt(aOnly.length)} / ${fmt(bOnly.length)}, ${fmtP(quiz.mcnemar!.p_value)}`,
      );

      await row.locator('td[data-col=show] a').click();
      await w.page.waitForFunction(() => location.hash.includes('dbench='));
      await w.page.reload();
      await openView(w.page, w.page.url());
      const cards = w.page.locator('[data-testid=disagreements] article.disagreement');
      assert.equal(await cards.count(), Math.min(20, disagreed.total));
      const first = disagreed.items[0]!;
      assert.equal(await cards.first().locator('.question > span.mono').innerText(), first.sample_id);
      assert.equal(await cards.first().locator('[data-side=a] pre').innerText(), first.a.output_text ?? '—');
      assert.equal(await cards.first().locator('[data-side=b] pre').innerText(), first.b.output_text ?? '—');
      assert.match(
        await w.page.locator('[data-testid=disagreements] .pager-status').first().innerText(),
        new RegExp(`of ${disagreed.total}`),
      );
      assert.deepEqual(w.problems, []);
    });
  },
);
