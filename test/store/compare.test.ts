// compareModels() and `evalkit compare` on a real DuckDB store filled by hand, checked against values computed
// independently (Python's statistics module, exact binomial sums, closed forms of the t CDF, a clustered case by
// hand; see compare-stats.test.ts for the primitives).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../src/store/db.js';
import { compareModels, disagreements } from '../../src/store/compare.js';
import { binaryRows, freshStore, insertRecord, type FixtureSample } from './stats-fixture.js';
import { cli as runInProcess } from '../helpers/cli.js';

const close = (actual: number | null | undefined, expected: number, tol = 1e-9, what = '') =>
  assert.ok(
    actual !== null && actual !== undefined && Math.abs(actual - expected) <= tol,
    `${what} ${actual} ≠ ${expected} (±${tol})`,
  );

const rows = (name: string, scores: number[], options: { hashed?: boolean; prefix?: string } = {}) =>
  scores.map((score, i): FixtureSample => ({
    evaluation_name: name,
    sample_id: `${options.prefix ?? 's'}${i}`,
    sample_hash: options.hashed ? `${name}-h${i}` : null,
    score,
  }));

describe('compare on a store', () => {
  let store: Store;
  let path: string;
  let done: () => void;

  before(async () => {
    ({ store, path, done } = await freshStore());
    // gsm8k: A ran two epochs of each sample (hashed rows), B one epoch without hashes: pairs by sample_id,
    // A's epochs averaged first. One sample only A has, one only B has.
    const aEpochs = [
      [1, 0],
      [1, 1],
      [0, 0],
      [1, 1],
      [1, 0],
      [0, 1],
    ];
    const gsmA: FixtureSample[] = aEpochs.flatMap((scores, i) =>
      scores.map((score, epoch) => ({
        evaluation_name: 'gsm8k',
        sample_id: `g${i}`,
        sample_hash: `gh${i}`,
        score,
        epoch,
        output: `A says ${i}.${epoch}`,
        input: `question ${i}`,
        reference: `answer ${i}`,
      })),
    );
    gsmA.push({ evaluation_name: 'gsm8k', sample_id: 'onlyA', score: 1, sample_hash: 'x' });
    const gsmB: FixtureSample[] = [0, 1, 0, 0, 1, 0].map((score, i) => ({
      evaluation_name: 'gsm8k',
      sample_id: `g${i}`,
      score,
      output: `B says ${i}`,
    }));
    gsmB.push({ evaluation_name: 'gsm8k', sample_id: 'onlyB', score: 0 });
    // An older record of A with other scores: not used (the most recently retrieved record is).
    await insertRecord(store, {
      record_key: 'a-old',
      model_id: 'org/model-a',
      retrieved_timestamp: '1600000000',
      results: [{ evaluation_name: 'mmlu', score: 0 }],
      samples: binaryRows('mmlu', '0000000000'),
    });
    await insertRecord(store, {
      record_key: 'a',
      model_id: 'org/model-a',
      results: [
        { evaluation_name: 'mmlu', score: 0.8 },
        { evaluation_name: 'gsm8k', score: 0.5833 },
        { evaluation_name: 'loss', metric_name: 'perplexity', score: 2.6, lower_is_better: true },
        { evaluation_name: 'clustered', score: 0.625 },
      ],
      samples: [
        ...binaryRows('mmlu', '1111011110'),
        ...gsmA,
        ...rows('loss', [2.0, 3.5, 1.0, 4.0, 2.5], { hashed: true }),
        ...[1, 1, 1, 0, 0, 1, 1, 0].map((score, i) => ({
          evaluation_name: 'clustered',
          sample_id: `c${i}`,
          score,
          metadata: { source: `s${Math.floor(i / 2) + 1}` },
        })),
      ],
    });
    await insertRecord(store, {
      record_key: 'b',
      model_id: 'org/model-b',
      results: [
        { evaluation_name: 'mmlu', score: 0.5 },
        { evaluation_name: 'gsm8k', score: 0.3333 },
        { evaluation_name: 'loss', metric_name: 'perplexity', score: 3.1, lower_is_better: true },
        { evaluation_name: 'clustered', score: 0.375 },
      ],
      samples: [
        ...binaryRows('mmlu', '1010101010'),
        ...gsmB,
        ...rows('loss', [2.5, 3.0, 2.0, 4.5, 3.5], { hashed: true }),
        ...[0, 1, 0, 0, 1, 0, 1, 0].map((score, i) => ({
          evaluation_name: 'clustered',
          sample_id: `c${i}`,
          score,
        })),
      ],
    });
    // C: a score and standard error, no instance rows.
    await insertRecord(store, {
      record_key: 'c',
      model_id: 'org/model-c',
      results: [{ evaluation_name: 'mmlu', score: 0.6, standard_error: 0.04 }],
    });
  });
  after(() => done());

  test('paired binary comparison: t test, McNemar, Holm over the call', async () => {
    const report = await compareModels(store, 'org/model-a', 'org/model-b', {});
    assert.deepEqual(
      report.comparisons.map((c) => `${c.benchmark}/${c.metric}`),
      ['clustered/accuracy', 'gsm8k/accuracy', 'loss/perplexity', 'mmlu/accuracy'],
    );
    const mmlu = report.comparisons.find((c) => c.benchmark === 'mmlu')!;
    assert.equal(mmlu.paired, true);
    assert.equal(mmlu.n_paired, 10);
    assert.equal(mmlu.n_unpaired_a, 0);
    close(mmlu.mean_a, 0.8, 1e-12); // the newest record, not a-old
    close(mmlu.difference, 0.3, 1e-12);
    close(mmlu.se, 0.21343747458109494, 1e-12);
    close(mmlu.p_value, 0.1934220596033085, 1e-10);
    assert.equal(mmlu.df, 9);
    // 0/1 scores: Newcombe's hybrid score interval (issue 39: not the t interval), the table (4, 4, 1, 1) worked
    // in Python from Newcombe 1998's method 10 formula.
    assert.equal(mmlu.ci_method, 'newcombe');
    close(mmlu.ci![0], -0.10667246527150642, 1e-12);
    close(mmlu.ci![1], 0.5998719821481643, 1e-12);
    close(mmlu.correlation, 0, 1e-12);
    close(mmlu.mde, 2.801585218112968 * 0.21343747458109494, 1e-12);
    assert.deepEqual(mmlu.mcnemar, { a_only: 4, b_only: 1, p_value: mmlu.mcnemar!.p_value });
    close(mmlu.mcnemar!.p_value, 0.375, 1e-12); // 2·(1 + 5)/32
    assert.equal(mmlu.clustered, null);
    assert.equal(mmlu.bootstrap, null);
    // Holm over the four comparisons of this call.
    const ps = report.comparisons.map((c) => c.p_value!);
    const order = ps.map((p, i) => [p, i] as const).sort((x, y) => x[0] - y[0]);
    let running = 0;
    const expected: number[] = [];
    order.forEach(([p, i], k) => {
      running = Math.max(running, Math.min(1, (4 - k) * p));
      expected[i] = running;
    });
    report.comparisons.forEach((c, i) => close(c.p_holm, expected[i]!, 1e-12));
  });

  test('epochs averaged first; hashes on one side only: paired by sample_id; unpaired counts', async () => {
    const report = await compareModels(store, 'org/model-a', 'org/model-b', { benchmark: 'gsm8k' });
    assert.equal(report.comparisons.length, 1);
    const c = report.comparisons[0]!;
    assert.equal(c.n_paired, 6);
    assert.equal(c.n_unpaired_a, 1);
    assert.equal(c.n_unpaired_b, 1);
    // Python: A = [0.5, 1, 0, 1, 0.5, 0.5], B = [0, 1, 0, 0, 1, 0]
    close(c.mean_a, 0.5833333333333334, 1e-12);
    close(c.difference, 0.25, 1e-12);
    close(c.se, 0.21408720964441885, 1e-12);
    close(c.p_value, 0.29555864473451576, 1e-10);
    close(c.correlation, 0.3429971702850177, 1e-12);
    assert.equal(c.df, 5);
    assert.equal(c.mcnemar, null, 'averaged epochs are not 0/1');
    assert.equal(c.p_holm, c.p_value, 'one comparison: Holm changes nothing');
  });

  test('lower-is-better continuous metric: the difference is A − B as is', async () => {
    const report = await compareModels(store, 'org/model-a', 'org/model-b', { metric: 'perplexity' });
    const c = report.comparisons[0]!;
    assert.equal(c.lower_is_better, true);
    close(c.difference, -0.5, 1e-12);
    close(c.se, 0.27386127875258304, 1e-12);
    close(c.p_value, 0.14192744777404842, 1e-10);
    close(c.correlation, 0.8601195237109509, 1e-12);
  });

  test('--cluster-by a metadata key: clustered SE with C − 1 df (by hand), bootstrap over clusters', async () => {
    const report = await compareModels(store, 'org/model-a', 'org/model-b', {
      benchmark: 'clustered',
      clusterBy: 'source',
      bootstrap: 2000,
      seed: 3,
    });
    const c = report.comparisons[0]!;
    // d = 1 0 | 1 0 | −1 1 | 0 0, d̄ = 1/4, residual sums ±1/2, SE = √(4/3 · 1)/8; t = √3 with 3 df:
    // p = 2(1 − F(√3)) = 1/2 − 1/π.
    assert.equal(c.clustered!.clusters, 4);
    assert.equal(c.clustered!.df, 3);
    close(c.clustered!.se, Math.sqrt(4 / 3) / 8, 1e-14);
    close(c.clustered!.p_value, 0.5 - 1 / Math.PI, 1e-12);
    close(c.clustered!.ci[1], 0.25 + 3.182446305284263 * (Math.sqrt(4 / 3) / 8), 1e-9);
    assert.equal(c.clustered!.p_holm, c.clustered!.p_value);
    assert.equal(c.bootstrap!.resamples, 2000);
    assert.equal(c.bootstrap!.seed, 3);
    // Cluster means of d are 0.5, 0.5, 0, 0: every resampled d̄ is a multiple of 1/8 within [0, 0.5].
    for (const bound of c.bootstrap!.ci!) assert.ok(bound >= 0 && bound <= 0.5, `bound ${bound}`);
    const again = await compareModels(store, 'org/model-a', 'org/model-b', {
      benchmark: 'clustered',
      clusterBy: 'source',
      bootstrap: 2000,
      seed: 3,
    });
    assert.deepEqual(again.comparisons[0]!.bootstrap, c.bootstrap);
  });

  test('no instance rows to pair: an unpaired z test on the records, marked with the reason', async () => {
    const report = await compareModels(store, 'org/model-a', 'org/model-c', {});
    assert.equal(report.comparisons.length, 1);
    const c = report.comparisons[0]!;
    assert.equal(c.paired, false);
    assert.equal(c.reason, 'the result of org/model-c has no instance rows');
    assert.equal(c.n_paired, 0);
    assert.equal(c.n_unpaired_a, 10);
    close(c.difference, 0.2, 1e-12);
    // A's SE from its rows: sd/√n of 1111011110 = √(0.8·0.2·10/9)/√10; B's the record's 0.04.
    const seA = Math.sqrt((0.8 * 0.2 * 10) / 9 / 10);
    close(c.se, Math.sqrt(seA * seA + 0.04 * 0.04), 1e-12);
    assert.equal(c.df, null);
    assert.equal(c.mcnemar, null);
  });

  test('an unknown model lists the closest known ids; a bad benchmark too', async () => {
    await assert.rejects(compareModels(store, 'org/model-x', 'org/model-b', {}), (e: Error) => {
      assert.match(
        e.message,
        /unknown model "org\/model-x"; closest known: org\/model-a, org\/model-b, org\/model-c/,
      );
      return true;
    });
    await assert.rejects(
      compareModels(store, 'org/model-a', 'org/model-b', { benchmark: 'mmul' }),
      /closest known: mmlu/,
    );
  });

  test('disagreements: the paired items where A and B differ, largest first, paged, with texts', async () => {
    const page = await disagreements(store, 'org/model-a', 'org/model-b', 'gsm8k', 'accuracy', {
      offset: 0,
      limit: 2,
    });
    // A = [0.5, 1, 0, 1, 0.5, 0.5], B = [0, 1, 0, 0, 1, 0]: they differ on g0, g3, g4, g5; |d| = 1 only on g3.
    assert.equal(page.total, 4);
    assert.equal(page.items.length, 2);
    assert.deepEqual(page.items[0], {
      key: 'g3',
      sample_id: 'g3',
      sample_hash: 'gh3',
      input_text: 'question 3',
      reference_text: 'answer 3',
      a: { score: 1, output_text: 'A says 3.0' },
      b: { score: 0, output_text: 'B says 3' },
    });
    const rest = await disagreements(store, 'org/model-a', 'org/model-b', 'gsm8k', 'accuracy', {
      offset: 2,
      limit: 10,
    });
    assert.equal(rest.items.length, 2);
    assert.equal(rest.total, 4);
    const beyond = await disagreements(store, 'org/model-a', 'org/model-b', 'gsm8k', 'accuracy', {
      offset: 10,
      limit: 10,
    });
    assert.deepEqual([beyond.items.length, beyond.total], [0, 4]);
  });

  test('evalkit compare: json shape of the issue, text, exit codes', async () => {
    const json = await runInProcess([
      'compare',
      'org/model-a',
      'org/model-b',
      '--db',
      path,
      '--benchmark',
      'mmlu',
      '--bootstrap',
      '500',
      '--seed',
      '9',
      '--format',
      'json',
    ]);
    assert.equal(json.code, 0, json.stderr);
    const out = JSON.parse(json.stdout);
    assert.equal(out.model_a, 'org/model-a');
    const c = out.comparisons[0];
    for (const key of [
      'benchmark',
      'metric',
      'paired',
      'n_paired',
      'n_unpaired_a',
      'n_unpaired_b',
      'mean_a',
      'mean_b',
      'difference',
      'se',
      'ci',
      'df',
      'p_value',
      'p_holm',
      'correlation',
      'mde',
      'mcnemar',
      'clustered',
      'bootstrap',
    ])
      assert.ok(key in c, key);
    assert.deepEqual(Object.keys(c.mcnemar), ['a_only', 'b_only', 'p_value']);
    assert.deepEqual(c.bootstrap.resamples, 500);
    assert.deepEqual(c.bootstrap.seed, 9);
    const text = await runInProcess(['compare', 'org/model-a', 'org/model-c', '--db', path]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /UNPAIRED — the result of org\/model-c has no instance rows/);
    const unknown = await runInProcess(['compare', 'org/model-a', 'model-b', '--db', path]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /store\.unknown-model.*closest known: org\/model-b/);
    const nothing = await runInProcess([
      'compare',
      'org/model-b',
      'org/model-c',
      '--db',
      path,
      '--benchmark',
      'gsm8k',
    ]);
    assert.equal(nothing.code, 1);
    assert.match(nothing.stderr, /share no benchmark/);
    const bad = await runInProcess([
      'compare',
      'org/model-a',
      'org/model-b',
      '--db',
      path,
      '--bootstrap',
      '0',
    ]);
    assert.equal(bad.code, 2);
    const missing = await runInProcess(['compare', 'a', 'b', '--db', `${path}.absent`]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no store at/);
  });
});
