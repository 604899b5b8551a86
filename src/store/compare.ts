/**
 * `evalkit compare A B`: for every benchmark and metric both sides have, a paired comparison on the items both were
 * scored on (Miller 2024). A side is a model (its result chosen as the leaderboard chooses it, see selection.ts) or
 * one run (an evaluation id, exact or a unique prefix), so two runs of one model compare too. The store pairs the
 * instance rows in DuckDB; the statistics are the `metrics/stats` primitives.
 *
 * Pairing: by sample_hash when every row of both results has one and no two samples of a result share one, else by
 * sample id; the rows of one sample
 * (epochs) are reduced first by the result's epoch reducer (selection.ts). Every paired difference equal: the t test
 * is undefined and p comes from the exact sign test (McNemar's on 0/1 scores). d_i = a_i − b_i. Binary (every paired value 0 or 1): McNemar's exact test on the
 * discordant pairs. `clusterBy`: the clustered SE with C − 1 df (an item whose row lacks the field is a cluster of
 * its own; the value is taken from model A's row, else B's). `bootstrap`: a seeded paired percentile bootstrap of d̄
 * resampling items, or clusters. Holm adjusts the p-values of all comparisons of one call (p_holm; clustered p
 * values separately, clustered.p_holm). Fewer than two paired items: an unpaired z test on the two results' scores
 * and standard errors (each as the result's one interval has it, result-interval.ts), `paired: false` with the
 * reason.
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { UsageError } from '../errors.js';
import { disagreementText } from '../checks/reconciliation.js';
import { standardDeviation } from '../metrics/stats/descriptive.js';
import { holmAdjust } from '../metrics/stats/holm.js';
import { mcnemarExact } from '../metrics/stats/mcnemar.js';
import { newcombePairedInterval, pairedTable } from '../metrics/stats/paired-proportions.js';
import { pairedBootstrap } from '../metrics/stats/paired-bootstrap.js';
import {
  clusteredInference,
  exactSignTest,
  minimumDetectableEffect,
  pairedTTest,
  unpairedComparison,
} from '../metrics/stats/paired.js';
import { closestNames } from './closest.js';
import {
  checkMargin,
  gateOne,
  settleGates,
  type GateOptions,
  type GateReport,
  type GateResult,
} from './compare-gate.js';
import type { Store } from './db.js';
import { clipInterval, resultInterval } from './result-interval.js';
import { appendPairedItems, eachChunk, itemSetsOf, pairable, PairedColumns } from './result-items.js';
import {
  BY_HASH_SQL,
  SAMPLE_COLUMNS,
  checkBenchmarkAndMetric,
  chosenResultsSql,
  pairingCtes,
  storeReducers,
} from './selection.js';

export interface CompareOptions {
  benchmark?: string;
  metric?: string;
  clusterBy?: string;
  /** Bootstrap resamples; absent: no bootstrap. */
  bootstrap?: number;
  seed?: number;
  /** The CI gate (`--fail-if-worse`): A is the baseline, B the candidate (see compare-gate.ts). */
  gate?: GateOptions;
}

export interface Comparison {
  /** Each side's run status: "complete", or the unfinished run's (error, cancelled, started, partial). */
  run_status_a: string;
  run_status_b: string;
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
  /**
   * How `ci` was obtained: 'newcombe' (paired 0/1 scores: Newcombe's hybrid score interval for the difference of
   * paired proportions, never outside [−1, 1]), 't' (the paired t interval, df degrees of freedom), 'normal' (the
   * unpaired z interval); null without an interval. Any interval is kept inside `difference_bounds` (ci_clipped).
   */
  ci_method: 'newcombe' | 't' | 'normal' | null;
  /** True when an end of `ci` was set to a bound of the difference (difference_bounds). */
  ci_clipped: boolean;
  /**
   * The range a difference of the two results can take, [min − max, max − min] of the metric's bounds (min_score,
   * max_score of either side); null when the metric declares no bounds.
   */
  difference_bounds: [number, number] | null;
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
    /** True when an end of the clustered CI was set to a bound of the difference. */
    ci_clipped: boolean;
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
  /** The gate's one-sided test of this comparison (null without --fail-if-worse). */
  gate: GateResult | null;
  /** "rows disagree with the source: …" when A's (B's) result's rows disagree with its source, else null. */
  disagreement_a: string | null;
  disagreement_b: string | null;
}

export interface CompareReport {
  /**
   * The CI gate's outcome (null without --fail-if-worse): failed when a comparison is `worse` or, unless it allows
   * them, when a benchmark and metric of the baseline is untested, too thinly paired or missing (compare-gate.ts).
   */
  gate: GateReport | null;
  model_a: string;
  model_b: string;
  /** What each side is: a model, or one run of a model (its evaluation_id). */
  a: CompareSide;
  b: CompareSide;
  cluster_by: string | null;
  /**
   * Whether cluster_by is the one the compared results declare (`metric_config.additional_details.cluster_by`, e.g.
   * promptfoo's assertion-level results, clustered by test) rather than `--cluster-by`.
   */
  cluster_by_declared: boolean;
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
  record_key: string;
  result_index: number;
  benchmark: string;
  metric: string;
  model_id: string;
  side: 'a' | 'b';
  lower_is_better: boolean;
  score: number;
  standard_error: number | null;
  ci_lower: number | null;
  ci_upper: number | null;
  min_score: number | null;
  max_score: number | null;
  /** The reconciliation note of a result whose rows disagree with its source, else null (selection.ts). */
  disagreement: string | null;
  run_status: string;
}

/**
 * One side of a comparison: a model (its result per benchmark and metric chosen as the leaderboard chooses it) or
 * one run (the results of the record with that evaluation_id).
 */
export interface CompareSide {
  kind: 'model' | 'run';
  model_id: string;
  /** The run's evaluation_id (null for a model side). */
  evaluation_id: string | null;
}

/** How many candidates an ambiguity error lists. */
const CANDIDATES_SHOWN = 10;

/**
 * Resolves a compare argument: a model id (exact), else an evaluation id (exact, else a unique prefix). An argument
 * that is both a model id and an evaluation id, or the prefix of several evaluation ids, is ambiguous: a UsageError
 * lists the candidates. Unknown: a UsageError naming the closest model ids and evaluation ids.
 */
export async function resolveSide(store: Store, argument: string): Promise<CompareSide> {
  const model = await store.all<{ model_id: string }>(
    'SELECT DISTINCT model_id FROM records WHERE model_id = $1',
    [argument],
  );
  const exactRun = await store.all<{ evaluation_id: string; model_id: string }>(
    'SELECT DISTINCT evaluation_id, model_id FROM records WHERE evaluation_id = $1',
    [argument],
  );
  if (model.length > 0 && exactRun.length > 0)
    throw new UsageError(
      'store.ambiguous-id',
      `"${argument}" is both a model id and an evaluation id; candidates: model ${argument}, run ${argument}`,
    );
  if (model.length > 0) return { kind: 'model', model_id: argument, evaluation_id: null };
  const runs =
    exactRun.length > 0
      ? exactRun
      : await store.all<{ evaluation_id: string; model_id: string }>(
          `SELECT evaluation_id, any_value(model_id) AS model_id FROM records
           WHERE starts_with(evaluation_id, $1) GROUP BY evaluation_id ORDER BY evaluation_id LIMIT ${CANDIDATES_SHOWN + 1}`,
          [argument],
        );
  if (runs.length === 1)
    return { kind: 'run', model_id: runs[0]!.model_id, evaluation_id: runs[0]!.evaluation_id };
  if (runs.length > 1) {
    const shown = runs.slice(0, CANDIDATES_SHOWN).map((r) => `${r.evaluation_id} (${r.model_id})`);
    throw new UsageError(
      'store.ambiguous-id',
      `"${argument}" is the prefix of several evaluation ids: ${shown.join(', ')}` +
        (runs.length > CANDIDATES_SHOWN ? ', …' : '') +
        '; give more of the id',
    );
  }
  const known = (
    await store.all<{ name: string }>(
      'SELECT DISTINCT model_id AS name FROM records UNION SELECT DISTINCT evaluation_id FROM records',
    )
  ).map((r) => r.name);
  const closest = closestNames(argument, known);
  throw new UsageError(
    'store.unknown-model',
    `unknown model "${argument}"` +
      (closest.length > 0
        ? `; closest known: ${closest.join(', ')} (model ids and evaluation ids)`
        : '; the store has no models'),
  );
}

/** Both sides, refused when they are the same model or the same run (naming the model's runs to pick from). */
async function resolveSides(store: Store, a: string, b: string): Promise<[CompareSide, CompareSide]> {
  const sideA = await resolveSide(store, a);
  const sideB = await resolveSide(store, b);
  if (
    sideA.kind === sideB.kind &&
    sideA.model_id === sideB.model_id &&
    sideA.evaluation_id === sideB.evaluation_id
  ) {
    if (sideA.kind === 'run')
      throw new UsageError('usage.bad-argument', `both sides are the run ${sideA.evaluation_id}`);
    const runs = (
      await store.all<{ evaluation_id: string }>(
        `SELECT DISTINCT evaluation_id FROM records WHERE model_id = $1 ORDER BY evaluation_id LIMIT ${CANDIDATES_SHOWN + 1}`,
        [sideA.model_id],
      )
    ).map((r) => r.evaluation_id);
    throw new UsageError(
      'usage.bad-argument',
      `both sides are the model ${sideA.model_id}` +
        (runs.length > 1
          ? `; to compare two of its runs give their evaluation ids (or unique prefixes): ${runs.slice(0, CANDIDATES_SHOWN).join(', ')}${runs.length > CANDIDATES_SHOWN ? ', …' : ''}`
          : ' (it has one run)'),
    );
  }
  return [sideA, sideB];
}

/** A side as the text output names it: the model id, or "model @ evaluation id" for a run. */
export function sideLabel(side: CompareSide): string {
  return side.kind === 'model' ? side.model_id : `${side.model_id} @ ${side.evaluation_id}`;
}

/** The SQL expression of a cluster field: a samples column, else metadata.FIELD, else the row's FIELD. */
function clusterExpression(field: string, params: DuckDBValue[]): string {
  if ((SAMPLE_COLUMNS as readonly string[]).includes(field)) return `CAST(s.${field} AS VARCHAR)`;
  params.push(field);
  const p = `$${params.length}`;
  return `coalesce(s.raw -> 'metadata' ->> ${p}, s.raw ->> ${p})`;
}

/** The chosen results of both sides, each tagged with its side ('a' or 'b'); one per benchmark and metric. */
function chosenBothSql(
  sides: [CompareSide, CompareSide],
  filters: { benchmark?: string; metric?: string },
  params: DuckDBValue[],
): string {
  const one = (side: CompareSide, tag: string) =>
    `SELECT *, '${tag}' AS side FROM (${chosenResultsSql(
      side.kind === 'model'
        ? { ...filters, models: [side.model_id] }
        : { ...filters, evaluationIds: [side.evaluation_id!] },
      params,
    )})`;
  return `${one(sides[0], 'a')} UNION ALL BY NAME ${one(sides[1], 'b')}`;
}

/**
 * The CTEs pairing A's and B's items: `chosen` (ord by side, benchmark, metric), one slot per benchmark and metric
 * both sides have (a, b = their ord), and `grouped` (see pairingCtes) with `extra` aggregates.
 */
function pairingSql(
  sides: [CompareSide, CompareSide],
  filters: { benchmark?: string; metric?: string },
  params: DuckDBValue[],
  options: {
    cluster?: string | null;
    extra?: string;
    reducers: Awaited<ReturnType<typeof storeReducers>>;
    key?: boolean;
  },
): string {
  const chosen = chosenBothSql(sides, filters, params);
  const slots = `
      SELECT ca.ord AS slot, ca.ord AS a, cb.ord AS b, ${BY_HASH_SQL} AS by_hash
      FROM chosen ca JOIN chosen cb ON ca.benchmark = cb.benchmark AND ca.metric = cb.metric
      LEFT JOIN hashed ha ON ha.ord = ca.ord LEFT JOIN hashed hb ON hb.ord = cb.ord
      WHERE ca.side = 'a' AND cb.side = 'b'`;
  return `
    WITH chosen AS MATERIALIZED (
      SELECT *, row_number() OVER (ORDER BY side, benchmark, metric) AS ord FROM (${chosen})
    ),
    ${pairingCtes(slots, options)}`;
}

/**
 * The rows of the pairing query (pair, va, vb, cl) as columns (eachChunk). va and vb come as NaN for NULL (the
 * instance values are finite) and are returned as null; cl is read only `withClusters`.
 */
async function readPairedColumns(
  store: Store,
  sql: string,
  params: DuckDBValue[],
  withClusters: boolean,
): Promise<PairedColumns> {
  const out = new PairedColumns();
  await eachChunk(store, sql, params, (column, rows) => {
    const [pair, va, vb, cl] = [column<number>(0), column<number>(1), column<number>(2), column<string>(3)];
    for (let i = 0; i < rows; i++) {
      out.push(pair.getItem(i)!, va.getItem(i) ?? NaN, vb.getItem(i) ?? NaN);
      if (withClusters) out.cl.push(cl.getItem(i));
    }
  });
  return out;
}

/** The index of B's result compared with A's result at `i` (same benchmark and metric), or -1. */
const partnerOf = (chosen: ChosenRow[], i: number): number =>
  chosen.findIndex(
    (r) => r.side === 'b' && r.benchmark === chosen[i]!.benchmark && r.metric === chosen[i]!.metric,
  );

/**
 * The rows readPairedColumns would read, from the stored items (result-items.ts): pair is A's position in
 * `chosen` + 1, as the pairing SQL numbers its slots. Undefined when a result has no item set or two compared
 * results' items key differently; the pairing SQL does it then.
 */
async function pairedFromItems(store: Store, chosen: ChosenRow[]): Promise<PairedColumns | undefined> {
  const sets = await itemSetsOf(store, chosen);
  if (!sets) return undefined;
  const pairs = chosen.flatMap((r, i) => {
    const j = r.side === 'a' ? partnerOf(chosen, i) : -1;
    return j >= 0 ? [[sets[i]!, sets[j]!, i + 1] as const] : [];
  });
  if (pairs.some(([a, b]) => !pairable(a, b))) return undefined;
  const out = new PairedColumns();
  for (const [a, b, pair] of pairs) await appendPairedItems(store, a, b, pair, out);
  return out;
}

/**
 * The standard error of a result as its one interval has it (result-interval.ts, as the leaderboard and the
 * viewer): from its samples' values (epochs reduced) when they reproduce the score, else the record's own.
 */
function resultSe(r: ChosenRow, values: number[]): number | null {
  const n = values.length;
  const m = n > 0 ? values.reduce((x, y) => x + y, 0) / n : null;
  return resultInterval({
    score: r.score,
    standard_error: r.standard_error,
    ci_lower: r.ci_lower,
    ci_upper: r.ci_upper,
    min_score: r.min_score,
    max_score: r.max_score,
    items: n > 0 ? n : null,
    item_mean: m,
    item_var: n >= 2 ? standardDeviation(values) ** 2 : null,
    binary: n > 0 ? values.every((v) => v === 0 || v === 1) : null,
    successes: n > 0 ? values.filter((v) => v === 1).length : null,
  }).se;
}

function unpairedReason(nA: number, nB: number, nPaired: number, modelA: string, modelB: string): string {
  if (nA === 0 && nB === 0) return 'neither result has instance rows';
  if (nA === 0) return `the result of ${modelA} has no instance rows`;
  if (nB === 0) return `the result of ${modelB} has no instance rows`;
  if (nPaired === 0) return 'the two results share no sample (by sample_hash, else sample_id)';
  return 'only one sample pairs';
}

/**
 * The cluster field the chosen results declare (`metric_config.additional_details.cluster_by`) when at least one
 * declares one and none declares another; undefined otherwise. Results that declare none keep one cluster per item.
 */
async function declaredCluster(store: Store, chosen: ChosenRow[]): Promise<string | undefined> {
  if (chosen.length === 0) return undefined;
  const params: DuckDBValue[] = [];
  const keys = chosen.map((c) => {
    params.push(c.record_key, c.result_index);
    return `(record_key = $${params.length - 1} AND result_index = $${params.length})`;
  });
  const fields = await store.all<{ f: string }>(
    `SELECT DISTINCT json_extract_string(raw, '$.metric_config.additional_details.cluster_by') AS f
     FROM results WHERE (${keys.join(' OR ')}) AND f IS NOT NULL`,
    params,
  );
  return fields.length === 1 ? fields[0]!.f : undefined;
}

export async function compareModels(
  store: Store,
  modelA: string,
  modelB: string,
  options: CompareOptions,
): Promise<CompareReport> {
  if (options.bootstrap !== undefined) checkBootstrap(options.bootstrap);
  const sides = await resolveSides(store, modelA, modelB);
  const [labelA, labelB] = sides.map(sideLabel) as [string, string];
  const filters = { benchmark: options.benchmark, metric: options.metric };
  await checkBenchmarkAndMetric(store, filters);

  const chosenParams: DuckDBValue[] = [];
  const chosen = await store.all<ChosenRow>(
    `SELECT * FROM (${chosenBothSql(sides, filters, chosenParams)}) ORDER BY side, benchmark, metric`,
    chosenParams,
  );

  if (options.gate)
    checkMargin(
      options.gate.margin,
      chosen.flatMap((r, i) => {
        const j = r.side === 'a' ? partnerOf(chosen, i) : -1;
        const bounds = j >= 0 ? metricBounds(r, chosen[j]!) : null;
        return bounds ? [{ benchmark: r.benchmark, metric: r.metric, range: bounds[1] - bounds[0] }] : [];
      }),
    );

  const params: DuckDBValue[] = [];
  const declared = options.clusterBy === undefined ? await declaredCluster(store, chosen) : undefined;
  const clusterBy = options.clusterBy ?? declared;
  const cluster = clusterBy === undefined ? null : clusterExpression(clusterBy, params);
  const columns =
    (cluster === null ? await pairedFromItems(store, chosen) : undefined) ??
    (await readPairedColumns(
      store,
      `${pairingSql(sides, filters, params, {
        reducers: await storeReducers(store),
        cluster,
        key: true,
        extra:
          cluster === null
            ? 'CAST(NULL AS VARCHAR) AS cl'
            : 'coalesce(min(cl) FILTER (WHERE is_a), min(cl) FILTER (WHERE NOT is_a)) AS cl',
      })}
    SELECT CAST(slot AS INTEGER) AS pair, coalesce(va, 'NaN'::DOUBLE) AS va, coalesce(vb, 'NaN'::DOUBLE) AS vb, cl
    FROM grouped ORDER BY pair, k`,
      params,
      cluster !== null,
    ));

  const comparisons: Comparison[] = [];
  for (let i = 0; i < chosen.length; i++) {
    const ra = chosen[i]!;
    if (ra.side !== 'a') continue;
    const j = partnerOf(chosen, i);
    if (j < 0) continue;
    const rb = chosen[j]!;
    // The rows of the comparison, by the ord of A's chosen result.
    const range = columns.ranges.get(i + 1) ?? { start: 0, end: 0 };
    let a: ArrayLike<number> = [];
    let b: ArrayLike<number> = [];
    const clusters: string[] = [];
    const onlyA: number[] = [];
    const onlyB: number[] = [];
    // Usually every item has both values (and no cluster is read): the two columns' rows are the pairs then.
    let everyPaired = cluster === null;
    for (let j = range.start; j < range.end && everyPaired; j++)
      everyPaired = !Number.isNaN(columns.va[j]!) && !Number.isNaN(columns.vb[j]!);
    if (everyPaired) {
      a = columns.va.subarray(range.start, range.end);
      b = columns.vb.subarray(range.start, range.end);
    } else {
      const [pa, pb]: number[][] = [[], []];
      [a, b] = [pa, pb];
      for (let j = range.start; j < range.end; j++) {
        // NaN: that side has no value for the item.
        const va = columns.va[j]!;
        const vb = columns.vb[j]!;
        if (!Number.isNaN(va) && !Number.isNaN(vb)) {
          pa.push(va);
          pb.push(vb);
          // Each item its own cluster unless a cluster column is read (clusters are read only when clustering).
          if (cluster !== null) clusters.push(columns.cl[j] ?? `\u0000item ${j}`);
        } else if (!Number.isNaN(va)) onlyA.push(va);
        else if (!Number.isNaN(vb)) onlyB.push(vb);
      }
    }
    comparisons.push({
      ...compareOne(ra, rb, a, b, clusters, onlyA, onlyB, labelA, labelB, options, cluster !== null),
      run_status_a: ra.run_status,
      run_status_b: rb.run_status,
    });
  }

  const holm = holmAdjust(comparisons.map((c) => c.p_value));
  const holmClustered = holmAdjust(comparisons.map((c) => c.clustered?.p_value ?? null));
  comparisons.forEach((c, i) => {
    c.p_holm = holm[i] ?? null;
    if (c.clustered) c.clustered.p_holm = holmClustered[i] ?? null;
  });
  const gates = comparisons.flatMap((c) => (c.gate ? [c.gate] : []));
  // The baseline's benchmarks and metrics the candidate lacks: the gate cannot say they held up.
  const missing = chosen
    .filter((r, i) => r.side === 'a' && partnerOf(chosen, i) < 0)
    .map((r) => ({ benchmark: r.benchmark, metric: r.metric }));
  const gate = options.gate ? settleGates(gates, options.gate, missing) : null;
  return {
    gate,
    model_a: sides[0].model_id,
    model_b: sides[1].model_id,
    a: sides[0],
    b: sides[1],
    cluster_by: clusterBy ?? null,
    cluster_by_declared: declared !== undefined,
    comparisons,
  };
}

const formatDifference = (x: number): string => String(Number(x.toPrecision(6)));

const finite = (x: number | null): x is number => x !== null && Number.isFinite(x);

/** The metric's bounds [min, max] from either side's min_score and max_score; null unless both ends are known. */
function metricBounds(ra: ChosenRow, rb: ChosenRow): [number, number] | null {
  const mins = [ra.min_score, rb.min_score].filter(finite);
  const maxs = [ra.max_score, rb.max_score].filter(finite);
  if (mins.length === 0 || maxs.length === 0) return null;
  const min = Math.min(...mins);
  const max = Math.max(...maxs);
  return max > min ? [min, max] : null;
}

/** The range of a difference A − B of a metric with these bounds: [min − max, max − min]. */
const differenceBounds = (bounds: [number, number] | null): [number, number] | null =>
  bounds === null ? null : [bounds[0] - bounds[1], bounds[1] - bounds[0]];

/** An interval kept inside the difference's range (unchanged without one). */
function keptInside(
  ci: [number, number] | null,
  range: [number, number] | null,
): { ci: [number, number] | null; clipped: boolean } {
  if (ci === null || range === null) return { ci, clipped: false };
  return clipInterval(ci, range[0], range[1]);
}

function head(r: ChosenRow, rb: ChosenRow, paired: boolean, reason: string | null) {
  const marked = (x: ChosenRow) => (x.disagreement === null ? null : disagreementText(x.disagreement));
  return {
    benchmark: r.benchmark,
    metric: r.metric,
    lower_is_better: r.lower_is_better,
    paired,
    reason,
    disagreement_a: marked(r),
    disagreement_b: marked(rb),
  };
}

/** The unpaired z interval as a comparison carries it, kept inside the difference's range. */
function unpairedCi(ci: [number, number] | null, range: [number, number] | null) {
  const kept = keptInside(ci, range);
  return {
    ci: kept.ci,
    ci_method: kept.ci === null ? null : ('normal' as const),
    ci_clipped: kept.clipped,
    difference_bounds: range,
  };
}

/** A clustered interval kept inside the difference's range. */
function clippedCi(ci: [number, number], range: [number, number] | null) {
  const kept = keptInside(ci, range);
  return { ci: kept.ci!, ci_clipped: kept.clipped };
}

function compareOne(
  ra: ChosenRow,
  rb: ChosenRow,
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  clusters: string[],
  onlyA: number[],
  onlyB: number[],
  modelA: string,
  modelB: string,
  options: CompareOptions,
  clustered: boolean,
): Omit<Comparison, 'run_status_a' | 'run_status_b'> {
  const counts = {
    n_paired: a.length,
    n_unpaired_a: onlyA.length,
    n_unpaired_b: onlyB.length,
  };
  const range = differenceBounds(metricBounds(ra, rb));
  if (a.length < 2) {
    const u = unpairedComparison(
      ra.score,
      resultSe(ra, [...Array.from(a), ...onlyA]),
      rb.score,
      resultSe(rb, [...Array.from(b), ...onlyB]),
    );
    return {
      ...head(
        ra,
        rb,
        false,
        unpairedReason(a.length + onlyA.length, b.length + onlyB.length, a.length, modelA, modelB),
      ),
      ...counts,
      mean_a: ra.score,
      mean_b: rb.score,
      difference: u.difference,
      se: u.se,
      ...unpairedCi(u.ci, range),
      df: null,
      p_value: u.p_value,
      test: u.p_value === null ? null : 'z',
      note:
        u.se === null
          ? 'a standard error is unknown: no test possible'
          : u.p_value === null
            ? 'both standard errors are 0: the z test is undefined'
            : null,
      p_holm: null,
      correlation: null,
      mde: u.se === null || u.se === 0 ? null : minimumDetectableEffect(u.se),
      mcnemar: null,
      clustered: null,
      clustered_reason: clustered ? 'the comparison is unpaired' : null,
      bootstrap: null,
      gate: options.gate
        ? gateOne(
            { kind: 'unpaired', difference: u.difference, se: u.se },
            ra.lower_is_better,
            options.gate,
            a.length,
            unpairedReason(a.length + onlyA.length, b.length + onlyB.length, a.length, modelA, modelB),
          )
        : null,
    };
  }
  const t = pairedTTest(a, b, CONFIDENCE);
  const table = pairedTable(a, b);
  const binary = table !== null;
  // 0/1 scores: Newcombe's interval for paired proportions (inside [−1, 1] by construction); else the t interval,
  // kept inside the difference's range when the metric is bounded.
  const newcombe = table && newcombePairedInterval(table, CONFIDENCE);
  const shown = newcombe
    ? { ci: [newcombe.lower, newcombe.upper] as [number, number], clipped: false }
    : keptInside(t.ci, range);
  // The discordant pairs of 0/1 scores are the table's: A right and B wrong, B right and A wrong.
  const mcnemar: Comparison['mcnemar'] = table
    ? { a_only: table.aOnly, b_only: table.bOnly, p_value: mcnemarExact(table.aOnly, table.bOnly) }
    : null;
  // Every paired difference equal: sd(d) = 0 and the t statistic is undefined (not infinite); the exact test on
  // the signs of the differences (McNemar's on 0/1 scores) is what the data can say.
  const zeroVariance = t.se === 0;
  // The differences, made only for what reads them.
  const d =
    zeroVariance || clustered || options.bootstrap !== undefined || options.gate
      ? Array.from(a, (x, i) => x - b[i]!)
      : [];
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
    ...head(ra, rb, true, null),
    ...counts,
    mean_a: t.mean_a,
    mean_b: t.mean_b,
    difference: t.difference,
    se: t.se,
    ci: shown.ci,
    ci_method: newcombe ? 'newcombe' : shown.ci === null ? null : 't',
    ci_clipped: shown.clipped,
    difference_bounds: range,
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
    clustered: c && {
      clusters: c.clusters,
      se: c.se,
      ...clippedCi(c.ci, range),
      df: c.df,
      p_value: c.p_value,
      p_holm: null,
    },
    clustered_reason: clusteredReason,
    bootstrap: boot,
    gate: options.gate
      ? gateOne(
          c ? { kind: 'clustered', d, se: c.se, df: c.df } : { kind: 'paired', d, se: t.se, df: t.df },
          ra.lower_is_better,
          options.gate,
          a.length,
        )
      : null,
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
  const sides = await resolveSides(store, modelA, modelB);
  const params: DuckDBValue[] = [];
  const extra = [
    'min(sample_id) FILTER (WHERE is_a) AS sample_id',
    'min(sample_hash) FILTER (WHERE is_a) AS sample_hash',
    'arg_min(input_text, row_index) FILTER (WHERE is_a) AS input_text',
    'coalesce(arg_min(reference_text, row_index) FILTER (WHERE is_a), arg_min(reference_text, row_index) FILTER (WHERE NOT is_a)) AS reference_text',
    'arg_min(output_text, row_index) FILTER (WHERE is_a) AS output_a',
    'arg_min(output_text, row_index) FILTER (WHERE NOT is_a) AS output_b',
  ].join(', ');
  const reducers = await storeReducers(store);
  const sql = `${pairingSql(sides, { benchmark, metric }, params, { extra, reducers, key: true })}
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
      `${pairingSql(sides, { benchmark, metric }, countParams, { reducers })}
       SELECT CAST(count(*) AS INTEGER) AS total FROM grouped WHERE va <> vb`,
      countParams,
    );
    total = counted[0]?.total ?? 0;
  }
  return {
    model_a: sides[0].model_id,
    model_b: sides[1].model_id,
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
