// `evalkit lake compact` and `lake stats`: compaction merges a partition's units into one sorted file per table
// without changing any reader's answer; a reader during compaction (paused at each step of the publishing) reads
// the same; kill -9 at each step leaves a lake that reads the same, and the next compact or ingest completes it; a
// reader whose files vanish under it (a compaction between its opening and its query) reads the lake again.
// test-runner: own process (it kills CLI processes).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { compactLake, lakeStats } from '../../src/store/lake-compact.js';
import { withReadStore } from '../../src/store/open.js';
import { runInProcess } from '../metrics/inproc.js';
import { cliCommand } from '../helpers/cli.js';
import { projectRoot } from '../helpers/shared.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-lake-compact-'));
after(() => rmSync(temp, { recursive: true, force: true }));
let CLI: string[] = [];
/** The lake as three ingests of one record each (arith-40) and one of the EEE example (demo-bench). */
const lake = join(temp, 'lake');

const ARITH = join(projectRoot, 'examples/compare/data/arith-40');
const recordFiles = (dir: string): string[] =>
  (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => join(dir, f));

before(async () => {
  CLI = await cliCommand();
  for (const input of [...recordFiles(ARITH), join(projectRoot, 'examples/eee/data')]) {
    const r = await runInProcess(['ingest', input, '--lake', lake, '--no-progress']);
    assert.equal(r.code, 0, r.stderr);
  }
});

/** What a reader answers: the leaderboard, a comparison, every instance row, the models. */
const READS: string[][] = [
  ['leaderboard', '-f', 'json'],
  ['compare', 'acme/tiny-model-1b', 'acme/tiny-model-3b', '-f', 'json'],
  ['query', 'SELECT * FROM samples ORDER BY record_key, row_index', '-f', 'json'],
  ['query', 'SELECT * FROM result_items ORDER BY record_key, result_index, pos', '-f', 'json'],
  ['models', '-f', 'json'],
];

async function answers(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const args of READS) {
    const r = await runInProcess([...args, '--lake', dir]);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr, '', `${args.join(' ')} warns of nothing`);
    out.push(r.stdout);
  }
  return out;
}

const parquetFiles = (dir: string): string[] =>
  (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.parquet')).sort();

/** Units (runs) per table in the arith-40 partition, by `lake stats`. */
async function arithUnits(dir: string): Promise<number[]> {
  return (await lakeStats(dir)).filter((r) => r.partition === 'collection=arith-40').map((r) => r.units);
}

test('compaction merges each partition into one unit, and every answer stays the same', async () => {
  const dir = join(temp, 'plain');
  cpSync(lake, dir, { recursive: true });
  const before = await answers(dir);
  assert.deepEqual(await arithUnits(dir), [3, 3, 3, 3, 3], 'three ingests: three units in every table');
  const stats = await runInProcess(['lake', 'stats', dir, '-f', 'json']);
  const rowsBefore = (JSON.parse(stats.stdout).tables as { rows: number }[]).map((t) => t.rows);

  const r = await runInProcess(['lake', 'compact', dir]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /collection=arith-40: 3 units \(15 files, .*\) → 1 \(5 files/);
  assert.match(r.stdout, /1 partition\(s\) left as they were/);
  assert.deepEqual(await arithUnits(dir), [1, 1, 1, 1, 1]);
  const after = JSON.parse((await runInProcess(['lake', 'stats', dir, '-f', 'json'])).stdout);
  assert.deepEqual(
    (after.tables as { rows: number }[]).map((t) => t.rows),
    rowsBefore,
    'the same rows per table and partition',
  );
  assert.deepEqual(await answers(dir), before);
  // Nothing left behind: no staging folder, no lock, no manifest.
  assert.deepEqual(
    readdirSync(dir).filter((n) => n.startsWith('.')),
    [],
  );
  assert.deepEqual(readdirSync(join(dir, '_evalkit', 'compactions')), []);
  // A second compaction has nothing to do.
  const again = await runInProcess(['lake', 'compact', dir, '-f', 'json']);
  assert.deepEqual(JSON.parse(again.stdout), { partitions: [], unchanged: 2 });
  // Bad usage and a folder that is no lake.
  assert.equal((await runInProcess(['lake', 'compact', dir, '--min-parts', '1'])).code, 2);
  const notLake = await runInProcess(['lake', 'stats', temp]);
  assert.equal(notLake.code, 2);
  assert.match(notLake.stderr, /store\.not-lake/);
});

/** Runs `lake compact DIR` until it prints `marker` (a test pause), then returns the process. */
async function compactPausedAt(
  dir: string,
  variable: string,
  marker: string,
): Promise<{ kill: () => Promise<void> }> {
  const child = spawn(process.execPath, [...CLI, 'lake', 'compact', dir], {
    cwd: projectRoot,
    env: { ...process.env, [variable]: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (stderr.includes(`evalkit:${marker}\n`)) resolve();
    });
    child.on('exit', () => reject(new Error(`lake compact ended before ${marker}: ${stderr}`)));
  });
  return {
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

test("an older writer's item sets (no key digest) read the same beside newer ones, and compact with them", async () => {
  const dir = join(temp, 'older-sets');
  cpSync(lake, dir, { recursive: true });
  const before = await answers(dir);
  // One of the three arith-40 units as an evalkit before the key digest wrote it: its result_item_sets part
  // without the column.
  const sets = join(dir, 'result_item_sets', 'collection=arith-40');
  const [first] = readdirSync(sets).sort();
  const file = join(sets, first!);
  const instance = await DuckDBInstance.create(':memory:');
  const c = await instance.connect();
  try {
    const digests = async (path: string) =>
      (
        await c.runAndReadAll(`SELECT count(key_digest)::INTEGER AS n FROM read_parquet('${path}')`)
      ).getRowsJson()[0]![0];
    assert.ok(Number(await digests(file)) > 0, 'the part has digests');
    await c.run(
      `COPY (SELECT * EXCLUDE (key_digest) FROM read_parquet('${file}', hive_partitioning = false)) TO '${file}.old' (FORMAT parquet, COMPRESSION zstd)`,
    );
    renameSync(`${file}.old`, file);
    assert.deepEqual(await answers(dir), before, 'the same answers, no warning');
    const r = await runInProcess(['lake', 'compact', dir]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(await answers(dir), before, 'the same answers after compaction');
    // The merged part keeps the newer units' digests, and none for the older unit's sets.
    const [merged] = readdirSync(sets);
    const [total, withDigest] = (
      await c.runAndReadAll(
        `SELECT count(*)::INTEGER, count(key_digest)::INTEGER FROM read_parquet('${join(sets, merged!)}')`,
      )
    )
      .getRowsJson()[0]!
      .map(Number);
    assert.ok(withDigest! > 0 && withDigest! < total!, `${withDigest} of ${total} sets with a digest`);
  } finally {
    c.closeSync();
    instance.closeSync();
  }
});

test('a reader during compaction reads the same; kill -9 at each step leaves a lake that reads the same', async (t) => {
  const expected = await answers(lake);
  const steps: [string, string, string][] = [
    [
      'its new rows files published, its records file not',
      'EVALKIT_TEST_PAUSE_BEFORE_COMPACT_RECORDS',
      'paused-before-compact-records',
    ],
    [
      'its new unit published, the old files not yet removed',
      'EVALKIT_TEST_PAUSE_BEFORE_COMPACT_REMOVE',
      'paused-before-compact-remove',
    ],
  ];
  for (const [when, variable, marker] of steps) {
    for (const completer of ['lake compact', 'ingest']) {
      const dir = join(temp, `${marker}-${completer.replace(' ', '-')}`);
      cpSync(lake, dir, { recursive: true });
      const paused = await compactPausedAt(dir, variable, marker);
      // Both the old files and some of the new ones are in the lake now.
      assert.ok(parquetFiles(join(dir, 'samples')).length > 3, `${when}: new files in place`);
      assert.deepEqual(await answers(dir), expected, `a reader while compaction is paused (${when})`);
      await paused.kill();
      assert.deepEqual(await answers(dir), expected, `killed (${when})`);
      // The next writer completes it: a compaction, or an ingest (of records already there: it adds nothing).
      const next =
        completer === 'lake compact'
          ? await runInProcess(['lake', 'compact', dir])
          : await runInProcess(['ingest', ARITH, '--lake', dir, '--no-progress']);
      assert.equal(next.code, 0, next.stderr);
      assert.deepEqual(await answers(dir), expected, `completed by ${completer} (${when})`);
      assert.deepEqual(readdirSync(join(dir, '_evalkit', 'compactions')), [], 'no manifest left');
      const units = await arithUnits(dir);
      if (completer === 'lake compact') assert.deepEqual(units, [1, 1, 1, 1, 1]);
      else if (marker === 'paused-before-compact-remove')
        assert.deepEqual(units, [1, 1, 1, 1, 1], 'the published compaction was completed by ingest');
      else assert.deepEqual(units, [3, 3, 3, 3, 3], 'the unpublished compaction was undone by ingest');
      t.diagnostic(`killed ${when}, completed by ${completer}`);
    }
  }
});

test('a reader whose files a compaction removed after it opened the lake reads the lake again', async () => {
  const dir = join(temp, 'vanishing');
  cpSync(lake, dir, { recursive: true });
  const expected = await answers(dir);
  let opened = 0;
  const rows = await withReadStore({ lake: dir }, {}, async (store) => {
    opened++;
    // The first time: a compaction replaces every file this reader's views read.
    if (opened === 1) await compactLake(dir);
    return store.all<Record<string, unknown>>('SELECT * FROM samples ORDER BY record_key, row_index');
  });
  assert.equal(opened, 2, 'read again after its files vanished');
  assert.equal(
    rows.length,
    (JSON.parse(expected[2]!) as { rows: unknown[] }).rows.length,
    'every instance row, once',
  );
  assert.deepEqual(await answers(dir), expected);
  assert.ok(!existsSync(join(dir, '.evalkit-lake.lock')));
});
