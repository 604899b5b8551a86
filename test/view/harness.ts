// What the viewer's browser tests share: a fixture store in a temporary folder, the server over it, a page that
// records console errors, uncaught exceptions and requests leaving the server, and screenshots to look at.
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/**
 * Runs `use` with a fresh browser context that may reach localhost (the report's helper runs offline, which also
 * cuts a page off from a local server), and always closes the browser.
 */
export async function withBrowser<T>(use: (context: BrowserContext) => Promise<T>): Promise<T> {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    timeout: 60_000,
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    return await use(context);
  } finally {
    await browser.close().catch(() => undefined);
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

/** Opens a view (hash route) and waits until no "Loading…" is left. */
export async function openView(page: Page, url: string): Promise<void> {
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForSelector('main');
  await page.waitForFunction(() => document.querySelectorAll('.loading').length === 0, null, {
    timeout: 15_000,
  });
}

export function viewUrl(base: string, hash: string): string {
  const u = new URL(base);
  u.hash = hash;
  return u.href;
}
