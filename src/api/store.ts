// evalkit/store — the embedded DuckDB store: open it, ingest into it (validated, one transaction per record), query
// it read-only, export it as Parquet or as the Hugging Face Hub's .eval_results files, and the statistics over it
// (leaderboards with significance tiers, paired comparison of two models, the CI gate). DuckDB's native module loads
// on the first openStore, not on import.
export { openStore, storePath, type Store } from '../store/db.js';
export {
  ingestPaths,
  type IngestOptions,
  type IngestResult,
  type IngestSummary,
  type IngestItem,
} from '../store/ingest.js';
export { runQuery, type QueryResult } from '../store/query.js';
export { exportParquet, readParquetExport, type ExportSummary } from '../store/parquet.js';
export {
  leaderboards,
  meanWinRates,
  type Leaderboard,
  type LeaderboardOptions,
  type LeaderboardRow,
  type CompositeRow,
} from '../store/leaderboard.js';
export {
  compareModels,
  disagreements,
  type CompareOptions,
  type CompareReport,
  type Comparison,
  type Disagreements,
  type DisagreementItem,
} from '../store/compare.js';
export {
  exportHfEvals,
  withRecordsStore,
  readBenchmarks,
  builtinBenchmarks,
  type HfExportOptions,
  type HfExportReport,
  type AuditRow,
  type AuditStatus,
  type BenchmarkMapping,
} from '../store/hf-evals/index.js';
export { STORE_DDL, STORE_SCHEMA_VERSION } from '../store/schema.js';
