/**
 * The store's retrieval tables, beside the records: gold queries, scored result rows and events (observations,
 * metric results, feedback actions and their revocations). Every row is keyed by the sha256 of its canonical JSON,
 * so the same row ingested or posted twice is stored once.
 */
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';

const columns = (list: readonly (readonly [string, ColumnType])[]): Column[] =>
  list.map(([name, type]) => ({ name, type }));

/** The gold table's columns, in insert order (the key first). */
export const GOLD_COLUMNS = columns([
  ['row_key', 'VARCHAR'],
  ['id', 'VARCHAR'],
  ['query', 'VARCHAR'],
  ['expected_ids', 'JSON'],
  ['entities', 'JSON'],
  ['layers', 'JSON'],
  ['tags', 'JSON'],
  ['origin_path', 'VARCHAR'],
  ['ingest_id', 'VARCHAR'],
  ['ingested_at', 'TIMESTAMP'],
  ['raw', 'JSON'],
]);

/** The result table's columns other than metrics (a metric of one of these names stays in `metrics` only). */
export const RESULT_COLUMNS = columns([
  ['row_key', 'VARCHAR'],
  ['id', 'VARCHAR'],
  ['request_id', 'VARCHAR'],
  ['model_id', 'VARCHAR'],
  ['tool_id', 'VARCHAR'],
  ['layer', 'VARCHAR'],
  ['agent_id', 'VARCHAR'],
  ['user_id', 'VARCHAR'],
  ['ts', 'VARCHAR'],
  ['retrieved_ids', 'JSON'],
  ['metrics', 'JSON'],
  ['verdicts', 'JSON'],
  ['scored_on_ingest', 'BOOLEAN'],
  ['origin_path', 'VARCHAR'],
  ['ingest_id', 'VARCHAR'],
  ['ingested_at', 'TIMESTAMP'],
  ['raw', 'JSON'],
]);

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

export type ColumnType = 'VARCHAR' | 'DOUBLE' | 'BOOLEAN' | 'JSON' | 'TIMESTAMP';
export interface Column {
  name: string;
  type: ColumnType;
}

const stagedShapes = new WeakMap<DuckDBConnection, Map<string, string>>();

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/**
 * Inserts rows, leaving any whose key is already stored (or repeated in `rows`) as it is. The rows go through a
 * temporary staging table filled by DuckDB's Appender (binding each value as a statement parameter costs about
 * a millisecond a row), then one INSERT … SELECT … ON CONFLICT DO NOTHING. Runs in the caller's transaction.
 */
export async function insertIgnoringDuplicates(
  connection: DuckDBConnection,
  table: string,
  columns: readonly Column[],
  rows: readonly DuckDBValue[][],
): Promise<void> {
  if (rows.length === 0) return;
  const stage = `stage_${table}`;
  const staged = columns
    .map((c) => `${quote(c.name)} ${c.type === 'JSON' || c.type === 'TIMESTAMP' ? 'VARCHAR' : c.type}`)
    .join(', ');
  // The staging table is made once per connection and shape (DDL in every transaction costs more than the rows).
  let shapes = stagedShapes.get(connection);
  if (!shapes) stagedShapes.set(connection, (shapes = new Map()));
  if (shapes.get(stage) !== staged) {
    await connection.run(`CREATE OR REPLACE TEMP TABLE ${stage} (${staged})`);
    shapes.set(stage, staged);
  }
  const appender = await connection.createAppender(stage, 'main', 'temp');
  try {
    for (const row of rows) {
      columns.forEach((c, i) => {
        const v = row[i];
        if (v === null || v === undefined) appender.appendNull();
        else if (c.type === 'DOUBLE') appender.appendDouble(v as number);
        else if (c.type === 'BOOLEAN') appender.appendBoolean(v as boolean);
        else appender.appendVarchar(String(v));
      });
      appender.endRow();
    }
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
  const names = columns.map((c) => quote(c.name)).join(', ');
  const casts = columns
    .map((c) => (c.type === 'JSON' || c.type === 'TIMESTAMP' ? `${quote(c.name)}::${c.type}` : quote(c.name)))
    .join(', ');
  const key = quote(columns[0].name);
  await connection.run(
    `INSERT INTO ${table} (${names}) SELECT ${casts} FROM (SELECT DISTINCT ON (${key}) * FROM ${stage}) ON CONFLICT DO NOTHING`,
  );
  await connection.run(`DELETE FROM ${stage}`);
}

/** A SQL list literal of strings ('a', 'b'), each quoted (for IN lists of keys and ids). */
export function sqlStrings(values: readonly string[]): string {
  return values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', ');
}

/** A retrieval table's columns with their types and descriptions, read from its DDL (for the export's schema file). */
export function retrievalColumns(table: string): { name: string; type: string; description: string }[] {
  const ddl = RETRIEVAL_DDL.find((s) => s.startsWith(`CREATE TABLE IF NOT EXISTS ${table} (`));
  if (!ddl) return [];
  return ddl
    .split('\n')
    .slice(1)
    .flatMap((line) => {
      const m = /^\s*([a-z_]+) ([A-Z]+)\b[^-]*?(?:--\s*(.*))?$/.exec(line);
      return m ? [{ name: m[1], type: m[2], description: (m[3] ?? '').trim() }] : [];
    });
}
