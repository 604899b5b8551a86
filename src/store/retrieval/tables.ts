/**
 * The store's retrieval tables, beside the records: gold queries, scored result rows and events (observations,
 * metric results, feedback actions and their revocations). Every row is keyed by the sha256 of its canonical JSON,
 * so the same row ingested or posted twice is stored once.
 */
import type { DuckDBValue } from '@duckdb/node-api';

/** Columns of a result row that are not metrics; a metric of one of these names stays in `metrics` only. */
export const RESULT_FIXED_COLUMNS = [
  'row_key',
  'id',
  'request_id',
  'model_id',
  'tool_id',
  'layer',
  'agent_id',
  'user_id',
  'ts',
  'retrieved_ids',
  'metrics',
  'verdicts',
  'scored_on_ingest',
  'origin_path',
  'ingest_id',
  'ingested_at',
  'raw',
] as const;

export const RETRIEVAL_DDL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS retrieval_gold (
     row_key VARCHAR PRIMARY KEY,           -- sha256 of the row's canonical JSON
     id VARCHAR NOT NULL,                   -- the gold query's id (result rows join on it)
     query VARCHAR NOT NULL,                -- the query text
     expected_ids JSON NOT NULL,            -- the relevant ids, as a JSON array
     entities JSON,                         -- entities a good context covers (JSON array), or NULL
     layers JSON NOT NULL,                  -- layers the query is meant for (JSON array)
     tags JSON,                             -- tags (JSON array), or NULL
     origin_path VARCHAR NOT NULL,          -- the file it was ingested from
     ingest_id VARCHAR,                     -- the ingests row of the run that stored it
     ingested_at TIMESTAMP NOT NULL,        -- when it was stored
     raw JSON NOT NULL                      -- the gold row as ingested
   )`,
  `CREATE TABLE IF NOT EXISTS retrieval_results (
     row_key VARCHAR PRIMARY KEY,           -- sha256 of the stored row's canonical JSON
     id VARCHAR NOT NULL,                   -- the gold query id
     request_id VARCHAR NOT NULL,           -- the request that retrieved
     model_id VARCHAR,                      -- system identity: model_id
     tool_id VARCHAR,                       -- system identity: tool_id
     layer VARCHAR,                         -- system identity: layer
     agent_id VARCHAR,                      -- system identity: agent_id
     user_id VARCHAR,                       -- who asked (not part of the system identity)
     ts VARCHAR,                            -- the row's time, as written
     retrieved_ids JSON,                    -- the ranked ids, as a JSON array
     metrics JSON NOT NULL,                 -- every metric of the row (also one DOUBLE column per metric name)
     verdicts JSON,                         -- threshold verdicts, as a JSON array
     scored_on_ingest BOOLEAN NOT NULL,     -- true when ingest computed the metrics from the gold row
     origin_path VARCHAR NOT NULL,          -- the file it was ingested from
     ingest_id VARCHAR,                     -- the ingests row of the run that stored it
     ingested_at TIMESTAMP NOT NULL,        -- when it was stored
     raw JSON NOT NULL                      -- the row as stored (with computed metrics)
   )`,
  `CREATE TABLE IF NOT EXISTS retrieval_events (
     event_key VARCHAR PRIMARY KEY,         -- sha256 of the event's canonical JSON: an event sent twice is stored once
     type VARCHAR NOT NULL,                 -- evaluation_observation | evaluation_result | feedback_action | feedback_action_revoked
     request_id VARCHAR,                    -- the event's request_id (for a revocation: NULL)
     agent_id VARCHAR,                      -- observation identity fields, as written
     user_id VARCHAR,
     layer VARCHAR,
     model_id VARCHAR,
     tool_id VARCHAR,
     ts VARCHAR NOT NULL,                   -- the event's time, as written
     ts_ms DOUBLE NOT NULL,                 -- the same time in milliseconds since the Unix epoch
     latency_ms DOUBLE,                     -- evaluation_observation.latency_ms
     outcome VARCHAR,                       -- evaluation_observation.outcome
     metric VARCHAR,                        -- evaluation_result.metric
     value DOUBLE,                          -- evaluation_result.value
     pass BOOLEAN,                          -- evaluation_result.pass
     action VARCHAR,                        -- feedback_action.action
     action_id VARCHAR,                     -- the action an action or revocation row is about
     expires_ms DOUBLE,                     -- feedback_action: ts_ms + ttl_ms (NULL without a TTL)
     origin VARCHAR NOT NULL,               -- 'ingest' | 'serve' | 'gate' | 'policy' | 'revoke'
     origin_path VARCHAR,                   -- the file it was ingested from (ingest only)
     received_at TIMESTAMP NOT NULL,        -- when the store received it
     raw JSON NOT NULL                      -- the event as received
   )`,
];

/** Rows inserted per statement (DuckDB binds every value as a parameter). */
const CHUNK = 256;

/** Runs `INSERT INTO table (columns) VALUES … ON CONFLICT DO NOTHING` over rows, a chunk per statement. */
export async function insertIgnoringDuplicates(
  run: (sql: string, params: DuckDBValue[]) => Promise<unknown>,
  table: string,
  columns: readonly string[],
  rows: readonly DuckDBValue[][],
  casts: Record<string, string> = {},
): Promise<void> {
  const quoted = columns.map((c) => `"${c.replace(/"/g, '""')}"`).join(', ');
  for (let start = 0; start < rows.length; start += CHUNK) {
    const chunk = rows.slice(start, start + CHUNK);
    const params: DuckDBValue[] = [];
    const tuples = chunk.map((row) => {
      const slots = columns.map((c, i) => {
        params.push(row[i]);
        const cast = casts[c];
        return cast ? `$${params.length}::${cast}` : `$${params.length}`;
      });
      return `(${slots.join(', ')})`;
    });
    await run(`INSERT INTO ${table} (${quoted}) VALUES ${tuples.join(', ')} ON CONFLICT DO NOTHING`, params);
  }
}
