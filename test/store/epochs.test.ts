// Epochs in the statistics: instance rows stay one per (sample, epoch), but leaderboard n, intervals and compare's
// pairing count samples, each sample's epochs reduced by the result's metric_config.additional_details.epoch_reducer
// (Inspect's reducers). Inputs are Inspect-shaped .json logs converted by `evalkit convert` and ingested, and
// hand-filled stores; the expected values are computed here, independently, with Inspect's reducer definitions.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convertPaths, isConvertFailure, writeConverted } from '../../src/convert/index.js';
import type { Store } from '../../src/store/db.js';
import { ingestPaths } from '../../src/store/ingest.js';
import { leaderboards } from '../../src/store/leaderboard.js';
import { compareModels } from '../../src/store/compare.js';
import { freshStore, insertRecord, type FixtureSample } from './stats-fixture.js';

type Obj = Record<string, any>;

/** An Inspect .json log: one scorer `match`, `scores[s][e]` the value ('C' / 'I') of sample s+1 at epoch e+1. */
function inspectLog(model: string, evalId: string, scores: string[][]): Obj {
  const epochs = scores[0]!.length;
  const values = scores.map((epochScores) => epochScores.filter((v) => v === 'C').length / epochs);
  const samples = scores.flatMap((epochScores, s) =>
    epochScores.map((value, e) => ({
      id: s + 1,
      epoch: e + 1,
      input: `question ${s + 1}`,
      target: `answer ${s + 1}`,
      messages: [
        { role: 'user', content: `question ${s + 1}` },
        { role: 'assistant', content: value === 'C' ? `answer ${s + 1}` : 'no idea' },
      ],
      output: {
        model,
        choices: [{ message: { role: 'assistant', content: 'x' } }],
        completion: 'x',
      },
      scores: { match: { value, answer: 'x' } },
    })),
  );
  return {
    version: 2,
    status: 'success',
    eval: {
      eval_id: evalId,
      run_id: `run-${evalId}`,
      task_id: 'task-1',
      created: '2026-01-02T03:04:05+00:00',
      task: 'epochs_task',
      dataset: { name: 'epochs', samples: scores.length },
      model,
      config: { epochs, epochs_reducer: ['mean'] },
      packages: { inspect_ai: '0.3.150' },
      scorers: [{ name: 'match', options: {} }],
    },
    plan: { name: 'plan', steps: [], config: {} },
    results: {
      total_samples: scores.length * epochs,
      completed_samples: scores.length * epochs,
      scores: [
        {
          name: 'match',
          scorer: 'match',
          reducer: 'mean',
          scored_samples: scores.length,
          metrics: {
            accuracy: { name: 'accuracy', value: values.reduce((a, b) => a + b, 0) / values.length },
          },
        },
      ],
    },
    stats: { started_at: '2026-01-02T03:04:05+00:00', completed_at: '2026-01-02T03:05:00+00:00' },
    samples,
  };
}

/**
 * Converts the logs into `root/out`, sets each aggregate's epoch_reducer (and the score the source would report
 * under it) the way the converter records it, and ingests the folder.
 */
async function convertAndIngest(
  store: Store,
  root: string,
  logs: { name: string; log: Obj; reducer?: string; score?: number }[],
): Promise<void> {
  for (const { name, log, reducer, score } of logs) {
    const path = join(root, `${name}.json`);
    await writeFile(path, JSON.stringify(log));
    for await (const item of convertPaths([path], {})) {
      if (isConvertFailure(item)) throw item.error;
      const outcome = await writeConverted(item, join(root, 'out'), { force: true });
      if (reducer === undefined && score === undefined) continue;
      const aggregate = JSON.parse(await readFile(outcome.aggregatePath, 'utf8'));
      for (const r of aggregate.evaluation_results) {
        if (reducer !== undefined) {
          r.metric_config.additional_details ??= {};
          r.metric_config.additional_details.epoch_reducer = reducer;
        }
        if (score !== undefined) r.score_details.score = score;
      }
      await writeFile(outcome.aggregatePath, JSON.stringify(aggregate));
    }
  }
  const result = await ingestPaths(store, [join(root, 'out')], { cwd: root });
  assert.deepEqual(
    result.diagnostics.filter((d) => d.severity === 'error'),
    [],
  );
}

// Inspect's reducers, written out from their definitions (inspect_ai/scorer/_reducer/reducer.py).
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const h = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[h]! : (s[h - 1]! + s[h]!) / 2;
};
const mode = (xs: number[]) => {
  // collections.Counter(...).most_common(1): the highest count, ties to the value seen first
  const counts = new Map<number, number>();
  for (const x of xs) counts.set(x, (counts.get(x) ?? 0) + 1);
  let best = xs[0]!;
  for (const [v, c] of counts) if (c > counts.get(best)!) best = v;
  return best;
};
const comb = (n: number, k: number): number => {
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
};
const REDUCERS: Record<string, (xs: number[]) => number> = {
  mean,
  median,
  mode,
  max: (xs) => Math.max(...xs),
  at_least_2: (xs) => (xs.filter((x) => x >= 1).length >= 2 ? 1 : 0),
  pass_at_2: (xs) => {
    const c = xs.filter((x) => x >= 1).length;
    return xs.length - c < 2 ? 1 : 1 - comb(xs.length - c, 2) / comb(xs.length, 2);
  },
};

describe('epochs reduced before counting samples', () => {
  let store: Store;
  let done: () => void;
  let root: string;
  before(async () => {
    ({ store, done } = await freshStore());
    root = await mkdtemp(join(tmpdir(), 'evalkit-epochs-'));
  });
  after(async () => {
    done();
    await rm(root, { recursive: true, force: true });
  });

  test('an Inspect log of 1 sample × 6 epochs: n is 1 on the leaderboard, 6 rows stay in the store', async () => {
    await convertAndIngest(store, root, [
      { name: 'six', log: inspectLog('openai/gpt-4o', 'six', [['C', 'C', 'I', 'C', 'C', 'C']]) },
    ]);
    const rows = await store.all<{ n: number }>(`SELECT CAST(count(*) AS INTEGER) AS n FROM samples`);
    assert.equal(rows[0]!.n, 6);
    const { leaderboards: boards } = await leaderboards(store, { benchmark: 'epochs_task' });
    const row = boards[0]!.rows[0]!;
    assert.equal(row.n, 1, 'one sample, not six epochs');
    assert.ok(Math.abs(row.score - 5 / 6) < 1e-12);
    // One sample: no interval can come from the rows (a 6-of-6 Wilson [0.61, 1] would claim six samples).
    assert.notEqual(row.ci_method, 'wilson');
  });
});

describe('3 samples × 2 epochs of two models, paired', () => {
  let store: Store;
  let done: () => void;
  let root: string;
  before(async () => {
    ({ store, done } = await freshStore());
    root = await mkdtemp(join(tmpdir(), 'evalkit-epochs-'));
  });
  after(async () => {
    done();
    await rm(root, { recursive: true, force: true });
  });

  test('compare pairs 3 samples, each reduced by max (the source reducer), not averaged', async () => {
    const a = [
      ['C', 'I'],
      ['C', 'C'],
      ['I', 'I'],
    ];
    const b = [
      ['I', 'I'],
      ['C', 'I'],
      ['I', 'C'],
    ];
    const bit = (v: string) => (v === 'C' ? 1 : 0);
    const reducedA = a.map((s) => Math.max(...s.map(bit)));
    const reducedB = b.map((s) => Math.max(...s.map(bit)));
    await convertAndIngest(store, root, [
      { name: 'a', log: inspectLog('openai/model-a', 'ea', a), reducer: 'max', score: mean(reducedA) },
      { name: 'b', log: inspectLog('openai/model-b', 'eb', b), reducer: 'max', score: mean(reducedB) },
    ]);
    // The converter names the models by its own rules (…/model-a sorts before …/model-b).
    const models = await store.all<{ model_id: string }>(`SELECT model_id FROM records ORDER BY model_id`);
    assert.equal(models.length, 2);
    assert.match(models[0]!.model_id, /model-a$/);
    const report = await compareModels(store, models[0]!.model_id, models[1]!.model_id, {});
    const c = report.comparisons[0]!;
    assert.equal(c.n_paired, 3);
    const d = reducedA.map((x, i) => x - reducedB[i]!);
    assert.ok(Math.abs(c.difference - mean(d)) < 1e-12, `difference ${c.difference} ≠ ${mean(d)}`);
    assert.ok(Math.abs(c.mean_a - mean(reducedA)) < 1e-12);
    // max-reduced values are 0/1: McNemar counts samples, not epochs
    assert.deepEqual([c.mcnemar?.a_only, c.mcnemar?.b_only], [1, 1]);
    const { leaderboards: boards } = await leaderboards(store, { benchmark: 'epochs_task' });
    assert.deepEqual(
      boards[0]!.rows.map((r) => r.n),
      [3, 3],
    );
    // Both reduce to 2 of 3: Wilson of 2/3 (computed here), not of 3/6.
    const z = 1.959963984540054;
    const p = 2 / 3;
    const centre = (p + (z * z) / 6) / (1 + (z * z) / 3);
    const half = (z * Math.sqrt((p * (1 - p)) / 3 + (z * z) / 36)) / (1 + (z * z) / 3);
    assert.ok(Math.abs(boards[0]!.rows[0]!.ci![0] - (centre - half)) < 1e-12);
  });
});

describe("every Inspect reducer, against the reducer's definition", () => {
  let store: Store;
  let done: () => void;
  // 4 samples × 4 epochs of values in [0, 1], with ties for mode and median.
  const values = [
    [0.5, 1, 0.5, 0],
    [1, 1, 0, 0],
    [0, 0.25, 1, 1],
    [1, 0, 1, 1],
  ];
  before(async () => {
    ({ store, done } = await freshStore());
    const rowsOf = (bench: string, xs: number[][]): FixtureSample[] =>
      xs.flatMap((epochs, s) =>
        epochs.map((score, e) => ({
          evaluation_name: bench,
          sample_id: `s${s}#epoch${e + 1}`,
          epoch: e + 1,
          score,
        })),
      );
    for (const [name, reduce] of Object.entries(REDUCERS)) {
      const reduced = values.map(reduce);
      await insertRecord(store, {
        record_key: `a-${name}`,
        model_id: 'm/a',
        results: [
          {
            evaluation_name: name,
            score: mean(reduced),
            additional_details: name === 'mean' ? undefined : { epoch_reducer: name },
          },
        ],
        samples: rowsOf(name, values),
      });
      // B: the same samples, one epoch each, all 0.
      await insertRecord(store, {
        record_key: `b-${name}`,
        model_id: 'm/b',
        results: [{ evaluation_name: name, score: 0 }],
        samples: values.map((_, s) => ({ evaluation_name: name, sample_id: `s${s}`, score: 0 })),
      });
    }
  });
  after(() => done());

  for (const name of Object.keys(REDUCERS))
    test(`${name}: the mean of the reduced samples, 4 paired samples`, async () => {
      const expected = values.map(REDUCERS[name]!);
      const report = await compareModels(store, 'm/a', 'm/b', { benchmark: name });
      const c = report.comparisons[0]!;
      assert.equal(c.n_paired, 4);
      assert.ok(Math.abs(c.mean_a - mean(expected)) < 1e-12, `${name}: ${c.mean_a} ≠ ${mean(expected)}`);
      const { leaderboards: boards } = await leaderboards(store, { benchmark: name });
      assert.equal(boards[0]!.rows.find((r) => r.model_id === 'm/a')!.n, 4);
    });
});
