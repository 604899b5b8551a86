import type { Diagnostic } from '../../diagnostics.js';
import { entityCoverage, idealDcg, rankingPass, type EntityMatch, type ExpectedIds } from './ranking.js';
import { operationalFigures, type Observation } from './operational.js';
import { verdictsFor, type Threshold } from './thresholds.js';

/** A parsed JSONL row with the place it came from (1-based line). */
export interface Located<T> {
  value: T;
  line: number;
}

export interface GoldRow {
  schema_version: string;
  id: string;
  query: string;
  expected_ids: string[];
  layers: string[];
  entities?: string[];
  tags?: string[];
}

export interface ResultRow {
  schema_version: string;
  id: string;
  request_id: string;
  metrics: Record<string, unknown>;
  retrieved_ids?: string[];
  verdicts?: { metric: string; value: number; threshold: number; pass: boolean }[];
  [key: string]: unknown;
}

export interface ScoreOptions {
  /** Cut-offs, e.g. [5, 10] (the default). */
  ks?: number[];
  /** When given, every scored row's `verdicts` are recomputed from these; otherwise supplied verdicts are kept. */
  thresholds?: Threshold[];
  entityMatch?: EntityMatch;
  /** Observations joined to result rows by request_id: fill p50_ms, p95_ms and errors per row. */
  observations?: readonly Observation[];
  goldFile?: string;
  resultsFile?: string;
}

export interface ScoreOutcome {
  /** Every result row, in input order, with computed metrics and verdicts filled in (unknown ids untouched). */
  rows: ResultRow[];
  /** Rows that were scored against a gold row. */
  scored: number;
  diagnostics: Diagnostic[];
  /** Metric names computed here, in a stable order (ranking metrics by K, then cov_entities, then operational). */
  metricNames: string[];
}

export const DEFAULT_KS = [5, 10];

/** Names of the ranking metrics at K, as the 0.1 result schema spells them (p_at_5, ndcg_10, mrr_10). */
export function rankingMetricNames(k: number): {
  precision: string;
  recall: string;
  ndcg: string;
  mrr: string;
} {
  return { precision: `p_at_${k}`, recall: `recall_at_${k}`, ndcg: `ndcg_${k}`, mrr: `mrr_${k}` };
}

function diag(
  file: string,
  line: number,
  pointer: string,
  severity: 'error' | 'warning',
  code: string,
  message: string,
): Diagnostic {
  return { file, line, column: line > 0 ? 1 : 0, pointer, severity, code, message };
}

/** Gold entries by id, with what scoring a result row needs (built once per gold row). */
interface GoldEntry {
  row: GoldRow;
  /** The distinct expected ids: the row's own array when its ids are already distinct, a Set for long lists. */
  expected: ExpectedIds;
  /** How many distinct expected ids (the number of relevant ids). */
  relevant: number;
  line: number;
  used: boolean;
  /** Line of the first result row with this id (0: none yet), for the duplicate-result-id warning. */
  firstResultLine: number;
}

/** Lists up to this long are searched directly (no Set per gold row: building one costs more than it saves). */
const SHORT_LIST = 16;

function distinctExpected(ids: readonly string[]): ExpectedIds {
  if (ids.length > SHORT_LIST) return new Set(ids);
  for (let i = 1; i < ids.length; i++) {
    if (ids.indexOf(ids[i]) !== i) return ids.filter((id, j) => ids.indexOf(id) === j);
  }
  return ids;
}

/**
 * A copy of `input` with `metrics` (and `verdicts`, when given) set: the keys keep their order, new ones go last —
 * the same object as `{ ...input, metrics }`. Object.assign plus stores is several times cheaper in V8 than a
 * spread that adds keys; a row with an own "__proto__" key (legal JSON) takes the spread, which defines it as data.
 */
function withFigures(
  input: ResultRow,
  metrics: Record<string, unknown>,
  verdicts?: ResultRow['verdicts'],
): ResultRow {
  let row: ResultRow;
  if (Object.hasOwn(input, '__proto__')) row = { ...input, metrics };
  else {
    row = Object.assign({}, input);
    row.metrics = metrics;
  }
  if (verdicts) row.verdicts = verdicts;
  return row;
}

/** An object with the metric keys a scored row gets, in output order (values are placeholders). */
function metricsShape(
  names: ReturnType<typeof rankingMetricNames>[],
  withRecall: boolean,
  withCoverage: boolean,
): Record<string, number> {
  const shape: Record<string, number> = {};
  for (const n of names) {
    shape[n.precision] = 0;
    if (withRecall) {
      shape[n.recall] = 0;
      shape[n.ndcg] = 0;
    }
    shape[n.mrr] = 0;
  }
  if (withCoverage) shape.cov_entities = 0;
  return shape;
}

/** True when `x` is an object with at least one enumerable key. */
function hasKeys(x: object | undefined): x is object {
  if (x === undefined) return false;
  for (const _ in x) return true;
  return false;
}

function isStringArray(x: unknown): x is string[] {
  if (!Array.isArray(x)) return false;
  for (let i = 0; i < x.length; i++) if (typeof x[i] !== 'string') return false;
  return true;
}

/** Checks the fields the scorer relies on; returns a message for the first problem, or undefined. */
function goldProblem(row: unknown): [string, string] | undefined {
  if (row === null || typeof row !== 'object' || Array.isArray(row))
    return ['', 'a gold row must be an object'];
  const r = row as Record<string, unknown>;
  if (typeof r.id !== 'string') return ['/id', 'a gold row needs a string "id"'];
  if (!isStringArray(r.expected_ids)) return ['/expected_ids', '"expected_ids" must be an array of strings'];
  if (r.entities !== undefined && !isStringArray(r.entities)) {
    return ['/entities', '"entities" must be an array of strings'];
  }
  return undefined;
}

function resultProblem(row: unknown): [string, string] | undefined {
  if (row === null || typeof row !== 'object' || Array.isArray(row))
    return ['', 'a result row must be an object'];
  const r = row as Record<string, unknown>;
  if (typeof r.id !== 'string') return ['/id', 'a result row needs a string "id"'];
  if (typeof r.request_id !== 'string') return ['/request_id', 'a result row needs a string "request_id"'];
  if (
    r.metrics !== undefined &&
    (r.metrics === null || typeof r.metrics !== 'object' || Array.isArray(r.metrics))
  ) {
    return ['/metrics', '"metrics" must be an object'];
  }
  if (r.retrieved_ids !== undefined && !isStringArray(r.retrieved_ids)) {
    return ['/retrieved_ids', '"retrieved_ids" must be an array of strings'];
  }
  return undefined;
}

/**
 * Scores result rows against gold rows. Pure: no I/O. Unknown ids, gold rows without results, duplicate gold ids,
 * duplicate result ids / request ids and undefined metrics come back as diagnostics.
 */
export function scoreResults(
  gold: readonly Located<unknown>[],
  results: readonly Located<unknown>[],
  options: ScoreOptions = {},
): ScoreOutcome {
  const ks = [...new Set(options.ks ?? DEFAULT_KS)].sort((a, b) => a - b);
  const goldFile = options.goldFile ?? 'gold';
  const resultsFile = options.resultsFile ?? 'results';
  const diagnostics: Diagnostic[] = [];

  const goldById = new Map<string, GoldEntry>();
  for (const { value, line } of gold) {
    const problem = goldProblem(value);
    if (problem) {
      diagnostics.push(diag(goldFile, line, problem[0], 'error', 'retrieval.bad-gold-row', problem[1]));
      continue;
    }
    const row = value as GoldRow;
    const earlier = goldById.get(row.id);
    if (earlier) {
      diagnostics.push(
        diag(
          goldFile,
          line,
          '/id',
          'error',
          'retrieval.duplicate-gold-id',
          `gold id "${row.id}" already defined on line ${earlier.line}; the first definition is used`,
        ),
      );
      continue;
    }
    const expected = distinctExpected(row.expected_ids);
    const relevant = Array.isArray(expected) ? expected.length : (expected as ReadonlySet<string>).size;
    goldById.set(row.id, { row, expected, relevant, line, used: false, firstResultLine: 0 });
  }

  const observationsByRequest = new Map<string, Observation[]>();
  for (const o of options.observations ?? []) {
    const list = observationsByRequest.get(o.request_id);
    if (list) list.push(o);
    else observationsByRequest.set(o.request_id, [o]);
  }

  // First line of each result id that has no gold row (ids with one keep it in their GoldEntry).
  const seenUnknownIds = new Map<string, number>();
  const seenRequestIds = new Map<string, number>();
  const rows: ResultRow[] = [];
  let scored = 0;
  let anyCoverage = false;
  let anyOperational = false;
  const names = ks.map(rankingMetricNames);
  // A row that brings no metrics of its own gets a copy of one of these (the ranking keys in output order, values
  // filled in below): copying a ready-made shape is cheaper than growing every row's object key by key.
  // shapes[recall and nDCG defined ? 1 : 0][cov_entities defined ? 1 : 0].
  const shapes = [0, 1].map((withRecall) =>
    [0, 1].map((withCoverage) => metricsShape(names, withRecall === 1, withCoverage === 1)),
  );
  const hitsAtK = new Float64Array(ks.length);
  const dcgAtK = new Float64Array(ks.length);

  for (const { value, line } of results) {
    const problem = resultProblem(value);
    if (problem) {
      diagnostics.push(diag(resultsFile, line, problem[0], 'error', 'retrieval.bad-result-row', problem[1]));
      rows.push(value as ResultRow);
      continue;
    }
    const input = value as ResultRow;
    const g = goldById.get(input.id);
    const firstIdLine = g ? g.firstResultLine || undefined : seenUnknownIds.get(input.id);
    if (firstIdLine !== undefined) {
      diagnostics.push(
        diag(
          resultsFile,
          line,
          '/id',
          'warning',
          'retrieval.duplicate-result-id',
          `result id "${input.id}" also on line ${firstIdLine}; each row is scored and counts in the means`,
        ),
      );
    } else if (g) g.firstResultLine = line;
    else seenUnknownIds.set(input.id, line);
    const firstRequestLine = seenRequestIds.get(input.request_id);
    if (firstRequestLine !== undefined) {
      diagnostics.push(
        diag(
          resultsFile,
          line,
          '/request_id',
          'warning',
          'retrieval.duplicate-request-id',
          `request_id "${input.request_id}" also on line ${firstRequestLine}`,
        ),
      );
    } else seenRequestIds.set(input.request_id, line);

    if (!g) {
      diagnostics.push(
        diag(
          resultsFile,
          line,
          '/id',
          'error',
          'retrieval.unknown-id',
          `result id "${input.id}" has no gold row; the row is written unchanged`,
        ),
      );
      rows.push(input);
      continue;
    }
    g.used = true;
    scored++;

    const observations = observationsByRequest.get(input.request_id);
    let retrieved = input.retrieved_ids;
    if (retrieved === undefined) {
      retrieved = observations?.find((o) => isStringArray(o.retrieved_ids))?.retrieved_ids;
      if (retrieved === undefined) {
        diagnostics.push(
          diag(
            resultsFile,
            line,
            '/retrieved_ids',
            'warning',
            'retrieval.no-retrieved-ids',
            `result "${input.id}" has no retrieved_ids (nor an observation with them): scored as retrieving nothing`,
          ),
        );
        retrieved = [];
      }
    }

    // The same figures as rankingMetrics (ranking.ts), written straight into the row without intermediate objects.
    const relevant = g.relevant;
    const coverage = entityCoverage(retrieved, g.row.entities ?? [], options.entityMatch);
    const metrics: Record<string, unknown> = hasKeys(input.metrics)
      ? { ...input.metrics }
      : { ...shapes[relevant === 0 ? 0 : 1][coverage === null ? 0 : 1] };
    const firstRelevant = rankingPass(retrieved, g.expected, ks, hitsAtK, dcgAtK);
    for (let i = 0; i < ks.length; i++) {
      const k = ks[i];
      const h = hitsAtK[i];
      const n = names[i];
      metrics[n.precision] = h / k;
      if (relevant !== 0) {
        metrics[n.recall] = h / relevant;
        metrics[n.ndcg] = dcgAtK[i] / idealDcg(k, relevant);
      }
      metrics[n.mrr] = firstRelevant !== 0 && firstRelevant <= k ? 1 / firstRelevant : 0;
    }
    if (relevant === 0) {
      diagnostics.push(
        diag(
          goldFile,
          g.line,
          '/expected_ids',
          'warning',
          'retrieval.undefined-metric',
          `gold "${g.row.id}" has no expected_ids: recall@K and nDCG@K are undefined (IDCG = 0) and left out`,
        ),
      );
    }
    if (coverage !== null) {
      metrics.cov_entities = coverage;
      anyCoverage = true;
    }
    if (observations && observations.length > 0) {
      const op = operationalFigures(observations);
      if (op.p50_ms !== undefined) metrics.p50_ms = op.p50_ms;
      if (op.p95_ms !== undefined) metrics.p95_ms = op.p95_ms;
      metrics.errors = op.errors;
      anyOperational = true;
    }
    rows.push(
      withFigures(input, metrics, options.thresholds ? verdictsFor(metrics, options.thresholds) : undefined),
    );
  }

  for (const g of goldById.values()) {
    if (!g.used) {
      diagnostics.push(
        diag(
          goldFile,
          g.line,
          '/id',
          'warning',
          'retrieval.missing-result',
          `gold "${g.row.id}" has no result row`,
        ),
      );
    }
  }

  const metricNames: string[] = [];
  for (const n of names) metricNames.push(n.precision, n.recall, n.ndcg, n.mrr);
  if (anyCoverage) metricNames.push('cov_entities');
  if (anyOperational) metricNames.push('p50_ms', 'p95_ms', 'errors');
  return { rows, scored, diagnostics, metricNames };
}
