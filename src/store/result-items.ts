/**
 * Each stored result's items, written once when its record is stored: the instance rows of one sample reduced to
 * one value (`result_items`, in key order), and their statistics (`result_item_sets`, one row per result). With
 * them `leaderboard` and `compare` pair two results by reading two sorted lists, instead of grouping every
 * instance row of both again at each query.
 *
 * The items are what the pairing SQL of selection.ts computes for one result: rows belong to a result as there,
 * k is the sample_hash when every scored row of the result has one and no two samples share one (KEYED_BY_HASH_SQL),
 * else the sample key (sample_id without its epoch), and a sample's rows are reduced by the result's epoch reducer. Two results pair on k when both key by
 * the same thing; a pair that does not (one keyed by hash, one by sample id) is left to the pairing SQL, which
 * keys both by sample id.
 *
 * Pairing two item lists: when both have the same number of items and the same keys at every position (the usual
 * case: two models on one benchmark), a positional join; otherwise a hash join on (k_1, k_2), the two 64-bit hashes
 * of k the pairing SQL groups on. Whether the keys line up is known without reading them when both sets have the
 * same `key_digest` (a digest of the whole key sequence, written with the items): the join then reads the values
 * and positions only, and pairs rows of equal position (equal digests: equal keys there). Otherwise every pair is
 * checked by its keys. Either way the result never depends on the order DuckDB returns rows in.
 *
 * A store written before these tables existed, or a result without its `result_item_sets` row, is read through
 * the pairing SQL; `ingest` fills in the items of older records when it opens such a store (backfillResultItems).
 * A set without a digest (a store or lake part written before it existed) is paired by checking its keys; `ingest`
 * fills in the digests of a store's older sets too.
 */
import type { DuckDBConnection, DuckDBValue, DuckDBVector } from '@duckdb/node-api';
import type { Store } from './db.js';
import {
  EPOCH_REDUCER_SQL,
  KEYED_BY_HASH_SQL,
  instanceRowsSql,
  kindOf,
  reducedItemSql,
} from './selection.js';

/** The columns of result_item_sets, in order (named on insert, so that an upgraded older table takes them too). */
const SET_TABLE_COLUMNS =
  'record_key, result_index, by_hash, items, n, mean, var, is_binary, successes, key_digest';

/**
 * The digest of one result's key sequence (an aggregate over its result_items rows): sha256 of every key in
 * position order, each written as its length in bytes, ':' and the key, so that no two sequences give the same text
 * (a different key anywhere, another order, a key more or less); NULL for no items.
 */
export const KEY_DIGEST_SQL = keysDigestSql('pos');

/** KEY_DIGEST_SQL with the keys taken in the order of `order` (a set's keys by k: the same order as by pos). */
function keysDigestSql(order: string): string {
  return `sha256(string_agg(strlen(k)::VARCHAR || ':' || k, '' ORDER BY ${order}))`;
}

/** Writes the items of one record's results (inside the transaction that stores the record, after its results). */
export async function writeResultItems(connection: DuckDBConnection, recordKey: string): Promise<void> {
  const reducers = (
    await connection.runAndReadAll(
      `SELECT DISTINCT ${EPOCH_REDUCER_SQL} AS reducer FROM results r WHERE r.record_key = $1`,
      [recordKey],
    )
  ).getRowObjectsJson() as { reducer: string }[];
  if (reducers.length === 0) return;
  const { aggregates, value } = reducedItemSql(new Set(reducers.map((r) => kindOf(r.reducer))));
  await connection.run(
    `CREATE OR REPLACE TEMP TABLE pending_items AS
    WITH chosen AS (
      SELECT r.record_key, r.result_index AS ord, r.evaluation_result_id, r.evaluation_name AS benchmark,
             ${EPOCH_REDUCER_SQL} AS epoch_reducer
      FROM results r WHERE r.record_key = $1
    ),
    instance_rows AS (${instanceRowsSql(null)}),
    hashed AS (SELECT ord, ${KEYED_BY_HASH_SQL} AS by_hash FROM instance_rows GROUP BY ord),
    keyed AS (
      SELECT i.ord, h.by_hash, CASE WHEN h.by_hash THEN i.sample_hash ELSE i.sample_key END AS k, i.v, i.reducer,
             i.epoch, i.row_index
      FROM instance_rows i JOIN hashed h USING (ord)
    ),
    grouped_rows AS (SELECT ord, any_value(by_hash) AS by_hash, k, ${aggregates.join(', ')} FROM keyed GROUP BY ord, k)
    SELECT ord AS result_index, by_hash, k, ${value} AS v FROM grouped_rows ORDER BY ord, k`,
    [recordKey],
  );
  try {
    await connection.run(
      `INSERT INTO result_items
      SELECT $1, result_index, (row_number() OVER (PARTITION BY result_index ORDER BY k) - 1)::INTEGER, k,
             hash(k), hash('#' || k), v
      FROM pending_items ORDER BY result_index, k`,
      [recordKey],
    );
    await connection.run(
      `INSERT INTO result_item_sets (${SET_TABLE_COLUMNS})
      SELECT r.record_key, r.result_index, coalesce(s.by_hash, false), coalesce(s.items, 0), s.n, s.mean, s.var,
             s.is_binary, s.successes, s.key_digest
      FROM results r LEFT JOIN (
        SELECT result_index, any_value(by_hash) AS by_hash, count(*) AS items, CAST(count(v) AS DOUBLE) AS n,
               avg(v) AS mean, var_samp(v) AS var, bool_and(v = 0 OR v = 1) AS is_binary, sum(v) AS successes,
               ${keysDigestSql('k')} AS key_digest
        FROM pending_items GROUP BY result_index
      ) s USING (result_index)
      WHERE r.record_key = $1`,
      [recordKey],
    );
  } finally {
    await connection.run('DROP TABLE IF EXISTS pending_items');
  }
}

/**
 * Writes the items of every stored result that has none (a store written before the items existed, or by an
 * older evalkit), one record per transaction, and the key digest of every item set written without one. Resolves
 * to the number of records whose items were written.
 */
export async function backfillResultItems(store: Store): Promise<number> {
  const missing = await store.all<{ record_key: string }>(
    `SELECT DISTINCT r.record_key FROM results r ANTI JOIN result_item_sets s USING (record_key, result_index)
     ORDER BY r.record_key`,
  );
  for (const { record_key } of missing) await remakeResultItems(store.connection, record_key);
  // Sets written before the key digest existed (their table was given the column when the store was opened), one
  // at a time: a digest holds its set's keys in memory while it is computed.
  const undigested = await store.all<{ record_key: string; result_index: number }>(
    `SELECT record_key, result_index FROM result_item_sets WHERE key_digest IS NULL AND items > 0
     ORDER BY record_key, result_index`,
  );
  for (const { record_key, result_index } of undigested)
    await store.connection.run(
      `UPDATE result_item_sets SET key_digest = (
         SELECT ${KEY_DIGEST_SQL} FROM result_items WHERE record_key = $1 AND result_index = $2)
       WHERE record_key = $1 AND result_index = $2`,
      [record_key, result_index],
    );
  return missing.length;
}

/**
 * Makes one record's items again, in one transaction with `change` (run first: what changed its rows), so that the
 * rows and their items are never seen apart.
 */
export async function remakeResultItems(
  c: DuckDBConnection,
  recordKey: string,
  change?: () => Promise<unknown>,
): Promise<void> {
  await c.run('BEGIN TRANSACTION');
  try {
    await change?.();
    for (const table of ['result_items', 'result_item_sets'])
      await c.run(`DELETE FROM ${table} WHERE record_key = $1`, [recordKey]);
    await writeResultItems(c, recordKey);
    await c.run('COMMIT');
  } catch (error) {
    await c.run('ROLLBACK').catch(() => {});
    throw error;
  }
}

/** A result's `result_item_sets` row. */
export interface ItemSet {
  record_key: string;
  result_index: number;
  by_hash: boolean;
  items: number;
  n: number | null;
  mean: number | null;
  var: number | null;
  is_binary: boolean | null;
  successes: number | null;
  /** KEY_DIGEST_SQL of its keys; null (or absent: a store written before it) when unknown. */
  key_digest?: string | null;
}

/**
 * SQL of a result's item set `s` (LEFT JOINed on record_key and result_index) as the columns a result's interval
 * reads (items, item_mean, item_var, binary, successes: NULL without items, as the pairing SQL gives them), with
 * has_set, by_hash and set_items for `setOfRow`.
 */
export const SET_COLUMNS_SQL = `s.record_key IS NOT NULL AS has_set, s.by_hash, s.items AS set_items,
       CASE WHEN s.items > 0 THEN s.n END AS items, CASE WHEN s.items > 0 THEN s.mean END AS item_mean,
       CASE WHEN s.items > 0 THEN s.var END AS item_var, CASE WHEN s.items > 0 THEN s.is_binary END AS binary,
       CASE WHEN s.items > 0 THEN s.successes END AS successes`;

/** A row with SET_COLUMNS_SQL's columns. */
export interface SetColumns {
  record_key: string;
  result_index: number;
  has_set: boolean;
  by_hash: boolean;
  set_items: number;
  items: number | null;
  item_mean: number | null;
  item_var: number | null;
  binary: boolean | null;
  successes: number | null;
  /** The set's key digest, when the query reads it (keyDigestSql). */
  key_digest?: string | null;
}

/** The item set of a row with SET_COLUMNS_SQL's columns (has_set true). */
export const setOfRow = (r: SetColumns): ItemSet => ({
  record_key: r.record_key,
  result_index: r.result_index,
  by_hash: r.by_hash,
  items: r.set_items,
  n: r.items,
  mean: r.item_mean,
  var: r.item_var,
  is_binary: r.binary,
  successes: r.successes,
  key_digest: r.key_digest ?? null,
});

const withItems = new WeakMap<DuckDBConnection, { sets: boolean; digests: boolean }>();

/** Whether the store has the items tables, and whether its item sets have their key digests. */
async function itemTables(store: Store): Promise<{ sets: boolean; digests: boolean }> {
  let known = withItems.get(store.connection);
  if (known === undefined) {
    const columns = await store.all<{ column_name: string }>(
      `SELECT column_name FROM duckdb_columns() WHERE database_name = current_database()
         AND schema_name = 'main' AND table_name = 'result_item_sets'`,
    );
    known = {
      sets: columns.length > 0,
      digests: columns.some((c) => c.column_name === 'key_digest'),
    };
    withItems.set(store.connection, known);
  }
  return known;
}

/** Whether the store has the items tables (a store written before them has not). */
export const hasResultItems = async (store: Store): Promise<boolean> => (await itemTables(store)).sets;

/** The SQL of the key digest of the item set `s` (NULL in a store written before the digests). */
export const keyDigestSql = async (store: Store): Promise<string> =>
  (await itemTables(store)).digests ? 's.key_digest' : 'CAST(NULL AS VARCHAR)';

/**
 * The item sets of the given results (record_key, result_index), in their order; undefined when the store has no
 * items tables or a result has no row there (its items were never written): the caller pairs with the SQL then.
 */
/**
 * A VALUES list of (record_key, result_index) pairs for `FROM (VALUES …) w(record_key, result_index)`, their
 * values appended to `params` as the statement's parameters.
 */
export function resultKeysSql(
  keys: readonly { record_key: string; result_index: number }[],
  params: DuckDBValue[],
): string {
  return keys
    .map((k) => {
      params.push(k.record_key, k.result_index);
      return `($${params.length - 1}, $${params.length}::INTEGER)`;
    })
    .join(', ');
}

export async function itemSetsOf(
  store: Store,
  results: readonly { record_key: string; result_index: number }[],
): Promise<ItemSet[] | undefined> {
  if (results.length === 0) return [];
  if (!(await hasResultItems(store))) return undefined;
  const params: DuckDBValue[] = [];
  const wanted = resultKeysSql(results, params);
  const rows = await store.all<ItemSet>(
    `SELECT s.* FROM (VALUES ${wanted}) w(record_key, result_index)
     JOIN result_item_sets s USING (record_key, result_index)`,
    params,
  );
  const byKey = new Map(rows.map((r) => [`${r.result_index}:${r.record_key}`, r]));
  const sets = results.map((r) => byKey.get(`${r.result_index}:${r.record_key}`));
  return sets.every((s) => s !== undefined) ? (sets as ItemSet[]) : undefined;
}

/** Whether two results' items pair here: each has none, or both key the same way. */
export const pairable = (a: ItemSet, b: ItemSet): boolean =>
  a.items === 0 || b.items === 0 || a.by_hash === b.by_hash;

/** The SQL of one result's items (read where the store keeps them: `Store.itemsSql`) and its two parameters. */
function itemsOf(store: Store, set: ItemSet, params: DuckDBValue[], columns = 'pos, k, k_1, k_2, v'): string {
  params.push(set.record_key, set.result_index);
  return `(SELECT ${columns} FROM ${store.itemsSql ?? 'result_items'} WHERE record_key = $${params.length - 1} AND result_index = $${params.length}::INTEGER)`;
}

/** Whether two item lists can be paired by position (then checked key by key). */
const samePositions = (a: ItemSet, b: ItemSet): boolean => a.items > 0 && a.items === b.items;

/** Whether two item lists have the same keys at every position, as their digests say (see KEY_DIGEST_SQL). */
const sameKeys = (a: ItemSet, b: ItemSet): boolean =>
  samePositions(a, b) && typeof a.key_digest === 'string' && a.key_digest === b.key_digest;

/**
 * The columns of the positional pairing of two item lists `a` and `b`, and the SQL of `same`: whether a row pairs
 * the same key (the same position, when the digests say the keys line up; else the same key hashes).
 */
function positionalSql(a: ItemSet, b: ItemSet): { columns: string; same: string } {
  return sameKeys(a, b)
    ? { columns: 'pos, v', same: 'a.pos = b.pos' }
    : { columns: 'pos, k_1, k_2, v', same: 'a.pos = b.pos AND a.k_1 = b.k_1 AND a.k_2 = b.k_2' };
}

/** The statistics of the paired differences d = a − b that the leaderboard's tier gaps test. */
export interface GapStats {
  paired_n: number | null;
  mean_d: number | null;
  var_d: number | null;
  constant_d: boolean | null;
  positive_d: number | null;
  negative_d: number | null;
}

/** The SQL aggregates of GapStats over pairs of values `a` and `b` (a pair with a NULL value is not counted). */
export const gapAggregatesSql = (a: string, b: string): string =>
  `CAST(count(${a} - ${b}) AS DOUBLE) AS paired_n, avg(${a} - ${b}) AS mean_d,
       var_samp(${a} - ${b}) AS var_d, min(${a} - ${b}) = max(${a} - ${b}) AS constant_d,
       CAST(count(*) FILTER (WHERE ${a} > ${b}) AS DOUBLE) AS positive_d,
       CAST(count(*) FILTER (WHERE ${a} < ${b}) AS DOUBLE) AS negative_d`;

const GAP_AGGREGATES = gapAggregatesSql('a.v', 'b.v');

/**
 * Runs the jobs on `width` connections to the store at once (the store's own and width − 1 more, closed after),
 * each connection taking the next job when it is free: DuckDB runs a positional join on one thread, and a query
 * spends part of its time being prepared and handed over, so a few more connections than cores keep the cores
 * busy (bench/RESULTS.md). Resolves to the jobs' results in their order.
 */
export async function onConnections<T>(
  store: Store,
  jobs: readonly ((connection: Store) => Promise<T>)[],
  width = 4,
): Promise<T[]> {
  const extra = await Promise.all(
    Array.from({ length: Math.max(0, Math.min(width, jobs.length) - 1) }, () => store.connect()),
  );
  const results: T[] = new Array(jobs.length);
  let next = 0;
  let failed = false;
  // Every connection's query is waited for, even after one has failed: closing a connection (or, in the caller,
  // the store) while DuckDB still executes a statement on it deadlocks the thread that runs it (or crashes the
  // process), and a process with such a thread never exits.
  const settled = await Promise.allSettled(
    [store, ...extra].map(async (connection) => {
      while (!failed && next < jobs.length) {
        const i = next++;
        try {
          results[i] = await jobs[i]!(connection);
        } catch (error) {
          failed = true;
          throw error;
        }
      }
    }),
  );
  for (const connection of extra) connection.close();
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure !== undefined) throw failure.reason;
  return results;
}

/** The paired differences' statistics of two results whose items pair (see `pairable`). */
export async function gapStats(store: Store, a: ItemSet, b: ItemSet): Promise<GapStats> {
  if (a.items === 0 || b.items === 0)
    return { paired_n: 0, mean_d: null, var_d: null, constant_d: null, positive_d: 0, negative_d: 0 };
  if (samePositions(a, b)) {
    const params: DuckDBValue[] = [];
    const { columns, same } = positionalSql(a, b);
    const [row] = await store.all<GapStats & { rows: number; aligned: boolean | null }>(
      `SELECT ${GAP_AGGREGATES}, count(*)::BIGINT AS rows, bool_and(${same}) AS aligned
       FROM ${itemsOf(store, a, params, columns)} a POSITIONAL JOIN ${itemsOf(store, b, params, columns)} b`,
      params,
    );
    if (row && row.aligned === true && row.rows === a.items) {
      const { rows: _rows, aligned: _aligned, ...stats } = row;
      return stats;
    }
  }
  const params: DuckDBValue[] = [];
  const [row] = await store.all<GapStats>(
    `SELECT ${GAP_AGGREGATES}
     FROM ${itemsOf(store, a, params)} a JOIN ${itemsOf(store, b, params)} b ON a.k_1 = b.k_1 AND a.k_2 = b.k_2`,
    params,
  );
  return row!;
}

/**
 * Paired rows as columns: A's and B's value (NaN: none; item values are finite) in two growing arrays of doubles,
 * the cluster (only when clustering: else empty), and the rows of each comparison (`ranges`, by its number; the rows
 * of one comparison are appended together).
 */
export class PairedColumns {
  va = new Float64Array(1024);
  vb = new Float64Array(1024);
  /** Rows in va and vb. */
  length = 0;
  cl: (string | null)[] = [];
  readonly ranges = new Map<number, { start: number; end: number }>();

  /** Room for `rows` more rows. */
  reserve(rows: number): void {
    if (this.length + rows <= this.va.length) return;
    const size = Math.max(this.length + rows, this.va.length * 2);
    for (const side of ['va', 'vb'] as const) {
      const grown = new Float64Array(size);
      grown.set(this[side].subarray(0, this.length));
      this[side] = grown;
    }
  }

  /** Marks the rows from `start` to the end as comparison `pair`'s. */
  close(pair: number, start: number): void {
    const range = this.ranges.get(pair);
    if (range) range.end = this.length;
    else this.ranges.set(pair, { start, end: this.length });
  }

  /** Appends one row of comparison `pair`. */
  push(pair: number, va: number, vb: number): void {
    this.reserve(1);
    this.va[this.length] = va;
    this.vb[this.length] = vb;
    this.length++;
    this.close(pair, this.length - 1);
  }
}

/**
 * Appends every item of two results whose items pair (see `pairable`) to `out`, in key order, as comparison
 * `pair`: va and vb (null where that side has no item with the key, or its value is undefined), as the pairing
 * SQL's rows of one comparison.
 */
export async function appendPairedItems(
  store: Store,
  a: ItemSet,
  b: ItemSet,
  pair: number,
  out: PairedColumns,
): Promise<void> {
  if (samePositions(a, b)) {
    const params: DuckDBValue[] = [];
    const { columns, same } = positionalSql(a, b);
    // pos −1: the row does not pair the same key on both sides.
    const sql = `SELECT CASE WHEN ${same} THEN a.pos ELSE -1 END AS pos, coalesce(a.v, 'NaN'::DOUBLE) AS va,
        coalesce(b.v, 'NaN'::DOUBLE) AS vb
      FROM ${itemsOf(store, a, params, columns)} a POSITIONAL JOIN ${itemsOf(store, b, params, columns)} b`;
    if (await appendRows(store, sql, params, pair, out, true)) return;
  }
  const params: DuckDBValue[] = [];
  const sql = `SELECT 0 AS pos, coalesce(a.v, 'NaN'::DOUBLE) AS va, coalesce(b.v, 'NaN'::DOUBLE) AS vb
    FROM ${itemsOf(store, a, params)} a FULL OUTER JOIN ${itemsOf(store, b, params)} b ON a.k_1 = b.k_1 AND a.k_2 = b.k_2
    ORDER BY coalesce(a.k, b.k)`;
  await appendRows(store, sql, params, pair, out, false);
}

/**
 * Runs `sql` and hands each chunk of its result to `each` (the chunk's column vectors, by index, and its row count),
 * read straight from DuckDB's vectors: the generic row conversion costs more than the query on hundreds of
 * thousands of rows. Stops when `each` returns false, and resolves to false then.
 */
export async function eachChunk(
  store: Store,
  sql: string,
  params: DuckDBValue[],
  each: (column: <T extends DuckDBValue>(i: number) => DuckDBVector<T>, rows: number) => boolean | void,
): Promise<boolean> {
  const result = await store.connection.run(sql, params);
  for (;;) {
    const chunk = await result.fetchChunk();
    const rows = chunk?.rowCount ?? 0;
    if (!chunk || rows === 0) return true;
    if (
      each(<T extends DuckDBValue>(i: number) => chunk.getColumnVector(i) as DuckDBVector<T>, rows) === false
    )
      return false;
  }
}

/** A DOUBLE vector's values as they lie in its chunk (the node API keeps them in a Float64Array), if it has one. */
export function doubles(vector: DuckDBVector<DuckDBValue>): Float64Array | undefined {
  const items = (vector as { items?: unknown }).items;
  return items instanceof Float64Array ? items : undefined;
}

/** An INTEGER vector's values as they lie in its chunk (an Int32Array), if it has one. */
function integers(vector: DuckDBVector<DuckDBValue>): Int32Array | undefined {
  const items = (vector as { items?: unknown }).items;
  return items instanceof Int32Array ? items : undefined;
}

/**
 * Appends the (pos, va, vb) rows of `sql` to `out` (NaN as null). With `positional`, each row's pos must be the
 * next position (−1: the row does not pair one key); at the first that is not, the rows appended are taken back and
 * the result is false.
 */
async function appendRows(
  store: Store,
  sql: string,
  params: DuckDBValue[],
  pair: number,
  out: PairedColumns,
  positional: boolean,
): Promise<boolean> {
  const start = out.length;
  const whole = await eachChunk(store, sql, params, (column, rows) => {
    // No column is NULL (pos is −1 or a position, va and vb coalesced to NaN): their values are read as they lie
    // in the chunk.
    const pos = integers(column(0));
    const va = doubles(column(1));
    const vb = doubles(column(2));
    const next = out.length - start;
    if (positional)
      for (let i = 0; i < rows; i++)
        if ((pos ? pos[i] : column<number>(0).getItem(i)) !== next + i) return false;
    out.reserve(rows);
    if (va) out.va.set(va.subarray(0, rows), out.length);
    else for (let i = 0; i < rows; i++) out.va[out.length + i] = column<number>(1).getItem(i) ?? NaN;
    if (vb) out.vb.set(vb.subarray(0, rows), out.length);
    else for (let i = 0; i < rows; i++) out.vb[out.length + i] = column<number>(2).getItem(i) ?? NaN;
    out.length += rows;
  });
  if (!whole) out.length = start;
  else if (out.length > start) out.close(pair, start);
  return whole;
}
