// One result, one 95% interval: leaderboard (JSON and text), the viewer's record and model answers give the same CI,
// name its method, and never leave the metric's bounds (an end set to a bound is marked clipped). A metric whose
// direction was guessed says "direction assumed" beside its ranking. Expected intervals are computed here.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../src/store/db.js';
import { leaderboards } from '../../src/store/leaderboard.js';
import { answer } from '../../src/view/api.js';
import type { ModelResults, RecordDetail } from '../../src/view/shared/types.js';
import { freshStore, insertRecord } from './stats-fixture.js';
import { runInProcess } from '../metrics/inproc.js';

const Z = 1.959963984540054; // Python: NormalDist().inv_cdf(0.975)
/** Equal up to the last bits DuckDB's parallel sums may differ in between two queries (pages show 4 digits). */
const sameCi = (a: [number, number] | null, b: [number, number] | null, what: string) =>
  assert.ok(
    a !== null && b !== null && Math.abs(a[0] - b[0]) < 1e-12 && Math.abs(a[1] - b[1]) < 1e-12,
    `${what}: ${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`,
  );
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs: number[]) => {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
};

// Per-sample F1 of a weak model: mostly 0, a few partial matches; the CLT interval's lower end is below 0.
const F1 = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0.9, 0, 0, 0, 0.5, 0, 0, 0, 0, 0, 0.2];

describe('intervals: named, bounded, one per result', () => {
  let store: Store;
  let path: string;
  let done: () => void;
  before(async () => {
    ({ store, path, done } = await freshStore());
    await insertRecord(store, {
      record_key: 'weak',
      model_id: 'lab/weak',
      results: [
        { evaluation_name: 'squad', metric_name: 'f1_score', score: mean(F1), min_score: 0, max_score: 1 },
        // no rows: the record's own interval, which leaves [0, 1]
        {
          evaluation_name: 'safety',
          metric_name: 'attack_success_rate',
          score: 0.05,
          ci: [-0.02, 0.12],
          min_score: 0,
          max_score: 1,
          additional_details: { direction_status: 'assumed' },
        },
      ],
      samples: F1.map((score, i) => ({
        evaluation_name: 'squad',
        sample_id: `q${i}`,
        sample_hash: `h${i}`,
        score,
      })),
    });
    await insertRecord(store, {
      record_key: 'other',
      model_id: 'lab/other',
      results: [
        {
          evaluation_name: 'safety',
          metric_name: 'attack_success_rate',
          score: 0.3,
          standard_error: 0.05,
          min_score: 0,
          max_score: 1,
          additional_details: { direction_status: 'assumed' },
        },
      ],
    });
  });
  after(() => done());

  test('F1 from the rows: the normal interval, its lower end clipped at min_score 0 and marked', async () => {
    const { leaderboards: boards } = await leaderboards(store, { metric: 'f1_score' });
    const row = boards[0]!.rows[0]!;
    const m = mean(F1);
    const half = (Z * sd(F1)) / Math.sqrt(F1.length);
    assert.ok(m - half < 0, 'the unclipped interval leaves the scale (the case under test)');
    assert.equal(row.ci_method, 'clt');
    assert.equal(row.ci_clipped, true);
    assert.equal(row.ci![0], 0);
    assert.ok(Math.abs(row.ci![1] - (m + half)) < 1e-12);
    assert.equal(row.n, F1.length);
  });

  test('evalkit leaderboard --metric f1_score never prints a negative lower bound; says clipped', async () => {
    const out = await runInProcess(['leaderboard', '--db', path, '--metric', 'f1_score']);
    assert.equal(out.code, 0, out.stderr);
    assert.doesNotMatch(out.stdout, /\[-/);
    assert.match(out.stdout, /clt, clipped/);
    const json = JSON.parse(
      (await runInProcess(['leaderboard', '--db', path, '--metric', 'f1_score', '--format', 'json'])).stdout,
    );
    assert.ok(json.leaderboards[0].rows[0].ci[0] >= 0);
  });

  test("the record's own interval is clipped too, and the record-se interval named", async () => {
    const { leaderboards: boards } = await leaderboards(store, { benchmark: 'safety' });
    const rows = boards[0]!.rows;
    const weak = rows.find((r) => r.model_id === 'lab/weak')!;
    assert.deepEqual([weak.ci, weak.ci_method, weak.ci_clipped], [[0, 0.12], 'record', true]);
    const other = rows.find((r) => r.model_id === 'lab/other')!;
    assert.equal(other.ci_method, 'record-se');
    assert.equal(other.ci_clipped, false);
    assert.ok(Math.abs(other.ci![0] - (0.3 - Z * 0.05)) < 1e-12);
  });

  test('the record and model answers of the viewer give the leaderboard interval of each result', async () => {
    const { leaderboards: boards } = await leaderboards(store, {});
    const record = (await answer(store, 'record', { key: 'weak' })) as RecordDetail;
    const model = (await answer(store, 'model', { id: 'lab/weak' })) as ModelResults;
    for (const board of boards)
      for (const row of board.rows.filter((r) => r.record_key === 'weak')) {
        const onRecord = record.results.find(
          (x) => x.evaluation_name === board.benchmark && x.metric_name === board.metric,
        )!;
        sameCi(onRecord.interval!.ci, row.ci, `${board.benchmark}: record page`);
        assert.equal(onRecord.interval!.method, row.ci_method);
        assert.equal(onRecord.interval!.clipped, row.ci_clipped);
        assert.equal(onRecord.interval!.n, row.n);
        const onModel = model.results.find(
          (x) => x.evaluation_name === board.benchmark && x.metric_name === board.metric,
        )!;
        sameCi(onModel.interval!.ci, row.ci, `${board.benchmark}: model page`);
      }
  });

  test('direction assumed: said beside the ranking in leaderboard text, JSON and CSV', async () => {
    const json = JSON.parse(
      (await runInProcess(['leaderboard', '--db', path, '--format', 'json'])).stdout,
    ) as { leaderboards: { benchmark: string; direction_assumed: boolean }[] };
    assert.deepEqual(
      json.leaderboards.map((b) => [b.benchmark, b.direction_assumed]),
      [
        ['safety', true],
        ['squad', false],
      ],
    );
    const text = (await runInProcess(['leaderboard', '--db', path, '--benchmark', 'safety'])).stdout;
    assert.match(text.split('\n')[0]!, /^safety · attack_success_rate \(higher is better; direction assumed/);
    const squad = (await runInProcess(['leaderboard', '--db', path, '--benchmark', 'squad'])).stdout;
    assert.doesNotMatch(squad, /direction assumed/);
    const csv = (await runInProcess(['leaderboard', '--db', path, '--format', 'csv'])).stdout.split('\n');
    assert.match(csv[0]!, /,ci_clipped,direction_assumed,run_status,disagreement$/);
    assert.match(csv[1]!, /^safety,.*,true,complete,$/);
    const model = (await answer(store, 'model', { id: 'lab/weak' })) as ModelResults;
    assert.equal(model.standings!.find((s) => s.benchmark === 'safety')!.direction_assumed, true);
  });
});
