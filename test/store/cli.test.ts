// The store commands through the real CLI (in process): ingest's summary, query (read-only, three formats), export parquet read
// by an independent reader (hyparquet) and ingested back (round trip), and a second writer at the same time.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { decompress as zstd } from 'fzstd';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, parquetSchema } from 'hyparquet';
import { tableColumns } from '../../src/store/schema.js';
import { cli } from '../helpers/cli.js';
import { projectRoot } from '../helpers/shared.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-store-cli-'));
after(() => rmSync(temp, { recursive: true, force: true }));
const db = join(temp, 'store.duckdb');
const EEE = 'examples/eee/data';
/** The two EEE datastores among the examples (examples/datastore also holds a benchmark-output repository). */
const DATASTORES = ['examples/datastore/current', 'examples/datastore/legacy'];

/** evaluation_results in the three aggregates the store holds, counted from the files. */
function resultsInFiles(): number {
  const files = [
    'examples/eee/data/demo-bench/acme/tiny-model-1b/7c2f4e1a-93b5-4d6e-8a0f-2b1c3d4e5f60.json',
    'examples/datastore/current/data/demo-bench/acme/tiny-model/3f6c1b2a-9d4e-4f7a-8b1c-2d3e4f5a6b7c.json',
    'examples/datastore/legacy/data/demo-bench/acme/tiny-model/7a1e5c3d-2b4f-4a6e-9c8d-0e1f2a3b4c5d.json',
  ];
  return files.reduce(
    (n, f) => n + JSON.parse(readFileSync(join(projectRoot, f), 'utf8')).evaluation_results.length,
    0,
  );
}

test('ingest prints a summary (text and JSON), --db and $EVALKIT_DB name the same store', async () => {
  const text = await cli(['ingest', EEE, '--db', db]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    /^1 records added \(3 rows\), 0 skipped \(0 already stored, 0 duplicates\), 0 rejected → /m,
  );
  const viaEnv = await cli(['ingest', EEE, ...DATASTORES, '--format', 'json'], {
    env: { EVALKIT_DB: db },
  });
  assert.equal(viaEnv.code, 0, viaEnv.stderr);
  const summary = JSON.parse(viaEnv.stdout);
  assert.equal(summary.db, db);
  assert.deepEqual(
    { records: summary.summary.records, rows: summary.summary.rows, skipped: summary.summary.skipped },
    { records: 2, rows: 5, skipped: 1 },
  );
  const statuses = summary.items.map((i: { status: string }) => i.status).sort();
  assert.deepEqual(statuses, ['added', 'added', 'already-stored']);
});

test('an invalid input: exit 1, the validator diagnostics, nothing stored for it', async () => {
  const bad = await cli([
    'ingest',
    'examples/eee/invalid/aggregate-0.3.0-out-of-enum-values.json',
    '--db',
    join(temp, 'bad.duckdb'),
  ]);
  assert.equal(bad.code, 1);
  assert.match(
    bad.stdout,
    /aggregate-0\.3\.0-out-of-enum-values\.json:8:20 error schema\.enum .*\(at \/source_metadata\/source_type\)/,
  );
  assert.match(bad.stdout, /0 records added .* 1 rejected/);
});

test('query: table, JSON and CSV; the store is opened read-only, so writing fails clearly', async () => {
  const sql = 'SELECT evaluation_id, sample_count FROM records ORDER BY evaluation_id';
  const table = await cli(['query', sql, '--db', db]);
  assert.equal(table.code, 0, table.stderr);
  assert.equal(
    table.stdout,
    [
      'evaluation_id                             sample_count',
      '----------------------------------------  ------------',
      'demo-bench/acme/tiny-model-1b/2026-05-01             3',
      'demo-bench/acme_tiny-model/1700000000                2',
      'demo-bench/acme_tiny-model/1750000000                3',
      '(3 rows)',
      '',
    ].join('\n'),
  );
  const asJson = JSON.parse((await cli(['query', sql, '--db', db, '--format', 'json'])).stdout);
  assert.deepEqual(asJson.columns, [
    { name: 'evaluation_id', type: 'VARCHAR' },
    { name: 'sample_count', type: 'BIGINT' },
  ]);
  assert.deepEqual(asJson.rows[0], {
    evaluation_id: 'demo-bench/acme/tiny-model-1b/2026-05-01',
    sample_count: 3,
  });
  const csv = await cli([
    'query',
    `SELECT sample_id, input_text FROM samples WHERE sample_id = 'arith-0001'`,
    '--db',
    db,
    '--format',
    'csv',
  ]);
  assert.equal(csv.stdout, 'sample_id,input_text\narith-0001,What is 7 × 6?\n');
  const write = await cli(['query', 'DELETE FROM records', '--db', db]);
  assert.equal(write.code, 2);
  assert.match(write.stderr, /^evalkit: error store\.read-only: query opens the store read-only/);
  const [{ n }] = JSON.parse(
    (await cli(['query', 'SELECT count(*) AS n FROM records', '--db', db, '--format', 'json'])).stdout,
  ).rows;
  assert.equal(n, 3);
  const missing = await cli(['query', 'SELECT 1', '--db', join(temp, 'nope.duckdb')]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /store\.not-found: no store at .*nope\.duckdb/);
  const badSql = await cli(['query', 'SELEC 1', '--db', db]);
  assert.equal(badSql.code, 2);
  assert.match(badSql.stderr, /^evalkit: error store\.query: the query failed: Parser Error/);
});

test('export parquet: Hive partitions with the tables’ column names, read independently, and ingested back', async () => {
  const out = join(temp, 'export');
  const exported = await cli(['export', 'parquet', out, '--db', db, '--format', 'json']);
  assert.equal(exported.code, 0, exported.stderr);
  const summary = JSON.parse(exported.stdout);
  assert.deepEqual(
    summary.tables.map((t: { table: string; rows: number }) => [t.table, t.rows]),
    [
      ['records', 3],
      ['results', resultsInFiles()],
      ['samples', 8],
      ['documents', 0],
    ],
  );
  const schemaFile = JSON.parse(readFileSync(join(out, 'evalkit-export.json'), 'utf8'));
  assert.equal(schemaFile.format, 'evalkit.parquet-export');
  assert.deepEqual(readdirSync(join(out, 'samples')), ['collection=demo-bench']);

  // One file, read with hyparquet: the samples table's columns (the partition column lives in the folder name).
  const file = join(out, 'samples', 'collection=demo-bench', 'data_0.parquet');
  const buffer = await asyncBufferFromFile(file);
  const metadata = await parquetMetadataAsync(buffer);
  const names = parquetSchema(metadata).children.map((c) => c.element.name);
  assert.deepEqual(
    names,
    tableColumns('samples').map((c) => c.name),
  );
  // The export is zstd-compressed (as Spark, DuckDB, Polars and pyarrow read by default); hyparquet is given fzstd.
  const compressors = { ZSTD: (input: Uint8Array) => zstd(input) };
  const rows = (await parquetReadObjects({ file: buffer, compressors })) as Record<string, unknown>[];
  assert.equal(rows.length, 8);
  const arith = rows.find((r) => r.sample_id === 'arith-0001')!;
  assert.equal(arith.input_text, 'What is 7 × 6?');
  assert.equal(arith.score, 1);
  assert.equal(arith.is_correct, true);

  // Round trip: a new store from the export has the same tables (besides where and when each record came in).
  const back = join(temp, 'back.duckdb');
  const ingested = await cli(['ingest', out, '--db', back, '--format', 'json']);
  assert.equal(ingested.code, 0, ingested.stderr);
  assert.equal(JSON.parse(ingested.stdout).summary.records, 3);
  const dump = async (path: string, sql: string) =>
    JSON.parse((await cli(['query', sql, '--db', path, '--format', 'json'])).stdout).rows;
  for (const sql of [
    `SELECT * EXCLUDE (origin_kind, origin_path, ingest_id, ingested_at) FROM records ORDER BY record_key`,
    'SELECT * FROM results ORDER BY record_key, result_index',
    'SELECT * FROM samples ORDER BY record_key, row_index',
  ])
    assert.deepEqual(await dump(back, sql), await dump(db, sql), sql);
  const again = await cli(['ingest', out, '--db', back, '--format', 'json']);
  assert.equal(JSON.parse(again.stdout).summary.skipped, 3);
  // A second export into a folder that is not empty is refused.
  const twice = await cli(['export', 'parquet', out, '--db', db]);
  assert.equal(twice.code, 2);
  assert.match(twice.stderr, /exists and is not empty/);
});

test('a second writer at the same time is told the store is in use, and nothing is damaged', async () => {
  const holderScript = `
    const { openStore } = await import(${JSON.stringify(join(projectRoot, 'src/store/db.ts'))});
    const s = await openStore(${JSON.stringify(db)}, { readOnly: false });
    process.stdout.write('open\\n');
    setTimeout(() => { s.close(); process.exit(0); }, 60000);
  `;
  const holder = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', holderScript], {
    cwd: projectRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      holder.stdout.on('data', (d) => String(d).includes('open') && resolve());
      holder.on('exit', () => reject(new Error('the holder exited early')));
    });
    const second = await cli(['ingest', ...DATASTORES, '--db', db]);
    assert.equal(second.code, 2);
    assert.match(
      second.stderr,
      /^evalkit: error store\.locked: the store .* is being written by another process \(another `evalkit ingest`\)/,
    );
    assert.ok(!second.stderr.includes('\n    at '), 'no stack trace');
    const reader = await cli(['query', 'SELECT 1', '--db', db]);
    assert.equal(reader.code, 2);
    assert.match(reader.stderr, /store\.locked/);
  } finally {
    holder.kill('SIGKILL');
    await new Promise((r) => holder.once('close', r));
  }
  // Once the other process is gone, the store opens and holds what it held.
  assert.ok(existsSync(db));
  const after = JSON.parse(
    (await cli(['query', 'SELECT count(*) AS n FROM samples', '--db', db, '--format', 'json'])).stdout,
  );
  assert.deepEqual(after.rows, [{ n: 8 }]);
});

test('ingest takes convert’s options for what a converted source cannot say, and leaves EEE records as they are', async () => {
  const store = join(temp, 'overrides.duckdb');
  const args = ['--db', store, '--model-id', 'acme/renamed-7b', '--collection', 'my-runs'];
  const args2 = ['--source-organization-name', 'Example Lab', '--deployment-type', 'self_deployed'];
  const done = await cli(['ingest', 'examples/convert/lm-eval', EEE, ...args, ...args2, '--format', 'json']);
  assert.equal(done.code, 0, done.stderr);
  const sql =
    'SELECT origin_kind, model_id, collection, source_organization_name, deployment_type FROM records ORDER BY origin_kind';
  const rows = JSON.parse((await cli(['query', sql, '--db', store, '--format', 'json'])).stdout).rows;
  const converted = rows.filter((r: { origin_kind: string }) => r.origin_kind === 'lm-eval');
  const eee = rows.filter((r: { origin_kind: string }) => r.origin_kind !== 'lm-eval');
  assert.ok(converted.length > 0 && eee.length > 0, JSON.stringify(rows));
  for (const r of converted)
    assert.deepEqual(
      [r.model_id, r.collection, r.source_organization_name, r.deployment_type],
      ['acme/renamed-7b', 'my-runs', 'Example Lab', 'self_deployed'],
    );
  for (const r of eee) assert.notEqual(r.model_id, 'acme/renamed-7b');
  const bad = await cli(['ingest', EEE, '--db', store, '--retrieved-timestamp', 'yesterday']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--retrieved-timestamp expects Unix epoch seconds/);
});
