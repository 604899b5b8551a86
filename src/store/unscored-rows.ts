/**
 * Rows whose value is missing (`metadata.score_missing: "true"`, written by `evalkit run` for a failed request beside
 * the placeholder score EEE requires) are kept with NULL score and is_correct columns and their evaluation in `raw`
 * (sample-row.ts), so that no statistic counts them. A store written by an evalkit before that rule holds such rows
 * with the placeholder in its columns: `ingest` repairs them when it opens the store, record by record (the rows
 * moved back into `raw`, the record's items made again), before it stores anything.
 */
import type { Store } from './db.js';
import { remakeResultItems } from './result-items.js';

/** The rows to repair: those of `evalkit run`'s records that say their value is missing but have it in a column. */
const UNREPAIRED = `record_key IN (SELECT record_key FROM records WHERE source_name = 'evalkit run')
  AND (score IS NOT NULL OR is_correct IS NOT NULL)
  AND json_extract_string(raw, '$.metadata.score_missing') = 'true'`;

/** Repairs every record with unscored rows in its columns; resolves to the number of records repaired. */
export async function repairUnscoredRows(store: Store): Promise<number> {
  const found = await store.all<{ record_key: string }>(
    `SELECT DISTINCT record_key FROM samples WHERE ${UNREPAIRED} ORDER BY record_key`,
  );
  const c = store.connection;
  for (const { record_key } of found)
    // Each value goes back where the row had it (a NULL column held nothing: its key stays as `raw` has it), and the
    // columns become NULL.
    await remakeResultItems(c, record_key, () =>
      c.run(
        `UPDATE samples SET
           raw = json_merge_patch(raw, json_object('evaluation', json_merge_patch(
             CASE WHEN score IS NULL THEN '{}'::JSON ELSE json_object('score', score) END,
             CASE WHEN is_correct IS NULL THEN '{}'::JSON ELSE json_object('is_correct', is_correct) END))),
           score = NULL, is_correct = NULL
         WHERE ${UNREPAIRED} AND record_key = $1`,
        [record_key],
      ),
    );
  return found.length;
}
