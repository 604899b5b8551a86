// `evalkit view` as a user runs it: the URL on the first line, the security headers, the token off loopback (also in
// a real browser), a clean stop on SIGTERM, and one-line errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skipWithoutChromium } from '../helpers/browser.js';
import { cli, cliCommand } from '../helpers/cli.js';
import { projectRoot } from '../helpers/shared.js';
import { buildFixtureStore } from './fixture.js';
import { openView, watchedPage, withBrowser } from './harness.js';

const CLI = await cliCommand();

/** Starts `evalkit view ...` and resolves with the child and the first line of its standard output. */
function startView(
  args: string[],
): Promise<{ child: ChildProcessWithoutNullStreams; url: string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [...CLI, 'view', ...args], {
    cwd: projectRoot,
    env: { ...process.env, NO_COLOR: '1', DISPLAY: '', WAYLAND_DISPLAY: '' },
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    child.stdout.on('data', (c) => {
      out += c;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve({ child, url: out.slice(0, nl), exited });
    });
    child.on('close', (code) => reject(new Error(`view exited ${code}: ${err}`)));
  });
}

/** A raw HTTP GET (fetch cannot set Host) returning status, headers and body. */
function get(
  url: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function withStore<T>(use: (db: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'evalkit-view-cli-'));
  try {
    const db = join(dir, 'fixture.duckdb');
    await buildFixtureStore(db);
    return await use(db);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test(
  'the URL is the first line; pages carry a strict CSP; only GET; the Host must be ours; SIGTERM stops it',
  { timeout: 90_000 },
  async () => {
    await withStore(async (db) => {
      const { child, url, exited } = await startView(['--db', db, '--port', '0', '--no-open']);
      try {
        assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
        const page = await get(url);
        assert.equal(page.status, 200);
        const csp = String(page.headers['content-security-policy']);
        assert.match(csp, /default-src 'self'/);
        assert.match(csp, /script-src 'self'(;|$)/);
        assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
        assert.equal(page.headers['x-content-type-options'], 'nosniff');
        assert.doesNotMatch(page.body, /<script>/, 'no inline script in the page');
        const overview = await get(`${url}api/overview`);
        assert.equal(overview.status, 200);
        assert.equal(JSON.parse(overview.body).counts.records, 3);
        assert.equal((await get(`${url}api/overview`, {}, 'POST')).status, 405);
        assert.equal((await get(`${url}api/record?key=nope`)).status, 404);
        assert.equal((await get(`${url}api/samples?record=x`)).status, 400);
        assert.equal((await get(url, { Host: 'evil.example:80' })).status, 421, 'DNS rebinding refused');
      } finally {
        child.kill('SIGTERM');
      }
      assert.equal(await exited, 0);
    });
  },
);

test(
  'a host other than loopback requires the token on every request: query once, then the cookie or a bearer',
  { timeout: 90_000 },
  async () => {
    await withStore(async (db) => {
      const { child, url, exited } = await startView([
        '--db',
        db,
        '--port',
        '0',
        '--host',
        '0.0.0.0',
        '--no-open',
      ]);
      try {
        const printed = new URL(url);
        const token = printed.searchParams.get('token');
        assert.ok(token && token.length >= 24, `a generated token in ${url}`);
        const base = `http://127.0.0.1:${printed.port}/`;
        for (const path of ['', 'app.js', 'app.css', 'api/overview']) {
          assert.equal((await get(`${base}${path}`)).status, 401, `${path || '/'} without a token`);
          assert.equal((await get(`${base}${path}?token=wrong-token-wrong-token-x`)).status, 401);
        }
        const first = await get(`${base}?token=${token}`);
        assert.equal(first.status, 200);
        const cookie = String(first.headers['set-cookie']).split(';')[0]!;
        assert.match(String(first.headers['set-cookie']), /HttpOnly; SameSite=Strict/);
        assert.equal((await get(`${base}api/overview`, { Cookie: cookie })).status, 200);
        assert.equal((await get(`${base}api/overview`, { Authorization: `Bearer ${token}` })).status, 200);

        if (!skipWithoutChromium()) {
          await withBrowser(async (context) => {
            const w = await watchedPage(context, `http://127.0.0.1:${printed.port}`);
            await openView(w.page, `${base}?token=${token}#/overview`);
            assert.equal(
              await w.page.locator('[data-testid=counts] .card').count(),
              6,
              'the app loaded its data',
            );
            assert.deepEqual(w.problems, []);
          });
        }
      } finally {
        child.kill('SIGTERM');
      }
      assert.equal(await exited, 0);
    });
  },
);

test(
  '--token on loopback is required too; errors are one line with exit 2',
  { timeout: 90_000 },
  async () => {
    await withStore(async (db) => {
      const { child, url, exited } = await startView([
        '--db',
        db,
        '--port',
        '0',
        '--token',
        'sesame-sesame',
        '--no-open',
      ]);
      try {
        assert.match(url, /\?token=sesame-sesame$/);
        assert.equal((await get(url.replace(/\?.*/, ''))).status, 401);
        assert.equal((await get(url)).status, 200);
      } finally {
        child.kill('SIGTERM');
      }
      assert.equal(await exited, 0);
    });
    const missing = await cli(['view', '--db', join(tmpdir(), 'no-such-store.duckdb'), '--no-open']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^evalkit: error store\.not-found: no store at .*\n$/);
    const short = await cli(['view', '--token', 'abc', '--no-open']);
    assert.equal(short.code, 2);
    assert.match(short.stderr, /--token must be at least 8 characters/);
    const help = await cli(['view', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /--export <dir>/);
  },
);
