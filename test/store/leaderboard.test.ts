// leaderboards() and `evalkit leaderboard` on a real DuckDB store filled by hand: ranks, CIs (Wilson, CLT, the
// record's own), significance tiers, filters and the composite, against values computed independently (Python's
// statistics module and the Wilson formula in Python; the tiers' p-values by a Simpson integration of the t density).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../src/store/db.js';
import { leaderboards, meanWinRates, type Leaderboard } from '../../src/store/leaderboard.js';
import { freshStore, insertRecord, type FixtureSample } from './stats-fixture.js';
import { cli as runInProcess } from '../helpers/cli.js';

const close = (actual: number | null | undefined, expected: number, tol = 1e-9, what = '') =>
  assert.ok(
    actual !== null && actual !== undefined && Math.abs(actual - expected) <= tol,
    `${what} ${actual} ≠ ${expected} (±${tol})`,
  );

const samples = (name: string, scores: number[]): FixtureSample[] =>
  scores.map((score, i) => ({
    evaluation_name: name,
    sample_id: `q${i}`,
    sample_hash: `${name}${i}`,
    score,
  }));

const m1 = Array.from({ length: 100 }, (_, i) => (i < 90 ? 1 : 0));
const m2 = Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? 1 : 0));
const m3 = m2.map((v, i) => (i === 1 ? 1 : v));

describe('leaderboard on a store', () => {
  let store: Store;
  let path: string;
  let done: () => void;
  const board = (result: { leaderboards: Leaderboard[] }, benchmark: string) =>
    result.leaderboards.find((b) => b.benchmark === benchmark)!;

  before(async () => {
    ({ store, path, done } = await freshStore());
    await insertRecord(store, {
      record_key: 'k1',
      model_id: 'lab/one',
      developer: 'lab',
      collection: 'alpha',
      deployment_type: 'api',
      availability: 'closed',
      source_organization: 'Lab Org',
      results: [
        { evaluation_name: 'mmlu', score: 0.9, min_score: 0, max_score: 1 },
        { evaluation_name: 'loss', metric_name: 'perplexity', score: 2.6, lower_is_better: true },
      ],
      samples: [...samples('mmlu', m1), ...samples('loss', [2.0, 3.5, 1.0, 4.0, 2.5])],
    });
    await insertRecord(store, {
      record_key: 'k2',
      model_id: 'lab/two',
      developer: 'lab',
      collection: 'beta',
      deployment_type: 'open_weights',
      results: [
        { evaluation_name: 'mmlu', score: 0.5, min_score: 0, max_score: 1 },
        { evaluation_name: 'loss', metric_name: 'perplexity', score: 3.1, lower_is_better: true },
      ],
      samples: [...samples('mmlu', m2), ...samples('loss', [2.5, 3.0, 2.0, 4.5, 3.5])],
    });
    await insertRecord(store, {
      record_key: 'k3',
      model_id: 'other/three',
      developer: 'other',
      collection: 'alpha',
      results: [
        { evaluation_name: 'mmlu', score: 0.51, min_score: 0, max_score: 1 },
        {
          evaluation_name: 'loss',
          metric_name: 'perplexity',
          score: 3.1,
          lower_is_better: true,
          standard_error: 0.2,
        },
      ],
      samples: samples('mmlu', m3),
    });
    // No instance rows: its own CI; a score on another scale than its rows (87 vs 0.87): the record's SE.
    await insertRecord(store, {
      record_key: 'k4',
      model_id: 'other/four',
      developer: 'other',
      results: [
        { evaluation_name: 'mmlu', score: 0.2, ci: [0.1, 0.3], num_samples: 40 },
        { evaluation_name: 'pct', score: 87, standard_error: 3, num_samples: 100 },
      ],
      samples: samples(
        'pct',
        Array.from({ length: 100 }, (_, i) => (i < 87 ? 1 : 0)),
      ),
    });
  });
  after(() => done());

  test('ranks, CIs (Wilson from rows, the record CI), n, significance tiers', async () => {
    const result = await leaderboards(store, {});
    const mmlu = board(result, 'mmlu');
    assert.equal(mmlu.metric, 'accuracy');
    assert.equal(mmlu.lower_is_better, false);
    assert.deepEqual(
      mmlu.rows.map((r) => [r.rank, r.model_id, r.tier]),
      [
        [1, 'lab/one', 1],
        [2, 'other/three', 2], // vs lab/one: paired p = 1.4e-9 (Holm 4.3e-9)
        [3, 'lab/two', 2], // vs other/three: one item differs, paired p = 0.3197: same tier
        [4, 'other/four', 3], // no rows to pair: z test on SEs 0.0503 and 0.2/3.92, p = 2.8e-5
      ],
    );
    const [one, three, , four] = mmlu.rows;
    // Python: the Wilson formula with z = NormalDist().inv_cdf(0.975)
    assert.equal(one!.ci_method, 'wilson');
    close(one!.ci![0], 0.8256343384950865, 1e-12);
    close(one!.ci![1], 0.9447708629393249, 1e-12);
    close(three!.ci![0], 0.41348011934027173, 1e-12);
    assert.equal(one!.n, 100);
    assert.equal(four!.ci_method, 'record');
    assert.deepEqual(four!.ci, [0.1, 0.3]);
    assert.equal(four!.n, 40);
    assert.equal(one!.evaluation_id, 'eval/k1');
    assert.equal(one!.record_key, 'k1');
    assert.equal(one!.source, 'Lab Org');
    assert.equal(one!.date, '2023-11-14T22:13:20Z');
  });

  test('lower is better: ascending, ties share a rank; CLT interval for continuous rows', async () => {
    const loss = board(await leaderboards(store, { metric: 'perplexity' }), 'loss');
    assert.equal(loss.lower_is_better, true);
    assert.deepEqual(
      loss.rows.map((r) => [r.rank, r.model_id]),
      [
        [1, 'lab/one'],
        [2, 'lab/two'],
        [2, 'other/three'],
      ],
    );
    // Python: mean ± 1.96·stdev/√5
    assert.equal(loss.rows[0]!.ci_method, 'clt');
    close(loss.rows[0]!.ci![0], 1.5536655582951382, 1e-12);
    close(loss.rows[0]!.ci![1], 3.646334441704862, 1e-12);
    close(loss.rows[1]!.ci![0], 2.2569876146648777, 1e-12);
    assert.equal(loss.rows[2]!.ci_method, 'record-se');
    close(loss.rows[2]!.ci![0], 3.1 - 1.959963984540054 * 0.2, 1e-12);
    // Equal scores: the gap is not significant, so the tie shares the tier.
    assert.equal(loss.rows[2]!.tier, loss.rows[1]!.tier);
  });

  test('rows on another scale than the score: the record uncertainty is used', async () => {
    const pct = board(await leaderboards(store, { benchmark: 'pct' }), 'pct');
    assert.equal(pct.rows[0]!.ci_method, 'record-se');
    close(pct.rows[0]!.ci![1], 87 + 1.959963984540054 * 3, 1e-12);
    assert.equal(pct.rows[0]!.n, 100);
  });

  test('filters: developer, collection, deployment type, availability, source organization', async () => {
    const ids = async (options: Parameters<typeof leaderboards>[1]) =>
      board(await leaderboards(store, { benchmark: 'mmlu', ...options }), 'mmlu')?.rows.map(
        (r) => r.model_id,
      );
    assert.deepEqual(await ids({ developer: 'lab' }), ['lab/one', 'lab/two']);
    assert.deepEqual(await ids({ collection: 'alpha' }), ['lab/one', 'other/three']);
    assert.deepEqual(await ids({ deploymentType: 'open_weights' }), ['lab/two']);
    assert.deepEqual(await ids({ availability: 'closed' }), ['lab/one']);
    assert.deepEqual(await ids({ sourceOrganization: 'Lab Org' }), ['lab/one']);
    assert.deepEqual((await leaderboards(store, { developer: 'nobody' })).leaderboards, []);
    await assert.rejects(
      leaderboards(store, { benchmark: 'mmlu-pro' }),
      /unknown benchmark "mmlu-pro"; closest known: mmlu/,
    );
    await assert.rejects(
      leaderboards(store, { metric: 'acc' }),
      /unknown metric "acc"; closest known: accuracy/,
    );
  });

  test('composite mean win rate (HELM): ties count one half, boards with one model are left out', async () => {
    const { composite } = await leaderboards(store, { composite: true });
    // mmlu (4 models): one 3/3, three 2/3, two 1/3, four 0. loss (3, lower is better): one beats both: 1; two and three
    // lose to one and tie with each other: (0 + ½)/2 = 1/4 each.
    // pct has one model: not counted.
    const byModel = Object.fromEntries(composite!.map((r) => [r.model_id, r]));
    close(byModel['lab/one']!.mean_win_rate, 1, 1e-15);
    close(byModel['other/three']!.mean_win_rate, (2 / 3 + 0.25) / 2, 1e-15);
    close(byModel['lab/two']!.mean_win_rate, (1 / 3 + 0.25) / 2, 1e-15);
    close(byModel['other/four']!.mean_win_rate, 0, 1e-15);
    assert.equal(byModel['other/four']!.benchmarks, 1);
    assert.deepEqual(
      composite!.map((r) => [r.rank, r.model_id]),
      [
        [1, 'lab/one'],
        [2, 'other/three'],
        [3, 'lab/two'],
        [4, 'other/four'],
      ],
    );
    assert.deepEqual(
      meanWinRates([
        {
          benchmark: 'x',
          metric: 'm',
          lower_is_better: false,
          direction_assumed: false,
          rows: [
            { model_id: 'a', score: 1 },
            { model_id: 'b', score: 1 },
          ] as never,
        },
      ]).map((r) => [r.rank, r.mean_win_rate]),
      [
        [1, 0.5],
        [1, 0.5],
      ],
    );
  });

  test('evalkit leaderboard: json (the issue shape), csv, markdown, text', async () => {
    const json = await runInProcess(['leaderboard', '--db', path, '--benchmark', 'mmlu', '--format', 'json']);
    assert.equal(json.code, 0, json.stderr);
    const out = JSON.parse(json.stdout);
    assert.deepEqual(Object.keys(out), ['leaderboards']);
    assert.deepEqual(Object.keys(out.leaderboards[0]), [
      'benchmark',
      'metric',
      'lower_is_better',
      'direction_assumed',
      'rows',
    ]);
    for (const key of [
      'rank',
      'tier',
      'model_id',
      'developer',
      'score',
      'ci',
      'n',
      'evaluation_id',
      'source',
    ])
      assert.ok(key in out.leaderboards[0].rows[0], key);
    const csv = await runInProcess(['leaderboard', '--db', path, '--benchmark', 'mmlu', '--format', 'csv']);
    const lines = csv.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 5);
    assert.match(
      lines[0]!,
      /^benchmark,metric,lower_is_better,rank,tier,model_id,developer,score,ci_lower,ci_upper/,
    );
    assert.match(lines[1]!, /^mmlu,accuracy,false,1,1,lab\/one,lab,0\.9,0\.8256343384950865,/);
    const md = await runInProcess(['leaderboard', '--db', path, '--format', 'markdown', '--composite']);
    assert.match(md.stdout, /## mmlu · accuracy \(higher is better\)/);
    assert.match(md.stdout, /## Composite: mean win rate/);
    const text = await runInProcess(['leaderboard', '--db', path, '--developer', 'other']);
    assert.equal(text.code, 0);
    assert.match(text.stdout, /other\/three/);
    assert.doesNotMatch(text.stdout, /lab\/one/);
    const missing = await runInProcess(['leaderboard', '--db', `${path}.absent`]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /store\.not-found/);
    const viaEnv = await runInProcess(['leaderboard', '--benchmark', 'nope', '--db', path]);
    assert.equal(viaEnv.code, 2);
  });
});
