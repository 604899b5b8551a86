// `evalkit view --export DIR`: the static site passes the same browser checks as the server, served by Python's
// plain static file server (no server code of ours).
// test-runner: own process (long: as a job of its own it keeps the batches short).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { skipWithoutChromium } from '../helpers/browser.js';
import { cli } from '../helpers/cli.js';
import { buildFixtureStore } from './fixture.js';
import { checkHostile, checkPagesRender, checkSamplesState } from './checks.js';
import { watchedPage, withBrowser } from './harness.js';

const python = spawnSync('python3', ['--version']).status === 0;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function serveStatic(dir: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(
    'python3',
    ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', dir],
    {
      stdio: 'ignore',
    },
  );
  const url = `http://127.0.0.1:${port}/`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(url)).ok) return { url, child };
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error('python3 -m http.server did not start');
}

// One fixture store for the file's exports.
let dir: string;
let db: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evalkit-view-export-'));
  db = join(dir, 'fixture.duckdb');
  await buildFixtureStore(db);
});
after(() => rm(dir, { recursive: true, force: true }));

test(
  'the static export (evalkit view --export) passes the browser checks under python3 -m http.server',
  { skip: skipWithoutChromium() || (python ? false : 'python3 not found'), timeout: 240_000 },
  async () => {
    let child: ChildProcess | undefined;
    try {
      const site = join(dir, 'site');
      const printed = await cli(['view', '--db', db, '--export', site, '--format', 'json']);
      assert.equal(printed.code, 0, printed.stderr);
      const summary = JSON.parse(printed.stdout) as { files: number; dir: string };
      assert.equal(summary.dir, site);
      assert.ok(existsSync(join(site, 'index.html')), 'index.html at the root');
      const html = await readFile(join(site, 'index.html'), 'utf8');
      assert.match(html, /data-mode="static"/);
      assert.doesNotMatch(html, /<script>|<script [^>]*>[^<]/, 'no inline script');
      assert.ok((await readdir(join(site, 'data', 'sample'))).length >= 83, 'every sample detail exported');

      // Exporting again over it replaces it; a folder holding something else is refused.
      const again = await cli(['view', '--db', db, '--export', site, '--format', 'json']);
      assert.equal(again.code, 0, again.stderr);
      const other = join(dir, 'other');
      await mkdir(other);
      await writeFile(join(other, 'notes.txt'), 'mine');
      const refused = await cli(['view', '--db', db, '--export', other]);
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /view\.export-target: .* is not empty and holds no earlier export/);

      const served = await serveStatic(site);
      child = served.child;
      const shots = join(tmpdir(), 'evalkit-view-shots');
      await withBrowser(async (context) => {
        await checkPagesRender(context, served.url, shots, 'static-');
        await checkSamplesState(context, served.url);
        await checkHostile(context, served.url, shots, 'static-');
      });
    } finally {
      child?.kill();
    }
  },
);

test(
  'the static export opened as a file (file://…/index.html) says how to serve it instead of a blank page',
  { skip: skipWithoutChromium(), timeout: 120_000 },
  async () => {
    // A folder name a shell would split or end a quote at: the command shown must still name it.
    const site = join(dir, "it's an export");
    const printed = await cli(['view', '--db', db, '--export', site]);
    assert.equal(printed.code, 0, printed.stderr);
    await withBrowser(async (context) => {
      for (const hash of ['', '#/leaderboard', `#/samples?record=${'a'.repeat(64)}&result=0`]) {
        const url = `${pathToFileURL(join(site, 'index.html')).href}${hash}`;
        const w = await watchedPage(context, 'file://');
        await w.page.goto(url, { waitUntil: 'load' });
        const main = w.page.locator('main');
        await main.waitFor();
        const text = await main.innerText();
        assert.match(text, /opened as a file/, `${hash || 'the root'}: the reason`);
        const command = await main.locator('pre').innerText();
        const quoted = `'${site.replace(/'/g, "'\\''")}/'`;
        assert.equal(command.trim(), `python3 -m http.server 8000 --bind 127.0.0.1 --directory ${quoted}`);
        const shell = spawnSync('sh', ['-c', `printf %s ${quoted}`], { encoding: 'utf8' });
        assert.equal(shell.stdout, `${site}/`, 'the shell reads the folder back from the command');
        assert.match(text, /npx evalkit view --db/);
        assert.deepEqual(w.problems, [], `${hash || 'the root'}: no console errors`);
        await w.page.close();
      }
    });
  },
);
