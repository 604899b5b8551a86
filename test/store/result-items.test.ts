// The stored items (src/store/result-items.ts): `leaderboard` and `compare` read each result's items, written when
// its record is stored, and give what the pairing over `samples` gives (the same store with the items tables
// dropped, as a store made before them is read). Generated stores cover every path: keys that line up (positional
// pairing), key sets that differ (hash join), results keyed by sample id, a pair keyed differently (left to the
// pairing SQL), epochs under every reducer, continuous values, undefined values and results without rows. Also:
// the statistics really come from the items; ingest writes them; an older store gets them at its next ingest.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openStore } from '../../src/store/db.js';
import { gapStats, itemSetsOf } from '../../src/store/result-items.js';
import { createRng } from '../../src/metrics/stats/rng.js';
import { evalkit } from './inproc.js';
import { freshAndOlderStores } from './older-store.js';
import { freshStore, insertRecord, type FixtureSample } from './stats-fixture.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-items-'));
after(() => rmSync(temp, { recursive: true, force: true }));

const REDUCERS = ['mean', 'median', 'max', 'mode', 'at_least_2', 'pass_at_2'];

/**
 * Rows of one model on one benchmark: `questions` samples (a random subset when `dropped` > 0), `epochs` rows each,
 * values 0/1 or continuous, hashed or not.
 */
function rows(
  seed: number,
  benchmark: string,
  options: {
    questions: number;
    /** The first question's number (default 0). */
    first?: number;
    epochs?: number;
    continuous?: boolean;
    hashed?: boolean;
    dropped?: number;
  },
): FixtureSample[] {
  const next = createRng(seed);
  const out: FixtureSample[] = [];
  const first = options.first ?? 0;
  for (let q = first; q < first + options.questions; q++) {
    if (options.dropped && next() < options.dropped) continue;
    // A sample with fewer epochs than pass_at_2 needs: its value is undefined under that reducer.
    const epochs = q === 3 ? 1 : (options.epochs ?? 1);
    for (let e = 1; e <= epochs; e++)
      out.push({
        evaluation_name: benchmark,
        sample_id: options.epochs ? `${benchmark}-q${q}#epoch${e}` : `${benchmark}-q${q}`,
        sample_hash: options.hashed === false ? null : `hash-${benchmark}-${q}`,
        epoch: options.epochs ? e : null,
        score: options.continuous ? Math.round(next() * 1000) / 7 : next() < 0.3 + seed / 40 ? 1 : 0,
      });
  }
  return out;
}

/** Each model's generated rows. */
const generated = new Map<string, FixtureSample[]>();
const db = join(temp, 'items.duckdb');
const withoutItems = join(temp, 'no-items.duckdb');

before(async () => {
  const { store, path } = await freshStore();
  let seed = 1;
  for (const model of ['m0', 'm1', 'm2', 'm3']) {
    const m = Number(model.slice(1));
    const samples: FixtureSample[] = [
      // Same keys for every model: paired by position.
      ...rows(seed++, 'aligned', { questions: 60 }),
      // Each model drops other samples: paired by a join on the keys.
      ...rows(seed++, 'ragged', { questions: 60, dropped: 0.2, continuous: true }),
      // As many items for every model, but each model's questions start elsewhere: the positions do not line up.
      ...rows(seed++, 'shifted', { questions: 30, first: m * 5 }),
      // No hashes: keyed by sample id.
      ...rows(seed++, 'by-id', { questions: 40, hashed: false }),
      // m2 has no hashes here, the others have: a neighbour pair keyed differently.
      ...rows(seed++, 'mixed', { questions: 30, hashed: model !== 'm2' }),
      ...REDUCERS.flatMap((r) =>
        rows(seed++, `epochs-${r}`, { questions: 25, epochs: 3, continuous: r === 'median' }),
      ),
    ];
    generated.set(model, samples);
    const benchmarks = [
      'aligned',
      'ragged',
      'shifted',
      'by-id',
      'mixed',
      ...REDUCERS.map((r) => `epochs-${r}`),
      'no-rows',
    ];
    await insertRecord(store, {
      record_key: `record-${model}`,
      model_id: `lab/${model}`,
      results: benchmarks.map((b, i) => ({
        evaluation_name: b,
        score: 0.2 + 0.1 * ((m * 7 + i * 3) % 6),
        standard_error: 0.05,
        additional_details: b.startsWith('epochs-')
          ? { epoch_reducer: b.slice('epochs-'.length) }
          : undefined,
      })),
      samples,
    });
  }
  store.close();
  copyFileSync(path, db);
  copyFileSync(path, withoutItems);
  rmSync(dirname(path), { recursive: true, force: true });
  const raw = await openStore(withoutItems, { readOnly: false });
  // As a store made before the items tables: without them.
  await raw.connection.run('DROP TABLE result_items; DROP TABLE result_item_sets; CHECKPOINT');
  raw.close();
});

const READS: string[][] = [
  ['leaderboard', '--format', 'json'],
  ['leaderboard', '--composite'],
  ['leaderboard', '--benchmark', 'ragged', '--format', 'json'],
  ['leaderboard', '--benchmark', 'shifted', '--format', 'json'],
  ['compare', 'lab/m0', 'lab/m1', '--format', 'json'],
  ['compare', 'lab/m3', 'lab/m2', '--format', 'json', '--bootstrap', '500', '--seed', '7'],
  ['compare', 'lab/m1', 'lab/m2'],
];

for (const args of READS)
  test(`${args.join(' ')}: the stored items give what the pairing over samples gives`, async () => {
    const fast = await evalkit([...args, '--db', db]);
    const raw = await evalkit([...args, '--db', withoutItems]);
    assert.equal(fast.code, 0, fast.stderr);
    assert.equal(raw.code, 0, raw.stderr);
    assert.ok(fast.stdout.length > 100);
    assert.equal(fast.stdout, raw.stdout);
  });

test('each tier gap pairs the right items: its statistics recomputed here from the generated rows', async () => {
  const store = await openStore(db, { readOnly: true });
  try {
    for (const [index, benchmark] of [
      [0, 'aligned'],
      [1, 'ragged'],
      [2, 'shifted'],
    ] as const)
      for (const [upper, lower] of [
        ['m0', 'm1'],
        ['m2', 'm3'],
      ]) {
        const values = (model: string) =>
          new Map(
            generated
              .get(model)!
              .filter((r) => r.evaluation_name === benchmark)
              .map((r) => [r.sample_hash!, r.score!]),
          );
        const a = values(upper);
        const b = values(lower);
        const d = [...a].flatMap(([k, v]) => (b.has(k) ? [v - b.get(k)!] : []));
        const mean = d.reduce((x, y) => x + y, 0) / d.length;
        const variance = d.reduce((x, y) => x + (y - mean) ** 2, 0) / (d.length - 1);
        const sets = (await itemSetsOf(store, [
          { record_key: `record-${upper}`, result_index: index },
          { record_key: `record-${lower}`, result_index: index },
        ]))!;
        const gap = await gapStats(store, sets[0]!, sets[1]!);
        const what = `${benchmark} ${upper} − ${lower}`;
        assert.equal(gap.paired_n, d.length, what);
        assert.ok(Math.abs(gap.mean_d! - mean) < 1e-9, what);
        assert.ok(Math.abs(gap.var_d! - variance) < 1e-9 * Math.max(1, variance), what);
        assert.equal(gap.positive_d, d.filter((x) => x > 0).length, what);
        assert.equal(gap.negative_d, d.filter((x) => x < 0).length, what);
      }
  } finally {
    store.close();
  }
});

test('the statistics come from the items: a changed item changes the leaderboard and compare, except where the pairing SQL decides', async () => {
  const tampered = join(temp, 'tampered.duckdb');
  copyFileSync(db, tampered);
  const store = await openStore(tampered, { readOnly: false });
  // In the items only (samples unchanged): m0's values on "aligned" made m2's (its tier's top: the two no longer
  // differ, so m0 joins m2's tier — the tiers test each model against its tier's top), and every value of m0 on
  // "mixed" flipped.
  await store.connection.run(
    `UPDATE result_items t SET v = s.v FROM result_items s
     WHERE t.record_key = 'record-m0' AND t.result_index = 0 AND s.record_key = 'record-m2' AND s.result_index = 0
       AND s.pos = t.pos`,
  );
  await store.connection.run(
    `UPDATE result_item_sets t SET mean = s.mean, var = s.var, successes = s.successes FROM result_item_sets s
     WHERE t.record_key = 'record-m0' AND t.result_index = 0 AND s.record_key = 'record-m2' AND s.result_index = 0`,
  );
  await store.connection.run(
    `UPDATE result_items SET v = 1 - v WHERE record_key = 'record-m0' AND result_index = 4`,
  );
  await store.connection.run(
    `UPDATE result_item_sets SET mean = 1 - mean, successes = n - successes WHERE record_key = 'record-m0' AND result_index = 4`,
  );
  store.close();
  const board = async (path: string, benchmark: string) =>
    (await evalkit(['leaderboard', '--benchmark', benchmark, '--format', 'json', '--db', path])).stdout;
  const tierOfM0 = async (path: string) =>
    JSON.parse(await board(path, 'aligned')).leaderboards[0].rows.find(
      (r: { model_id: string }) => r.model_id === 'lab/m0',
    ).tier;
  assert.equal(await tierOfM0(db), 3);
  assert.equal(await tierOfM0(tampered), 2);
  assert.notEqual(await board(tampered, 'aligned'), await board(db, 'aligned'));
  const comparison = async (path: string, benchmark: string) =>
    (
      await evalkit([
        'compare',
        'lab/m0',
        'lab/m1',
        '--benchmark',
        benchmark,
        '--format',
        'json',
        '--db',
        path,
      ])
    ).stdout;
  assert.notEqual(await comparison(tampered, 'aligned'), await comparison(db, 'aligned'));
  // "mixed" has a pair keyed by hash on one side and by sample id on the other: the pairing SQL reads samples.
  assert.equal(await board(tampered, 'mixed'), await board(db, 'mixed'));
});

test('ingest writes the items; a store without them gets them at its next ingest, the same as written fresh', async () => {
  const { fresh, older, next } = await freshAndOlderStores(
    temp,
    'DROP TABLE result_items; DROP TABLE result_item_sets',
  );
  for (const path of [fresh, older])
    assert.equal((await evalkit(['ingest', next, '--db', path, '--no-progress'])).code, 0);
  const items = async (path: string) => {
    const store = await openStore(path, { readOnly: true });
    try {
      return [
        await store.all(`SELECT * FROM result_items ORDER BY record_key, result_index, pos`),
        await store.all(`SELECT * FROM result_item_sets ORDER BY record_key, result_index`),
        await store.all(
          `SELECT count(*)::INTEGER AS n FROM results ANTI JOIN result_item_sets USING (record_key, result_index)`,
        ),
      ];
    } finally {
      store.close();
    }
  };
  const [freshItems, freshSets, freshMissing] = await items(fresh);
  const [olderItems, olderSets] = await items(older);
  assert.ok(freshItems!.length > 100);
  assert.deepEqual(freshMissing, [{ n: 0 }]);
  assert.deepEqual(olderItems, freshItems);
  assert.deepEqual(olderSets, freshSets);
});

test('onConnections: when one query fails, the others still running finish before their connections close', async () => {
  // Closing a DuckDB connection while a statement still runs on it deadlocks the thread running it (the process
  // then never exits) or crashes it: the failure is reported only once every job that had started has ended.
  const { onConnections } = await import('../../src/store/result-items.js');
  const store = await openStore(join(temp, 'connections.duckdb'), { readOnly: false });
  try {
    let slowEnded = false;
    let laterStarted = false;
    const failure = new Error('the first query fails');
    await assert.rejects(
      onConnections(
        store,
        [
          async () => {
            throw failure;
          },
          async (connection) => {
            await new Promise((resolve) => setTimeout(resolve, 150));
            await connection.all('SELECT 1 AS one');
            slowEnded = true;
          },
          async () => {
            laterStarted = true;
          },
          async () => {
            laterStarted = true;
          },
          async () => {
            laterStarted = true;
          },
        ],
        2,
      ),
      (error) => error === failure,
    );
    assert.equal(
      slowEnded,
      true,
      'the failure was reported (and the connections closed) while a query still ran',
    );
    assert.equal(laterStarted, false, 'jobs after the failure are not started');
  } finally {
    store.close();
  }
});
