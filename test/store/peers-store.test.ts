// A store built from every real output in the reference data (../shared/reference/peers, peers-wild, peers-wild-2), in two
// argument orders: no model id is a path, no two records share an evaluation_id, re-ingesting adds nothing, and
// the store holds the same records whatever the order. The leaderboard's n equals the number of samples the
// source's own samples file holds for the result (the reference results files are often trimmed, so their stated
// totals are larger), for sources without epochs: the reduction of epochs is the statistics side's, and Inspect
// logs with epochs are left to its tests.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openStore } from '../../src/store/db.js';
import { looksLikePath } from '../../src/convert/identity.js';
import { cli } from '../checks/cli-inproc.js';
import { reference, skipWithoutReference, WILD_SETS } from '../helpers/shared.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-peers-'));
after(() => rmSync(temp, { recursive: true, force: true }));

interface Stored {
  evaluation_id: string;
  model_id: string;
  raw: any;
}

async function records(db: string): Promise<Stored[]> {
  const store = await openStore(db, { readOnly: true });
  try {
    const rows = await store.all<{ evaluation_id: string; model_id: string; raw: any }>(
      'SELECT evaluation_id, model_id, raw FROM records ORDER BY evaluation_id',
    );
    return rows.map((r) => ({ ...r, raw: typeof r.raw === 'string' ? JSON.parse(r.raw) : r.raw }));
  } finally {
    store.close();
  }
}

test(
  'every reference output in one store, two argument orders: no path ids, unique evaluation ids, idempotent',
  { skip: skipWithoutReference('peers-wild/MANIFEST.json') },
  async () => {
    const dirs = [reference('peers')!, ...WILD_SETS.flatMap((set) => reference(set) ?? [])];
    const stores: Stored[][] = [];
    for (const [i, order] of [dirs, [...dirs].reverse()].entries()) {
      const db = join(temp, `order${i}.duckdb`);
      const first = await cli(['ingest', '--db', db, '--format', 'json', '--no-progress', ...order]);
      assert.ok(first.code === 0 || first.code === 1, first.stderr);
      const report = JSON.parse(first.stdout);
      assert.ok(report.summary.records > 10, `${report.summary.records} records`);
      const stored = await records(db);
      for (const r of stored) {
        assert.ok(!looksLikePath(r.model_id), `a path as model id: ${r.model_id}`);
        assert.ok(!r.model_id.startsWith('/'), r.model_id);
      }
      const ids = stored.map((r) => r.evaluation_id);
      assert.equal(new Set(ids).size, ids.length, 'two records share an evaluation_id');
      const again = await cli(['ingest', '--db', db, '--format', 'json', '--no-progress', ...order]);
      const second = JSON.parse(again.stdout);
      assert.equal(second.summary.records, 0, 're-ingesting adds nothing');
      assert.equal((await records(db)).length, stored.length);
      stores.push(stored);

      // leaderboard n = the source's own count, for results with rows and without epochs.
      const board = await cli(['leaderboard', '--db', db, '--format', 'json']);
      assert.equal(board.code, 0, board.stderr);
      const byId = new Map(stored.map((r) => [r.evaluation_id, r.raw]));
      const store = await openStore(db, { readOnly: true });
      const perResult = new Map<string, number>();
      try {
        for (const c of await store.all<{ evaluation_id: string; result: string; n: number }>(
          `SELECT r.evaluation_id, s.evaluation_result_id AS result, count(DISTINCT s.sample_id)::INTEGER AS n
           FROM samples s JOIN records r USING (record_key) GROUP BY ALL`,
        ))
          perResult.set(`${c.evaluation_id}\u0000${c.result}`, c.n);
      } finally {
        store.close();
      }
      let checked = 0;
      for (const b of JSON.parse(board.stdout).leaderboards)
        for (const row of b.rows) {
          const raw = byId.get(row.evaluation_id);
          if (!raw || row.n === null) continue;
          if (!['lm-evaluation-harness', 'openai-evals'].includes(raw.eval_library?.name)) continue;
          const result = raw.evaluation_results.find(
            (r: any) =>
              r.evaluation_name === b.benchmark &&
              (r.metric_config.metric_name === b.metric || r.metric_config.metric_id === b.metric),
          );
          if (!result || result.metric_config.additional_details?.epoch_reducer) continue;
          const own = perResult.get(`${row.evaluation_id}\u0000${result.evaluation_result_id}`);
          if (own === undefined) continue;
          assert.equal(row.n, own, `${row.evaluation_id} ${b.benchmark} ${b.metric}`);
          checked++;
        }
      assert.ok(checked > 0, 'some leaderboard rows were checked');
    }
    assert.deepEqual(
      stores[0].map((r) => r.evaluation_id),
      stores[1].map((r) => r.evaluation_id),
      'the same records whatever the order',
    );
  },
);
