/**
 * `evalkit compare MODEL_A MODEL_B`: for every benchmark and metric both models have, a paired comparison on the
 * items both were scored on (Miller 2024). The store chooses each model's result (as the leaderboard does, see
 * selection.ts) and pairs the instance rows in DuckDB; the statistics are the `metrics/stats` primitives.
 *
 * Pairing: by sample_hash when every row of both results has one, else by sample_id; the rows of one sample
 * (epochs) are averaged first. d_i = a_i − b_i. Binary (every paired value 0 or 1): McNemar's exact test on the
 * discordant pairs. `clusterBy`: the clustered SE with C − 1 df (an item whose row lacks the field is a cluster of
 * its own; the value is taken from model A's row, else B's). `bootstrap`: a seeded paired percentile bootstrap of d̄
 * resampling items, or clusters. Holm adjusts the p-values of all comparisons of one call (p_holm; clustered p
 * values separately, clustered.p_holm). Fewer than two paired items: an unpaired z test on the two results' scores
 * and standard errors, `paired: false` with the reason.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { UsageError } from '../errors.js';
import { standardDeviation } from '../metrics/stats/descriptive.js';
import { holmAdjust } from '../metrics/stats/holm.js';
import { mcnemarExact } from '../metrics/stats/mcnemar.js';
import { normalQuantile } from '../metrics/stats/normal.js';
import { pairedBootstrap } from '../metrics/stats/paired-bootstrap.js';
import {
  clusteredInference,
  exactSignTest,
  minimumDetectableEffect,
  pairedTTest,
  unpairedComparison,
} from '../metrics/stats/paired.js';
import { closestNames } from './closest.js';
import type { Store } from './db.js';
import {
  BY_HASH_SQL,
  SAMPLE_COLUMNS,
  checkBenchmarkAndMetric,
  chosenResultsSql,
  pairingCtes,
} from './selection.js';

export interface CompareOptions {
  benchmark?: string;
  metric?: string;
  clusterBy?: string;
  /** Bootstrap resamples; absent: no bootstrap. */
  bootstrap?: number;
  seed?: number;
}

export interface Comparison {
  benchmark: string;
  metric: string;
  lower_is_better: boolean;
  paired: boolean;
  /** Why the comparison is unpaired (null when paired). */
  reason: string | null;
  n_paired: number;
  n_unpaired_a: number;
  n_unpaired_b: number;
  mean_a: number;
  mean_b: number;
  difference: number;
  se: number | null;
  ci: [number, number] | null;
  df: number | null;
  p_value: number | null;
  /**
   * The test behind p_value: 't' (paired t), 'mcnemar-exact' or 'sign-exact' (where the t test is undefined: every
   * paired difference equal), 'z' (unpaired), null (none possible).
   */
  test: 't' | 'mcnemar-exact' | 'sign-exact' | 'z' | null;
  /** Why the usual test was not used or an interval is missing (null when nothing needs saying). */
  note: string | null;
  p_holm: number | null;
  correlation: number | null;
  mde: number | null;
  mcnemar: { a_only: number; b_only: number; p_value: number } | null;
  clustered: {
    clusters: number;
    se: number;
    ci: [number, number];
    df: number;
    p_value: number;
    p_holm: number | null;
  } | null;
  bootstrap: {
    resamples: number;
    seed: number;
    ci: [number, number] | null;
    /** Why ci is null (fewer than 2 clusters or items). */
    reason?: string;
  } | null;
  /** Why `clustered` is null although --cluster-by was given (null otherwise). */
  clustered_reason: string | null;
}

export interface CompareReport {
  model_a: string;
  model_b: string;
  cluster_by: string | null;
  comparisons: Comparison[];
}

export const DEFAULT_BOOTSTRAP = 10_000;
/**
 * Bounds of the bootstrap resample count: below 100 the 2.5% and 97.5% percentiles rest on one or two resamples;
 * above 100,000 the interval no longer moves (its Monte Carlo error is already far below the sampling error) while
 * time and memory grow linearly.
 */
export const MIN_BOOTSTRAP = 100;
export const MAX_BOOTSTRAP = 100_000;

/** Throws a UsageError unless `n` is an integer resample count in [MIN_BOOTSTRAP, MAX_BOOTSTRAP]. */
export function checkBootstrap(n: number): void {
  if (!Number.isSafeInteger(n) || n < MIN_BOOTSTRAP || n > MAX_BOOTSTRAP)
    throw new UsageError(
      'usage.bad-option',
      `--bootstrap expects a resample count in [${MIN_BOOTSTRAP}, ${MAX_BOOTSTRAP}], got ${n}: ` +
        (n < MIN_BOOTSTRAP
          ? `a 95% percentile interval needs at least ${MIN_BOOTSTRAP} resamples`
          : `more resamples no longer change the interval and cost time and memory in proportion`),
    );
}
const CONFIDENCE = 0.95;

interface ChosenRow {
  benchmark: string;
  metric: string;
  model_id: string;
  lower_is_better: boolean;
  score: number;
  standard_error: number | null;
  ci_lower: number | null;
  ci_upper: number | null;
}

/** Throws a UsageError naming the closest known ids when a model id is not in the store. */
async function checkModels(store: Store, ids: string[]): Promise<void> {
  const known = (await store.all<{ model_id: string }>('SELECT DISTINCT model_id FROM records')).map(
    (r) => r.model_id,
  );
  const set = new Set(known);
  for (const id of ids) {
    if (set.has(id)) continue;
    const closest = closestNames(id, known);
    throw new UsageError(
      'store.unknown-model',
      `unknown model "${id}"` +
        (closest.length > 0 ? `; closest known: ${closest.join(', ')}` : '; the store has no models'),
    );
  }
}

/** The SQL expression of a cluster field: a samples column, else metadata.FIELD, else the row's FIELD. */
function clusterExpression(field: string, params: DuckDBValue[]): string {
  if ((SAMPLE_COLUMNS as readonly string[]).includes(field)) return `CAST(s.${field} AS VARCHAR)`;
  params.push(field);
  const p = `$${params.length}`;
  return `coalesce(s.raw -> 'metadata' ->> ${p}, s.raw ->> ${p})`;
}

/**
 * The CTEs pairing A's and B's items: `chosen` (ord by benchmark, metric, model), one slot per benchmark and metric
 * both have (a, b = their ord), and `grouped` (see pairingCtes) with `extra` aggregates.
 */
function pairingSql(
  modelA: string,
  modelB: string,
  filters: { benchmark?: string; metric?: string },
  params: DuckDBValue[],
  options: { cluster?: string | null; extra?: string },
): string {
  const chosen = chosenResultsSql({ ...filters, models: [modelA, modelB] }, params);
  params.push(modelA, modelB);
  const slots = `
      SELECT ca.ord AS slot, ca.ord AS a, cb.ord AS b, ${BY_HASH_SQL} AS by_hash
      FROM chosen ca JOIN chosen cb ON ca.benchmark = cb.benchmark AND ca.metric = cb.metric
      LEFT JOIN hashed ha ON ha.ord = ca.ord LEFT JOIN hashed hb ON hb.ord = cb.ord
      WHERE ca.model_id = $${params.length - 1} AND cb.model_id = $${params.length}`;
  return `
    WITH chosen AS MATERIALIZED (
      SELECT *, row_number() OVER (ORDER BY benchmark, metric, model_id) AS ord FROM (${chosen})
    ),
    ${pairingCtes(slots, options)}`;
}

function recordSe(r: ChosenRow, values: number[]): number | null {
  if (r.standard_error !== null) return r.standard_error;
  if (r.ci_lower !== null && r.ci_upper !== null)
    return (r.ci_upper - r.ci_lower) / (2 * normalQuantile(1 - (1 - CONFIDENCE) / 2));
  return values.length >= 2 ? standardDeviation(values) / Math.sqrt(values.length) : null;
}

function unpairedReason(nA: number, nB: number, nPaired: number, modelA: string, modelB: string): string {
  if (nA === 0 && nB === 0) return 'neither result has instance rows';
  if (nA === 0) return `the result of ${modelA} has no instance rows`;
  if (nB === 0) return `the result of ${modelB} has no instance rows`;
  if (nPaired === 0) return 'the two results share no sample (by sample_hash, else sample_id)';
  return 'only one sample pairs';
}

export async function compareModels(
  store: Store,
  modelA: string,
  modelB: string,
  options: CompareOptions,
): Promise<CompareReport> {
  if (modelA === modelB) throw new UsageError('usage.bad-argument', 'compare needs two different models');
  if (options.bootstrap !== undefined) checkBootstrap(options.bootstrap);
  await checkModels(store, [modelA, modelB]);
  const filters = { benchmark: options.benchmark, metric: options.metric };
  await checkBenchmarkAndMetric(store, filters);

  const chosenParams: DuckDBValue[] = [];
  const chosen = await store.all<ChosenRow>(
    `SELECT * FROM (${chosenResultsSql({ ...filters, models: [modelA, modelB] }, chosenParams)})
     ORDER BY benchmark, metric, model_id`,
    chosenParams,
  );

  const params: DuckDBValue[] = [];
  const cluster = options.clusterBy === undefined ? null : clusterExpression(options.clusterBy, params);
  const sql = `${pairingSql(modelA, modelB, filters, params, {
    cluster,
    extra: 'coalesce(min(cl) FILTER (WHERE is_a), min(cl) FILTER (WHERE NOT is_a)) AS cl',
  })}
    SELECT CAST(slot AS INTEGER) AS pair, va, vb, cl FROM grouped ORDER BY pair, k`;
  const reader = await store.connection.runAndReadAll(sql, params);
  const columns = reader.getColumnsObjectJson() as {
    pair: number[];
    va: (number | null)[];
    vb: (number | null)[];
    cl: (string | null)[];
  };

  // The rows of each comparison, by the ord of A's chosen result.
  const byPair = new Map<number, { start: number; end: number }>();
  const total = columns.pair?.length ?? 0;
  for (let i = 0; i < total; i++) {
    const p = columns.pair[i]!;
    const range = byPair.get(p);
    if (range) range.end = i + 1;
    else byPair.set(p, { start: i, end: i + 1 });
  }

  const comparisons: Comparison[] = [];
  for (let i = 0; i < chosen.length; i++) {
    const ra = chosen[i]!;
    if (ra.model_id !== modelA) continue;
    const j = chosen.findIndex(
      (r) => r.model_id === modelB && r.benchmark === ra.benchmark && r.metric === ra.metric,
    );
    if (j < 0) continue;
    const rb = chosen[j]!;
    const range = byPair.get(i + 1) ?? { start: 0, end: 0 };
    const a: number[] = [];
    const b: number[] = [];
    const clusters: string[] = [];
    const onlyA: number[] = [];
    const onlyB: number[] = [];
    for (let j = range.start; j < range.end; j++) {
      const va = columns.va[j] ?? null;
      const vb = columns.vb[j] ?? null;
      if (va !== null && vb !== null) {
        a.push(va);
        b.push(vb);
        clusters.push(columns.cl[j] ?? `\u0000item ${j}`);
      } else if (va !== null) onlyA.push(va);
      else if (vb !== null) onlyB.push(vb);
    }
    comparisons.push(
      compareOne(ra, rb, a, b, clusters, onlyA, onlyB, modelA, modelB, options, cluster !== null),
    );
  }

  const holm = holmAdjust(comparisons.map((c) => c.p_value));
  const holmClustered = holmAdjust(comparisons.map((c) => c.clustered?.p_value ?? null));
  comparisons.forEach((c, i) => {
    c.p_holm = holm[i] ?? null;
    if (c.clustered) c.clustered.p_holm = holmClustered[i] ?? null;
  });
  return { model_a: modelA, model_b: modelB, cluster_by: options.clusterBy ?? null, comparisons };
}

const formatDifference = (x: number): string => String(Number(x.toPrecision(6)));

function head(r: ChosenRow, paired: boolean, reason: string | null) {
  return { benchmark: r.benchmark, metric: r.metric, lower_is_better: r.lower_is_better, paired, reason };
}

function compareOne(
  ra: ChosenRow,
  rb: ChosenRow,
  a: number[],
  b: number[],
  clusters: string[],
  onlyA: number[],
  onlyB: number[],
  modelA: string,
  modelB: string,
  options: CompareOptions,
  clustered: boolean,
): Comparison {
  const counts = {
    n_paired: a.length,
    n_unpaired_a: onlyA.length,
    n_unpaired_b: onlyB.length,
  };
  if (a.length < 2) {
    const u = unpairedComparison(
      ra.score,
      recordSe(ra, [...a, ...onlyA]),
      rb.score,
      recordSe(rb, [...b, ...onlyB]),
    );
    return {
      ...head(
        ra,
        false,
        unpairedReason(a.length + onlyA.length, b.length + onlyB.length, a.length, modelA, modelB),
      ),
      ...counts,
      mean_a: ra.score,
      mean_b: rb.score,
      difference: u.difference,
      se: u.se,
      ci: u.ci,
      df: null,
      p_value: u.p_value,
      test: u.p_value === null ? null : 'z',
      note:
        u.p_value === null
          ? 'no test possible: a standard error is unknown'
          : u.se === 0
            ? 'both standard errors are 0: the z test is undefined'
            : null,
      p_holm: null,
      correlation: null,
      mde: u.se === null || u.se === 0 ? null : minimumDetectableEffect(u.se),
      mcnemar: null,
      clustered: null,
      clustered_reason: clustered ? 'the comparison is unpaired' : null,
      bootstrap: null,
    };
  }
  const t = pairedTTest(a, b, CONFIDENCE);
  const binary = a.every((x) => x === 0 || x === 1) && b.every((x) => x === 0 || x === 1);
  let mcnemar: Comparison['mcnemar'] = null;
  if (binary) {
    let aOnly = 0;
    let bOnly = 0;
    for (let i = 0; i < a.length; i++) {
      if (a[i] === 1 && b[i] === 0) aOnly++;
      else if (a[i] === 0 && b[i] === 1) bOnly++;
    }
    mcnemar = { a_only: aOnly, b_only: bOnly, p_value: mcnemarExact(aOnly, bOnly) };
  }
  const d = a.map((x, i) => x - b[i]!);
  // Every paired difference equal: sd(d) = 0 and the t statistic is undefined (not infinite); the exact test on
  // the signs of the differences (McNemar's on 0/1 scores) is what the data can say.
  const zeroVariance = t.se === 0;
  const exact = zeroVariance ? exactSignTest(d) : null;
  const clusterCount = clustered ? new Set(clusters).size : 0;
  const c = clustered ? clusteredInference(d, clusters, CONFIDENCE) : null;
  const clusteredReason = !clustered
    ? null
    : c !== null
      ? null
      : clusterCount < 2
        ? `fewer than 2 clusters (${clusterCount})`
        : 'no variance between clusters: the clustered t test is undefined';
  const boot =
    options.bootstrap === undefined
      ? null
      : pairedBootstrap(d, {
          iterations: options.bootstrap,
          seed: options.seed ?? 0,
          clusters: clustered ? clusters : undefined,
          confidence: CONFIDENCE,
        });
  return {
    ...head(ra, true, null),
    ...counts,
    mean_a: t.mean_a,
    mean_b: t.mean_b,
    difference: t.difference,
    se: t.se,
    ci: t.ci,
    df: t.df,
    p_value: exact ? exact.p_value : t.p_value,
    test: exact ? (binary ? 'mcnemar-exact' : 'sign-exact') : t.p_value === null ? null : 't',
    note: zeroVariance
      ? `every paired difference is ${formatDifference(d[0]!)}: no variance, the t test is undefined; ` +
        `p from the exact ${binary ? 'McNemar' : 'sign'} test`
      : null,
    p_holm: null,
    correlation: t.correlation,
    mde: t.mde,
    mcnemar,
    clustered: c && { clusters: c.clusters, se: c.se, ci: c.ci, df: c.df, p_value: c.p_value, p_holm: null },
    clustered_reason: clusteredReason,
    bootstrap: boot,
  };
}

/** One paired item where the two models' scores differ. */
export interface DisagreementItem {
  /** The pairing key: the sample_hash when paired by hash, else the sample_id. */
  key: string;
  sample_id: string;
  sample_hash: string | null;
  input_text: string | null;
  reference_text: string | null;
  a: { score: number; output_text: string | null };
  b: { score: number; output_text: string | null };
}

export interface Disagreements {
  model_a: string;
  model_b: string;
  benchmark: string;
  metric: string;
  /** Paired items whose (epoch-averaged) scores differ. */
  total: number;
  offset: number;
  limit: number;
  items: DisagreementItem[];
}

/**
 * The paired items where A's and B's scores differ on one benchmark and metric, largest |a − b| first (then by
 * pairing key), one page at a time, with the input, the reference and both outputs (of each side's first row).
 */
export async function disagreements(
  store: Store,
  modelA: string,
  modelB: string,
  benchmark: string,
  metric: string,
  page: { offset: number; limit: number },
): Promise<Disagreements> {
  await checkModels(store, [modelA, modelB]);
  const params: DuckDBValue[] = [];
  const extra = [
    'min(sample_id) FILTER (WHERE is_a) AS sample_id',
    'min(sample_hash) FILTER (WHERE is_a) AS sample_hash',
    'arg_min(input_text, row_index) FILTER (WHERE is_a) AS input_text',
    'coalesce(arg_min(reference_text, row_index) FILTER (WHERE is_a), arg_min(reference_text, row_index) FILTER (WHERE NOT is_a)) AS reference_text',
    'arg_min(output_text, row_index) FILTER (WHERE is_a) AS output_a',
    'arg_min(output_text, row_index) FILTER (WHERE NOT is_a) AS output_b',
  ].join(', ');
  const sql = `${pairingSql(modelA, modelB, { benchmark, metric }, params, { extra })}
    SELECT k AS key, sample_id, sample_hash, input_text, reference_text, va AS score_a, output_a, vb AS score_b,
           output_b,
           CAST(count(*) OVER () AS INTEGER) AS total
    FROM grouped WHERE va <> vb
    ORDER BY abs(va - vb) DESC, k
    LIMIT ${Math.max(0, Math.floor(page.limit))} OFFSET ${Math.max(0, Math.floor(page.offset))}`;
  const rows = await store.all<{
    key: string;
    sample_id: string;
    sample_hash: string | null;
    input_text: string | null;
    reference_text: string | null;
    score_a: number;
    output_a: string | null;
    score_b: number;
    output_b: string | null;
    total: number;
  }>(sql, params);
  let total = rows[0]?.total;
  if (total === undefined) {
    const countParams: DuckDBValue[] = [];
    const counted = await store.all<{ total: number }>(
      `${pairingSql(modelA, modelB, { benchmark, metric }, countParams, {})}
       SELECT CAST(count(*) AS INTEGER) AS total FROM grouped WHERE va <> vb`,
      countParams,
    );
    total = counted[0]?.total ?? 0;
  }
  return {
    model_a: modelA,
    model_b: modelB,
    benchmark,
    metric,
    total,
    offset: page.offset,
    limit: page.limit,
    items: rows.map((r) => ({
      key: r.key,
      sample_id: r.sample_id,
      sample_hash: r.sample_hash,
      input_text: r.input_text,
      reference_text: r.reference_text,
      a: { score: r.score_a, output_text: r.output_a },
      b: { score: r.score_b, output_text: r.output_b },
    })),
  };
}
