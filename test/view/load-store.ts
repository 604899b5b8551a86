// Stores for the viewer's load tests, written straight into the store's tables (as bench/view.ts does): one model's
// result with `rows` instance rows of long-ish texts, and optionally one row whose input and output are huge.
import { openStore } from '../../src/store/db.js';

export async function buildLoadStore(
  path: string,
  options: { rows: number; hugeChars?: number },
): Promise<void> {
  const store = await openStore(path, { readOnly: false });
  try {
    await store.connection.run(
      `INSERT INTO records (record_key, content_hash, evaluation_id, schema_version, collection, model_id, developer,
         origin_kind, origin_path, ingest_id, ingested_at, sample_count, raw)
       VALUES ('rec', 'rec', 'load/1', '0.3.0', 'load', 'load/model', 'load', 'eee', 'load', 'load', now()::TIMESTAMP, $1, '{}')`,
      [options.rows],
    );
    await store.connection.run(
      `INSERT INTO results (record_key, result_index, evaluation_result_id, evaluation_name, metric_name, score_type,
         lower_is_better, score, num_samples, raw)
       VALUES ('rec', 0, 'load.acc', 'load', 'Accuracy', 'binary', false, 0.5, $1, '{}')`,
      [options.rows],
    );
    await store.connection.run(
      `INSERT INTO samples (record_key, row_index, evaluation_result_id, evaluation_name, sample_id, sample_hash,
         interaction_type, input_text, reference_text, output_text, score, is_correct, raw, schema_version,
         evaluation_id, model_id)
       SELECT 'rec', i, 'load.acc', 'load', 'q-' || i, md5(i::VARCHAR), 'single_turn',
              CASE WHEN i = 0 AND $2 > 0 THEN repeat('I', $2) ELSE 'Question ' || i || ': ' || repeat('what follows from the premises? ', 20 + i % 7) END,
              'answer ' || (i % 97),
              CASE WHEN i = 0 AND $2 > 0 THEN repeat('O', $2) || '✓' ELSE 'The answer is ' || repeat('perhaps ', 10 + i % 20) || (i % 97) END,
              i % 2, i % 2 = 0, '{"input":{},"output":{},"evaluation":{}}', '0.3.0', 'load/1', 'load/model'
       FROM range($1) t(i)`,
      [options.rows, options.hugeChars ?? 0],
    );
    await store.connection.run('CHECKPOINT');
  } finally {
    store.close();
  }
}
