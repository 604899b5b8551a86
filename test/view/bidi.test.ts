// Bidirectional controls from records (an id "rtl" U+202E "gnp.exe" that would show as "rtlexe.png") are shown as
// visible escapes in the terminal (every printer: the CLI's output streams) and in the viewer (every text node).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skipWithoutChromium } from '../helpers/browser.js';
import { openStore } from '../../src/store/db.js';
import { startViewServer } from '../../src/view/server.js';
import { showBidiControls } from '../../src/view/shared/bidi.js';
import { openView, viewUrl, watchedPage, withBrowser } from './harness.js';
import { buildLoadStore } from './load-store.js';
import { cli } from './inproc.js';

const TRICK = 'rtl\u202egnp.exe';
const CONTROLS = [
  '\u202a',
  '\u202b',
  '\u202c',
  '\u202d',
  '\u202e',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\u200e',
  '\u200f',
  '\u061c',
];

async function withTrickStore(use: (db: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'evalkit-view-bidi-'));
  const db = join(dir, 'bidi.duckdb');
  try {
    await buildLoadStore(db, { rows: 3 });
    const store = await openStore(db, { readOnly: false });
    await store.all(`UPDATE samples SET sample_id = $1, output_text = $2 WHERE row_index = 1`, [
      TRICK,
      `all of them: ${CONTROLS.join('|')}`,
    ]);
    store.close();
    await use(db);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('every bidirectional control has a visible escape', () => {
  assert.equal(showBidiControls(TRICK), 'rtl\\u202egnp.exe');
  for (const c of CONTROLS)
    assert.doesNotMatch(showBidiControls(`a${c}b`), /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/);
  assert.equal(
    showBidiControls('plain عربي עברית'),
    'plain عربي עברית',
    'right-to-left letters themselves are kept',
  );
});

test('the terminal shows the controls as escapes; JSON output keeps the value', async () => {
  await withTrickStore(async (db) => {
    const table = await cli(['query', 'SELECT sample_id FROM samples ORDER BY row_index', '--db', db]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /rtl\\u202egnp\.exe/);
    assert.doesNotMatch(table.stdout, /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/);
    const json = await cli([
      'query',
      'SELECT sample_id FROM samples ORDER BY row_index',
      '--db',
      db,
      '--format',
      'json',
    ]);
    assert.equal(json.code, 0, json.stderr);
    assert.doesNotMatch(json.stdout, /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/);
    assert.ok(json.stdout.includes(TRICK.replace('\u202e', '\\u202e')));
    assert.ok(JSON.stringify(JSON.parse(json.stdout)).includes(TRICK), 'the JSON value is the stored id');
  });
});

test(
  'the viewer shows the controls as escapes, isolated',
  { skip: skipWithoutChromium(), timeout: 180_000 },
  async () => {
    await withTrickStore(async (db) => {
      const store = await openStore(db, { readOnly: true });
      const server = await startViewServer({ store, port: 0 });
      try {
        await withBrowser(async (context) => {
          const w = await watchedPage(context, server.url.replace(/\/$/, ''));
          for (const hash of ['#/samples?record=rec&result=0', '#/sample?record=rec&row=1']) {
            await openView(w.page, viewUrl(server.url, hash));
            const text = await w.page.locator('main').innerText();
            assert.ok(text.includes('rtl\\u202egnp.exe'), `${hash}: the id with its control visible`);
            assert.doesNotMatch(
              text,
              /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/,
              `${hash}: no live control`,
            );
          }
          const isolated = await w.page.evaluate(
            () => getComputedStyle(document.querySelector('dd, td')!).unicodeBidi,
          );
          assert.equal(isolated, 'isolate');
          assert.deepEqual(w.problems, []);
        });
      } finally {
        await server.close();
        store.close();
      }
    });
  },
);
