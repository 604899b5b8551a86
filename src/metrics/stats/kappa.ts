/**
 * Chance-corrected agreement. Labels outside `categories` (by default the substantive verdicts good/bad) take
 * no part: Cohen's κ uses the items where both raters gave a category label, Fleiss' κ the items where every
 * rater did. A κ that cannot be computed is `null`, and the detailed variants say why.
 */

export const SUBSTANTIVE_VERDICTS: readonly string[] = ['good', 'bad'];

/** |1 − p_e| below this means chance agreement is total and κ is undefined. */
export const DEGENERACY_TOLERANCE = 1e-12;

export interface KappaOptions {
  /** Per-item non-negative weights (same length as the items); items with weight 0 drop out. */
  weights?: ArrayLike<number>;
  /** The labels that count; default good and bad. */
  categories?: readonly string[];
}

export interface KappaResult {
  value: number | null;
  /** Why value is null. */
  reason?: string;
  /** Items that entered the computation. */
  n: number;
}

function categoryIndex(categories: readonly string[]): Map<string, number> {
  return new Map(categories.map((c, i) => [c, i]));
}

/** Cohen's κ between two label arrays of equal length, with the reason when it is undefined. */
export function cohensKappaResult(
  a: ArrayLike<string>,
  b: ArrayLike<string>,
  options: KappaOptions = {},
): KappaResult {
  if (a.length !== b.length)
    throw new RangeError(`cohensKappa: arrays differ in length (${a.length} vs ${b.length})`);
  const categories = options.categories ?? SUBSTANTIVE_VERDICTS;
  const index = categoryIndex(categories);
  const weights = options.weights;
  const countA = new Float64Array(categories.length);
  const countB = new Float64Array(categories.length);
  let agree = 0;
  let total = 0;
  let n = 0;
  const defaultCategories = categories === SUBSTANTIVE_VERDICTS;
  const at = (label: string): number | undefined =>
    defaultCategories ? (label === 'good' ? 0 : label === 'bad' ? 1 : undefined) : index.get(label);
  for (let i = 0; i < a.length; i++) {
    const ia = at(a[i]!);
    if (ia === undefined) continue;
    const ib = at(b[i]!);
    if (ib === undefined) continue;
    n++;
    const w = weights === undefined ? 1 : weights[i]!;
    countA[ia]! += w;
    countB[ib]! += w;
    if (ia === ib) agree += w;
    total += w;
  }
  if (n === 0) return { value: null, reason: 'no item where both verdicts are substantive', n };
  if (!(total > 0)) return { value: null, reason: 'the substantive items carry zero total weight', n };
  const po = agree / total;
  let pe = 0;
  for (let c = 0; c < categories.length; c++) pe += (countA[c]! / total) * (countB[c]! / total);
  if (Math.abs(1 - pe) < DEGENERACY_TOLERANCE) {
    return { value: null, reason: 'chance agreement p_e = 1 (both sides use a single verdict)', n };
  }
  return { value: (po - pe) / (1 - pe), n };
}

/** Cohen's κ between two label arrays; null when undefined. */
export function cohensKappa(
  a: ArrayLike<string>,
  b: ArrayLike<string>,
  weights?: ArrayLike<number>,
): number | null {
  return cohensKappaResult(a, b, weights === undefined ? {} : { weights }).value;
}

/** Fleiss' κ over rows of rater labels (each row one item, all rows the same length), with the reason. */
export function fleissKappaResult(
  rows: ArrayLike<ArrayLike<string>>,
  options: KappaOptions = {},
): KappaResult {
  if (rows.length === 0) return { value: null, reason: 'no items', n: 0 };
  const k = rows[0]!.length;
  if (k < 2) return { value: null, reason: `fewer than 2 raters (k = ${k})`, n: 0 };
  const categories = options.categories ?? SUBSTANTIVE_VERDICTS;
  const index = categoryIndex(categories);
  const weights = options.weights;
  const defaultCategories = categories === SUBSTANTIVE_VERDICTS;
  const totals = new Float64Array(categories.length);
  const counts = new Int32Array(categories.length);
  let weightedP = 0;
  let totalWeight = 0;
  let n = 0;
  const pairs = k * (k - 1);
  rowLoop: for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    if (row.length !== k)
      throw new RangeError(`fleissKappa: row ${i} has ${row.length} raters, expected ${k}`);
    const w = weights === undefined ? 1 : weights[i]!;
    let agreeing = 0;
    if (defaultCategories) {
      // Fast path for good/bad: two scalar counters instead of a count array.
      let good = 0;
      let bad = 0;
      for (let r = 0; r < k; r++) {
        const label = row[r];
        if (label === 'good') good++;
        else if (label === 'bad') bad++;
        else continue rowLoop;
      }
      agreeing = good * (good - 1) + bad * (bad - 1);
      totals[0]! += w * good;
      totals[1]! += w * bad;
    } else {
      counts.fill(0);
      for (let r = 0; r < k; r++) {
        const c = index.get(row[r]!);
        if (c === undefined) continue rowLoop;
        counts[c]!++;
      }
      for (let c = 0; c < categories.length; c++) {
        const nc = counts[c]!;
        agreeing += nc * (nc - 1);
        totals[c]! += w * nc;
      }
    }
    n++;
    weightedP += w * (agreeing / pairs); // w·P_i, rounded as the reference does
    totalWeight += w;
  }
  if (n === 0) return { value: null, reason: 'no item where every rater gave a substantive verdict', n };
  if (!(totalWeight > 0)) return { value: null, reason: 'the substantive items carry zero total weight', n };
  const pBar = weightedP / totalWeight;
  const annotations = totalWeight * k;
  let pe = 0;
  for (let c = 0; c < categories.length; c++) {
    const p = totals[c]! / annotations;
    pe += p * p;
  }
  if (Math.abs(1 - pe) < DEGENERACY_TOLERANCE) {
    return { value: null, reason: 'chance agreement P̄_e = 1 (every rating is the same verdict)', n };
  }
  return { value: (pBar - pe) / (1 - pe), n };
}

/** Fleiss' κ over rows of rater labels; null when undefined. */
export function fleissKappa(rows: ArrayLike<ArrayLike<string>>, weights?: ArrayLike<number>): number | null {
  return fleissKappaResult(rows, weights === undefined ? {} : { weights }).value;
}
