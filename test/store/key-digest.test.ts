// The key digest of an item set (result-items.ts, KEY_DIGEST_SQL): two results pair by position on their values alone
// only when their digests are equal, so the digest must cover every key and their order. Item sets with the same
// keys in another order, or with one key different, are paired by their keys (checked here against the pairs
// computed from the items by key); a store written before the digest (no key_digest column) reads the same, and an
// ingest gives it the digests a fresh store has.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openStore, type Store } from '../../src/store/db.js';
import {
  appendPairedItems,
  gapStats,
  itemSetsOf,
  KEY_DIGEST_SQL,
  PairedColumns,
  type ItemSet,
} from '../../src/store/result-items.js';
import { evalkit } from './inproc.js';
import { freshAndOlderStores } from './older-store.js';
import { binaryRows, freshStore, insertRecord } from './stats-fixture.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-digest-'));
after(() => rmSync(temp, { recursive: true, force: true }));

const db = join(temp, 'digest.duckdb');
// Keys h0..h39 (position order: h0, h1, h10, h11, …); the values differ between the models at many keys.
const BITS = {
  a: '1101001110100101110010110100111011001010',
  b: '0110110001011010011101001011000110110101',
};

before(async () => {
  const { store, path } = await freshStore();
  for (const [model, bits] of Object.entries(BITS))
    await insertRecord(store, {
      record_key: `record-${model}`,
      model_id: `lab/${model}`,
      results: [{ evaluation_name: 'bench', score: [...bits].filter((b) => b === '1').length / 40 }],
      samples: binaryRows('bench', bits),
    });
  store.close();
  copyFileSync(path, db);
  rmSync(dirname(path), { recursive: true, force: true });
});

/** The item set of a record's first result. */
async function setOf(store: Store, record: string): Promise<ItemSet> {
  return (await itemSetsOf(store, [{ record_key: record, result_index: 0 }]))![0]!;
}

/** The items of a record's first result by key. */
async function valuesOf(store: Store, record: string): Promise<Map<string, number>> {
  const rows = await store.all<{ k: string; v: number }>(
    `SELECT k, v FROM result_items WHERE record_key = $1 AND result_index = 0`,
    [record],
  );
  return new Map(rows.map((r) => [r.k, r.v]));
}

/** Rewrites b's keys with `change` (SQL of the new k over the row's pos and k), and its digest as a writer would. */
async function rewriteKeys(store: Store, change: string): Promise<void> {
  await store.connection.run(
    `UPDATE result_items SET k = ${change} WHERE record_key = 'record-b' AND result_index = 0`,
  );
  await store.connection.run(
    `UPDATE result_items SET k_1 = hash(k), k_2 = hash('#' || k) WHERE record_key = 'record-b'`,
  );
  await store.connection.run(
    `UPDATE result_item_sets SET key_digest = (
       SELECT ${KEY_DIGEST_SQL} FROM result_items WHERE record_key = 'record-b' AND result_index = 0)
     WHERE record_key = 'record-b'`,
  );
}

/** gapStats and appendPairedItems of a and b against the pairs made by key here. */
async function assertPairedByKey(store: Store, what: string): Promise<void> {
  const [a, b] = [await setOf(store, 'record-a'), await setOf(store, 'record-b')];
  assert.equal(a.items, b.items, `${what}: as many items on both sides (a positional pairing is tried)`);
  const [va, vb] = [await valuesOf(store, 'record-a'), await valuesOf(store, 'record-b')];
  const keys = [...new Set([...va.keys(), ...vb.keys()])].sort();
  const d = keys.flatMap((k) => (va.has(k) && vb.has(k) ? [va.get(k)! - vb.get(k)!] : []));
  const mean = d.reduce((x, y) => x + y, 0) / d.length;
  const gap = await gapStats(store, a, b);
  assert.equal(gap.paired_n, d.length, what);
  assert.ok(Math.abs(gap.mean_d! - mean) < 1e-12, `${what}: mean ${gap.mean_d} vs ${mean}`);
  assert.equal(gap.positive_d, d.filter((x) => x > 0).length, what);
  assert.equal(gap.negative_d, d.filter((x) => x < 0).length, what);
  const out = new PairedColumns();
  await appendPairedItems(store, a, b, 1, out);
  const nan = (x: number | undefined) => (x === undefined ? NaN : x);
  assert.deepEqual(
    Array.from(out.va.subarray(0, out.length), (x, i) => [x, out.vb[i]]),
    keys.map((k) => [nan(va.get(k)), nan(vb.get(k))]),
    `${what}: compare's pairs, in key order`,
  );
}

test('the digest covers every key, their order and their boundaries', async () => {
  const store = await openStore(db, { readOnly: true });
  try {
    const digest = async (keys: string[]) =>
      (
        await store.all<{ d: string | null }>(
          `SELECT ${KEY_DIGEST_SQL} AS d FROM (VALUES ${keys.map((k, i) => `(${i}, '${k}')`).join(', ')}) t(pos, k)`,
        )
      )[0]!.d;
    const base = await digest(['ab', 'c', 'd']);
    assert.match(base!, /^[0-9a-f]{64}$/);
    assert.equal(await digest(['ab', 'c', 'd']), base);
    for (const other of [
      ['c', 'ab', 'd'],
      ['ab', 'd', 'c'],
      ['ab', 'c', 'e'],
      ['a', 'bc', 'd'],
      ['ab', 'cd', ''],
      ['ab', 'c'],
    ])
      assert.notEqual(await digest(other), base, other.join('|'));
    // Two models with the same keys: the same digest, written with their items.
    const [a, b] = [await setOf(store, 'record-a'), await setOf(store, 'record-b')];
    assert.match(a.key_digest!, /^[0-9a-f]{64}$/);
    assert.equal(a.key_digest, b.key_digest);
    await assertPairedByKey(store, 'keys that line up');
  } finally {
    store.close();
  }
});

/** On a copy of the store, b's keys rewritten by `change`: its digest is no longer a's, and the two pair by key. */
async function rewrittenPairByKey(what: string, change: string): Promise<void> {
  const path = join(temp, `${what.replace(/ /g, '-')}.duckdb`);
  copyFileSync(db, path);
  const store = await openStore(path, { readOnly: false });
  try {
    await rewriteKeys(store, change);
    await assertPairedByKey(store, what);
    const [a, b] = [await setOf(store, 'record-a'), await setOf(store, 'record-b')];
    assert.notEqual(a.key_digest, b.key_digest, what);
  } finally {
    store.close();
  }
}

test('the same keys in another order are paired by key, not by position', () =>
  // b's keys at positions 0 and 3 swapped (h0 ↔ h11, where both models' values differ): the same key set, in
  // another order.
  rewrittenPairByKey(
    'reordered keys',
    `CASE pos WHEN 0 THEN (SELECT k FROM result_items WHERE record_key = 'record-b' AND pos = 3)
              WHEN 3 THEN (SELECT k FROM result_items WHERE record_key = 'record-b' AND pos = 0) ELSE k END`,
  ));

test('one key different is paired by key, not by position', () =>
  // b's last key (h9) renamed h99: still sorted, as many items, one key that a has not.
  rewrittenPairByKey('one key different', `CASE WHEN k = 'h9' THEN 'h99' ELSE k END`));

test('a store written before the digests reads the same, and an ingest gives it the digests', async () => {
  const { fresh, older, next } = await freshAndOlderStores(
    temp,
    'ALTER TABLE result_item_sets DROP COLUMN key_digest',
  );
  for (const args of [
    ['leaderboard', '--format', 'json'],
    ['compare', 'acme/tiny-model-1b', 'acme/tiny-model-3b', '--format', 'json'],
    ['compare', 'acme/tiny-model-3b', 'globex/pocket-7b'],
  ]) {
    const [now, before] = [await evalkit([...args, '--db', fresh]), await evalkit([...args, '--db', older])];
    assert.equal(before.code, 0, before.stderr);
    assert.ok(now.stdout.length > 100);
    assert.equal(before.stdout, now.stdout, args.join(' '));
  }
  for (const path of [fresh, older])
    assert.equal((await evalkit(['ingest', next, '--db', path, '--no-progress'])).code, 0);
  const sets = async (path: string) => {
    const store = await openStore(path, { readOnly: true });
    try {
      return await store.all(`SELECT * FROM result_item_sets ORDER BY record_key, result_index`);
    } finally {
      store.close();
    }
  };
  const [freshSets, olderSets] = [await sets(fresh), await sets(older)];
  assert.ok(freshSets.some((s) => typeof s.key_digest === 'string'));
  assert.deepEqual(olderSets, freshSets);
});
