// Issue 31 items 1 and 9: a read command on a lake is exactly as read-only as on a store file (no write, attach,
// export or file read, not even of the lake's own files), `--lake` on a file or a folder that is no lake is an
// error, the profiling and logging calls are refused, and files that are not the lake's own (foreign, corrupt,
// symlinked) are skipped with a warning naming them, never read into results.
import assert from 'node:assert/strict';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { spawn } from 'node:child_process';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { evalkit } from './inproc.js';
import { fileDigests } from '../checks/walk.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-lake-lockdown-'));
after(() => rmSync(temp, { recursive: true, force: true }));
const lake = join(temp, 'lake');

const files = (dir: string): string[] =>
  (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.parquet')).sort();
/** Every file under a folder with its digest. */
const snapshot = (dir: string): Map<string, string> => fileDigests(dir);
const count = async (dir: string, sql = 'SELECT count(*) AS n FROM records'): Promise<number> => {
  const r = await evalkit(['query', sql, '--lake', dir, '-f', 'json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout).rows[0].n as number;
};

before(async () => {
  const r = await evalkit([
    'ingest',
    'examples/eee/data',
    'examples/compare',
    '--lake',
    lake,
    '--no-progress',
  ]);
  assert.equal(r.code, 0, r.stderr);
  writeFileSync(join(temp, 'notes.txt'), 'my notes\n');
});

test('query --lake: every write, attach, export and file read is refused and no file changes', async () => {
  assert.equal(await count(lake), 4);
  const part = join(lake, 'records', files(join(lake, 'records'))[0]!);
  const before = snapshot(temp);
  const escapes = [
    // The exact cases of the issue: an emptied partition, a forged record, a database and an export in the lake.
    `COPY (SELECT * FROM records WHERE false) TO '${part}'`,
    `COPY (SELECT * FROM records WHERE false) TO '${part}' (USE_TMP_FILE false)`,
    `COPY (SELECT * REPLACE ('forged/model' AS model_id) FROM records LIMIT 1) TO '${join(lake, 'records', 'collection=arith-40', 'part-0000_0.parquet')}'`,
    `ATTACH '${join(lake, 'x.duckdb')}' AS x; CREATE TABLE x.t AS SELECT 1`,
    `EXPORT DATABASE '${join(lake, 'exp')}'`,
    // The lake's own files and any file beside it are out of reach too.
    `SELECT * FROM read_text('${join(temp, 'notes.txt')}')`,
    `SELECT * FROM read_blob('${part}')`,
    `SELECT * FROM read_parquet('${part}')`,
    `SELECT * FROM glob('${lake}/**')`,
    'DELETE FROM records',
    // The snapshot is in memory, so these are refused by their kind (query.ts), not by DuckDB's read-only mode.
    "INSERT INTO records (record_key) VALUES ('x')",
    "UPDATE records SET model_id = 'forged/model'",
    'CREATE TABLE t AS SELECT 1',
    'CREATE TEMP TABLE t AS SELECT 1',
    'DROP TABLE samples',
    'ALTER TABLE records ADD COLUMN x INTEGER',
    "CREATE MACRO forged(x) AS 'forged'",
    'EXPLAIN ANALYZE DELETE FROM records',
    'PREPARE p AS DELETE FROM records; EXECUTE p',
    'SELECT 1; DELETE FROM records',
    'SET enable_external_access = true',
    // Profiling and logging, as calls (the PRAGMA forms were refused already).
    'CALL enable_profiling()',
    'SELECT * FROM enable_profiling()',
    'CALL disable_profiling()',
    "CALL enable_logging(storage = 'stdout')",
    'CALL truncate_duckdb_logs()',
  ];
  for (const sql of escapes) {
    const r = await evalkit(['query', sql, '--lake', lake]);
    assert.equal(r.code, 2, `${sql}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /evalkit: error store\.(query-refused|read-only): /, sql);
    assert.equal(r.stdout, '', sql);
  }
  assert.deepEqual(snapshot(temp), before, 'no file under the lake or beside it changed or appeared');
  assert.equal(await count(lake), 4);
  // What only reads still runs on the lake.
  for (const sql of [
    'DESCRIBE records',
    'SHOW TABLES',
    'EXPLAIN SELECT * FROM records',
    'SUMMARIZE results',
    'PRAGMA table_info(samples)',
    'BEGIN; SELECT count(*) FROM samples; COMMIT',
    'FROM records SELECT model_id',
  ]) {
    const r = await evalkit(['query', sql, '--lake', lake]);
    assert.equal(r.code, 0, `${sql}: ${r.stderr}`);
  }
});

test('the profiling and logging calls are refused on a store file too', async () => {
  const db = join(temp, 'store.duckdb');
  assert.equal((await evalkit(['ingest', 'examples/eee/data', '--db', db, '--no-progress'])).code, 0);
  for (const sql of ['CALL enable_profiling()', 'call  Enable_Profiling ( )', 'CALL enable_logging()']) {
    const r = await evalkit(['query', sql, '--db', db]);
    assert.equal(r.code, 2, sql);
    assert.match(r.stderr, /store\.query-refused/, sql);
  }
  // A name that merely contains the words still runs.
  assert.equal((await evalkit(['query', `SELECT 'enable_profiling()' AS s`, '--db', db])).code, 0);
});

test('--lake on a file or a folder that is no lake is an error, not 0 rows', async () => {
  const part = join(lake, 'records', files(join(lake, 'records'))[0]!);
  const cases: [string, RegExp][] = [
    [part, /store\.not-lake: .* is a file, not a lake/],
    [temp, /store\.not-lake: .* is not a lake: it has no records\/ folder/],
    [join(temp, 'notes.txt'), /store\.not-lake/],
    [join(temp, 'absent'), /store\.not-found/],
  ];
  for (const [dir, message] of cases)
    for (const args of [['query', 'SELECT 1'], ['leaderboard'], ['models']]) {
      const r = await evalkit([...args, '--lake', dir]);
      assert.equal(r.code, 2, `${args[0]} ${dir}: ${r.stdout}`);
      assert.match(r.stderr, message, `${args[0]} ${dir}`);
    }
});

test('foreign, corrupt and symlinked .parquet files are skipped with a warning naming them', async () => {
  const dirty = join(temp, 'dirty');
  cpSync(lake, dirty, { recursive: true });
  const records = join(dirty, 'records');
  const [first] = files(records);
  const sample = join(dirty, 'samples', files(join(dirty, 'samples'))[0]!);
  const bad = {
    // A foreign file with other columns, named like a part (it added a row with a null key and model).
    foreign: join(records, 'collection=arith-40', 'part-00000000-0000-0000-0000-000000000000_0.parquet'),
    corrupt: join(records, 'collection=demo-bench', 'part-11111111-1111-1111-1111-111111111111_0.parquet'),
    stray: join(records, 'notes.parquet'),
    symlink: join(records, 'collection=arith-40', 'part-22222222-2222-2222-2222-222222222222_0.parquet'),
  };
  copyFileSync(sample, bad.foreign);
  writeFileSync(bad.corrupt, 'PAR1 this is not parquet');
  writeFileSync(bad.stray, 'x');
  symlinkSync(join(records, first!), bad.symlink);
  for (const args of [
    ['query', 'SELECT count(*) AS n, count(model_id) AS models FROM records', '-f', 'json'],
    ['leaderboard', '-f', 'json'],
    ['models', '-f', 'json'],
  ]) {
    const r = await evalkit([...args, '--lake', dirty]);
    assert.equal(r.code, 0, `${args[0]}: ${r.stderr}`);
    for (const [kind, file] of Object.entries(bad))
      assert.match(
        r.stderr,
        new RegExp(
          `warning store\\.lake-file-skipped ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} skipped`,
        ),
        `${args[0]} names the ${kind} file`,
      );
    if (args[0] === 'query') assert.deepEqual(JSON.parse(r.stdout).rows[0], { n: 4, models: 4 });
  }
  // The leaderboard of the dirty lake is the clean lake's.
  const clean = await evalkit(['leaderboard', '-f', 'json', '--lake', lake]);
  const dirtyBoard = await evalkit(['leaderboard', '-f', 'json', '--lake', dirty]);
  assert.equal(dirtyBoard.stdout, clean.stdout);
});

/** A copy of the lake whose arith-40 part of `table` has the bytes from..to of `range` set to 0xff; its path. */
function damagedPart(name: string, table: string, range: (bytes: Buffer) => [number, number]): string {
  const broken = join(temp, name);
  cpSync(lake, broken, { recursive: true });
  const part = join(
    broken,
    table,
    files(join(broken, table)).find((f) => f.includes('arith-40'))!,
  );
  const bytes = readFileSync(part);
  const [from, to] = range(bytes);
  for (let i = from; i < to; i++) bytes[i] = 0xff;
  writeFileSync(part, bytes);
  return part;
}

/** `query --lake` of the collections of the records read: the damaged part named, arith-40's records left out. */
async function assertLeftOut(
  dir: string,
  part: string,
  why: string,
  sql = 'SELECT collection, count(*) AS n FROM records GROUP BY 1 ORDER BY 1',
): Promise<void> {
  const r = await evalkit(['query', sql, '-f', 'json', '--lake', dir]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, new RegExp(`${part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} skipped: ${why}`));
  assert.match(r.stderr, /its records are left out/);
  assert.deepEqual(
    JSON.parse(r.stdout).rows.map((x: { collection: string }) => x.collection),
    ['demo-bench'],
  );
}

test('a part that fails to read names itself and leaves out its records, not the whole lake', async () => {
  // Right name, damaged pages and footer: DuckDB cannot read the part's schema.
  const part = damagedPart('broken', 'samples', (bytes) => [8, bytes.length - 200]);
  await assertLeftOut(join(temp, 'broken'), part, 'unreadable');
});

test('a part whose footer reads but whose pages do not: found by the query that reads it, its records left out', async () => {
  for (const table of ['samples', 'result_items']) {
    const dir = `paged-${table}`;
    // The footer (its length in the 4 bytes before the closing PAR1) is kept, so the part's columns read as the
    // table's; every page before it is damaged.
    const part = damagedPart(dir, table, (bytes) => [
      4,
      bytes.length - 8 - bytes.readUInt32LE(bytes.length - 8),
    ]);
    // The large tables are read in place: the damaged pages are found by a query that reads them, which then
    // runs again without the part's records.
    await assertLeftOut(
      join(temp, dir),
      part,
      'unreadable',
      `SELECT collection, count(*) AS n FROM records WHERE record_key IN (SELECT record_key FROM ${table}) GROUP BY 1 ORDER BY 1`,
    );
    // No row of a left-out record stays behind.
    for (const rows of ['results', 'samples', 'result_items', 'result_item_sets']) {
      const orphans = await evalkit([
        'query',
        `SELECT count(*) AS n FROM ${rows} WHERE record_key NOT IN (SELECT record_key FROM records)`,
        '-f',
        'json',
        '--lake',
        join(temp, dir),
      ]);
      assert.equal(JSON.parse(orphans.stdout).rows[0].n, 0, `${table}: ${rows}`);
    }
  }
  // leaderboard reads the items only, and leaves the record out when its items part is damaged.
  const ranked = async (dir: string): Promise<string[]> => {
    const r = await evalkit(['leaderboard', '-f', 'json', '--lake', dir]);
    assert.equal(r.code, 0, r.stderr);
    const boards = JSON.parse(r.stdout).leaderboards as { rows: { record_key: string }[] }[];
    return boards.flatMap((b) => b.rows.map((row) => row.record_key)).sort();
  };
  const all = await ranked(lake);
  const left = await ranked(join(temp, 'paged-result_items'));
  assert.ok(left.length > 0 && left.length < all.length, `${left.length} of ${all.length} ranked`);
  assert.ok(left.every((key) => all.includes(key)));
});

test('a lake made by ingest is a lake before its first record', async () => {
  const empty = join(temp, 'empty-lake');
  mkdirSync(join(temp, 'nothing'));
  const r = await evalkit(['ingest', join(temp, 'nothing'), '--lake', empty, '--no-progress']);
  assert.ok(existsSync(join(empty, 'records')), r.stderr);
  assert.equal(await count(empty), 0);
});

test('retrieval files into a lake are refused before anything is stored; --retrieval reads refuse --lake', async () => {
  const target = join(temp, 'retrieval-lake');
  const before = await evalkit(['ingest', 'examples/eee/data', '--lake', target, '--no-progress']);
  assert.equal(before.code, 0, before.stderr);
  const files = snapshot(target);
  // The exact case of the issue (a folder of gold, results and events) and a variant: one events file mixed
  // with evaluation records.
  for (const inputs of [
    ['examples/retrieval/loop/'],
    ['examples/compare', 'examples/retrieval/loop/events.jsonl'],
  ]) {
    const r = await evalkit(['ingest', ...inputs, '--lake', target, '--no-progress']);
    assert.equal(r.code, 2, r.stdout);
    assert.match(r.stderr, /store\.retrieval-refused: .*retrieval rows .*nothing was stored/);
    assert.doesNotMatch(r.stdout, /added/);
    assert.deepEqual(snapshot(target), files, 'the lake is as it was');
  }
  for (const args of [
    ['leaderboard', '--retrieval'],
    ['compare', 'a', 'b', '--retrieval'],
  ]) {
    const r = await evalkit([...args, '--lake', target]);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, /usage\.lake-retrieval/);
  }
});

test('models and export parquet take --lake: the same output as the store file of the same records', async () => {
  const db = join(temp, 'same.duckdb');
  assert.equal(
    (await evalkit(['ingest', 'examples/eee/data', 'examples/compare', '--db', db, '--no-progress'])).code,
    0,
  );
  const fromDb = await evalkit(['models', '-f', 'json', '--db', db]);
  const fromLake = await evalkit(['models', '-f', 'json', '--lake', lake]);
  assert.equal(fromLake.code, 0, fromLake.stderr);
  assert.equal(fromLake.stdout, fromDb.stdout);
  const out = join(temp, 'exported');
  const r = await evalkit(['export', 'parquet', out, '--lake', lake, '-f', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const back = join(temp, 'back.duckdb');
  assert.equal((await evalkit(['ingest', out, '--db', back, '--no-progress'])).code, 0);
  // Read back, the export holds the same records (their origin is now the export).
  const keys = async (db: string): Promise<string> =>
    (
      await evalkit([
        'query',
        'SELECT record_key, model_id FROM records ORDER BY 1',
        '-f',
        'json',
        '--db',
        db,
      ])
    ).stdout;
  assert.equal(await keys(back), await keys(db));
});

test('ingest --lake waiting on another writer says so at once', async () => {
  const target = join(temp, 'locked-lake');
  mkdirSync(join(target, 'records'), { recursive: true });
  const holder = spawn('sleep', ['30'], { stdio: 'ignore' });
  writeFileSync(
    join(target, '.evalkit-lake.lock'),
    JSON.stringify({
      pid: holder.pid,
      host: hostname(),
      started_at: new Date().toISOString(),
      purpose: 'test',
    }),
  );
  // The holder goes once the ingest says it waits for it (not after a fixed delay: on a loaded machine the ingest
  // may reach the lock later); the ingest then takes over its lock and publishes.
  const waiting = new RegExp(`evalkit: waiting for the lake's lock: .*process ${holder.pid}`);
  let holderKilled = false;
  const r = await evalkit(['ingest', 'examples/eee/data', '--lake', target, '--no-progress'], {
    onStderr: (text) => {
      if (!holderKilled && waiting.test(text)) holderKilled = holder.kill('SIGKILL');
    },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(holderKilled, 'it said it waits, while the holder was alive');
  assert.match(r.stderr, waiting);
  assert.equal(await count(target), 1);
});
