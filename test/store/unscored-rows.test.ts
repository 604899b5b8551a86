// ingest's repair of rows an earlier evalkit stored with a missing value in their columns (src/store/unscored-rows.ts),
// on a real DuckDB file written in that old layout: only `evalkit run`'s rows that say their value is missing are
// touched, each value goes back into the row as it was (a value that stayed in `raw` stays), and the rows rebuilt by
// `sample_rows` are the rows as written.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openStore } from '../../src/store/db.js';
import { repairUnscoredRows } from '../../src/store/unscored-rows.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-unscored-'));
after(() => rmSync(temp, { recursive: true, force: true }));

test('the repair moves only evalkit run’s unscored rows, and gives back every value as the row had it', async () => {
  const store = await openStore(join(temp, 'old.duckdb'), { readOnly: false });
  try {
    const record = (key: string, source: string) =>
      store.connection.run(
        `INSERT INTO records (record_key, content_hash, evaluation_id, schema_version, model_id, source_name,
           origin_kind, origin_path, ingest_id, ingested_at, sample_count, raw)
         VALUES ($1, $1, $1, '0.3.0', 'm', $2, 'eee', 'x', 'i', now()::TIMESTAMP, 3, '{}')`,
        [key, source],
      );
    await record('run', 'evalkit run');
    await record('other', 'another tool');
    const missing = { score_missing: 'true' };
    // record, row, score column, is_correct column, the rest (raw), the whole row as it was written
    const rows: [string, number, number | null, boolean | null, object, object][] = [
      // the placeholder in both columns
      [
        'run',
        0,
        0,
        false,
        { evaluation: {}, metadata: missing },
        { evaluation: { score: 0, is_correct: false }, metadata: missing },
      ],
      // a score that never moved (it was no finite number): it stays, only is_correct comes back
      [
        'run',
        1,
        null,
        false,
        { evaluation: { score: 'n/a' }, metadata: missing },
        { evaluation: { score: 'n/a', is_correct: false }, metadata: missing },
      ],
      // a scored row of the same record: untouched
      [
        'run',
        2,
        1,
        true,
        { evaluation: {}, metadata: { epoch: '1' } },
        { evaluation: { score: 1, is_correct: true }, metadata: { epoch: '1' } },
      ],
      // another tool's row that happens to say so: untouched
      [
        'other',
        0,
        0,
        false,
        { evaluation: {}, metadata: missing },
        { evaluation: { score: 0, is_correct: false }, metadata: missing },
      ],
    ];
    for (const [key, index, score, correct, raw] of rows)
      await store.connection.run(
        `INSERT INTO samples (record_key, row_index, evaluation_name, sample_id, score, is_correct, raw)
         VALUES ($1, $2, 'b', 's' || $2, $3::DOUBLE, $4::BOOLEAN, $5::JSON)`,
        [key, index, score, correct, JSON.stringify(raw)],
      );

    assert.equal(await repairUnscoredRows(store), 1, 'one record repaired');
    const after = await store.all<{
      record_key: string;
      row_index: number;
      score: number | null;
      is_correct: boolean | null;
      whole: string;
    }>(
      `SELECT s.record_key, s.row_index::INTEGER AS row_index, s.score, s.is_correct, w.raw AS whole
       FROM samples s JOIN sample_rows w USING (record_key, row_index) ORDER BY s.record_key DESC, s.row_index`,
    );
    assert.deepEqual(
      after.map((r) => [r.record_key, r.row_index, r.score, r.is_correct]),
      [
        ['run', 0, null, null],
        ['run', 1, null, null],
        ['run', 2, 1, true],
        ['other', 0, 0, false],
      ],
    );
    after.forEach((r, i) => {
      const whole = JSON.parse(r.whole) as { evaluation: object; metadata: object };
      assert.deepEqual(
        [whole.evaluation, whole.metadata],
        [(rows[i]![5] as { evaluation: object }).evaluation, (rows[i]![5] as { metadata: object }).metadata],
      );
    });
    assert.equal(await repairUnscoredRows(store), 0, 'nothing left to repair');
  } finally {
    store.close();
  }
});
