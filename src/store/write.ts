/**
 * Writing one record into the store: decide by its content hash whether it is new, already stored or a duplicate
 * (EEE check 10), then write the record, its results, its instance rows (DuckDB's Appender) and any documents kept
 * beside it in one transaction, so a record is stored with all of its rows or not at all.
 */
import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type {
  DuckDBAppender,
  DuckDBConnection,
  DuckDBMaterializedResult,
  DuckDBValue,
} from '@duckdb/node-api';
import { recordFingerprint } from '../checks/eee-tree.js';
import { pauseForTest } from '../io/test-pause.js';
import type { Diagnostic } from '../diagnostics.js';
import type { Store } from './db.js';
import { splitSampleRow } from './sample-row.js';
import { isObject, type Json } from '../io/json-value.js';
import { writeResultItems } from './result-items.js';
import { STORE_WRITER_THREADS } from './settings.js';

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  return null;
};
/**
 * A DOUBLE parameter as text (cast in the SQL): DuckDB binds an integral JS number as an integer type, which cannot
 * hold 1e19 or 1e21, while a double's shortest text round-trips exactly through the cast.
 */
const dbl = (v: number | null): string | null => (v === null ? null : String(v));

/** Where a record came from, as the records table keeps it. */
export interface RecordOrigin {
  /** 'eee', a converter source id, or 'parquet'. */
  kind: string;
  /** The file or folder it was read from. */
  path: string;
  collection: string | null;
}

export type Decision =
  | { status: 'new'; recordKey: string; contentHash: string }
  | { status: 'already-stored'; recordKey: string; contentHash: string }
  | { status: 'duplicate'; recordKey: string; contentHash: string; duplicateOf: string };

/** Receives each instance row (EEE 0.3.0) in order; resolves to false when the rows are invalid (nothing is kept). */
export type RowFeeder = (append: (row: Json) => void) => Promise<boolean>;

/** Rows already split into the samples columns (a Parquet export read back). */
export type ColumnsFeeder = (recordKey: string) => Promise<number>;

/** What is known of a record once its rows are stored (for a converted record, only then). */
export interface FinishedRecord {
  aggregate: Json;
  origin: RecordOrigin;
  decision: Decision & { status: 'new' | 'duplicate' };
  /** Warnings found when validating (stored with the record). */
  diagnostics: Diagnostic[];
  /** Documents kept beside the record (e.g. the infereval η it was mapped from). */
  documents?: { kind: string; raw: unknown }[];
}

export interface WriteInput {
  /** The record's rows, appended under `recordKey` (known before the rows, or a placeholder: see `finish`). */
  rows?: RowFeeder;
  /** Or rows copied by SQL (a Parquet export read back); resolves to their count. */
  columns?: ColumnsFeeder;
  /** The key the rows are written under. */
  recordKey: string;
  /**
   * Called inside the transaction once the rows are in: the record to store, or undefined to store nothing (its
   * rows were invalid, or it turned out to be stored already). A different `decision.recordKey` than `recordKey`
   * re-keys the rows.
   */
  finish: (rows: number) => Promise<FinishedRecord | undefined>;
}

/**
 * Starts one SQL statement on DuckDB's threads and resolves once it is running: `result` settles when it is done.
 * For a statement that runs beside synchronous work on this thread (the validator reading the same file): a
 * statement run by `connection.run` goes through three round trips on this thread's event loop (extract, prepare,
 * execute) before DuckDB starts it, and a thread that does not yield holds it back until its own work is over.
 */
export async function startStatement(
  connection: DuckDBConnection,
  sql: string,
  values: DuckDBValue[],
): Promise<{ result: Promise<DuckDBMaterializedResult> }> {
  const prepared = await connection.prepare(sql);
  try {
    prepared.bind(values);
  } catch (error) {
    prepared.destroySync();
    throw error;
  }
  // run() hands the statement to DuckDB before its first await: it is executing when this resolves.
  const result = prepared.run();
  return { result: result.finally(() => prepared.destroySync()) };
}

const duplicateKey = (contentHash: string, evaluationId: string): string =>
  createHash('sha256').update(`${contentHash}\n${evaluationId}`).digest('hex');

export class RecordWriter {
  constructor(
    readonly store: Store,
    readonly ingestId: string,
  ) {}

  /**
   * New, already stored (the same content under the same evaluation_id, or a duplicate kept before), or a duplicate
   * of a stored record under another evaluation_id.
   */
  async decide(aggregate: Json): Promise<Decision> {
    const contentHash = recordFingerprint(aggregate);
    const evaluationId = String(aggregate.evaluation_id ?? '');
    const stored = await this.store.all<{ record_key: string; evaluation_id: string }>(
      'SELECT record_key, evaluation_id FROM records WHERE content_hash = $1 ORDER BY ingested_at, record_key',
      [contentHash],
    );
    if (stored.length === 0) return { status: 'new', recordKey: contentHash, contentHash };
    const same = stored.find((r) => r.evaluation_id === evaluationId);
    if (same) return { status: 'already-stored', recordKey: same.record_key, contentHash };
    return {
      status: 'duplicate',
      recordKey: duplicateKey(contentHash, evaluationId),
      contentHash,
      duplicateOf: stored[0].evaluation_id,
    };
  }

  /**
   * Writes the rows, then the record and everything that belongs to it, in one transaction; resolves to the row
   * count, or undefined when nothing was stored (see `WriteInput.finish`).
   */
  async write(input: WriteInput): Promise<number | undefined> {
    const c = this.store.connection;
    await c.run('BEGIN TRANSACTION');
    try {
      let rows = 0;
      let ok = true;
      if (input.columns) rows = await input.columns(input.recordKey);
      else if (input.rows) {
        const appender = await c.createAppender('samples');
        try {
          ok = await input.rows((row) => appendSample(appender, input.recordKey, rows++, row));
        } finally {
          appender.closeSync();
        }
      }
      const record = ok ? await input.finish(rows) : undefined;
      if (!record) {
        await c.run('ROLLBACK');
        return undefined;
      }
      const key = record.decision.recordKey;
      if (key !== input.recordKey && rows > 0)
        await c.run('UPDATE samples SET record_key = $1 WHERE record_key = $2', [key, input.recordKey]);
      await this.insertRecord(record, key, rows);
      // The rows are in and nothing else is reading: the items and the commit's checkpoint may use every core.
      await c.run(`SET threads = ${availableParallelism()}`);
      await writeResultItems(c, key);
      // EVALKIT_TEST_PAUSE_BEFORE_COMMIT=N: the N-th record waits here, all of it inserted, none of it committed.
      await pauseForTest('EVALKIT_TEST_PAUSE_BEFORE_COMMIT', `paused-before-commit ${key}`);
      await c.run('COMMIT');
      return rows;
    } catch (error) {
      await c.run('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      await c.run(`SET threads = ${STORE_WRITER_THREADS}`);
    }
  }

  private async insertRecord(input: FinishedRecord, key: string, rows: number): Promise<void> {
    const a = input.aggregate;
    const sm = isObject(a.source_metadata) ? a.source_metadata : {};
    const mi = isObject(a.model_info) ? a.model_info : {};
    const md = isObject(mi.additional_details) ? mi.additional_details : {};
    const lib = isObject(a.eval_library) ? a.eval_library : {};
    const warnings = input.diagnostics.filter((d) => d.severity === 'warning');
    await this.store.connection.run(
      `INSERT INTO records (record_key, content_hash, evaluation_id, schema_version, collection, source_name,
         source_type, source_organization_name, source_organization_url, evaluator_relationship, model_id,
         model_name, developer, inference_platform, deployment_type, model_availability, eval_library_name,
         eval_library_version, retrieved_timestamp, evaluation_timestamp, origin_kind, origin_path, ingest_id,
         ingested_at, sample_count, diagnostics, raw)
       VALUES ($1, $2, $3, $4, $5::VARCHAR, $6::VARCHAR, $7::VARCHAR, $8::VARCHAR, $9::VARCHAR, $10::VARCHAR, $11,
         $12::VARCHAR, $13::VARCHAR, $14::VARCHAR, $15::VARCHAR, $16::VARCHAR, $17::VARCHAR, $18::VARCHAR,
         $19::VARCHAR, $20::VARCHAR, $21, $22, $23, now()::TIMESTAMP, $24, $25::JSON, $26::JSON)`,
      [
        key,
        input.decision.contentHash,
        String(a.evaluation_id ?? ''),
        String(a.schema_version ?? ''),
        input.origin.collection,
        str(sm.source_name),
        str(sm.source_type),
        str(sm.source_organization_name),
        str(sm.source_organization_url),
        str(sm.evaluator_relationship),
        String(mi.id ?? ''),
        str(mi.name),
        str(mi.developer),
        str(mi.inference_platform),
        str(md.deployment_type),
        str(md.model_availability),
        str(lib.name),
        str(lib.version),
        str(a.retrieved_timestamp),
        str(a.evaluation_timestamp),
        input.origin.kind,
        input.origin.path,
        this.ingestId,
        rows,
        warnings.length > 0 ? JSON.stringify(warnings) : null,
        JSON.stringify(a),
      ],
    );
    const results: unknown[] = Array.isArray(a.evaluation_results) ? a.evaluation_results : [];
    for (let i = 0; i < results.length; i++) {
      const r = isObject(results[i]) ? (results[i] as Json) : {};
      const mc = isObject(r.metric_config) ? r.metric_config : {};
      const sd = isObject(r.score_details) ? r.score_details : {};
      const u = isObject(sd.uncertainty) ? sd.uncertainty : {};
      const ci = isObject(u.confidence_interval) ? u.confidence_interval : {};
      const se = isObject(u.standard_error) ? u.standard_error : {};
      await this.store.connection.run(
        `INSERT INTO results VALUES ($1, $2, $3::VARCHAR, $4, $5::VARCHAR, $6::VARCHAR, $7::VARCHAR, $8::VARCHAR,
           $9::VARCHAR, $10::VARCHAR, $11, $12::VARCHAR::DOUBLE, $13::VARCHAR::DOUBLE, $14::VARCHAR::DOUBLE,
           $15::VARCHAR::DOUBLE, $16::VARCHAR::DOUBLE, $17::VARCHAR::DOUBLE, $18::BIGINT, $19::JSON)`,
        [
          key,
          i,
          str(r.evaluation_result_id),
          String(r.evaluation_name ?? ''),
          str(isObject(r.source_data) ? r.source_data.dataset_name : undefined),
          str(mc.metric_id),
          str(mc.metric_name) ?? str(mc.metric_id) ?? str(mc.evaluation_description),
          str(mc.metric_kind),
          str(mc.metric_unit),
          str(mc.score_type),
          mc.lower_is_better === true,
          dbl(num(mc.min_score)),
          dbl(num(mc.max_score)),
          dbl(num(sd.score) ?? NaN),
          dbl(num(se.value)),
          dbl(num(ci.lower)),
          dbl(num(ci.upper)),
          Number.isSafeInteger(u.num_samples) ? u.num_samples : null,
          JSON.stringify(r),
        ],
      );
    }
    for (const d of input.documents ?? [])
      await this.store.connection.run(`INSERT INTO documents VALUES ($1, $2, $3::JSON)`, [
        key,
        d.kind,
        JSON.stringify(d.raw),
      ]);
  }
}

/** One instance row through the Appender, in the samples table's column order. */
function appendSample(appender: DuckDBAppender, recordKey: string, rowIndex: number, row: Json): void {
  const c = splitSampleRow(row);
  appender.appendVarchar(recordKey);
  appender.appendBigInt(BigInt(rowIndex));
  appendText(appender, c.evaluation_result_id);
  appender.appendVarchar(c.evaluation_name);
  appender.appendVarchar(c.sample_id);
  appendText(appender, c.sample_hash);
  if (c.epoch === null) appender.appendNull();
  else appender.appendInteger(c.epoch);
  appendText(appender, c.interaction_type);
  appendText(appender, c.input_text);
  appendText(appender, c.reference_text);
  appendText(appender, c.output_text);
  if (c.score === null) appender.appendNull();
  else appender.appendDouble(c.score);
  if (c.is_correct === null) appender.appendNull();
  else appender.appendBoolean(c.is_correct);
  appender.appendVarchar(c.raw);
  appendText(appender, c.schema_version);
  appendText(appender, c.evaluation_id);
  appendText(appender, c.model_id);
  appender.endRow();
}

function appendText(appender: DuckDBAppender, value: string | null): void {
  if (value === null) appender.appendNull();
  else appender.appendVarchar(value);
}
