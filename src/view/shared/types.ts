/**
 * The JSON the API answers with, endpoint by endpoint (the server's functions return these; the app reads them).
 * Leaderboard and comparison shapes are those of `evalkit leaderboard --format json` and `evalkit compare
 * --format json`. Pure types: compiled into the server and the browser app alike.
 */

export interface Overview {
  counts: {
    collections: number;
    benchmarks: number;
    models: number;
    records: number;
    results: number;
    samples: number;
    documents: number;
  };
  collections: { collection: string | null; records: number; models: number }[];
  benchmarks: { evaluation_name: string; metric_name: string | null; models: number; results: number }[];
  /** The task group a benchmark belongs to (lm-eval's group_subtasks, kept in score_details.details.group). */
  benchmark_groups?: Record<string, string>;
  models: { model_id: string; developer: string | null; records: number }[];
  ingests: {
    ingest_id: string;
    started_at: string;
    finished_at: string | null;
    paths: string[];
    records_added: number;
    rows_added: number;
    skipped: number;
    rejected: number;
  }[];
  recent_records: { record_key: string; evaluation_id: string; model_id: string; ingested_at: string }[];
  families: { kind: string; documents: number }[];
  /** The distinct values of each leaderboard filter, for the pages' selectors. */
  filters: {
    developer: string[];
    deploymentType: string[];
    availability: string[];
    sourceOrganization: string[];
    collection: string[];
  };
}

export interface ResultSummary {
  record_key: string;
  result_index: number;
  evaluation_result_id: string | null;
  evaluation_name: string;
  dataset_name: string | null;
  metric_name: string | null;
  metric_unit: string | null;
  score_type: string | null;
  lower_is_better: boolean;
  min_score: number | null;
  max_score: number | null;
  score: number;
  standard_error: number | null;
  ci_lower: number | null;
  ci_upper: number | null;
  num_samples: number | null;
  /** Instance rows stored for this result. */
  samples: number;
  /** The result's one 95% interval (store/result-interval.ts, as `evalkit leaderboard`); filled by the API. */
  interval?: ResultIntervalView;
  /** Its record's run status: "complete", or the unfinished run's (error, cancelled, ...); filled by the API. */
  run_status?: string;
  /** The reconciliation outcome the record keeps (checks/reconciliation.ts) and its note; null when it keeps none. */
  reconciliation?: string | null;
  reconciliation_note?: string | null;
}

/** A result's interval as the pages show it: the CI, how it was obtained, whether an end was set to a bound. */
export interface ResultIntervalView {
  ci: [number, number] | null;
  method: string | null;
  clipped: boolean;
  /** True when a zero-width interval of a run that did not finish was dropped: it measures nothing. */
  withheld?: boolean;
  n: number | null;
}

/** A model's row on one leaderboard (from `leaderboards()`), with the board's name and size. */
export type Standing = LeaderboardRow & {
  benchmark: string;
  metric: string;
  models: number;
  direction_assumed?: boolean;
};

export interface ModelResults {
  model: {
    model_id: string;
    model_name: string | null;
    developer: string | null;
    deployment_type: string | null;
    model_availability: string | null;
    records: number;
  };
  results: (ResultSummary & {
    evaluation_id: string;
    source_organization_name: string | null;
    date: string | null;
  })[];
  /** Filled by the API from `leaderboards()`; absent from the data function alone. */
  standings?: Standing[];
}

export interface Diagnostic {
  file?: string;
  line?: number;
  column?: number;
  severity?: string;
  code?: string;
  message?: string;
  pointer?: string;
}

export interface RecordDetail {
  /** Every column of the records row but `raw` and `diagnostics`. */
  record: Record<string, string | number | boolean | null>;
  /** "complete", or the unfinished run's status (error, cancelled, started, partial; store/selection.ts). */
  run_status: string;
  raw: Record<string, unknown>;
  diagnostics: Diagnostic[];
  results: ResultSummary[];
  documents: string[];
}

export interface SampleDetail {
  record_key: string;
  row_index: number;
  sample_id: string;
  sample_hash: string | null;
  evaluation_name: string;
  interaction_type: string | null;
  input_text: string | null;
  reference_text: string | null;
  output_text: string | null;
  score: number | null;
  is_correct: boolean | null;
  model_id: string;
  raw: Record<string, unknown>;
}

export interface InferevalListEntry {
  record_key: string;
  id: string;
  benchmark_id: string | null;
  model_id: string | null;
  items: number;
}

export interface InferevalItem {
  id: string;
  tags: string[];
  model_verdict: string;
  consensus: string;
  analyst_verdicts: string[];
  counts: { good: number; bad: number; abstain: number };
  tie_broken: boolean;
  entropy: number;
  margin: number;
  rationales: string[];
  samples: { verdict: string | null; response: string }[];
}

export interface InferevalDetail {
  record_key: string;
  evaluation: { id: string; benchmark_id: string; model: string; samples_per_item: number | null };
  kappa_c: { estimate: number | null; ci: [number, number] | null; reference: string };
  kappa_f: { estimate: number | null; ci: [number, number] | null };
  ci_method: string;
  summary: [string, string][];
  /** confusion[model][consensus], labels in `verdicts` order. */
  verdicts: string[];
  confusion: number[][];
  items: InferevalItem[];
  notes: string[];
}

export interface RetrievalListEntry {
  record_key: string;
  model_id: string;
  queries: number;
}

export interface RetrievalDetail {
  record_key: string;
  model_id: string;
  metric_names: string[];
  scored: number;
  queries: {
    id: string;
    query: string | null;
    retrieved_ids: string[];
    expected_ids: string[] | null;
    metrics: Record<string, unknown>;
    verdicts: { metric: string; value: number; threshold: number; pass: boolean }[];
  }[];
}

// ---------------------------------------------------------------- statistics (store/leaderboard.ts, compare.ts)

export interface LeaderboardRow {
  rank: number;
  tier: number;
  model_id: string;
  developer: string | null;
  score: number;
  ci: [number, number] | null;
  ci_method?: string | null;
  ci_clipped?: boolean;
  n: number | null;
  evaluation_id: string;
  record_key?: string;
  source: string | null;
  date?: string | null;
  /** "rows disagree with the source: …" when the result's rows disagree with its source. */
  disagreement?: string | null;
  /** "complete", or the unfinished run's status (error, cancelled, ...); ranked only with `partial=1`. */
  run_status?: string;
}

export interface Leaderboards {
  leaderboards: {
    benchmark: string;
    metric: string;
    lower_is_better: boolean;
    /** The metric's direction was guessed by the converter, not declared. */
    direction_assumed?: boolean;
    rows: LeaderboardRow[];
  }[];
  composite?: { rank: number; model_id: string; mean_win_rate: number; benchmarks: number }[];
  /** Unfinished runs the filters match but the boards leave out (without `partial=1`). */
  unranked_partial_runs?: number;
}

export interface Comparison {
  benchmark: string;
  metric: string;
  paired: boolean;
  n_paired: number;
  n_unpaired_a: number;
  n_unpaired_b: number;
  mean_a: number | null;
  mean_b: number | null;
  difference: number | null;
  se: number | null;
  ci: [number, number] | null;
  /** How ci was obtained: 'newcombe' (paired 0/1 scores), 't' (paired t), 'normal' (unpaired z). */
  ci_method?: 'newcombe' | 't' | 'normal' | null;
  /** True when an end of ci was set to a bound of the difference (difference_bounds). */
  ci_clipped?: boolean;
  difference_bounds?: [number, number] | null;
  df: number | null;
  p_value: number | null;
  /** The test behind p_value ('t', 'mcnemar-exact', 'sign-exact', 'z') and why, when it is not the t test. */
  test?: string | null;
  note?: string | null;
  p_holm: number | null;
  correlation: number | null;
  mde: number | null;
  mcnemar: { a_only: number; b_only: number; p_value: number } | null;
  clustered: { clusters: number; se: number; ci: [number, number]; p_value: number } | null;
  bootstrap: { resamples: number; seed: number; ci: [number, number] | null; reason?: string } | null;
  reason: string | null;
  /** "rows disagree with the source: …" for A's (B's) result, else null. */
  disagreement_a?: string | null;
  disagreement_b?: string | null;
  /** Each side's run status: "complete", or the unfinished run's (error, cancelled, started, partial). */
  run_status_a?: string;
  run_status_b?: string;
}

export interface CompareResult {
  model_a: string;
  model_b: string;
  comparisons: Comparison[];
}

/** The paired items where A and B differ: exactly what `disagreements()` in src/store/compare.ts returns. */
export type { DisagreementItem, Disagreements } from '../../store/compare.js';

// ----------------------------------------------------------- retrieval tables of the store (retrieval-store.ts)

/** A system's standing on one metric, as `retrievalLeaderboards` ranks it. */
export interface RetrievalSystemMetric {
  rank: number;
  tier: number;
  score: number;
  ci: [number, number] | null;
  n: number;
}

export interface RetrievalStoreSystem {
  /** `field=value,…` of its identity fields (systemLabel). */
  system: string;
  model_id: string | null;
  tool_id: string | null;
  layer: string | null;
  agent_id: string | null;
  /** Gold queries the system has rows for. */
  n: number;
  metrics: Record<string, RetrievalSystemMetric>;
}

export interface RetrievalGoldEntry {
  id: string;
  query: string;
  expected: number;
  /** Result rows of this query, over all systems. */
  results: number;
}

export type ActionStatus = 'active' | 'expired' | 'revoked';

export interface RetrievalFeedbackAction {
  id: string;
  action: string;
  ts: string;
  /** ms since the epoch; null without a TTL. */
  expires_ms: number | null;
  revoked: boolean;
  /** As of `as_of_ms` of the answer (the page judges expiry again by its own clock). */
  status: ActionStatus;
}

export interface RetrievalGateResult {
  ts: string;
  request_id: string | null;
  metric: string | null;
  value: number | null;
  threshold: number | null;
  pass: boolean | null;
  origin: string;
}

export interface RetrievalEventBucket {
  /** The bucket's start, ms since the epoch. */
  start_ms: number;
  /** Events per type in [start_ms, start_ms + bucket_ms). */
  counts: Record<string, number>;
}

export interface RetrievalEventsOverTime {
  total: number;
  bucket_ms: number;
  types: string[];
  buckets: RetrievalEventBucket[];
  /** The latest evaluation_result events, newest first. */
  gate: RetrievalGateResult[];
  gate_total: number;
  gate_failed: number;
  actions: RetrievalFeedbackAction[];
}

export interface RetrievalStoreOverview {
  /** False when the store has no retrieval tables or they hold no rows. */
  present: boolean;
  as_of_ms: number;
  metrics: string[];
  /** Metrics where lower is better. */
  lower_is_better: string[];
  systems: RetrievalStoreSystem[];
  gold: RetrievalGoldEntry[];
  events: RetrievalEventsOverTime;
}

export interface RetrievalQueryRow {
  system: string;
  request_id: string;
  ts: string | null;
  retrieved: { id: string; hit: boolean }[];
  hits: number;
  verdicts: { metric: string; value: number; threshold: number; pass: boolean }[];
}

export interface RetrievalQueryDetail {
  id: string;
  query: string;
  expected_ids: string[];
  entities: string[] | null;
  tags: string[] | null;
  rows: RetrievalQueryRow[];
}

// ---------------------------------------------------------------- score versus cost (view/cost.ts)

/** One model on a board's score-versus-cost chart. */
export interface CostPoint {
  model_id: string;
  score: number;
  ci: [number, number] | null;
  /** US dollars on the chart's axis (per sample, or in total: CostBoard.axis); null: the result states no cost. */
  cost_usd: number | null;
  total_usd: number | null;
  per_sample_usd: number | null;
  /** On the Pareto front: no other model is at most as costly and better, or cheaper and as good. */
  pareto: boolean;
  evaluation_id: string;
  record_key?: string;
}

export interface CostBoard {
  benchmark: string;
  metric: string;
  lower_is_better: boolean;
  /** `per_sample` when every costed model has a cost per sample, else `total`. */
  axis: 'per_sample' | 'total';
  points: CostPoint[];
}

export interface CostBoards {
  boards: CostBoard[];
}
