// `evalkit run -o` is checked before the first request (issue 39 item 8): a dangling symbolic link, a path under a
// regular file (or under a link to one, or to nothing), the journal folder beside -o: each is a clear I/O error (exit
// 2) with nothing sent; a link to a folder is a folder, written through.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { startProviderServer, type ProviderServer } from '../helpers/provider-server.js';
import { openaiRun, recordsUnder, writeTask } from './helpers.js';

let server: ProviderServer;
let dir: string;
let task: string;
before(async () => {
  server = await startProviderServer();
  server.setScript(() => ({ text: 'Paris' }));
  dir = mkdtempSync(join(tmpdir(), 'evalkit-run-preflight-'));
  task = writeTask(
    join(dir, 'task'),
    'capitals',
    'name: capitals\ndataset: {path: capitals.jsonl}\nscorers: [match]\n',
    [
      { id: 'c1', input: 'Capital of France?', target: 'Paris' },
      { id: 'c2', input: 'Capital of Italy?', target: 'Rome' },
    ],
  );
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const run = (out: string, extra: string[] = []) =>
  cli(openaiRun(task, server.openaiBaseUrl, out, extra, ['acme/alpha']));

test('run -o at a dangling link, under a file, under a link to a file or to nothing, or with its journal folder blocked: refused before any request', async () => {
  const file = join(dir, 'a-file');
  writeFileSync(file, 'x');
  const dangling = join(dir, 'dangling');
  symlinkSync(join(dir, 'nowhere'), dangling);
  const toFile = join(dir, 'to-file');
  symlinkSync(file, toFile);
  // The journal folder beside -o (OUT.journal) is a dangling link.
  const journalBlocked = join(dir, 'jb');
  symlinkSync(join(dir, 'nowhere-either'), `${journalBlocked}.journal`);
  // The data folder under -o is a file.
  const dataBlocked = join(dir, 'db-out');
  mkdirSync(dataBlocked);
  writeFileSync(join(dataBlocked, 'data'), 'x');
  const cases: [string, string, RegExp][] = [
    [dangling, 'io.dangling-symlink', /dangling: it is a symbolic link to a folder that cannot be reached/],
    [join(file, 'out'), 'io.parent-not-directory', /a-file is a file, not a folder/],
    [join(toFile, 'out'), 'io.parent-not-directory', /to-file is a symbolic link to a regular file/],
    [
      join(dangling, 'out'),
      'io.parent-not-directory',
      /dangling is a symbolic link to a folder that cannot be reached/,
    ],
    [toFile, 'io.not-directory', /to-file: it is a regular file, not a folder/],
    [journalBlocked, 'io.dangling-symlink', /jb\.journal: it is a symbolic link/],
    [dataBlocked, 'io.not-directory', /data: it is a regular file, not a folder/],
  ];
  for (const [out, code, message] of cases) {
    server.requests.length = 0;
    const r = await run(out);
    assert.equal(r.code, 2, `${out}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, new RegExp(`error ${code.replace('.', '\\.')}: `), r.stderr);
    assert.match(r.stderr, message, r.stderr);
    assert.doesNotMatch(r.stderr, /ENOTDIR|EEXIST|internal error/);
    assert.equal(server.requests.length, 0, `${out}: nothing is paid for`);
  }
});

test('--log, --record and --db at a dangling link, a link to a folder or under a file: refused before any request', async () => {
  const file = join(dir, 'b-file');
  writeFileSync(file, 'x');
  const dangling = join(dir, 'b-dangling');
  symlinkSync(join(dir, 'b-nowhere'), dangling);
  const toDir = join(dir, 'b-to-dir');
  mkdirSync(join(dir, 'b-dir'));
  symlinkSync(join(dir, 'b-dir'), toDir);
  const cases: [string[], string][] = [
    [['--log', dangling], 'io.dangling-symlink'],
    [['--record', toDir], 'io.is-directory'],
    [['--db', join(file, 'x.duckdb')], 'io.parent-not-directory'],
    [['--db', dangling], 'io.dangling-symlink'],
    [['--log', join(dangling, 'run.jsonl')], 'io.parent-not-directory'],
  ];
  for (const [extra, code] of cases) {
    server.requests.length = 0;
    const r = await run(join(dir, 'b-out'), extra);
    assert.equal(r.code, 2, `${extra.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, new RegExp(`error ${code.replace('.', '\\.')}: `), r.stderr);
    assert.equal(server.requests.length, 0, `${extra.join(' ')}: nothing is paid for`);
  }
  assert.equal(existsSync(join(dir, 'b-out')), false);
});

test('run -o at a link to a folder writes through it', async () => {
  const target = join(dir, 'real-out');
  mkdirSync(target);
  const link = join(dir, 'linked-out');
  symlinkSync(target, link);
  const r = await run(link);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.ok(recordsUnder(target).has('acme/alpha'));
  assert.ok(existsSync(join(dir, 'linked-out.journal')));
});
