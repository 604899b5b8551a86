// One guard for every `--db`, read and write commands alike: an existing path that is not a DuckDB database (an EEE
// record, a CSV, a Parquet file, an empty file) is refused before any work and left as it was; a FIFO, a device or a
// folder is refused without hanging; a new path becomes a real DuckDB file. And the lock message when a viewer (a
// reader in another process) holds the store is in evalkit's words.
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { projectRoot } from '../helpers/shared.js';
import { evalkit } from './inproc.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-db-guard-'));
after(() => rmSync(temp, { recursive: true, force: true }));
const AGGREGATE = 'examples/eee/data/demo-bench/acme/tiny-model-1b/7c2f4e1a-93b5-4d6e-8a0f-2b1c3d4e5f60.json';
const store = join(temp, 'store.duckdb');

before(async () => {
  const r = await evalkit(['ingest', 'examples/eee/data', '--db', store]);
  assert.equal(r.code, 0, r.stderr);
  const exported = await evalkit(['export', 'parquet', join(temp, 'export'), '--db', store]);
  assert.equal(exported.code, 0, exported.stderr);
});

/** Files that exist and are not stores, each with the bytes it must keep. */
function notStores(): { path: string; bytes: Buffer }[] {
  const files: [string, Buffer][] = [
    ['rec.json', readFileSync(join(projectRoot, AGGREGATE))],
    ['rows.csv', Buffer.from('a,b\n1,2\n')],
    ['rows.tsv', Buffer.from('a\tb\n1\t2\n')],
    ['empty.duckdb', Buffer.alloc(0)],
    ['short.duckdb', Buffer.from('DUCK')],
  ];
  const out = files.map(([name, bytes]) => {
    const path = join(temp, name);
    writeFileSync(path, bytes);
    return { path, bytes };
  });
  const parquet = join(temp, 'records.parquet');
  copyFileSync(join(temp, 'export/records/collection=demo-bench/data_0.parquet'), parquet);
  out.push({ path: parquet, bytes: readFileSync(parquet) });
  return out;
}

/** Every command that opens a store, with the arguments it needs besides --db. */
const COMMANDS: string[][] = [
  ['ingest', 'examples/eee/data'],
  ['query', 'SELECT 1'],
  ['leaderboard'],
  ['compare', 'acme/tiny-model-1b', 'acme/tiny-model'],
];

test('--db that exists and is not a DuckDB store: refused before any work, by every command, file untouched', async () => {
  for (const { path, bytes } of notStores()) {
    for (const args of [...COMMANDS, ['export', 'parquet', join(temp, `out-${Math.random()}`)]]) {
      const r = await evalkit([...args, '--db', path]);
      assert.equal(r.code, 2, `${args[0]} --db ${path}: ${r.stdout}${r.stderr}`);
      assert.match(
        r.stderr,
        /^evalkit: error store\.not-duckdb: .* so it is not a store/,
        `${args[0]} ${path}`,
      );
      assert.doesNotMatch(r.stdout, /records added/);
      assert.deepEqual(readFileSync(path), bytes, `${path} unchanged`);
    }
  }
});

test('--db at a new path (whatever its extension) becomes a real DuckDB store', async () => {
  for (const name of ['new.json', 'new.csv', 'new.parquet', 'new.duckdb']) {
    const path = join(temp, 'fresh', name);
    mkdirSync(join(temp, 'fresh'), { recursive: true });
    const r = await evalkit(['ingest', 'examples/eee/data', '--db', path]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(path).toString('latin1', 8, 12), 'DUCK', name);
    const n = JSON.parse(
      (await evalkit(['query', 'SELECT count(*) AS n FROM records', '--db', path, '-f', 'json'])).stdout,
    ).rows[0].n;
    assert.equal(n, 1, name);
  }
});

test(
  '--db that is a FIFO or a folder: refused at once by read and write commands (no hang)',
  { timeout: 30_000 },
  async () => {
    const fifo = join(temp, 'store.fifo');
    execFileSync('mkfifo', [fifo]);
    const folder = join(temp, 'a-folder');
    mkdirSync(folder);
    for (const [path, kind] of [
      [fifo, /named pipe \(FIFO\)/],
      [folder, /directory/],
      ['/dev/zero', /character device/],
    ] as const)
      for (const args of COMMANDS) {
        const started = Date.now();
        const r = await evalkit([...args, '--db', path]);
        assert.equal(r.code, 2, `${args[0]} --db ${path}: ${r.stderr}`);
        assert.match(r.stderr, /^evalkit: error io\.(not-regular|is-directory): /, `${args[0]} ${path}`);
        assert.match(r.stderr, kind);
        assert.ok(Date.now() - started < 10_000, 'answered at once');
      }
  },
);

test('ingest while a viewer (another process) reads the store: a plain message, no DuckDB advice, no pid', async () => {
  // A reader holding the store open, as `evalkit view` does: the process is the point (file locks are per process).
  const holder = spawn(
    process.execPath,
    [
      '-e',
      `const d = require('@duckdb/node-api');
       d.DuckDBInstance.create(process.argv[1], { access_mode: 'READ_ONLY' })
         .then((i) => i.connect()).then((c) => c.run('SELECT 1')).then(() => console.log('open'));
       setTimeout(() => {}, 60000);`,
      store,
    ],
    { cwd: projectRoot, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    await new Promise<void>((resolve, reject) => {
      holder.stdout!.on('data', (c: Buffer) => c.toString().includes('open') && resolve());
      holder.on('exit', () => reject(new Error('the holder exited')));
    });
    const r = await evalkit(['ingest', 'examples/eee/data', '--db', store]);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /^evalkit: error store\.locked: the store .*store\.duckdb is open in another process that reads it \(an `evalkit view`/,
    );
    assert.match(r.stderr, /Stop that process .* or run this again when it has finished/);
    assert.doesNotMatch(r.stderr, /PID|\d{3,} \(|-readonly|CLI|duckdb\.org|See also/i);
  } finally {
    holder.kill();
  }
  assert.ok(existsSync(store));
});
