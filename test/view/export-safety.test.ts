// `view --export DIR` writes only where it may: a folder is replaced only when it holds an earlier export (known by
// the marker that lists what it wrote, unchanged) and nothing else; a killed export leaves the earlier site whole,
// the re-run completes, and no temporary folder stays behind.
// test-runner: own process (long: as a job of its own it keeps the batches short).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../helpers/shared.js';
import { openStore, type Store } from '../../src/store/db.js';
import { exportStaticSite } from '../../src/view/export.js';
import { EXPORT_MARKER, type ExportMarker } from '../../src/view/export-target.js';
import { buildFixtureStore } from './fixture.js';
import { cli } from './inproc.js';

const TSX = import.meta.resolve('tsx');

// The fixture store is built once for the file; each test works on a copy of it in a folder of its own.
let template: string;
before(async () => {
  template = await mkdtemp(join(tmpdir(), 'evalkit-view-export-safety-fixture-'));
  await buildFixtureStore(join(template, 'fixture.duckdb'));
});
after(() => rm(template, { recursive: true, force: true }));

async function withFixture(use: (dir: string, db: string, store: Store) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'evalkit-view-export-safety-'));
  const db = join(dir, 'fixture.duckdb');
  await copyFile(join(template, 'fixture.duckdb'), db);
  const store = await openStore(db, { readOnly: true });
  try {
    await use(dir, db, store);
  } finally {
    store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function tree(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (folder: string, prefix: string) => {
    for (const e of await readdir(folder, { withFileTypes: true })) {
      if (e.isDirectory()) await walk(join(folder, e.name), `${prefix}${e.name}/`);
      else
        out.set(
          `${prefix}${e.name}`,
          createHash('sha256')
            .update(await readFile(join(folder, e.name)))
            .digest('hex'),
        );
    }
  };
  await walk(dir, '');
  return out;
}

/** The site is complete: its marker lists exactly the files beside it, each with its hash. */
async function assertCompleteSite(site: string): Promise<void> {
  const files = await tree(site);
  const marker = JSON.parse(await readFile(join(site, EXPORT_MARKER), 'utf8')) as ExportMarker;
  files.delete(EXPORT_MARKER);
  assert.deepEqual(
    new Map(Object.entries(marker.files)),
    files,
    'the marker lists exactly the files, unchanged',
  );
  assert.ok(files.has('index.html'), 'the site has its page');
}

test('a folder that merely looks like an export (data/manifest.json) is refused and left untouched', async () => {
  await withFixture(async (dir, db) => {
    const site = join(dir, 'mine');
    await mkdir(join(site, 'data'), { recursive: true });
    await writeFile(join(site, 'data', 'manifest.json'), '{"generator":"evalkit view --export"}');
    await writeFile(join(site, 'data', 'thesis.tex'), 'two years of work');
    await writeFile(join(site, 'index.html'), '<p>my page</p>');
    const before = await tree(site);
    const run = await cli(['view', '--db', db, '--export', site]);
    assert.equal(run.code, 2, run.stdout);
    assert.match(run.stderr, /view\.export-target: .*mine is not empty and holds no earlier export/);
    assert.deepEqual(await tree(site), before, 'nothing deleted or overwritten');
    assert.deepEqual((await readdir(dir)).sort(), ['fixture.duckdb', 'mine'], 'no temporary folder left');
  });
});

test('an earlier export is replaced; with a file added or a listed file changed it is refused untouched', async () => {
  await withFixture(async (dir, db, store) => {
    const site = join(dir, 'site');
    const first = await exportStaticSite(store, site);
    await assertCompleteSite(site);
    assert.equal((await tree(site)).size, first.files + 1, 'the marker and the files written');
    // A stale file of the earlier export is gone after the next one.
    const marker = JSON.parse(await readFile(join(site, EXPORT_MARKER), 'utf8')) as ExportMarker;
    const stale = 'data/sample/stale.json';
    await writeFile(join(site, stale), '{}');
    marker.files[stale] = createHash('sha256').update('{}').digest('hex');
    await writeFile(join(site, EXPORT_MARKER), JSON.stringify(marker));
    const again = await cli(['view', '--db', db, '--export', site, '--format', 'json']);
    assert.equal(again.code, 0, again.stderr);
    await assertCompleteSite(site);
    assert.ok(!existsSync(join(site, stale)), 'the earlier export is replaced whole');

    await writeFile(join(site, 'notes.txt'), 'mine');
    const before = await tree(site);
    const added = await cli(['view', '--db', db, '--export', site]);
    assert.equal(added.code, 2);
    assert.match(added.stderr, /view\.export-target: .*did not write or that changed since \(notes\.txt\)/);
    assert.deepEqual(await tree(site), before);
    await rm(join(site, 'notes.txt'));

    await writeFile(join(site, 'index.html'), '<p>edited by hand</p>');
    const changed = await cli(['view', '--db', db, '--export', site]);
    assert.equal(changed.code, 2);
    assert.match(changed.stderr, /\(index\.html\)/);
    assert.equal(await readFile(join(site, 'index.html'), 'utf8'), '<p>edited by hand</p>');
    assert.deepEqual((await readdir(dir)).sort(), ['fixture.duckdb', 'site'], 'no temporary folder left');
  });
});

/** Runs an export in a child process and kills it (SIGKILL unless told) once it has written `after` files. */
function killedExport(
  db: string,
  site: string,
  after: number,
  signal: NodeJS.Signals = 'SIGKILL',
): Promise<{ killed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', TSX, join(projectRoot, 'test/view/export-child.ts'), db, site],
      {
        cwd: projectRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    let killed = false;
    child.stderr.on('data', (c) => (err += c));
    child.stdout.on('data', (c) => {
      out += c;
      const last = Number(out.trimEnd().split('\n').at(-1));
      if (!killed && last >= after) {
        killed = child.kill(signal);
      }
    });
    child.on('close', (code, exitSignal) => {
      if (exitSignal === signal || code === 0) resolve({ killed: exitSignal === signal });
      else reject(new Error(`export child exited ${code}: ${err}`));
    });
  });
}

test(
  'kill -9 during an export leaves the earlier site whole; the re-run completes and sweeps',
  { timeout: 240_000 },
  async () => {
    await withFixture(async (dir, db, store) => {
      const site = join(dir, 'site');
      // Killed during the first export: no site yet, and the re-run is not refused.
      const early = await killedExport(db, site, 20);
      assert.ok(early.killed, 'the child was killed mid-export');
      assert.ok(!existsSync(site), 'no partial site where the site goes');
      const total = (await exportStaticSite(store, site)).files;
      await assertCompleteSite(site);
      const firstSite = await tree(site);

      // The run killed after its last file may finish before the signal lands; the last run is killed halfway, so
      // that its work is there for the next export to sweep.
      for (const after of [total, 1, Math.floor(total / 2)]) {
        const run = await killedExport(db, site, after);
        assert.ok(run.killed || after === total, `killed after ${after} files`);
        await assertCompleteSite(site);
        assert.deepEqual(
          await tree(site),
          firstSite,
          `the earlier site is whole after a kill at ${after} files`,
        );
      }
      assert.ok(
        (await readdir(dir)).some((n) => n.includes('evalkit-new-')),
        'the killed runs left their work',
      );
      await exportStaticSite(store, site);
      await assertCompleteSite(site);
      assert.deepEqual(
        (await readdir(dir)).sort(),
        ['fixture.duckdb', 'site'],
        'the re-run swept the leftovers',
      );
    });
  },
);

test('a swap cut short between its two renames is finished by the next export', async () => {
  await withFixture(async (dir, _db, store) => {
    const site = join(dir, 'site');
    await exportStaticSite(store, site);
    const whole = await tree(site);
    // What a kill between "site aside" and "new site in" leaves: the earlier site under a dead process's name.
    const gone = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, ['-e', '0']);
      child.on('close', () => resolve(child.pid!));
    });
    await rename(site, join(dir, `.site.evalkit-old-${gone}-abc`));
    await mkdir(join(dir, `.site.evalkit-new-${gone}-def`));
    await writeFile(join(dir, `.site.evalkit-new-${gone}-def`, 'index.html'), 'half');
    await exportStaticSite(store, site);
    await assertCompleteSite(site);
    assert.deepEqual(await tree(site), whole);
    assert.deepEqual((await readdir(dir)).sort(), ['fixture.duckdb', 'site']);
  });
});
