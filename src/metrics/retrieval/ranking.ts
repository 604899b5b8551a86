/**
 * Ranking metrics of one retrieval result against its gold row (Mnemoverse eval 0.1), binary relevance.
 *
 * Conventions (the same for every metric, so the numbers agree with each other):
 * - gain is 1 for an id in `expected_ids`, else 0; ranks start at 1; ties keep the retrieved order;
 * - a duplicate in `retrieved_ids` keeps its slot but counts only once, at its first rank (a repeated id is a
 *   wasted slot, like a missing one);
 * - Precision@K divides by K, so slots the system did not fill count against it;
 * - a metric that needs at least one expected id (recall, nDCG) is `null` when `expected_ids` is empty — it is
 *   undefined, not 0 or 1.
 */

/** The metrics of one row at one K. `null` = undefined for this row (see `undefinedReason`). */
export interface RankingAtK {
  k: number;
  precision: number;
  recall: number | null;
  ndcg: number | null;
  mrr: number;
}

/** Ideal DCG for `relevant` relevant ids at cut-off k: Σ_{r=1}^{min(k, relevant)} 1 / log2(r + 1). */
export function idealDcg(k: number, relevant: number): number {
  const n = Math.min(k, relevant);
  while (IDEAL_DCG.length <= n) {
    const r = IDEAL_DCG.length;
    IDEAL_DCG.push(IDEAL_DCG[r - 1] + 1 / Math.log2(r + 1));
  }
  return IDEAL_DCG[n];
}

/** IDEAL_DCG[n] = Σ_{r=1}^{n} 1 / log2(r + 1), grown on demand (the sums are the same numbers every time). */
const IDEAL_DCG: number[] = [0];

/** 1 / log2(r + 1) for rank r, grown on demand (the same number every time, so sums stay bit-identical). */
const GAIN_AT_RANK: number[] = [0];
function discount(r: number): number {
  while (GAIN_AT_RANK.length <= r) GAIN_AT_RANK.push(1 / Math.log2(GAIN_AT_RANK.length + 1));
  return GAIN_AT_RANK[r];
}

/**
 * The expected ids of a gold row as the ranking pass reads them: a Set, or (cheaper to build for the short lists
 * gold rows usually have) an array of distinct ids.
 */
export type ExpectedIds = ReadonlySet<string> | readonly string[];

/**
 * The one pass behind `rankingMetrics`, without allocating: writes hits and DCG at each cut-off `ks[j]` into
 * `hitsAtK[j]` / `dcgAtK[j]` and returns the rank of the first relevant id (0 when none). `expected` as an array
 * must hold distinct ids.
 */
export function rankingPass(
  retrieved: readonly string[],
  expected: ExpectedIds,
  ks: readonly number[],
  hitsAtK: number[] | Float64Array,
  dcgAtK: number[] | Float64Array,
): number {
  let maxK = 0;
  for (let j = 0; j < ks.length; j++) if (ks[j] > maxK) maxK = ks[j];
  const depth = Math.min(maxK, retrieved.length);
  const list = Array.isArray(expected) ? (expected as readonly string[]) : undefined;
  const set = list ? undefined : (expected as ReadonlySet<string>);
  let hits = 0;
  let dcg = 0;
  let firstRelevant = 0;
  for (let r = 1; r <= depth; r++) {
    const id = retrieved[r - 1];
    // A relevant id counts only at its first rank (indexOf finds an earlier duplicate).
    if ((list ? list.includes(id) : set!.has(id)) && retrieved.indexOf(id) === r - 1) {
      hits++;
      dcg += discount(r);
      if (firstRelevant === 0) firstRelevant = r;
    }
    for (let j = 0; j < ks.length; j++) {
      if (ks[j] === r) {
        hitsAtK[j] = hits;
        dcgAtK[j] = dcg;
      }
    }
  }
  // Cut-offs beyond the list (or not reached) see the totals.
  for (let j = 0; j < ks.length; j++) {
    if (ks[j] > depth) {
      hitsAtK[j] = hits;
      dcgAtK[j] = dcg;
    }
  }
  return firstRelevant;
}

/**
 * Every ranking metric at every K in one pass over the top max(K) retrieved ids.
 * `ks` must be positive integers (any order); the result follows the order of `ks`.
 */
export function rankingMetrics(
  retrieved: readonly string[],
  expected: ReadonlySet<string>,
  ks: readonly number[],
): RankingAtK[] {
  const hitsAtK: number[] = new Array(ks.length).fill(0);
  const dcgAtK: number[] = new Array(ks.length).fill(0);
  const firstRelevant = rankingPass(retrieved, expected, ks, hitsAtK, dcgAtK);
  const relevant = expected.size;
  const out: RankingAtK[] = [];
  for (let j = 0; j < ks.length; j++) {
    const k = ks[j];
    const h = hitsAtK[j];
    const d = dcgAtK[j];
    out.push({
      k,
      precision: h / k,
      recall: relevant === 0 ? null : h / relevant,
      ndcg: relevant === 0 ? null : d / idealDcg(k, relevant),
      mrr: firstRelevant !== 0 && firstRelevant <= k ? 1 / firstRelevant : 0,
    });
  }
  return out;
}

export type EntityMatch = 'exact' | 'casefold';

/** Case-folding used by the `casefold` entity match: Unicode NFKC, then lower case. */
export function foldCase(s: string): string {
  return s.normalize('NFKC').toLowerCase();
}

/**
 * cov_entities: the share of the gold row's distinct `entities` that appear among the retrieved ids.
 * `exact` compares strings as they are; `casefold` compares NFKC-normalised lower-case strings.
 * Returns null when the gold row lists no entities (undefined rather than 0 or 1).
 */
export function entityCoverage(
  retrieved: readonly string[],
  entities: readonly string[],
  match: EntityMatch = 'exact',
): number | null {
  if (entities.length === 0) return null;
  const folding = match === 'casefold';
  const pool = folding ? retrieved.map(foldCase) : retrieved;
  const wanted = folding ? entities.map(foldCase) : entities;
  // Short lists (the usual case) are searched directly; Sets pay off only for long ones.
  const small = pool.length * wanted.length <= 256;
  const present = small ? undefined : new Set(pool);
  let distinct = 0;
  let found = 0;
  const counted = small ? undefined : new Set<string>();
  for (let i = 0; i < wanted.length; i++) {
    const e = wanted[i];
    if (counted ? counted.has(e) : wanted.indexOf(e) !== i) continue; // count each distinct entity once
    counted?.add(e);
    distinct++;
    if (present ? present.has(e) : pool.includes(e)) found++;
  }
  return found / distinct;
}
