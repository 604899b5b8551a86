// `query` reads the store and nothing else: each way out of it the SQL could take (writing a file, overwriting the
// store, writing another store, reading any file, exporting, installing, unlocking) is refused by DuckDB's own
// controls and leaves every file as it was; SELECT, WITH, the views, DESCRIBE and EXPLAIN still work; several
// statements all run and the output is the last one's result, as the output says. Issue 39 item 15: DuckDB lets a
// locked store write its own siblings (STORE.wal, STORE.tmp/), so on --db as on --lake only reading statement kinds
// run, whatever the spelling (case, comments, several statements, a CTE around it).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { evalkit } from './inproc.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-query-lockdown-'));
after(() => rmSync(temp, { recursive: true, force: true }));
const store = join(temp, 'store.duckdb');
const other = join(temp, 'other.duckdb');
const notes = join(temp, 'notes.txt');
const digest = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

before(async () => {
  for (const db of [store, other]) {
    const r = await evalkit(['ingest', 'examples/eee/data', '--db', db]);
    assert.equal(r.code, 0, r.stderr);
  }
  writeFileSync(notes, 'my notes\n');
});

const query = (sql: string, ...rest: string[]) => evalkit(['query', sql, '--db', store, ...rest]);
const count = async (db: string): Promise<number> =>
  JSON.parse((await evalkit(['query', 'SELECT count(*) AS n FROM records', '--db', db, '-f', 'json'])).stdout)
    .rows[0].n;

const ESCAPES: { name: string; sql: string }[] = [
  { name: 'COPY TO a file', sql: `COPY (SELECT 1) TO '${notes}'` },
  { name: 'COPY TO the store itself', sql: `COPY (SELECT 1) TO '${store}'` },
  { name: 'COPY TO a new file', sql: `COPY records TO '${join(temp, 'new.csv')}'` },
  {
    name: 'ATTACH another store READ_WRITE',
    sql: `ATTACH '${other}' AS o (READ_WRITE); DELETE FROM o.records`,
  },
  { name: 'ATTACH another store', sql: `ATTACH '${other}' AS o` },
  { name: 'read_text', sql: `SELECT * FROM read_text('${notes}')` },
  { name: 'read_csv', sql: `SELECT * FROM read_csv('/etc/passwd')` },
  { name: 'read_blob', sql: `SELECT * FROM read_blob('${notes}')` },
  { name: 'glob', sql: `SELECT * FROM glob('${temp}/*')` },
  { name: 'EXPORT DATABASE', sql: `EXPORT DATABASE '${join(temp, 'exported')}'` },
  { name: 'INSTALL', sql: 'INSTALL httpfs' },
  { name: 'LOAD', sql: 'LOAD httpfs' },
  { name: 'SET to undo the lock', sql: 'SET enable_external_access = true' },
  { name: 'RESET to undo the lock', sql: 'RESET enable_external_access' },
  { name: 'SET lock_configuration', sql: 'SET lock_configuration = false' },
  { name: 'SET access_mode', sql: `SET access_mode = 'READ_WRITE'` },
  { name: 'a statement that writes', sql: 'DELETE FROM records' },
  { name: 'CREATE TABLE in the store', sql: 'CREATE TABLE t AS SELECT 1' },
  {
    name: 'logging to a file',
    sql: `CALL enable_logging(storage = 'file', storage_path = '${join(temp, 'logs')}'); SELECT 1`,
  },
  { name: 'profiling printed past the output', sql: 'PRAGMA enable_profiling; SELECT 1' },
];

test('query: every escape is refused (exit 2, a clear code) and no file changes', async () => {
  const before = { store: digest(store), other: digest(other), notes: digest(notes) };
  for (const { name, sql } of ESCAPES) {
    const r = await query(sql);
    assert.equal(r.code, 2, `${name}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /^evalkit: error store\.(query-refused|read-only): /, name);
    assert.equal(r.stdout, '', name);
  }
  assert.deepEqual({ store: digest(store), other: digest(other), notes: digest(notes) }, before);
  for (const made of ['new.csv', 'exported', 'logs', 'store.duckdb.wal'])
    assert.equal(existsSync(join(temp, made)), false, made);
  assert.equal(await count(other), 1, 'the other store keeps its record');
});

/** The statements DuckDB's lockdown lets through on a store file: they write the store's own siblings. */
const SIBLING_WRITES = (db: string): { name: string; sql: string }[] => [
  // The exact cases of the issue.
  { name: 'COPY TO the WAL', sql: `COPY (SELECT 1) TO '${db}.wal'` },
  { name: 'EXPORT DATABASE into STORE.tmp', sql: `EXPORT DATABASE '${db}.tmp'` },
  { name: 'COPY into STORE.tmp/', sql: `COPY (SELECT 1) TO '${db}.tmp/x.csv'` },
  // Variants: spelling, comments, options, several statements, a CTE, other writing kinds.
  { name: 'lower case', sql: `copy (select 1) to '${db}.wal'` },
  { name: 'a comment first', sql: `/* just a read */ -- really\nCOPY records TO '${db}.wal' (FORMAT csv)` },
  { name: 'after a SELECT', sql: `SELECT 1; COPY (SELECT 2) TO '${db}.wal'` },
  {
    name: 'EXPORT after a SELECT, with a comment between',
    sql: `SELECT 1; /* x */ EXPORT DATABASE '${db}.tmp'`,
  },
  {
    name: 'a CTE before an INSERT',
    sql: `WITH x AS (SELECT 1 AS a) INSERT INTO records (record_key) SELECT 'k' FROM x`,
  },
  { name: 'a CTE inside COPY', sql: `COPY (WITH x AS (SELECT 1 AS a) SELECT * FROM x) TO '${db}.wal'` },
  { name: 'COPY TO parquet in STORE.tmp', sql: `COPY records TO '${db}.tmp/r.parquet' (FORMAT parquet)` },
  { name: 'export database lower case', sql: `export database '${db}.tmp' (format parquet)` },
  { name: 'COPY FROM DATABASE', sql: `COPY FROM DATABASE memory TO memory` },
  { name: 'CREATE TEMP TABLE', sql: 'CREATE TEMP TABLE t AS SELECT 1' },
  { name: 'CREATE TEMP VIEW', sql: 'CREATE TEMP VIEW v AS SELECT 1' },
  { name: 'CREATE MACRO', sql: 'CREATE TEMP MACRO m(x) AS x + 1' },
  { name: 'PREPARE a COPY', sql: `PREPARE p AS COPY (SELECT 1) TO '${db}.wal'; EXECUTE p` },
  { name: 'EXPLAIN ANALYZE a COPY', sql: `EXPLAIN ANALYZE COPY (SELECT 1) TO '${db}.wal'` },
  { name: 'INSERT into a temporary table', sql: 'INSERT INTO temp.main.t VALUES (1)' },
  { name: 'DETACH', sql: 'DETACH memory' },
  { name: 'CHECKPOINT', sql: 'CHECKPOINT' },
  { name: 'VACUUM', sql: 'VACUUM' },
];

test('query --db: no statement writes beside the store (STORE.wal, STORE.tmp/): refused by its kind', async () => {
  const temp2 = mkdtempSync(join(tmpdir(), 'evalkit-query-siblings-'));
  try {
    const db = join(temp2, 'store.duckdb');
    assert.equal((await evalkit(['ingest', 'examples/eee/data', '--db', db])).code, 0);
    const before = digest(db);
    for (const { name, sql } of SIBLING_WRITES(db)) {
      const r = await evalkit(['query', sql, '--db', db]);
      assert.equal(r.code, 2, `${name}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /^evalkit: error store\.(query-refused|read-only): /, name);
      assert.equal(r.stdout, '', name);
      for (const made of ['store.duckdb.wal', 'store.duckdb.tmp'])
        assert.equal(existsSync(join(temp2, made)), false, `${name}: ${made} was written`);
    }
    assert.equal(digest(db), before, 'the store is unchanged');
    const copy = await evalkit(['query', `COPY (SELECT 1) TO '${db}.wal'`, '--db', db]);
    assert.match(copy.stderr, /a COPY statement/, 'the message names the kind');
  } finally {
    rmSync(temp2, { recursive: true, force: true });
  }
});

test('query: SELECT, WITH, the views, DESCRIBE, EXPLAIN, SUMMARIZE, PRAGMA and variables still work', async () => {
  const ok = async (sql: string): Promise<string> => {
    const r = await query(sql);
    assert.equal(r.code, 0, `${sql}: ${r.stderr}`);
    return r.stdout;
  };
  assert.match(await ok('SELECT evaluation_id FROM records'), /demo-bench\/acme\/tiny-model-1b/);
  assert.match(await ok('WITH x AS (SELECT count(*) AS n FROM samples) SELECT n FROM x'), /^\s*3$/m);
  for (const view of ['models', 'benchmarks', 'result_rows', 'sample_rows'])
    await ok(`SELECT * FROM ${view}`);
  assert.match(await ok('DESCRIBE records'), /record_key/);
  assert.match(await ok('EXPLAIN SELECT * FROM records'), /physical_plan/);
  assert.match(await ok('SUMMARIZE results'), /score/);
  assert.match(await ok("SET VARIABLE x = 41; SELECT getvariable('x') + 1 AS y"), /^\s*42$/m);
  assert.match(await ok('PRAGMA table_info(records)'), /record_key/);
  assert.match(await ok('SHOW TABLES'), /records/);
  assert.match(await ok('/* a comment */ from records select count(*) as n'), /^\s*1$/m);
  assert.match(
    await ok("SELECT json_extract_string(raw, '$.evaluation_id') AS e FROM records"),
    /tiny-model-1b/,
  );
});

test('query: several statements all run, the last one is printed, and every format says so', async () => {
  const sql = 'SELECT 1 AS first; SELECT 2 AS second';
  const table = await query(sql);
  assert.equal(table.code, 0, table.stderr);
  assert.equal(
    table.stdout,
    'second\n------\n     2\n(1 row; the result of the last of 2 statements, which all ran)\n',
  );
  const asJson = JSON.parse((await query(sql, '-f', 'json')).stdout);
  assert.deepEqual(asJson, {
    columns: [{ name: 'second', type: 'INTEGER' }],
    rows: [{ second: 2 }],
    statements: 2,
  });
  const csv = await query(sql, '-f', 'csv');
  assert.equal(csv.stdout, 'second\n2\n');
  assert.match(csv.stderr, /2 statements ran; the output is the last one’s result/);
  const jsonl = await query(sql, '-f', 'jsonl');
  assert.equal(jsonl.stdout, '{"second":2}\n');
  // The later statement really ran after the earlier one (it reads what the first made).
  const chained = await query("SET VARIABLE v = 7; SELECT getvariable('v') * 6 AS w", '-f', 'jsonl');
  assert.equal(chained.stdout, '{"w":42}\n');
  // A failing statement stops the run and is named.
  const failing = await query('SELECT 1; SELECT * FROM no_such_table; SELECT 3');
  assert.equal(failing.code, 2);
  assert.match(failing.stderr, /statement 2 of 3: Catalog Error/);
  assert.equal(failing.stdout, '');
  const empty = await query(' ; -- nothing');
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /usage\.empty-query/);
});
