import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cli } from '../helpers/cli.js';
import { skipWithoutChromium, withChromium } from '../helpers/browser.js';
import { projectRoot } from '../helpers/shared.js';

const example = (f: string) => join(projectRoot, 'examples/report', f);

test(
  'the HTML report renders in Chromium with its charts, runs no script, and shows a <script> response as text',
  { skip: skipWithoutChromium(), timeout: 120_000 },
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'evalkit-report-'));
    try {
      const html = join(dir, 'report.html');
      const printed = await cli([
        'report',
        example('evaluation.json'),
        '--retest',
        example('retest.json'),
        '--sweep',
        example('sweep.json'),
        '--html',
        html,
      ]);
      assert.equal(printed.code, 0, printed.stderr);
      const source = await readFile(html, 'utf8');
      assert.doesNotMatch(source, /<script/i, 'no script element in the file');

      const shot = join(dir, 'report.png');
      const seen = await withChromium(async (context) => {
        const page = await context.newPage();
        const requests: string[] = [];
        page.on('request', (r) => {
          if (!r.url().startsWith('file:')) requests.push(r.url());
        });
        await page.goto(pathToFileURL(html).href, { waitUntil: 'load' });
        await page.screenshot({ path: shot, fullPage: true });
        return {
          title: await page.title(),
          scripts: await page.locator('script').count(),
          images: await page.locator('img').count(),
          bodyText: await page.locator('body').innerText(),
          kappaPoints: await page.locator('svg.chart-kappa-by-tag circle.kappa-point').count(),
          ciBars: await page.locator('svg.chart-kappa-by-tag line.ci-bar').count(),
          confusionCells: await page.locator('svg.chart-confusion rect.confusion-cell').count(),
          verdictBars: await page.locator('svg.chart-verdicts rect.verdict-bar').count(),
          histogramBars: await page.locator('svg.chart-dispersion rect.histogram-bar').count(),
          sweepPoints: await page.locator('svg.chart-sweep circle.sweep-point').count(),
          retestBars: await page.locator('svg.chart-retest rect.retest-bar').count(),
          chartBoxes: await page
            .locator('svg.chart')
            .evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).map((r) => r.width * r.height)),
          csp: await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content'),
          requests,
        };
      });

      // No script ran: the title is the report's, and the would-be payloads are visible text, not elements.
      assert.match(seen.title, /^Construct-validity report/);
      assert.equal(seen.scripts, 0);
      assert.equal(seen.images, 0);
      assert.ok(seen.bodyText.includes("<script>document.title='pwned'</script>"), 'script shown as text');
      assert.ok(seen.bodyText.includes('onerror='), 'img tag shown as text');
      assert.match(seen.csp ?? '', /script-src 'none'/);
      assert.deepEqual(seen.requests, [], 'no network request: the page is self-contained');

      // The charts are there and have a size on screen.
      assert.equal(
        seen.kappaPoints,
        3,
        'one κ point per tag: causal, modal (under-powered, hollow), temporal',
      );
      assert.ok(seen.ciBars >= 1, 'CI bars drawn');
      assert.equal(seen.confusionCells, 9);
      assert.ok(seen.verdictBars >= 24, 'at least one bar segment per item');
      assert.equal(seen.histogramBars, 10);
      assert.equal(seen.sweepPoints, 4);
      assert.equal(seen.retestBars, 3);
      assert.equal(seen.chartBoxes.length, 6);
      for (const area of seen.chartBoxes) assert.ok(area > 1000, `chart area ${area}`);

      // A real, non-trivial PNG.
      const png = await readFile(shot);
      assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      const width = png.readUInt32BE(16);
      const height = png.readUInt32BE(20);
      assert.ok(width >= 800 && height >= 1500, `screenshot ${width}×${height}`);
      assert.ok((await stat(shot)).size > 30_000, 'screenshot has content');
      // For people to look at (the project's scratch folder, not committed).
      await copyFile(shot, join(projectRoot, '.tmp', 'report.png')).catch(() => undefined);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
);
