// What the viewer's browser tests share: a fixture store in a temporary folder, the server over it, a page that
// records console errors, uncaught exceptions and requests leaving the server, and screenshots to look at.
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { BrowserContext, Page } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../helpers/browser.js';
import { openStore, type Store } from '../../src/store/db.js';
import { startViewServer, type ViewServer } from '../../src/view/server.js';
import { buildFixtureStore } from './fixture.js';

export interface Fixture {
  dir: string;
  dbPath: string;
  store: Store;
  server: ViewServer;
  /** Where screenshots go (kept after the test: its path is printed). */
  shots: string;
  close(): Promise<void>;
}

export async function startFixture(options: { host?: string; token?: string } = {}): Promise<Fixture> {
  const dir = await mkdtemp(join(tmpdir(), 'evalkit-view-'));
  const dbPath = join(dir, 'fixture.duckdb');
  await buildFixtureStore(dbPath);
  const store = await openStore(dbPath, { readOnly: true });
  const server = await startViewServer({ store, port: 0, ...options });
  const shots = join(tmpdir(), 'evalkit-view-shots');
  await mkdir(shots, { recursive: true });
  return {
    dir,
    dbPath,
    store,
    server,
    shots,
    async close() {
      await server.close();
      store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A Chromium that tests of one file share: each test takes a fresh context (its own cookies and storage). */
export interface SharedBrowser {
  /** Runs `use` with a fresh context of this browser, closed afterwards. */
  withContext<T>(use: (context: BrowserContext) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * Starts Chromium (may reach localhost: the report's helper runs offline, which also cuts a page off from a local
 * server). A launch costs about a second of CPU: a file whose tests all need a browser starts one in `before`.
 */
export async function launchBrowser(): Promise<SharedBrowser> {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    timeout: 60_000,
  });
  return {
    async withContext(use) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      try {
        return await use(context);
      } finally {
        await context.close().catch(() => undefined);
      }
    },
    close: () => browser.close().catch(() => undefined),
  };
}

/** Runs `use` with a fresh browser context of a browser of its own, and always closes the browser. */
export async function withBrowser<T>(use: (context: BrowserContext) => Promise<T>): Promise<T> {
  const browser = await launchBrowser();
  try {
    return await browser.withContext(use);
  } finally {
    await browser.close();
  }
}

export interface WatchedPage {
  page: Page;
  problems: string[];
  /** Requests to anything but `origin` (the page must need nothing else). */
  foreign: string[];
}

/** A new page that records console errors, page errors and dialogs (a dialog means a script ran). */
export async function watchedPage(context: BrowserContext, origin: string): Promise<WatchedPage> {
  const page = await context.newPage();
  const problems: string[] = [];
  const foreign: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  page.on('request', (r) => {
    if (!r.url().startsWith(origin)) foreign.push(r.url());
  });
  return { page, problems, foreign };
}

/**
 * Opens a view (hash route) in a fresh document and waits until no "Loading…" is left. A URL that differs from
 * the page's only in its hash would be a same-document navigation: the app handles its hashchange later (and, on
 * the same page, keeps showing the previous data without "Loading…" until it asks for the new), so what was read
 * next could be the view before it. Such a URL is set without a hashchange and the page loaded again from it.
 */
export async function openView(page: Page, url: string): Promise<void> {
  const before = page.url();
  if (before !== 'about:blank' && before.split('#')[0] === url.split('#')[0]) {
    // The URL set without a hashchange event (the app does not start on it), then loaded.
    await page.evaluate((u) => history.replaceState(history.state, '', u), url);
    await page.reload({ waitUntil: 'load' });
  } else {
    await page.goto(url, { waitUntil: 'load' });
  }
  await page.waitForSelector('main');
  await page.waitForFunction(() => document.querySelectorAll('.loading').length === 0, null, {
    timeout: 15_000,
  });
}

/**
 * Waits until `read()` gives `expected` (deep equality), reading again after each change of the page's DOM (and
 * at least every 250 ms; no pause decides the outcome), then asserts on the last value read, so that a page that
 * never gets there fails with the difference. For what an in-page action changes (the app renders a new hash after its hashchange event, then
 * loads the data): read before that, the previous view's rows would be seen.
 */
export async function eventually<T>(
  page: Page,
  read: () => Promise<T>,
  expected: T,
  message: string,
  timeoutMs = 15_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  let last = await read();
  while (!isDeepStrictEqual(last, expected) && Date.now() < until) {
    await domChange(page, Math.min(250, until - Date.now()));
    last = await read();
  }
  assert.deepEqual(last, expected, message);
}

/**
 * Resolves at the page's next DOM change or hash change, or after `timeoutMs` at most (a change between the last
 * read and this call is not seen here: the caller reads again anyway).
 */
async function domChange(page: Page, timeoutMs: number): Promise<void> {
  await page
    .evaluate(
      (ms) =>
        new Promise<void>((resolve) => {
          const done = () => {
            observer.disconnect();
            removeEventListener('hashchange', done);
            clearTimeout(timer);
            resolve();
          };
          const observer = new MutationObserver(done);
          observer.observe(document, {
            subtree: true,
            childList: true,
            attributes: true,
            characterData: true,
          });
          addEventListener('hashchange', done);
          const timer = setTimeout(done, ms);
        }),
      Math.max(0, timeoutMs),
    )
    .catch(() => undefined);
}

export function viewUrl(base: string, hash: string): string {
  const u = new URL(base);
  u.hash = hash;
  return u.href;
}
