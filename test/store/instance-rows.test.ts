// Which instance rows belong to a chosen result, and how rows pair (src/store/selection.ts), on a real store filled
// by hand: by evaluation_result_id when the row and the result both have one, else by evaluation_name; a row that
// matches one result both ways is counted once; pairing keys that differ only slightly (or that look like another
// key with a prefix) stay apart, and the paired items come out in the order of their keys.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../src/store/db.js';
import { compareModels, disagreements } from '../../src/store/compare.js';
import { leaderboards } from '../../src/store/leaderboard.js';
import { freshStore, insertRecord } from './stats-fixture.js';

describe('instance rows of a result', () => {
  let store: Store;
  let done: () => void;

  before(async () => {
    ({ store, done } = await freshStore());
    // r1 (id "r1", benchmark b1): s1 (same id), s2 (no id, same benchmark) and s6 (id "r1" under another
    // benchmark); not s3 (another id). b2 (no id): s4 (an id, same benchmark), s5 (no id) and s6 (same benchmark).
    await insertRecord(store, {
      record_key: 'k1',
      model_id: 'lab/one',
      results: [
        { evaluation_name: 'b1', evaluation_result_id: 'r1', score: 1 / 3, min_score: 0, max_score: 1 },
        { evaluation_name: 'b2', evaluation_result_id: null, score: 2 / 3, min_score: 0, max_score: 1 },
      ],
      samples: [
        { evaluation_name: 'b1', evaluation_result_id: 'r1', sample_id: 's1', score: 1 },
        { evaluation_name: 'b1', evaluation_result_id: null, sample_id: 's2', score: 0 },
        { evaluation_name: 'b1', evaluation_result_id: 'other', sample_id: 's3', score: 1 },
        { evaluation_name: 'b2', evaluation_result_id: 'zzz', sample_id: 's4', score: 1 },
        { evaluation_name: 'b2', evaluation_result_id: null, sample_id: 's5', score: 1 },
        { evaluation_name: 'b2', evaluation_result_id: 'r1', sample_id: 's6', score: 0 },
      ],
    });
    // Two models on one benchmark, paired by sample_hash; the keys differ by a character, a case or a prefix.
    const keys = ['ab', '#ab', 'aB', 'ab ', '##ab', 'b'];
    const a = [1, 0, 1, 1, 0, 1];
    const b = [0, 0, 1, 0, 1, 1];
    for (const [key, model, scores] of [
      ['k2', 'lab/a', a],
      ['k3', 'lab/b', b],
    ] as const)
      await insertRecord(store, {
        record_key: key,
        model_id: model,
        results: [{ evaluation_name: 'keys', score: scores.reduce((x, y) => x + y, 0) / scores.length }],
        samples: keys.map((k, i) => ({
          evaluation_name: 'keys',
          sample_id: `q${i}`,
          sample_hash: k,
          score: scores[i]!,
        })),
      });
  });
  after(() => {
    store.close();
    done();
  });

  test('by evaluation_result_id when both have one, else by evaluation_name; a row once per result', async () => {
    const { leaderboards: boards } = await leaderboards(store, { benchmark: 'b1' });
    assert.equal(boards[0]!.rows[0]!.n, 3);
    assert.equal(boards[0]!.rows[0]!.ci_method, 'wilson');
    const b2 = (await leaderboards(store, { benchmark: 'b2' })).leaderboards[0]!;
    assert.equal(b2.rows[0]!.n, 3);
    assert.equal(b2.rows[0]!.ci_method, 'wilson');
  });

  test('keys that differ slightly stay apart; paired items in key order', async () => {
    const report = await compareModels(store, 'lab/a', 'lab/b', {});
    const c = report.comparisons[0]!;
    assert.equal(c.n_paired, 6);
    assert.equal(c.n_unpaired_a, 0);
    assert.equal(c.mcnemar?.a_only, 2);
    assert.equal(c.mcnemar?.b_only, 1);
    const d = await disagreements(store, 'lab/a', 'lab/b', 'keys', 'accuracy', { offset: 0, limit: 10 });
    assert.deepEqual(
      d.items.map((i) => [i.key, i.a.score, i.b.score]),
      [
        ['##ab', 0, 1],
        ['ab', 1, 0],
        ['ab ', 1, 0],
      ],
    );
  });
});
