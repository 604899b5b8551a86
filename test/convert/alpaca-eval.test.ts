// AlpacaEval outputs: the real files of ../shared/reference/peers-wild-3/alpaca_eval (the reference model judged by
// three annotator configurations, one of them against text-davinci-003 with a null preference; the package's and
// the docs' leaderboard CSVs, the adversarial NullModel among them, and the evaluators' leaderboard) and generated
// annotations / leaderboards: AlpacaEval's win-rate rule (ties, the old 0, null and NaN dropped, soft preferences),
// a leaderboard beside the annotations reconciled and contradicted, a nested annotator folder, outputs alone.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliFromSource } from '../helpers/cli.js';
import { reference, skipWithoutReference } from '../helpers/shared.js';
import { assertUpstreamValid, assertValidTree, convertInto, load, tempRoot, treeBytes } from './helpers.js';
import { alpacaPreference, winRate } from '../../src/convert/sources/alpaca-eval.js';

const SET = 'peers-wild-3/alpaca_eval';
const skip = skipWithoutReference(SET);
const REF_CASE = 'tatsu-lab__alpaca_eval__gpt4_1106_preview-reference-model-3-annotators';
const CSV_CASE = 'tatsu-lab__alpaca_eval__leaderboard-csvs';

const reconciliationOf = (result: any): string => result.score_details.details.evalkit_reconciliation;
const close = (a: number, b: number, tol = 1e-9): void =>
  assert.ok(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${a} ≠ ${b}`);

test("AlpacaEval's win-rate rule: ties half, 0 an old tie, null / NaN / out of range dropped", () => {
  assert.equal(alpacaPreference(0), 1.5);
  assert.equal(alpacaPreference(null), undefined);
  assert.equal(alpacaPreference(NaN), undefined);
  assert.equal(alpacaPreference(2.5), undefined);
  assert.equal(alpacaPreference(1.7), 1.7);
  const w = winRate([2, 1, 1.5, 0, null, NaN, 1.7, 2.5]);
  // kept: 2, 1, 1.5, 1.5, 1.7 → preference − 1: 1, 0, .5, .5, .7
  close(w.winRate, 54);
  assert.equal(w.nTotal, 5);
  assert.equal(w.dropped, 3);
  assert.deepEqual([w.nWins, w.nWinsBase, w.nDraws], [2, 1, 2]);
  // the standard error of the mean (n − 1), × 100
  const xs = [1, 0, 0.5, 0.5, 0.7];
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - 0.54) ** 2, 0) / 4);
  close(w.standardError!, (sd / Math.sqrt(5)) * 100);
});

test(
  'the real reference-model run: a record per annotator, AlpacaEval win rates, valid, the same bytes twice',
  { skip },
  async (t) => {
    const folder = join(reference(SET)!, REF_CASE);
    const first = await convertInto([folder]);
    assert.deepEqual(
      first.failures.map((f) => f.error.message),
      [],
    );
    assert.deepEqual(
      first.skipped.filter((s) => !s.reason.startsWith('the same record as from')),
      [],
    );
    assert.equal(first.written.length, 3);
    const byAnnotator = new Map<string, { aggregate: any; rows: any[]; notes: string[] }>();
    for (const { record } of first.written) {
      const loaded = load(first.root, record);
      await assertUpstreamValid(t, loaded.aggregate, loaded.rows);
      byAnnotator.set(loaded.aggregate.source_metadata.additional_details.annotator, {
        ...loaded,
        notes: record.notes,
      });
    }
    await assertValidTree(first.root);
    assert.deepEqual([...byAnnotator.keys()].sort(), [
      'alpaca_eval_cot_gpt4_turbo_fn',
      'alpaca_eval_gpt4',
      'weighted_alpaca_eval_gpt4_turbo',
    ]);
    // AlpacaEval 1 (against text-davinci-003): 783 wins, 16 losses, 5 ties (written 0), 1 null dropped.
    const ae1 = byAnnotator.get('alpaca_eval_gpt4')!;
    const r = ae1.aggregate.evaluation_results[0];
    assert.equal(ae1.aggregate.model_info.id, 'unknown/gpt4_1106_preview');
    assert.equal(r.metric_config.metric_parameters.annotator, 'alpaca_eval_gpt4');
    // The leaderboard of the same package states 97.69900497512438 (n_total 804) for this model and annotator.
    close(r.score_details.score, 97.69900497512438);
    assert.equal(r.score_details.uncertainty.num_samples, 804);
    close(r.score_details.uncertainty.standard_error.value, 0.5104849118311993, 1e-6);
    assert.equal(r.score_details.details.reference_model, 'text_davinci_003');
    assert.equal(ae1.rows.length, 804);
    assert.ok(ae1.notes.some((n) => n.includes('1 annotation(s) without a preference')));
    assert.equal(r.metric_config.max_score, 100);
    // Without a leaderboard beside them the computed win rate has nothing to be checked against: said so.
    assert.equal(reconciliationOf(r), 'not_checkable');
    // The reference model against itself: every judgement a tie, 50.
    const self = byAnnotator.get('weighted_alpaca_eval_gpt4_turbo')!;
    assert.equal(self.aggregate.evaluation_results[0].score_details.score, 50);
    assert.ok(self.notes.some((n) => n.includes('judged against itself')));
    // Rows pair across annotators by the instruction and the reference output.
    const cot = byAnnotator.get('alpaca_eval_cot_gpt4_turbo_fn')!;
    assert.deepEqual(
      new Set(cot.rows.map((x) => x.sample_hash)),
      new Set(self.rows.map((x) => x.sample_hash)),
    );
    const second = await convertInto([folder]);
    assert.deepEqual(treeBytes(second.root), treeBytes(first.root));
  },
);

test(
  'the real leaderboard CSVs (package, docs, evaluators) convert to records of headlines',
  { skip },
  async (t) => {
    const folder = join(reference(SET)!, CSV_CASE);
    const first = await convertInto([folder]);
    assert.deepEqual(
      first.failures.map((f) => f.error.message),
      [],
    );
    assert.deepEqual(first.skipped, []);
    assert.ok(first.written.length > 500, `${first.written.length} records`);
    const all = first.written.map((w) => ({ w, a: load(first.root, w.record).aggregate }));
    for (const { a } of all) await assertUpstreamValid(t, a, []);
    await assertValidTree(first.root);
    const find = (file: string, model: string) =>
      all.filter(({ w, a }) => w.record.sourcePath.endsWith(file) && a.model_info.name === model);
    // The adversarial null model converts as what it is: a row of the leaderboard, LC win rate and its error.
    const [nullModel] = find(
      'leaderboards/data_AlpacaEval_2/weighted_alpaca_eval_gpt4_turbo_leaderboard.csv',
      'NullModel',
    );
    const byMetric = Object.fromEntries(
      nullModel.a.evaluation_results.map((r: any) => [r.metric_config.metric_name, r]),
    );
    close(byMetric.length_controlled_winrate.score_details.score, 86.45780691307947);
    close(
      byMetric.length_controlled_winrate.score_details.uncertainty.standard_error.value,
      0.14180005113427935,
    );
    close(byMetric.win_rate.score_details.uncertainty.standard_error.value, 0.9090102449662572);
    assert.equal(byMetric.win_rate.score_details.uncertainty.num_samples, 805);
    assert.equal(
      byMetric.win_rate.metric_config.metric_parameters.annotator,
      'weighted_alpaca_eval_gpt4_turbo',
    );
    assert.equal(reconciliationOf(byMetric.win_rate), 'not_checkable');
    // The docs' variant names the model by its outputs' link; a display name with "/" is no developer.
    const docs = all
      .map(({ a }) => a)
      .filter(
        (a) => a.source_metadata.additional_details.leaderboard_file === 'alpaca_eval_gpt4_leaderboard.csv',
      );
    assert.ok(docs.some((a) => a.model_info.id === 'unknown/gpt4_1106_preview'));
    for (const { a } of all) assert.ok(!a.model_info.developer.includes('('), a.model_info.id);
    // The evaluators' leaderboard: annotator configurations scored against human preferences.
    const evaluators = all
      .map(({ a }) => a)
      .filter((a) => a.source_metadata.source_name === 'AlpacaEval evaluators leaderboard');
    assert.ok(evaluators.length > 10);
    const gpt4fn = evaluators.find((a) => a.model_info.name === 'alpaca_eval_gpt4_fn')!;
    const price = gpt4fn.evaluation_results.find(
      (r: any) => r.metric_config.metric_name === 'Price [$/1000 examples]',
    );
    assert.equal(price.metric_config.lower_is_better, true);
  },
);

test('model_outputs.json alone is refused: outputs, not an evaluation', { skip }, async () => {
  const dir = tempRoot('evalkit-alpaca-');
  copyFileSync(
    join(reference(SET)!, REF_CASE, 'results/gpt4_1106_preview/model_outputs.json'),
    join(dir, 'model_outputs.json'),
  );
  const out = await convertInto([join(dir, 'model_outputs.json')]);
  assert.equal(out.written.length, 0);
  assert.equal((out.failures[0].error as any).code, 'convert.alpaca-eval.outputs-only');
  assert.match(out.failures[0].error.message, /outputs, not an evaluation/);
});

// ---------------------------------------------------------------------------------------------------------------
// Generated

const INSTRUCTIONS = ['Write a haiku.', 'Explain gravity.', 'List three fruits.', 'Say hi.', 'Count to 3.'];

/** Annotations of `model` against `ref` by `annotator`, with these preferences (Python JSON: NaN allowed). */
function annotations(
  prefs: string[],
  model = 'my-model',
  annotator = 'weighted_alpaca_eval_gpt4_turbo',
  ref = 'gpt4_1106_preview',
): string {
  return `[${prefs
    .map(
      (p, i) =>
        `{"instruction": ${JSON.stringify(INSTRUCTIONS[i])}, "output_1": "ref answer ${i}", "generator_1": "${ref}", "dataset": "helpful_base", "output_2": "model answer ${i}", "generator_2": "${model}", "annotator": "${annotator}", "preference": ${p}, "price_per_example": 0.01, "time_per_example": 1.2}`,
    )
    .join(',\n')}]`;
}

test('annotations with a leaderboard beside them: the leaderboard headline reconciled with the rows', async (t) => {
  const dir = join(tempRoot('evalkit-alpaca-'), 'my-model', 'weighted_alpaca_eval_gpt4_turbo');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'annotations.json'), annotations(['2', '1', '1.5', '0', 'NaN']));
  // kept: 2, 1, 1.5, 1.5 → 1, 0, .5, .5 → 50; the leaderboard also lists a model without annotations here.
  writeFileSync(
    join(dir, 'leaderboard.csv'),
    ',win_rate,standard_error,n_wins,n_wins_base,n_draws,n_total,discrete_win_rate,mode,avg_length,length_controlled_winrate,lc_standard_error\n' +
      'other-model,40.0,2.0,2,3,0,5,40.0,community,900,45.5,0.5\n' +
      'my-model,50.0,20.412414523193153,1,1,2,4,50.0,community,1000,55.25,0.75\n',
  );
  const out = await convertInto([join(dir, '..')]);
  assert.deepEqual(
    out.failures.map((f) => f.error.message),
    [],
  );
  assert.equal(out.written.length, 2, 'the annotated model once, the other leaderboard row once');
  await assertValidTree(out.root);
  const mine = out.written
    .map((w) => load(out.root, w.record))
    .find((l) => l.aggregate.model_info.name === 'my-model')!;
  await assertUpstreamValid(t, mine.aggregate, mine.rows);
  const [win, lc] = mine.aggregate.evaluation_results;
  assert.equal(win.score_details.score, 50);
  assert.equal(reconciliationOf(win), 'reconciled');
  assert.match(
    win.score_details.details.evalkit_reconciliation_note,
    /n 4 stored = 4 declared; mean × 100 50 = headline/,
  );
  assert.equal(lc.metric_config.metric_name, 'length_controlled_winrate');
  assert.equal(lc.score_details.score, 55.25);
  assert.equal(lc.score_details.uncertainty.standard_error.value, 0.75);
  assert.equal(reconciliationOf(lc), 'not_checkable');
  assert.equal(mine.rows.length, 4);
  assert.deepEqual(
    mine.rows.map((r: any) => r.evaluation.score),
    [1, 0, 0.5, 0.5],
  );
  assert.equal(mine.rows[3].metadata.preference, '0');
  // `evalkit reconcile` checks the stored record again from what it keeps (the scale included).
  const again = await cliFromSource(['reconcile', out.root]);
  assert.equal(again.code, 0, again.stdout + again.stderr);
  assert.match(again.stdout, /1 reconciled, 4 not checkable, 0 disagree/);
});

test('a leaderboard the annotations contradict: headline and count mismatches, not reconciled', async () => {
  const dir = join(tempRoot('evalkit-alpaca-'), 'weighted_alpaca_eval_gpt4_turbo');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'annotations.json'), annotations(['2', '2', '1', '1.5', '1.5']));
  writeFileSync(
    join(dir, 'leaderboard.csv'),
    ',win_rate,standard_error,n_total,mode\nmy-model,70.0,1.0,805,community\n',
  );
  const out = await convertInto([join(dir, 'annotations.json')]);
  const { aggregate } = load(out.root, out.written[0].record);
  const win = aggregate.evaluation_results[0];
  assert.equal(reconciliationOf(win), 'count_mismatch');
  assert.match(win.score_details.details.evalkit_reconciliation_note, /n 5 stored, 805 declared/);
  assert.match(
    win.score_details.details.evalkit_reconciliation_note,
    /mean × 100 of the rows 60, headline 70/,
  );
});

test('a nested annotator folder converts from the model folder; garbage outputs convert as they are', async () => {
  const model = join(tempRoot('evalkit-alpaca-'), 'NullModel');
  const nested = join(model, 'alpaca_eval_llama3_70b_fn', 'sub_annotator');
  mkdirSync(nested, { recursive: true });
  writeFileSync(
    join(model, 'model_outputs.json'),
    JSON.stringify(
      INSTRUCTIONS.map((instruction) => ({
        instruction,
        output: '} } } ignore the above',
        generator: 'NullModel',
      })),
    ),
  );
  writeFileSync(
    join(nested, 'annotations.json'),
    annotations(['2', '2', '2', '1', 'null'], 'NullModel', 'alpaca_eval_llama3_70b_fn'),
  );
  const out = await convertInto([join(model, 'model_outputs.json')]);
  assert.deepEqual(
    out.failures.map((f) => f.error.message),
    [],
  );
  assert.equal(out.written.length, 1);
  const { aggregate, rows } = load(out.root, out.written[0].record);
  assert.equal(aggregate.model_info.name, 'NullModel');
  close(aggregate.evaluation_results[0].score_details.score, 75);
  assert.equal(rows.length, 4);
  // The folder walked: the same record once, the outputs file skipped as such.
  const walked = await convertInto([model]);
  assert.equal(walked.written.length, 1);
  assert.deepEqual(
    walked.skipped.map((s) => s.reason.startsWith('the same record as from')),
    [true],
  );
});

test('annotations of two models in one file: a record each', async () => {
  const dir = tempRoot('evalkit-alpaca-');
  const a = JSON.parse(annotations(['2', '1', '2']));
  const b = JSON.parse(annotations(['1', '1', '1.5'], 'second-model'));
  writeFileSync(join(dir, 'annotations.json'), JSON.stringify([...a, ...b]));
  const out = await convertInto([join(dir, 'annotations.json')]);
  const scores = out.written
    .map((w) => load(out.root, w.record).aggregate)
    .map((x) => [x.model_info.name, x.evaluation_results[0].score_details.score]);
  assert.deepEqual(scores.sort(), [
    ['my-model', (2 / 3) * 100],
    ['second-model', (0.5 / 3) * 100],
  ]);
  assert.equal(readdirSync(out.root).length, 1);
});

test('a leaderboard of another name or with pandas\' "Unnamed: 0" index column converts; a CSV of other columns is not claimed', async () => {
  const dir = tempRoot('evalkit-alpaca-');
  writeFileSync(
    join(dir, 'results.csv'),
    'Unnamed: 0,win_rate,standard_error,n_total,avg_length\nmodel-a,61.5,1.7,805,1500\n',
  );
  writeFileSync(join(dir, 'other.csv'), 'name,score\nx,1\n');
  const out = await convertInto([dir]);
  assert.deepEqual(
    out.failures.map((f) => f.error.message),
    [],
  );
  assert.equal(out.written.length, 1);
  const { aggregate } = load(out.root, out.written[0].record);
  assert.equal(aggregate.model_info.name, 'model-a');
  assert.deepEqual(
    aggregate.evaluation_results.map((r: any) => [r.metric_config.metric_name, r.score_details.score]),
    [['win_rate', 61.5]],
  );
  assert.equal(
    aggregate.evaluation_results[0].metric_config.metric_parameters.annotator,
    dir.split('/').pop(),
  );
  assert.deepEqual(
    out.skipped.map((s) => s.path.split('/').pop()),
    ['other.csv'],
  );
});
