// The Parquet lake (`ingest --lake`, `--lake` on the read commands): the same output as a store file on the same
// records; re-ingesting adds nothing; two writers at once both land with nothing lost or duplicated; kill -9 during
// a lake ingest leaves no visible partial file and a re-run completes it; the files read back with hyparquet, row
// for row; docs/lake.md's column types are what is written.
// test-runner: own process (long: as a job of its own it keeps the batches short).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import { decompress } from 'fzstd';
import { ensureBenchData } from '../../bench/_store-data.js';
import { DuckDBInstance } from '@duckdb/node-api';
import { openStore } from '../../src/store/db.js';
import { openLake } from '../../src/store/lake.js';
import { runInProcess } from '../metrics/inproc.js';
import { cliCommand } from '../helpers/cli.js';

/** The CLI from the tests' shared build (a start costs 0.3 s of CPU, not the 2.4 s of tsx). */
let CLI: string[] = [];
before(async () => {
  CLI = await cliCommand();
});
import { projectRoot } from '../helpers/shared.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-lake-'));
after(() => rmSync(temp, { recursive: true, force: true }));
/** hyparquet reads zstd pages with a decompressor given to it (fzstd, pure JavaScript). */
const ZSTD = { ZSTD: (input: Uint8Array) => decompress(input) };

const INPUTS = ['examples/compare', 'examples/eee/data'].map((p) => join(projectRoot, p));
const lake = join(temp, 'lake');
const db = join(temp, 'store.duckdb');

before(async () => {
  for (const args of [
    ['ingest', ...INPUTS, '--lake', lake, '--no-progress'],
    ['ingest', ...INPUTS, '--db', db, '--no-progress'],
  ]) {
    const r = await runInProcess(args);
    assert.equal(r.code, 0, r.stdout + r.stderr);
  }
});

function parquetFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.parquet'))
    .map((f) => join(dir, f))
    .sort();
}

const READS: string[][] = [
  ['leaderboard'],
  ['leaderboard', '--format', 'json'],
  ['compare', 'acme/tiny-model-1b', 'acme/tiny-model-3b', '--format', 'json'],
  // Clustering reads the instance rows: the lake is read again with them (withReadStore).
  ['compare', 'acme/tiny-model-1b', 'acme/tiny-model-3b', '--cluster-by', 'sample_id', '--format', 'json'],
  [
    'query',
    'SELECT * EXCLUDE (ingest_id, ingested_at, origin_path) FROM records ORDER BY record_key',
    '--format',
    'json',
  ],
  ['query', 'SELECT * FROM results ORDER BY record_key, result_index', '--format', 'json'],
  ['query', 'SELECT * FROM samples ORDER BY record_key, row_index', '--format', 'json'],
  ['query', 'SELECT * FROM sample_rows ORDER BY record_key, row_index', '--format', 'json'],
  // models' model_name is any_value() over a model's records, so only its deterministic columns are compared.
  ['query', 'SELECT model_id, developer, records FROM models ORDER BY model_id', '--format', 'json'],
  ['query', 'SELECT * FROM benchmarks ORDER BY ALL', '--format', 'json'],
];

for (const args of READS)
  test(`${args.slice(0, 2).join(' ')}: --lake gives what --db gives on the same records`, async () => {
    const fromLake = await runInProcess([...args, '--lake', lake]);
    const fromDb = await runInProcess([...args, '--db', db]);
    assert.equal(fromLake.code, 0, fromLake.stderr);
    assert.equal(fromDb.code, 0, fromDb.stderr);
    assert.ok(fromDb.stdout.length > 40);
    assert.equal(fromLake.stdout, fromDb.stdout);
  });

test("ingest --lake writes each result's items; a lake without them (an older writer's) reads the same", async () => {
  for (const table of ['result_items', 'result_item_sets'])
    assert.ok(parquetFiles(join(lake, table)).length > 0, `${table} parts written`);
  // The two large tables are read in place (views over the part files), the small ones copied at opening.
  const opened = await openLake(lake);
  try {
    const kinds = await opened.all<{ table_name: string; table_type: string }>(
      `SELECT table_name, table_type FROM information_schema.tables
       WHERE table_name IN ('records', 'results', 'samples', 'result_items', 'result_item_sets') ORDER BY 1`,
    );
    assert.deepEqual(Object.fromEntries(kinds.map((k) => [k.table_name, k.table_type])), {
      records: 'BASE TABLE',
      result_item_sets: 'BASE TABLE',
      result_items: 'VIEW',
      results: 'BASE TABLE',
      samples: 'VIEW',
    });
    assert.deepEqual(
      [...opened.inPlaceParts].sort(),
      [...parquetFiles(join(lake, 'samples')), ...parquetFiles(join(lake, 'result_items'))].sort(),
    );
  } finally {
    opened.close();
  }
  // The same lake as a writer before the items wrote it: the instance rows are read, and paired as before.
  const older = join(temp, 'lake-without-items');
  cpSync(lake, older, { recursive: true });
  for (const table of ['result_items', 'result_item_sets']) rmSync(join(older, table), { recursive: true });
  const withRows = await openLake(older);
  try {
    const [row] = await withRows.all<{ n: number }>('SELECT count(*)::INTEGER AS n FROM samples');
    assert.ok(row!.n > 0);
  } finally {
    withRows.close();
  }
  for (const args of READS.slice(0, 4)) {
    const fromOlder = await runInProcess([...args, '--lake', older]);
    const fromDb = await runInProcess([...args, '--db', db]);
    assert.equal(fromOlder.code, 0, fromOlder.stderr);
    assert.equal(fromOlder.stdout, fromDb.stdout, args.join(' '));
  }
});

test('view --export: the same static site from --lake as from --db', async () => {
  const a = join(temp, 'site-lake');
  const b = join(temp, 'site-db');
  assert.equal((await runInProcess(['view', '--lake', lake, '--export', a])).code, 0);
  assert.equal((await runInProcess(['view', '--db', db, '--export', b])).code, 0);
  // The export's marker lists the hashes of the files it wrote, whose ingest times differ: it is left out.
  const sites = (dir: string): string[] =>
    (readdirSync(dir, { recursive: true }) as string[])
      .filter((f) => f.endsWith('.json') && f !== '.evalkit-export.json')
      .sort();
  const files = sites(b);
  assert.ok(files.length > 0);
  assert.deepEqual(sites(a), files);
  // The lake keeps no ingest log, and the two were ingested at different moments: those fields aside, equal.
  const comparable = (text: string): unknown =>
    JSON.parse(text, (key, value: unknown) =>
      ['ingests', 'ingested_at', 'ingest_id', 'origin_path', 'generated_at'].includes(key)
        ? undefined
        : value,
    );
  for (const f of files)
    assert.deepEqual(
      comparable(readFileSync(join(a, f), 'utf8')),
      comparable(readFileSync(join(b, f), 'utf8')),
      f,
    );
});

test('ingesting the same records again writes no file', async () => {
  const before = parquetFiles(lake);
  const r = await runInProcess(['ingest', ...INPUTS, '--lake', lake, '--no-progress', '--format', 'json']);
  assert.equal(r.code, 0);
  assert.equal((JSON.parse(r.stdout) as { summary: { records: number } }).summary.records, 0);
  assert.deepEqual(parquetFiles(lake), before);
});

test('the lake files read back with hyparquet, row for row, as the store holds them', async () => {
  const files = parquetFiles(join(lake, 'samples'));
  assert.ok(files.length > 0);
  for (const f of files) assert.match(f, /samples\/collection=[^/]+\/part-[0-9a-f-]+_\d+\.parquet$/);
  const rows: Record<string, unknown>[] = [];
  for (const f of files)
    rows.push(...(await parquetReadObjects({ file: await asyncBufferFromFile(f), compressors: ZSTD })));
  const store = await openStore(db, { readOnly: true });
  try {
    const expected = await store.all<Record<string, unknown>>(
      'SELECT record_key, row_index, sample_id, sample_hash, score, is_correct, output_text, raw::VARCHAR AS raw FROM samples ORDER BY record_key, row_index',
    );
    const got = rows
      .map((r) => ({
        record_key: r.record_key,
        row_index: Number(r.row_index),
        sample_id: r.sample_id,
        sample_hash: r.sample_hash ?? null,
        score: r.score ?? null,
        is_correct: r.is_correct ?? null,
        output_text: r.output_text ?? null,
        raw: typeof r.raw === 'string' ? r.raw : JSON.stringify(r.raw),
      }))
      .sort((x, y) =>
        String(x.record_key) < String(y.record_key)
          ? -1
          : x.record_key === y.record_key
            ? x.row_index - y.row_index
            : 1,
      );
    assert.equal(got.length, expected.length);
    assert.deepEqual(got, expected);
  } finally {
    store.close();
  }
});

test("docs/lake.md's column types are the types of the written files", async () => {
  const doc = readFileSync(join(projectRoot, 'docs/lake.md'), 'utf8');
  // A DuckDB of its own: a lake's reader reads no file (the lake is read into a locked-down snapshot).
  const store = await openStore(join(temp, 'describe.duckdb'), { readOnly: false });
  try {
    for (const table of ['records', 'results', 'samples', 'result_items', 'result_item_sets'] as const) {
      const block = new RegExp(
        `CREATE EXTERNAL TABLE evalkit_${table} \\(([^;]*?)\\)\\s*PARTITIONED BY`,
        's',
      ).exec(doc);
      assert.ok(block, `docs/lake.md has the Spark statement of ${table}`);
      const documented = [...block[1]!.matchAll(/^\s*(\w+)\s+(\w+)/gm)].map((m) => [m[1], m[2]]);
      const file = parquetFiles(join(lake, table))[0]!;
      const written = await store.all<{ column_name: string; column_type: string }>(
        `DESCRIBE SELECT * FROM read_parquet('${file.replace(/'/g, "''")}', hive_partitioning = false)`,
      );
      const spark: Record<string, string> = {
        VARCHAR: 'STRING',
        JSON: 'STRING',
        BIGINT: 'BIGINT',
        INTEGER: 'INT',
        DOUBLE: 'DOUBLE',
        BOOLEAN: 'BOOLEAN',
        TIMESTAMP: 'TIMESTAMP',
      };
      assert.deepEqual(
        documented,
        written.map((c) => [c.column_name, spark[c.column_type] ?? c.column_type]),
        table,
      );
      // Trino's statement: the same columns, Trino's types, the partition column last.
      const trinoBlock = new RegExp(
        `CREATE TABLE hive\\.evalkit\\.${table} \\(([^;]*?)\\)\\s*WITH`,
        's',
      ).exec(doc);
      assert.ok(trinoBlock, `docs/lake.md has the Trino statement of ${table}`);
      const trino: Record<string, string> = {
        VARCHAR: 'VARCHAR',
        JSON: 'VARCHAR',
        BIGINT: 'BIGINT',
        INTEGER: 'INTEGER',
        DOUBLE: 'DOUBLE',
        BOOLEAN: 'BOOLEAN',
        TIMESTAMP: 'TIMESTAMP(6)',
      };
      assert.deepEqual(
        [...trinoBlock[1]!.matchAll(/^\s*(\w+)\s+(\S+?),?$/gm)].map((m) => [m[1], m[2]]),
        [
          ...written.map((c) => [c.column_name, trino[c.column_type] ?? c.column_type]),
          ['collection', 'VARCHAR'],
        ],
        `Trino: ${table}`,
      );
    }
  } finally {
    store.close();
  }
});

test("docs/lake.md's DuckDB statements read the lake: the leaderboard's scores and counts from its views", async () => {
  const doc = readFileSync(join(projectRoot, 'docs/lake.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Reading with DuckDB'));
  const sql = /```sql\n([\s\S]*?)```/.exec(section)![1]!.replaceAll("'results/", `'${lake}/`);
  // A DuckDB of its own, as a user's: nothing of evalkit's but the statements of the page.
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const store = {
    all: async <T>(q: string): Promise<T[]> =>
      (await connection.runAndReadAll(q)).getRowObjectsJson() as unknown as T[],
    close: () => {
      connection.closeSync();
      instance.closeSync();
    },
  };
  try {
    for (const statement of sql.split(';').filter((s) => s.replace(/--.*$/gm, '').trim() !== ''))
      await connection.run(statement);
    const means = await store.all<{ record_key: string; items: number; rows: number; mean: number }>(
      `SELECT i.record_key, i.items, s.rows, i.mean FROM
         (SELECT record_key, count(*)::INTEGER AS items, avg(v) AS mean FROM result_items GROUP BY 1) i
         JOIN (SELECT record_key, count(*)::INTEGER AS rows FROM samples GROUP BY 1) s USING (record_key)`,
    );
    const board = await runInProcess([
      'leaderboard',
      '-f',
      'json',
      '--benchmark',
      'arith-40',
      '--lake',
      lake,
    ]);
    const rows = (
      JSON.parse(board.stdout).leaderboards as { rows: { record_key: string; score: number; n: number }[] }[]
    ).flatMap((b) => b.rows);
    assert.equal(rows.length, 3);
    for (const row of rows) {
      const m = means.find((x) => x.record_key === row.record_key);
      assert.ok(m, `the doc's views hold ${row.record_key}`);
      assert.equal(m.items, row.n);
      assert.equal(m.rows, row.n);
      assert.ok(Math.abs(m.mean - row.score) < 1e-12, `${m.mean} vs ${row.score}`);
    }
    // The items' key hashes are computed as evalkit computes them.
    const [hashes] = await store.all<{ n: number }>(
      `SELECT count(*)::INTEGER AS n FROM result_items WHERE k_1 <> hash(k) OR k_2 <> hash('#' || k)`,
    );
    assert.equal(hashes!.n, 0);
  } finally {
    store.close();
  }
});

function ingestProcess(args: string[]): { done: Promise<number | null>; kill: () => void } {
  const child = spawn(process.execPath, [...CLI, 'ingest', ...args], {
    cwd: projectRoot,
    stdio: 'ignore',
  });
  return {
    done: new Promise((resolve) => child.on('exit', (code) => resolve(code))),
    kill: () => child.kill('SIGKILL'),
  };
}

async function lakeCounts(
  dir: string,
): Promise<{ records: number; keys: number; rows: number; expected: number }> {
  const store = await openLake(dir);
  try {
    const [r] = await store.all<{ records: number; keys: number; rows: number; expected: number }>(
      `SELECT (SELECT count(*) FROM records) AS records, (SELECT count(DISTINCT record_key) FROM records) AS keys,
              (SELECT count(*) FROM samples) AS rows, (SELECT coalesce(sum(sample_count), 0) FROM records) AS expected`,
    );
    return r!;
  } finally {
    store.close();
  }
}

test('two ingest --lake processes at once both land: nothing lost, nothing duplicated', async () => {
  const data = ensureBenchData({ models: 4, questions: 2000, dir: join(temp, 'concurrent-data') });
  const dir = join(temp, 'concurrent-lake');
  // Overlapping inputs: records 0-2 and 1-3.
  const a = ingestProcess([...data.aggregates.slice(0, 3), '--lake', dir, '--no-progress']);
  const b = ingestProcess([...data.aggregates.slice(1), '--lake', dir, '--no-progress']);
  assert.deepEqual(await Promise.all([a.done, b.done]), [0, 0]);
  const counts = await lakeCounts(dir);
  assert.equal(counts.records, 4);
  assert.equal(counts.keys, 4);
  assert.equal(counts.rows, 4 * 2000);
  assert.equal(counts.rows, counts.expected);
});

/**
 * Starts an ingest (with `env` added to its environment) and SIGKILLs it once `moment(stderr)` holds (polled);
 * resolves with the signal that ended it.
 */
async function ingestKilledWhen(
  args: string[],
  moment: (stderr: string) => boolean,
  env: Record<string, string> = {},
): Promise<NodeJS.Signals | null> {
  const child = spawn(process.execPath, [...CLI, 'ingest', ...args], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const ended = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_code, signal) => r(signal)));
  while (child.exitCode === null && !moment(stderr)) await new Promise((r) => setTimeout(r, 2));
  child.kill('SIGKILL');
  return ended;
}

test('kill -9 during ingest --lake: no partial file is visible, every record has its rows, a re-run completes it', async (t) => {
  const data = ensureBenchData({ models: 4, questions: 4000, dir: join(temp, 'kill-data') });
  const dir = join(temp, 'kill-lake');
  // Two records in first, whole; then runs over all four are cut while they write.
  const first = ingestProcess([...data.aggregates.slice(0, 2), '--lake', dir, '--no-progress']);
  assert.equal(await first.done, 0);
  const staging = (): string[] => readdirSync(dir).filter((n) => n.startsWith('.evalkit-staging-'));
  const moments: [string, (stderr: string) => boolean, Record<string, string>?][] = [
    ['while it ingests into its staging store', () => staging().length > 0],
    [
      'while it writes Parquet into its staging folder',
      () => staging().some((n) => existsSync(join(dir, n, 'out'))),
    ],
    // The writer's test hook: its rows, results and documents files renamed into the lake, its records files not.
    [
      'between publishing its rows and its records files',
      (stderr) => stderr.includes('evalkit:paused-before-lake-records\n'),
      { EVALKIT_TEST_PAUSE_BEFORE_LAKE_RECORDS: '1' },
    ],
  ];
  for (const [when, moment, env] of moments) {
    const samplesBefore = parquetFiles(join(dir, 'samples')).length;
    const signal = await ingestKilledWhen(
      [join(data.root, 'data'), '--lake', dir, '--no-progress'],
      moment,
      env,
    );
    assert.equal(signal, 'SIGKILL', `the kill landed ${when}`);
    if (env)
      assert.ok(parquetFiles(join(dir, 'samples')).length > samplesBefore, 'its rows files were published');
    // Every visible file is a whole Parquet file.
    for (const f of parquetFiles(dir).filter((f) => !f.includes('/.evalkit-staging-')))
      await parquetReadObjects({
        file: await asyncBufferFromFile(f),
        columns: ['record_key'],
        compressors: ZSTD,
      });
    assert.deepEqual(
      await lakeCounts(dir),
      { records: 2, keys: 2, rows: 8000, expected: 8000 },
      `killed ${when}: the two records whole, nothing of the others`,
    );
    t.diagnostic(`killed ${when}`);
  }
  const last = ingestProcess([join(data.root, 'data'), '--lake', dir, '--no-progress']);
  assert.equal(await last.done, 0);
  const counts = await lakeCounts(dir);
  assert.deepEqual(counts, { records: 4, keys: 4, rows: 16000, expected: 16000 });
  assert.deepEqual(
    readdirSync(dir).filter((n) => n.startsWith('.')),
    [],
    'staging folders and the lock are gone',
  );
});
