// A real DuckDB store filled by hand for the leaderboard and compare tests: records, results and instance rows
// inserted straight into the tables of src/store/schema.ts (not through ingest, so these tests depend only on the
// table design), then each result's items derived as storing a record derives them (`items: false` leaves them out,
// so that the statistics come from the pairing over samples).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../src/store/db.js';
import { writeResultItems } from '../../src/store/result-items.js';

export interface FixtureResult {
  evaluation_name: string;
  metric_name?: string;
  score: number;
  lower_is_better?: boolean;
  standard_error?: number | null;
  ci?: [number, number] | null;
  num_samples?: number | null;
  evaluation_result_id?: string | null;
  min_score?: number | null;
  max_score?: number | null;
  /** metric_config.additional_details (epoch_reducer, direction_status, ...), kept in results.raw. */
  additional_details?: Record<string, string>;
  /** score_details.details (e.g. lm-eval's task group), kept in results.raw. */
  details?: Record<string, string>;
}

export interface FixtureSample {
  evaluation_name: string;
  evaluation_result_id?: string | null;
  sample_id: string;
  sample_hash?: string | null;
  score: number | null;
  is_correct?: boolean | null;
  epoch?: number | null;
  metadata?: Record<string, unknown>;
  input?: string;
  reference?: string;
  output?: string;
}

export interface FixtureRecord {
  record_key: string;
  model_id: string;
  developer?: string;
  deployment_type?: string;
  availability?: string;
  source_organization?: string;
  collection?: string;
  retrieved_timestamp?: string;
  results: FixtureResult[];
  samples?: FixtureSample[];
}

export async function insertRecord(
  store: Store,
  r: FixtureRecord,
  options: { items?: boolean } = {},
): Promise<void> {
  const c = store.connection;
  await c.run(
    `INSERT INTO records (record_key, content_hash, evaluation_id, schema_version, collection, source_name, source_organization_name,
       model_id, developer, deployment_type, model_availability, retrieved_timestamp, origin_kind, origin_path,
       ingest_id, ingested_at, sample_count, raw)
     VALUES ($1, $1, $2, '0.3.0', $3, $4, $4, $5, $6, $7, $8, $9, 'eee', 'fixture', 'test', now(), $10, '{}')`,
    [
      r.record_key,
      `eval/${r.record_key}`,
      r.collection ?? null,
      r.source_organization ?? null,
      r.model_id,
      r.developer ?? null,
      r.deployment_type ?? null,
      r.availability ?? null,
      r.retrieved_timestamp ?? '1700000000',
      r.samples?.length ?? 0,
    ],
  );
  for (const [i, res] of r.results.entries()) {
    await c.run(
      `INSERT INTO results (record_key, result_index, evaluation_result_id, evaluation_name, metric_name,
         lower_is_better, score, standard_error, ci_lower, ci_upper, num_samples, min_score, max_score, raw)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [
        r.record_key,
        i,
        res.evaluation_result_id ?? null,
        res.evaluation_name,
        res.metric_name ?? 'accuracy',
        res.lower_is_better ?? false,
        res.score,
        res.standard_error ?? null,
        res.ci?.[0] ?? null,
        res.ci?.[1] ?? null,
        res.num_samples ?? null,
        res.min_score ?? null,
        res.max_score ?? null,
        JSON.stringify({
          ...(res.additional_details
            ? { metric_config: { additional_details: res.additional_details } }
            : {}),
          ...(res.details ? { score_details: { details: res.details } } : {}),
        }),
      ],
    );
  }
  const samples = r.samples ?? [];
  for (let start = 0; start < samples.length; start += 500) {
    const chunk = samples.slice(start, start + 500);
    const params: (string | number | boolean | null)[] = [];
    const values = chunk.map((s, j) => {
      params.push(
        r.record_key,
        start + j,
        s.evaluation_result_id ?? null,
        s.evaluation_name,
        s.sample_id,
        s.sample_hash ?? null,
        s.epoch ?? null,
        s.input ?? null,
        s.reference ?? null,
        s.output ?? null,
        s.score,
        s.is_correct ?? null,
        JSON.stringify({ sample_id: s.sample_id, metadata: s.metadata ?? {} }),
      );
      const b = j * 13;
      return `(${Array.from({ length: 13 }, (_, k) => `$${b + k + 1}`).join(', ')})`;
    });
    await c.run(
      `INSERT INTO samples (record_key, row_index, evaluation_result_id, evaluation_name, sample_id, sample_hash, epoch,
         input_text, reference_text, output_text, score, is_correct, raw) VALUES ${values.join(', ')}`,
      params,
    );
  }
  if (options.items !== false) await writeResultItems(c, r.record_key);
}

/** A fresh store file in a temporary folder; `done()` closes it and removes the folder. */
export async function freshStore(): Promise<{ store: Store; path: string; done: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'evalkit-stats-'));
  const path = join(dir, 'test.duckdb');
  const store = await openStore(path, { readOnly: false });
  return {
    store,
    path,
    done: () => {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Binary rows from a 0/1 string ("1101…"), sample ids q0, q1, …, hashed h0, h1, … when `hashed`. */
export function binaryRows(name: string, bits: string, hashed = true): FixtureSample[] {
  return [...bits].map((bit, i) => ({
    evaluation_name: name,
    sample_id: `q${i}`,
    sample_hash: hashed ? `h${i}` : null,
    score: Number(bit),
  }));
}
