// Real Chromium for tests that must see what a user's browser sees. Uses Debian's /usr/bin/chromium through
// playwright-core (which never downloads a browser by itself); tests skip with a message when it is absent.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = process.env.EVALKIT_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** node:test's `skip` option: false when Chromium is there, else the reason. */
export function skipWithoutChromium(): string | false {
  return existsSync(CHROMIUM_PATH) ? false : `Chromium not found at ${CHROMIUM_PATH} (apt install chromium)`;
}

/**
 * Runs `use` with a fresh persistent context (its own temporary user-data dir, JavaScript enabled so a script that
 * ran would be noticed) and always closes the browser and removes the directory afterwards.
 */
export async function withChromium<T>(use: (context: BrowserContext) => Promise<T>): Promise<T> {
  const { chromium } = await import('playwright-core');
  const userDataDir = await mkdtemp(join(tmpdir(), 'evalkit-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    headless: true,
    offline: true,
    viewport: { width: 1100, height: 900 },
    timeout: 60_000,
  });
  try {
    return await use(context);
  } finally {
    await context.close().catch(() => undefined);
    await rm(userDataDir, { recursive: true, force: true });
  }
}
