/**
 * The store's tables: one design for ingest, the statistics (leaderboard, compare) and the viewer. Every column is
 * documented here and in the README; `evalkit export parquet` writes the same column names.
 *
 * Keys: a record is identified by `record_key`, the hex sha256 of its canonical content with `evaluation_id` and
 * `retrieved_timestamp` dropped at any depth and lists sorted (EEE integrity check 10), so ingesting the same content
 * again changes nothing and a duplicate under another `evaluation_id` is recognised.
 *
 * A record and all of its rows are written in one transaction (never half).
 *
 * Samples are kept compactly: the fields a query needs are columns, and `samples.raw` holds only the rest of the
 * row (what no column holds). `sampleRow()` (src/store/sample-row.ts) and the view `sample_rows` (whose `raw` is
 * the whole row) rebuild the instance row exactly, as a JSON value (same keys, same values; key order is not kept).
 */
import { SAMPLE_ROW_SQL } from './sample-row.js';

export const STORE_SCHEMA_VERSION = 2;

export const STORE_DDL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS store_meta (
     key VARCHAR PRIMARY KEY,               -- 'schema_version'
     value VARCHAR NOT NULL              -- its value
   )`,
  `CREATE TABLE IF NOT EXISTS ingests (
     ingest_id VARCHAR PRIMARY KEY,         -- derived uuid of the run
     started_at TIMESTAMP NOT NULL,      -- when the run began
     finished_at TIMESTAMP,                 -- NULL while running or after a crash
     paths JSON NOT NULL,                   -- the paths given, as a JSON array
     records_added INTEGER NOT NULL DEFAULT 0, -- records stored by the run
     rows_added BIGINT NOT NULL DEFAULT 0, -- instance rows stored by the run
     skipped INTEGER NOT NULL DEFAULT 0,    -- already stored (same record_key) or duplicates
     rejected INTEGER NOT NULL DEFAULT 0    -- invalid documents, not stored
   )`,
  `CREATE TABLE IF NOT EXISTS records (
     record_key VARCHAR PRIMARY KEY,        -- content_hash; for a duplicate kept with --allow-duplicates, the sha256 of content_hash, a newline and evaluation_id
     content_hash VARCHAR,                  -- EEE check 10's fingerprint (see above); equal for duplicates; always set by ingest
     evaluation_id VARCHAR NOT NULL,     -- evaluation_id of the record
     schema_version VARCHAR NOT NULL,       -- of the stored raw record (always 0.3.0: older ones are migrated first)
     collection VARCHAR,                    -- datastore collection (data/<collection>/...), or the converter's
     source_name VARCHAR,                -- source_metadata.source_name
     source_type VARCHAR,                -- source_metadata.source_type
     source_organization_name VARCHAR,   -- source_metadata.source_organization_name
     source_organization_url VARCHAR,    -- source_metadata.source_organization_url
     evaluator_relationship VARCHAR,     -- source_metadata.evaluator_relationship
     model_id VARCHAR NOT NULL,             -- model_info.id
     model_name VARCHAR,                 -- model_info.name
     developer VARCHAR,                  -- model_info.developer
     inference_platform VARCHAR,         -- model_info.inference_platform
     deployment_type VARCHAR,               -- model_info.additional_details.deployment_type
     model_availability VARCHAR,            -- model_info.additional_details.model_availability
     eval_library_name VARCHAR,          -- eval_library.name
     eval_library_version VARCHAR,       -- eval_library.version
     retrieved_timestamp VARCHAR,        -- retrieved_timestamp (Unix epoch seconds, as written)
     evaluation_timestamp VARCHAR,       -- evaluation_timestamp (as written)
     origin_kind VARCHAR NOT NULL,          -- 'eee' | 'lm-eval' | 'inspect' | 'helm' | 'promptfoo' | 'openai-evals' | 'openai-evals-api' | 'bench' | 'infereval' | 'parquet'
     origin_path VARCHAR NOT NULL,          -- file or folder it was ingested from
     ingest_id VARCHAR NOT NULL,         -- the ingests row of the run that stored it
     ingested_at TIMESTAMP NOT NULL,     -- when it was stored
     sample_count BIGINT NOT NULL,          -- rows stored in samples for this record (written in the same transaction)
     diagnostics JSON,                      -- warnings found when it was validated (errors are never stored)
     raw JSON NOT NULL                      -- the aggregate record exactly as validated (0.3.0)
   )`,
  `CREATE TABLE IF NOT EXISTS results (
     record_key VARCHAR NOT NULL,        -- the record the result belongs to
     result_index INTEGER NOT NULL,         -- position in evaluation_results
     evaluation_result_id VARCHAR,          -- join key for samples (NULL in records that have none)
     evaluation_name VARCHAR NOT NULL,      -- the benchmark / task
     dataset_name VARCHAR,                  -- source_data.dataset_name
     metric_id VARCHAR,                  -- metric_config.metric_id
     metric_name VARCHAR,                   -- metric_name, else metric_id, else evaluation_description
     metric_kind VARCHAR,                -- metric_config.metric_kind
     metric_unit VARCHAR,                -- metric_config.metric_unit
     score_type VARCHAR,                    -- 'binary' | 'continuous' | 'levels'
     lower_is_better BOOLEAN NOT NULL,   -- metric_config.lower_is_better
     min_score DOUBLE,                      -- ±Infinity allowed; NULL when not given
     max_score DOUBLE,                   -- ±Infinity allowed; NULL when not given
     score DOUBLE NOT NULL,              -- score_details.score
     standard_error DOUBLE,                 -- score_details.uncertainty.standard_error.value
     ci_lower DOUBLE,                       -- score_details.uncertainty.confidence_interval.lower
     ci_upper DOUBLE,                    -- score_details.uncertainty.confidence_interval.upper
     num_samples BIGINT,                    -- score_details.uncertainty.num_samples
     raw JSON NOT NULL,                     -- the evaluation_results[i] object
     PRIMARY KEY (record_key, result_index)
   )`,
  // No primary key on samples: (record_key, row_index) is unique by construction (a record's rows are written
  // only with the record, in one transaction), and an index over millions of rows would cost more to write and
  // keep than the rows' own columns.
  `CREATE TABLE IF NOT EXISTS samples (
     record_key VARCHAR NOT NULL,           -- the record the row belongs to
     row_index BIGINT NOT NULL,             -- 0-based position among the record's rows (the line order of its JSONL)
     evaluation_result_id VARCHAR,          -- the row's evaluation_result_id (NULL when it has none)
     evaluation_name VARCHAR NOT NULL,      -- the row's evaluation_name (the benchmark / task)
     sample_id VARCHAR NOT NULL,         -- the row's sample_id
     sample_hash VARCHAR,                   -- NULL when the row has none
     epoch INTEGER,                         -- metadata.epoch when the source has epochs, else NULL
     interaction_type VARCHAR,              -- 'single_turn' | 'multi_turn' | 'agentic'
     input_text VARCHAR,                    -- input.raw
     reference_text VARCHAR,                -- input.reference joined by newlines
     output_text VARCHAR,                   -- output.raw joined by newlines (multi-turn: metadata.final_answer or the last assistant text)
     score DOUBLE,                          -- evaluation.score; NULL (the value kept in raw) on a row whose metadata.score_missing is "true": an unscored row
     is_correct BOOLEAN,                    -- evaluation.is_correct; NULL (kept in raw) on an unscored row, as score
     raw JSON NOT NULL,                     -- the rest of the row: every field no column above holds (see sample_rows)
     schema_version VARCHAR,                -- the row's schema_version (always 0.3.0: older rows are migrated first)
     evaluation_id VARCHAR,                 -- the row's evaluation_id
     model_id VARCHAR                       -- the row's model_id
   )`,
  // Derived from samples and results when a record is stored (src/store/result-items.ts), in its transaction, and
  // deleted with it: each result's items, the instance rows of one sample reduced to one value, so that
  // `leaderboard` and `compare` pair two results without grouping their rows again.
  `CREATE TABLE IF NOT EXISTS result_items (
     record_key VARCHAR NOT NULL,           -- the result's record
     result_index INTEGER NOT NULL,         -- the result (its position in evaluation_results)
     pos INTEGER NOT NULL,                  -- 0-based position of the item in the result's key order (k)
     k VARCHAR NOT NULL,                    -- pairing key: the sample_hash when every scored row of the result has one, else the sample_id without its #epochN part
     k_1 UBIGINT NOT NULL,                  -- hash(k)
     k_2 UBIGINT NOT NULL,                  -- hash('#' || k)
     v DOUBLE                               -- the item's value: its rows' scores (else is_correct as 0/1) reduced by the result's epoch reducer; NULL when undefined (pass_at_N with fewer than N epochs)
   )`,
  `CREATE TABLE IF NOT EXISTS result_item_sets (
     record_key VARCHAR NOT NULL,           -- the result's record
     result_index INTEGER NOT NULL,         -- the result; every result of a record stored by this evalkit has one row
     by_hash BOOLEAN NOT NULL,              -- whether k is the sample_hash (every scored row has one)
     items BIGINT NOT NULL,                 -- rows in result_items (0: the result has no scored instance row)
     n DOUBLE,                              -- items with a value (count of v); NULL when items is 0
     mean DOUBLE,                           -- avg(v)
     var DOUBLE,                            -- var_samp(v)
     is_binary BOOLEAN,                     -- every value is 0 or 1
     successes DOUBLE,                      -- sum(v)
     key_digest VARCHAR,                    -- hex sha256 of the item keys in position order, each as its byte length, ':' and k: equal digests, equal keys at every position; NULL when items is 0 or the row was written before the digest existed
     PRIMARY KEY (record_key, result_index)
   )`,
  /** Documents kept beside their EEE mapping for views EEE cannot hold (an infereval η for agreement views). */
  `CREATE TABLE IF NOT EXISTS documents (
     record_key VARCHAR NOT NULL,           -- the EEE record it belongs to
     kind VARCHAR NOT NULL,                 -- 'infereval.evaluation' | 'infereval.benchmark' | 'retrieval.result' | ...
     raw JSON NOT NULL,                  -- the document as it was read
     PRIMARY KEY (record_key, kind)
   )`,
  `CREATE INDEX IF NOT EXISTS records_model ON records (model_id)`,
  `CREATE INDEX IF NOT EXISTS results_name ON results (evaluation_name)`,
  /** samples with \`raw\` rebuilt as the whole instance row (the same as sampleRow() in TypeScript). */
  `CREATE OR REPLACE VIEW sample_rows AS
     SELECT * REPLACE (${SAMPLE_ROW_SQL} AS raw) FROM samples`,
  `CREATE OR REPLACE VIEW models AS
     SELECT model_id, min(model_name) AS model_name, min(developer) AS developer,
            min(deployment_type) AS deployment_type, min(model_availability) AS model_availability,
            count(*) AS records
     FROM records GROUP BY model_id`,
  `CREATE OR REPLACE VIEW benchmarks AS
     SELECT evaluation_name, metric_name, min(lower_is_better) AS lower_is_better,
            count(DISTINCT r.model_id) AS models, count(*) AS results
     FROM results JOIN records r USING (record_key) GROUP BY evaluation_name, metric_name`,
  `CREATE OR REPLACE VIEW result_rows AS
     SELECT r.*, rec.model_id, rec.developer, rec.deployment_type, rec.model_availability,
            rec.source_organization_name, rec.collection, rec.evaluation_id, rec.retrieved_timestamp, rec.origin_kind
     FROM results r JOIN records rec USING (record_key)`,
];

/**
 * Columns added to a table after stores were written without them, each added when a writer opens such a store
 * (a reader of an older store reads without them: result-items.ts). The layout version stays: these columns are
 * derived and optional, and no exported table changes.
 */
export const STORE_UPGRADES: readonly string[] = [
  'ALTER TABLE result_item_sets ADD COLUMN IF NOT EXISTS key_digest VARCHAR',
];

export interface ColumnDoc {
  name: string;
  type: string;
  description: string;
}

/**
 * A table's columns in order, with their type and the comment beside them in the DDL above (the one place they are
 * documented; the Parquet export's schema file and the README's table come from here).
 */
export function tableColumns(table: string): ColumnDoc[] {
  const ddl = STORE_DDL.find((s) => new RegExp(`^CREATE TABLE IF NOT EXISTS ${table} \\(`).test(s));
  if (!ddl) return [];
  const columns: ColumnDoc[] = [];
  for (const line of ddl.split('\n').slice(1)) {
    const m = /^\s*([a-z_][a-z0-9_]*) ([A-Z]+)\b[^-]*?(?:--\s*(.*))?$/.exec(line);
    if (!m || m[1] === 'PRIMARY') continue;
    columns.push({ name: m[1], type: m[2], description: (m[3] ?? '').trim() });
  }
  return columns;
}

/** The tables of the store, in the order they are created. */
export const STORE_TABLES = STORE_DDL.flatMap((s) => /^CREATE TABLE IF NOT EXISTS (\w+)/.exec(s)?.[1] ?? []);
