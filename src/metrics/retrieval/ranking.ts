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
  let sum = 0;
  const n = Math.min(k, relevant);
  for (let r = 1; r <= n; r++) sum += 1 / Math.log2(r + 1);
  return sum;
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
  const maxK = Math.max(...ks);
  const depth = Math.min(maxK, retrieved.length);
  // Cumulative hits and DCG after each rank 1..depth; first relevant rank.
  const hitsAt = new Float64Array(depth + 1);
  const dcgAt = new Float64Array(depth + 1);
  let firstRelevant = 0;
  const seen: string[] = [];
  for (let r = 1; r <= depth; r++) {
    const id = retrieved[r - 1];
    let gain = 0;
    if (expected.has(id) && !seen.includes(id)) {
      gain = 1;
      seen.push(id);
      if (firstRelevant === 0) firstRelevant = r;
    }
    hitsAt[r] = hitsAt[r - 1] + gain;
    dcgAt[r] = dcgAt[r - 1] + gain / Math.log2(r + 1);
  }
  const relevant = expected.size;
  return ks.map((k) => {
    const at = Math.min(k, depth);
    const hits = hitsAt[at];
    const idcg = idealDcg(k, relevant);
    return {
      k,
      precision: hits / k,
      recall: relevant === 0 ? null : hits / relevant,
      ndcg: relevant === 0 ? null : dcgAt[at] / idcg,
      mrr: firstRelevant !== 0 && firstRelevant <= k ? 1 / firstRelevant : 0,
    };
  });
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
  const fold = match === 'casefold' ? foldCase : (s: string) => s;
  const wanted = new Set(entities.map(fold));
  if (wanted.size === 0) return null;
  const present = new Set(retrieved.map(fold));
  let found = 0;
  for (const e of wanted) if (present.has(e)) found++;
  return found / wanted.size;
}
