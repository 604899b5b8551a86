// `evalkit view --export DIR`: the static site passes the same browser checks as the server, served by Python's
// plain static file server (no server code of ours).
// test-runner: own process (long: as a job of its own it keeps the batches short).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skipWithoutChromium } from '../helpers/browser.js';
import { cli } from '../helpers/cli.js';
import { buildFixtureStore } from './fixture.js';
import { checkHostile, checkPagesRender, checkSamplesState } from './checks.js';
import { withBrowser } from './harness.js';

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

test(
  'the static export (evalkit view --export) passes the browser checks under python3 -m http.server',
  { skip: skipWithoutChromium() || (python ? false : 'python3 not found'), timeout: 240_000 },
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'evalkit-view-export-'));
    let child: ChildProcess | undefined;
    try {
      const db = join(dir, 'fixture.duckdb');
      await buildFixtureStore(db);
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
      await rm(dir, { recursive: true, force: true });
    }
  },
);
