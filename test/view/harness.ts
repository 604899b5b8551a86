// What the viewer's browser tests share: a fixture store in a temporary folder, the server over it, a page that
// records console errors, uncaught exceptions and requests leaving the server, and screenshots to look at.
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
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
 * One Chromium for the process, launched on first use and closed once no test has used it for BROWSER_IDLE_MS (so a
 * file's or a batch's tests share one launch, and the process can still end). A browser that went away is launched
 * again.
 */
const BROWSER_IDLE_MS = 3_000;
interface SharedBrowser {
  browser: Promise<Browser>;
  users: number;
  idle?: NodeJS.Timeout;
}
let shared: SharedBrowser | undefined;

async function acquireBrowser(): Promise<Browser> {
  if (shared === undefined) {
    const launching = import('playwright-core').then(({ chromium }) =>
      chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 60_000 }),
    );
    const entry: SharedBrowser = { browser: launching, users: 0 };
    shared = entry;
    launching.then(
      (browser) =>
        browser.on('disconnected', () => {
          if (shared === entry) shared = undefined;
        }),
      () => {
        if (shared === entry) shared = undefined;
      },
    );
  }
  const entry = shared;
  clearTimeout(entry.idle);
  entry.users += 1;
  try {
    return await entry.browser;
  } catch (error) {
    entry.users -= 1;
    throw error;
  }
}

function releaseBrowser(browser: Browser): void {
  const entry = shared;
  if (entry === undefined) return;
  entry.users -= 1;
  if (entry.users > 0) return;
  entry.idle = setTimeout(() => {
    if (shared === entry) shared = undefined;
    void browser.close().catch(() => undefined);
  }, BROWSER_IDLE_MS);
}

/**
 * Runs `use` with a fresh browser context (its own cookies, storage and pages) that may reach localhost (the
 * report's helper runs offline, which also cuts a page off from a local server), and always closes the context.
 */
export async function withBrowser<T>(use: (context: BrowserContext) => Promise<T>): Promise<T> {
  const browser = await acquireBrowser();
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      return await use(context);
    } finally {
      await context.close().catch(() => undefined);
    }
  } finally {
    releaseBrowser(browser);
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
