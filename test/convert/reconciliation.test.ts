// Reconciliation on a generated lm-eval run whose five tasks each show one outcome: rows that agree with the
// source (reconciled), fewer rows than the source counts (count_mismatch), rows whose mean is not the headline
// (headline_mismatch), two different docs with the same prompt and target (their shared sample_hash cannot pair
// them: keyed by sample_id, said in the note), and a metric lm-eval does not aggregate by a mean with no count
// (not_checkable). A key collision (one key, rows that are not distinct epochs) is shown on rows directly. Through the CLI: `convert` prints every disagreement
// (text and --format json) and stores the outcome in the record, `validate` reports the stored outcome, `ingest`
// reports it and `ingest --strict` refuses the record (exit 1).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { reconcileResult, RowTally } from '../../src/checks/reconciliation.js';
import { cli } from '../helpers/cli.js';
import { RECONCILE_TS, writeReconcileRun } from './reconcile-fixture.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-reconcile-'));
after(() => rmSync(temp, { recursive: true, force: true }));

const TS = RECONCILE_TS;

/** Five tasks, one outcome each (see the header). */
const writeRun = (dir: string, model = 'org/reconcile-model'): string =>
  writeReconcileRun(dir, model, {
    agree: { score: 0.75, n: 4, values: [1, 0, 1, 1] },
    short: { score: 0.5, n: 312, values: [1, 0, 1, 0, 1, 0, 1, 0] },
    off: { score: 0.5, n: 4, values: [1, 1, 1, 0] },
    dup: { score: 0.5, n: 4, values: [1, 0, 1, 0], samePrompt: [0, 1] },
    corpus: { score: 0.25, values: [0, 1], metric: 'bleu' },
  });

const run = writeRun(join(temp, 'run'));

test('convert: each result carries its outcome; every disagreement is printed (text and json)', async () => {
  const out = join(temp, 'converted');
  const json = await cli(['convert', run, '-o', out, '--format', 'json']);
  assert.equal(json.code, 0, json.stderr);
  const report = JSON.parse(json.stdout);
  const [record] = report.records;
  const byId = Object.fromEntries(record.reconciliation.map((r: any) => [r.evaluation_result_id, r]));
  assert.equal(byId['agree/acc,none'].outcome, 'reconciled');
  assert.equal(byId['agree/acc,none'].note, 'n 4 stored = 4 declared; mean 0.75 = headline');
  assert.equal(byId['short/acc,none'].outcome, 'count_mismatch');
  assert.equal(byId['short/acc,none'].note, 'n 8 stored, 312 declared');
  assert.equal(byId['off/acc,none'].outcome, 'headline_mismatch');
  assert.equal(byId['off/acc,none'].note, 'mean of the rows 0.75, headline 0.5');
  assert.equal(byId['dup/acc,none'].outcome, 'reconciled');
  assert.equal(
    byId['dup/acc,none'].note,
    'n 4 stored = 4 declared; mean 0.5 = headline; paired by sample_id: 4 samples share 3 sample_hash value(s)',
  );
  assert.equal(byId['corpus/bleu,none'].outcome, 'not_checkable');
  assert.match(
    byId['corpus/bleu,none'].note,
    /declares nothing to check against: no sample count; lm-eval aggregates bleu/,
  );

  // The record keeps the outcome, as strings.
  const aggregate = JSON.parse(readFileSync(join(out, record.aggregatePath), 'utf8'));
  const short = aggregate.evaluation_results.find((r: any) => r.evaluation_result_id === 'short/acc,none');
  assert.equal(short.score_details.details.evalkit_reconciliation, 'count_mismatch');
  assert.equal(short.score_details.details.evalkit_reconciliation_note, 'n 8 stored, 312 declared');

  const text = await cli(['convert', run, '-o', join(temp, 'converted-text')]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /reconciliation: 2 reconciled, 1 not checkable, 2 disagree with the source/);
  assert.match(text.stdout, /count_mismatch {2}short\/acc,none: n 8 stored, 312 declared/);
  assert.match(text.stdout, /headline_mismatch {2}off\/acc,none: mean of the rows 0\.75, headline 0\.5/);

  // validate reports the stored outcome of a record evalkit wrote.
  const validated = await cli(['validate', join(out, record.aggregatePath)]);
  assert.equal(validated.code, 0, validated.stdout);
  assert.match(validated.stdout, /reconciliation: 2 reconciled, 1 not checkable, 2 disagree with the source/);
  assert.match(validated.stdout, /count_mismatch {2}short\/acc,none: n 8 stored, 312 declared/);
  const validatedJson = JSON.parse(
    (await cli(['validate', '--format', 'json', join(out, record.aggregatePath)])).stdout,
  );
  assert.equal(validatedJson.reconciliation[0].results.length, 5);
});

test('ingest reports the disagreements; --strict refuses the record (exit 1)', async () => {
  const db = join(temp, 'store.duckdb');
  const ingest = await cli(['ingest', '--db', db, '--no-progress', run]);
  assert.equal(ingest.code, 0, ingest.stderr + ingest.stdout);
  assert.match(
    ingest.stdout,
    /short\/acc,none: count_mismatch: rows disagree with the source: n 8 stored, 312 declared/,
  );
  const strictDb = join(temp, 'strict.duckdb');
  const strict = await cli([
    'ingest',
    '--db',
    strictDb,
    '--no-progress',
    '--strict',
    '--format',
    'json',
    run,
  ]);
  assert.equal(strict.code, 1);
  const report = JSON.parse(strict.stdout);
  assert.equal(report.summary.records, 0);
  assert.equal(report.items[0].status, 'rejected');
  assert.match(report.items[0].reason, /^--strict: 2 result\(s\) disagree with the source/);
  // A record that reconciles (or cannot be checked) goes in under --strict.
  const fine = join(temp, 'fine');
  mkdirSync(fine);
  for (const name of [`results_${TS}.json`, `samples_agree_${TS}.jsonl`]) {
    let text = readFileSync(join(temp, 'run', name), 'utf8');
    if (name.startsWith('results')) {
      const doc = JSON.parse(text);
      for (const k of ['results', 'n-samples', 'configs'])
        doc[k] = Object.fromEntries(Object.entries(doc[k]).filter(([t]) => t === 'agree'));
      text = JSON.stringify(doc);
    }
    writeFileSync(join(fine, name), text);
  }
  const ok = await cli(['ingest', '--db', strictDb, '--no-progress', '--strict', fine]);
  assert.equal(ok.code, 0, ok.stdout);
});

test('the checks: epochs are not collisions; keys without an epoch are; the headline to 1e-9 relative', () => {
  const tally = new RowTally();
  const row = (hash: string, epoch: number | null, value: number) =>
    tally.add({ evaluation_result_id: 'r', sample_hash: hash, sample_id: hash, epoch, value });
  for (const e of [1, 2, 3]) row('a', e, e === 1 ? 1 : 0);
  for (const e of [1, 2, 3]) row('b', e, 1);
  const result = (score: number) => ({
    evaluation_result_id: 'r',
    evaluation_name: 't',
    metric_config: { metric_name: 'accuracy' },
    score_details: { score },
  });
  // (1/3 + 1) / 2 = 2/3: two samples, each its epochs' mean.
  const ok = reconcileResult(result(2 / 3), tally, { n: 2, headline: 'mean' });
  assert.equal(ok.outcome, 'reconciled', ok.note);
  assert.equal(reconcileResult(result(2 / 3 + 1e-12), tally, { headline: 'mean' }).outcome, 'reconciled');
  assert.equal(
    reconcileResult(result(2 / 3 + 1e-6), tally, { headline: 'mean' }).outcome,
    'headline_mismatch',
  );
  row('b', 3, 1); // epoch 3 of b again: not an epoch of its own
  assert.equal(reconcileResult(result(2 / 3), tally, { n: 2, headline: 'mean' }).outcome, 'key_collision');
  const none = reconcileResult(result(0.5), tally, undefined);
  assert.equal(none.outcome, 'key_collision');
  const empty = reconcileResult(
    { ...result(0.5), evaluation_result_id: 'other', evaluation_name: 'u' },
    tally,
    { n: 3 },
  );
  assert.deepEqual(
    [empty.outcome, empty.note],
    ['not_checkable', 'no instance rows for this result (3 declared by the source)'],
  );
});

test('reconcile re-checks a folder of records and a store; a row changed after the fact shows', async () => {
  const out = join(temp, 'recheck');
  const converted = JSON.parse((await cli(['convert', run, '-o', out, '--format', 'json'])).stdout);
  const folder = await cli(['reconcile', out, '--format', 'json']);
  assert.equal(folder.code, 1, folder.stderr);
  const report = JSON.parse(folder.stdout);
  assert.deepEqual(
    { ...report.summary },
    { records: 1, results: 5, reconciled: 2, not_checkable: 1, disagreement: 2, changed: 0, lost: 0 },
  );
  const db = join(temp, 'recheck.duckdb');
  assert.equal((await cli(['ingest', '--db', db, '--no-progress', run])).code, 0);
  const stored = await cli(['reconcile', '--db', db, '--format', 'json']);
  assert.deepEqual(JSON.parse(stored.stdout).summary, report.summary);
  const text = await cli(['reconcile', '--db', db]);
  assert.match(text.stdout, /count_mismatch +n 8 stored, 312 declared/);
  assert.match(
    text.stdout,
    /1 record\(s\), 5 result\(s\): 2 reconciled, 1 not checkable, 2 disagree with the source/,
  );

  // One row of the reconciled task dropped from the samples file: the check no longer agrees with the record.
  const samples = join(out, converted.records[0].samplesPath);
  const lines = readFileSync(samples, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const agree = lines.findIndex((l) => l.includes('"agree/acc,none"'));
  writeFileSync(samples, `${lines.filter((_, i) => i !== agree).join('\n')}\n`);
  const tampered = JSON.parse((await cli(['reconcile', out, '--format', 'json'])).stdout);
  const row = tampered.results.find((r: any) => r.evaluation_result_id === 'agree/acc,none');
  assert.deepEqual([row.outcome, row.stored_outcome, row.changed], ['count_mismatch', 'reconciled', true]);
  assert.match(row.note, /^n 3 stored, 4 declared; mean of the rows 0\.666/);
});

test('leaderboard and compare mark a result whose rows disagree with the source', async () => {
  const db = join(temp, 'marked.duckdb');
  for (const model of ['org/model-a', 'org/model-b'])
    assert.equal(
      (await cli(['ingest', '--db', db, '--no-progress', writeRun(join(temp, model), model)])).code,
      0,
    );
  const board = await cli(['leaderboard', '--db', db, '--benchmark', 'short']);
  assert.match(board.stdout, / 8 ! /);
  assert.match(board.stdout, /! org\/model-a: rows disagree with the source: n 8 stored, 312 declared/);
  const agree = await cli(['leaderboard', '--db', db, '--benchmark', 'agree']);
  assert.doesNotMatch(agree.stdout, /disagree/);
  const json = JSON.parse(
    (await cli(['leaderboard', '--db', db, '--benchmark', 'short', '--format', 'json'])).stdout,
  );
  assert.equal(
    json.leaderboards[0].rows[0].disagreement,
    'rows disagree with the source: n 8 stored, 312 declared',
  );
  const compare = await cli(['compare', '--db', db, 'org/model-a', 'org/model-b', '--benchmark', 'short']);
  assert.equal(compare.code, 0, compare.stderr);
  assert.match(compare.stdout, /! A: rows disagree with the source: n 8 stored, 312 declared/);
  assert.match(compare.stdout, /! B: rows disagree with the source: n 8 stored, 312 declared/);
  const compared = JSON.parse(
    (
      await cli([
        'compare',
        '--db',
        db,
        'org/model-a',
        'org/model-b',
        '--benchmark',
        'agree',
        '--format',
        'json',
      ])
    ).stdout,
  );
  assert.deepEqual(
    [compared.comparisons[0].disagreement_a, compared.comparisons[0].disagreement_b],
    [null, null],
  );
});
