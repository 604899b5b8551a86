// Every door into the store admits only what `validate` accepts, and stores all of that: an edited Parquet export
// with a NaN score is refused with a diagnostic (the other record still goes in); a leaderboard over a store that
// holds a NaN anyway still shows every benchmark; scores beyond 2^63 are stored as DOUBLE; an lm-eval doc nested
// 100k deep is stored. Also: `query` streams (bounded heap), and `export parquet` leaves no staging folder behind
// and completes after a killed export.
// test-runner: own process (long: as a job of its own it keeps the batches short).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { projectRoot } from '../helpers/shared.js';
import { evalkit } from './inproc.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-admission-'));
after(() => rmSync(temp, { recursive: true, force: true }));
const store = join(temp, 'store.duckdb');
const INPUTS = ['examples/eee/data', 'examples/datastore/current'];
const TINY_1B = 'demo-bench/acme/tiny-model-1b/2026-05-01';
const AGGREGATE = 'examples/eee/data/demo-bench/acme/tiny-model-1b/7c2f4e1a-93b5-4d6e-8a0f-2b1c3d4e5f60.json';

before(async () => {
  const r = await evalkit(['ingest', ...INPUTS, '--db', store]);
  assert.equal(r.code, 0, r.stderr);
});

async function withDuckDb<T>(
  path: string,
  work: (run: (sql: string) => Promise<void>) => Promise<T>,
): Promise<T> {
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  try {
    return await work(async (sql) => void (await connection.run(sql)));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

const rowsOf = async (db: string, sql: string): Promise<Record<string, unknown>[]> => {
  const r = await evalkit(['query', sql, '--db', db, '-f', 'json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout).rows;
};

test('a Parquet export edited to hold a NaN score: that record is refused with a diagnostic, the other is stored', async () => {
  const dir = join(temp, 'export-nan');
  assert.equal((await evalkit(['export', 'parquet', dir, '--db', store])).code, 0);
  const samples = join(dir, 'samples', 'collection=demo-bench', 'data_0.parquet');
  const edited = `${samples}.edited`;
  await withDuckDb(':memory:', async (run) => {
    await run(
      `COPY (SELECT * REPLACE (CASE WHEN evaluation_id = '${TINY_1B}' AND row_index = 0 THEN 'NaN'::DOUBLE ELSE score END AS score)
             FROM read_parquet('${samples}')) TO '${edited}' (FORMAT parquet)`,
    );
  });
  cpSync(edited, samples);
  rmSync(edited);
  const target = join(temp, 'from-nan-export.duckdb');
  const r = await evalkit(['ingest', dir, '--db', target, '--format', 'json']);
  assert.equal(r.code, 1, r.stderr);
  const result = JSON.parse(r.stdout);
  const nonFinite = result.diagnostics.filter((d: { code: string }) => d.code === 'store.non-finite');
  assert.equal(nonFinite.length, 1, JSON.stringify(result.diagnostics));
  assert.equal(nonFinite[0].pointer, '/evaluation/score');
  assert.equal(nonFinite[0].severity, 'error');
  assert.match(nonFinite[0].file, /export-nan#[0-9a-f]{64} \(samples\)$/);
  assert.equal(nonFinite[0].line, 1);
  const stored = await rowsOf(target, 'SELECT evaluation_id FROM records ORDER BY 1');
  assert.deepEqual(stored, [{ evaluation_id: 'demo-bench/acme_tiny-model/1750000000' }]);
  assert.deepEqual(await rowsOf(target, 'SELECT count(*) AS n FROM samples WHERE NOT isfinite(score)'), [
    { n: 0 },
  ]);
});

test('leaderboard over a store that holds a NaN or an Infinity anyway: every benchmark is still shown', async () => {
  for (const bad of ['NaN', 'Infinity']) {
    const copy = join(temp, `holds-${bad}.duckdb`);
    cpSync(store, copy);
    await withDuckDb(copy, (run) =>
      run(`UPDATE samples SET score = '${bad}'::DOUBLE WHERE evaluation_id = '${TINY_1B}' AND row_index = 0`),
    );
    const r = await evalkit(['leaderboard', '--db', copy]);
    assert.equal(r.code, 0, `${bad}: ${r.stderr}`);
    for (const benchmark of [
      'demo-bench · accuracy',
      'demo-bench arithmetic · Accuracy',
      'demo-bench tool use',
    ])
      assert.ok(r.stdout.includes(benchmark), `${bad}: ${benchmark} in\n${r.stdout}`);
  }
});

test('scores of 1e19 and a max_score of 1e21 validate, so they are stored, as DOUBLE', async () => {
  const aggregate = JSON.parse(readFileSync(join(projectRoot, AGGREGATE), 'utf8'));
  delete aggregate.detailed_evaluation_results;
  aggregate.evaluation_id = 'big-numbers';
  aggregate.evaluation_results[0].score_details.score = 1e19;
  aggregate.evaluation_results[0].score_details.uncertainty.standard_error.value = 1e19;
  aggregate.evaluation_results[0].metric_config.max_score = 1e21;
  const file = join(temp, 'big.json');
  writeFileSync(file, JSON.stringify(aggregate, null, 2));
  assert.equal((await evalkit(['validate', file])).code, 0);
  const db = join(temp, 'big.duckdb');
  const r = await evalkit(['ingest', file, '--db', db]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^1 records added/m);
  assert.deepEqual(
    await rowsOf(
      db,
      'SELECT score = 1e19 AS score_ok, max_score = 1e21 AS max_ok, standard_error = 1e19 AS se_ok, typeof(score) AS t FROM results WHERE result_index = 0',
    ),
    [{ score_ok: true, max_ok: true, se_ok: true, t: 'DOUBLE' }],
  );
});

test('an lm-eval doc nested 100,000 deep is stored whole (no stack overflow)', async () => {
  const dir = join(temp, 'deep-lm-eval');
  cpSync(join(projectRoot, 'examples/convert/lm-eval'), dir, { recursive: true });
  const name = readdirSync(dir).find((f) => f.startsWith('samples_sub_a'))!;
  const lines = readFileSync(join(dir, name), 'utf8').trimEnd().split('\n');
  const depth = 100_000;
  const deep = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  const first = JSON.parse(lines[0]);
  lines[0] = lines[0].replace(/"doc":\{/, `"doc":{"deep":${deep},`);
  writeFileSync(join(dir, name), lines.join('\n') + '\n');
  const db = join(temp, 'deep.duckdb');
  const r = await evalkit(['ingest', dir, '--db', db]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^1 records added \(8 rows\)/m);
  const [{ longest }] = await rowsOf(db, 'SELECT max(length(raw::VARCHAR)) AS longest FROM samples');
  assert.ok((longest as number) > deep.length, 'the deep doc is kept');
  assert.equal(first.doc_id, 0);
});

test('query streams its rows: 45 MB of CSV through a 40 MB heap', { timeout: 240_000 }, async () => {
  const rows = 150_000;
  const child = spawn(
    process.execPath,
    [
      '--max-old-space-size=40',
      '--import',
      'tsx',
      'src/cli/bin.ts',
      'query',
      `SELECT repeat('x', 300) || range AS s FROM range(${rows})`,
      '--db',
      store,
      '-f',
      'csv',
    ],
    { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let bytes = 0;
  let lines = 0;
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    bytes += c.length;
    for (const b of c) if (b === 10) lines++;
  });
  child.stderr.on('data', (c: Buffer) => (stderr += c));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 0, stderr.slice(0, 2000));
  assert.equal(lines, rows + 1);
  assert.ok(bytes > 45_000_000, `${bytes} bytes`);
});

test('export parquet: no staging folder is left, and a re-run after a killed export completes and sweeps it', async () => {
  const parent = join(temp, 'exports');
  mkdirSync(parent);
  const dir = join(parent, 'lake');
  // A process that is gone, whose staging folder (with evalkit's marker) a kill left behind.
  const gone = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => gone.on('close', resolve));
  const leftover = join(parent, `.lake.tmp-${gone.pid}`);
  mkdirSync(join(leftover, 'records'), { recursive: true });
  writeFileSync(join(leftover, '.evalkit-export-staging'), '');
  writeFileSync(join(leftover, 'records', 'data_0.parquet'), 'half');
  // A folder of the same shape that evalkit did not make (no marker) is not touched.
  const notOurs = join(parent, `.lake.tmp-${gone.pid! + 1_000_000}`);
  mkdirSync(notOurs);
  const r = await evalkit(['export', 'parquet', dir, '--db', store]);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(existsSync(join(dir, 'evalkit-export.json')));
  assert.equal(existsSync(join(dir, '.evalkit-export-staging')), false);
  assert.deepEqual(readdirSync(parent).sort(), ['lake', `.lake.tmp-${gone.pid! + 1_000_000}`].sort());
  // Read back: the export is whole.
  const back = join(temp, 'back.duckdb');
  assert.equal((await evalkit(['ingest', dir, '--db', back])).code, 0);
  assert.deepEqual(await rowsOf(back, 'SELECT count(*) AS n FROM samples'), [{ n: 6 }]);
});
