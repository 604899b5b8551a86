// `evalkit run` survives its judge and its models (issue 39 item 4, issue 40 item 5): a metric no sample has a value
// for (a judge that never answers in format, every answer failed) is still a result of the record, marked missing
// with its reason; every row's evaluation_result_id resolves; the record validates, is stored, and the run goes on
// to the next model with exit code 1. Its records declare their facts, so `reconcile` checks them. A real local
// OpenAI-compatible server answers; the store is a real DuckDB file.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { startProviderServer, type ProviderServer, type Script } from '../helpers/provider-server.js';
import { openaiRun, recordsUnder, requestKey, resultOf, writeTask, type WrittenRecord } from './helpers.js';

let server: ProviderServer;
let dir: string;
before(async () => {
  server = await startProviderServer();
  dir = mkdtempSync(join(tmpdir(), 'evalkit-run-robust-'));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const runArgs = (task: string, out: string, models: string[], extra: string[] = []): string[] =>
  openaiRun(
    task,
    server.openaiBaseUrl,
    out,
    ['--max-attempts', '2', '--retry-base-ms', '1', '--judge-model', 'judge', '--format', 'json', ...extra],
    models,
  );

const SAMPLES = Array.from({ length: 20 }, (_, i) => ({
  id: `s${String(i + 1).padStart(2, '0')}`,
  input: `Name the colour number ${i + 1}.`,
  target: `colour ${i + 1}`,
}));

function judgedTask(name: string, epochs = 1): string {
  return writeTask(
    join(dir, name),
    name,
    [
      `name: ${name}`,
      `dataset: {path: ${name}.jsonl}`,
      ...(epochs > 1 ? [`epochs: ${epochs}`] : []),
      'scorers:',
      '  - includes',
      '  - {model_graded: {grades: {C: 1, I: 0}}}',
      '',
    ].join('\n'),
    SAMPLES,
  );
}

/** Off format for 30 % of the samples (6 of 20, chosen by a hash of the sample id), else a verdict. */
const offFormat = (sample: string): boolean => {
  const ranked = [...SAMPLES]
    .map((s) => s.id)
    .sort((a, b) => (hashOf(a) < hashOf(b) ? -1 : 1))
    .slice(0, 6);
  return ranked.includes(sample);
};
const hashOf = (s: string): string => createHash('sha256').update(s).digest('hex');

/** The model answers its sample's target (beta: the odd samples wrong); the judge as `judge` says. */
const script =
  (judge: (sample: string, answer: string) => string, failing: string[] = []): Script =>
  (ctx) => {
    const key = requestKey(ctx.sampleId);
    if (ctx.body.model === 'judge') {
      const answer = /\[Submitted answer\]\n(.*)/.exec(ctx.user)?.[1] ?? '';
      return { text: judge(key.sample, answer) };
    }
    if (failing.includes(ctx.body.model)) return { status: 400, message: 'model not found' };
    const i = Number(key.sample.slice(1));
    return { text: ctx.body.model === 'beta' && i % 2 === 1 ? 'no idea' : `It is colour ${i}.` };
  };

const verdict = (answer: string): string => `GRADE: ${/colour/.test(answer) ? 'C' : 'I'}`;

/** Every row names a result of its record. */
function assertRowsResolve(rec: WrittenRecord): void {
  const ids = new Set(rec.aggregate.evaluation_results.map((r: any) => r.evaluation_result_id));
  for (const row of rec.rows) assert.ok(ids.has(row.evaluation_result_id), row.evaluation_result_id);
}

test('a judge off format for 30 % of the samples: the metric is the mean of the rest; records valid, stored and reconciled', async () => {
  const task = judgedTask('colours30');
  server.setScript(
    script((sample, answer) => (offFormat(sample) ? 'It looks fine to me.' : verdict(answer))),
  );
  const out = join(dir, 'out30');
  const db = join(dir, 'out30.duckdb');
  const result = await cli(runArgs(task, out, ['alpha', 'beta'], ['--db', db]));
  assert.equal(result.code, 1, result.stdout + result.stderr);
  const outcomes = JSON.parse(result.stdout);
  assert.deepEqual(
    outcomes.map((o: any) => [o.model, o.db, o.not_stored]),
    [
      ['alpha', db, undefined],
      ['beta', db, undefined],
    ],
  );
  const records = recordsUnder(out);
  for (const model of ['unknown/alpha', 'unknown/beta']) {
    const rec = records.get(model)!;
    assertRowsResolve(rec);
    const graded = resultOf(rec, 'model_graded');
    assert.equal(graded.score_details.uncertainty.num_samples, 14);
    assert.equal(graded.score_details.details.samples_without_value, '6');
    assert.equal(graded.score_details.details.score_missing, undefined);
  }
  // beta answers the odd samples wrong: the mean over the 14 judged samples, counted here from the rows' ids.
  const beta = records.get('unknown/beta')!;
  const judged = SAMPLES.map((s) => s.id).filter((id) => !offFormat(id));
  const right = judged.filter((id) => Number(id.slice(1)) % 2 === 0).length;
  assert.ok(Math.abs(resultOf(beta, 'model_graded').score_details.score - right / 14) < 1e-12);

  const validate = await cli(['validate', join(out, 'data')]);
  assert.equal(validate.code, 0, validate.stdout + validate.stderr);
  // Its own runs reconcile: the count of samples and the mean of the rows (unscored rows left out) are checked.
  for (const args of [['--db', db], [join(out, 'data')]]) {
    const reconciled = await cli(['reconcile', ...args, '--all', '--format', 'json']);
    assert.equal(reconciled.code, 0, reconciled.stdout + reconciled.stderr);
    const text = reconciled.stdout;
    assert.doesNotMatch(text, /"outcome": "not_checkable"/, text);
    assert.equal(text.match(/"outcome": "reconciled"/g)?.length, 4, text);
  }
});

test('a judge that never answers in format, and a model whose every answer fails: the metrics are results without a value, the records are stored, the next model runs (exit 1)', async () => {
  const task = judgedTask('colours0', 2);
  // gamma's every answer fails; alpha's judge never answers in format; beta runs after both.
  server.setScript(script(() => 'I would rather not say.', ['gamma']));
  const out = join(dir, 'out0');
  const db = join(dir, 'out0.duckdb');
  // (Without a stop after failures in a row: gamma's failures are the case here, not the guard's.)
  const result = await cli(
    runArgs(task, out, ['gamma', 'alpha', 'beta'], ['--db', db, '--max-consecutive-failures', '0']),
  );
  assert.equal(result.code, 1, result.stdout + result.stderr);
  assert.doesNotMatch(result.stderr, /not stored/);
  const outcomes = JSON.parse(result.stdout);
  assert.deepEqual(
    outcomes.map((o: any) => o.model),
    ['gamma', 'alpha', 'beta'],
  );
  for (const o of outcomes) assert.equal(o.db, db, JSON.stringify(o));
  const graded = (o: any) => o.scores.find((s: any) => s.scorer === 'model_graded');
  assert.equal(graded(outcomes[1]).score, null);
  assert.match(
    graded(outcomes[1]).missing,
    /^no sample has a value: 40 × the judge's reply has no "GRADE: X"/,
  );

  const records = recordsUnder(out);
  for (const [model, scorers] of [
    ['unknown/gamma', ['includes', 'model_graded']],
    ['unknown/alpha', ['model_graded']],
    ['unknown/beta', ['model_graded']],
  ] as const) {
    const rec = records.get(model)!;
    assertRowsResolve(rec);
    for (const scorer of scorers) {
      const r = resultOf(rec, scorer);
      assert.equal(r.score_details.details.score_missing, 'true', `${model} ${scorer}`);
      assert.equal(r.score_details.uncertainty.num_samples, 0);
      assert.equal(r.score_details.details.samples_without_value, '20');
    }
  }
  assert.match(
    resultOf(records.get('unknown/gamma')!, 'includes').score_details.details.score_missing_reason,
    /^no sample has a value: 40 × the answer failed \(/,
  );
  assert.match(
    resultOf(records.get('unknown/alpha')!, 'model_graded').score_details.details.score_missing_reason,
    /no "GRADE: X"/,
  );
  // The metrics that have values are untouched.
  assert.equal(resultOf(records.get('unknown/alpha')!, 'includes').score_details.score, 1);
  assert.equal(resultOf(records.get('unknown/beta')!, 'includes').score_details.score, 0.5);

  const validate = await cli(['validate', join(out, 'data')]);
  assert.equal(validate.code, 0, validate.stdout + validate.stderr);
  // The leaderboard lists the values there are, never the placeholder of a metric without one.
  const board = await cli(['leaderboard', '--db', db, '--format', 'json']);
  assert.equal(board.code, 0, board.stdout + board.stderr);
  const boards = JSON.parse(board.stdout).leaderboards as { metric: string; rows: { model_id: string }[] }[];
  const listed = boards.flatMap((b) => b.rows.map((r) => `${b.metric} ${r.model_id}`)).sort();
  assert.deepEqual(listed, ['includes unknown/alpha', 'includes unknown/beta']);
});

/** The (epochs, samples) of the model's record file and of its stored copy, and how many copies the store has. */
async function filesAndStore(out: string, db: string, model: string) {
  const rec = recordsUnder(out).get(model)!;
  const fileShape = {
    epochs: rec.aggregate.evaluation_results[0].generation_config.additional_details.epochs,
    rows: rec.rows.length,
    evaluation_id: rec.aggregate.evaluation_id,
  };
  const q = await cli([
    'query',
    '--db',
    db,
    '--format',
    'json',
    `SELECT r.evaluation_id, r.sample_count AS rows,
       json_extract_string(r.raw, '$.evaluation_results[0].generation_config.additional_details.epochs') AS epochs
     FROM records r WHERE r.model_id = '${model}'`,
  ]);
  assert.equal(q.code, 0, q.stdout + q.stderr);
  const stored = JSON.parse(q.stdout).rows as { evaluation_id: string; rows: number; epochs: string }[];
  assert.equal(stored.length, 1, JSON.stringify(stored));
  return {
    file: fileShape,
    store: { epochs: stored[0].epochs, rows: Number(stored[0].rows), evaluation_id: stored[0].evaluation_id },
  };
}

test('a rerun with more epochs or more samples replaces the record file and the stored copy alike; a less complete one leaves both, and says so', async () => {
  const task = writeTask(
    join(dir, 'rerun'),
    'rerun',
    'name: rerun\ndataset: {path: rerun.jsonl}\nscorers: [includes]\n',
    SAMPLES.slice(0, 6),
  );
  server.setScript(script(verdict));
  const out = join(dir, 'rerun-out');
  const db = join(dir, 'rerun.duckdb');
  const rerun = async (extra: string[]) => {
    const args = runArgs(task, out, ['acme/alpha'], ['--db', db, ...extra]).filter(
      (a, i, all) => a !== '--judge-model' && all[i - 1] !== '--judge-model',
    );
    const r = await cli([...args.filter((a) => a !== 'json' && a !== '--format')]);
    return r;
  };
  const expectShape = async (epochs: number, rows: number) => {
    const shape = await filesAndStore(out, db, 'acme/alpha');
    assert.deepEqual(shape.file, { ...shape.file, epochs: String(epochs), rows });
    assert.deepEqual(shape.store, {
      epochs: String(epochs),
      rows,
      evaluation_id: shape.file.evaluation_id,
    });
  };
  // The issue's case: --epochs 3 after --epochs 2.
  let r = await rerun(['--epochs', '2']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  await expectShape(2, 12);
  r = await rerun(['--epochs', '3']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /stored in /);
  await expectShape(3, 18);
  // Its epochs reconcile too: 6 samples (each of 3 epochs) against the 6 run, the mean over samples of their mean.
  for (const args of [['--db', db], [join(out, 'data')]]) {
    const reconciled = await cli(['reconcile', ...args, '--all', '--format', 'json']);
    assert.equal(reconciled.code, 0, reconciled.stdout + reconciled.stderr);
    assert.match(
      reconciled.stdout,
      /"outcome": "reconciled",\s*"note": "n 6 stored = 6 declared; mean [\d.]+ = headline"/,
    );
  }
  // Fewer epochs again: the more complete copy stays in both places, and the output says so (not "stored").
  r = await rerun(['--epochs', '2']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.doesNotMatch(r.stdout, /stored in /);
  assert.match(
    r.stderr,
    /is kept: it holds a more complete copy of this run \(complete, 18 scored answers; this run: complete, 12 scored answers\)/,
  );
  await expectShape(3, 18);

  // The variant: more samples through --limit (a partial run continued), then fewer.
  const out2 = join(dir, 'rerun-out2');
  const db2 = join(dir, 'rerun2.duckdb');
  const limited = async (limit: string) => {
    const r2 = await cli([
      'run',
      task,
      '--provider',
      'openai',
      '--model',
      'acme/alpha',
      '--base-url',
      server.openaiBaseUrl,
      '-o',
      out2,
      '--db',
      db2,
      '--epochs',
      '2',
      '--limit',
      limit,
    ]);
    assert.equal(r2.code, 0, r2.stdout + r2.stderr);
    return [r2, await filesAndStore(out2, db2, 'acme/alpha')] as const;
  };
  let [r2, shape] = await limited('2');
  assert.deepEqual([shape.file.rows, shape.store.rows], [4, 4]);
  [r2, shape] = await limited('5');
  assert.match(r2.stdout, /stored in /);
  assert.deepEqual([shape.file.rows, shape.store.rows], [10, 10]);
  [r2, shape] = await limited('3');
  assert.match(r2.stderr, /is kept: it holds a more complete copy/);
  assert.deepEqual([shape.file.rows, shape.store.rows], [10, 10]);
});

test('a record the store refuses is named with the reason: the validator errors, each with its code and place', async () => {
  const { openStore } = await import('../../src/store/db.js');
  const { ingestPaths } = await import('../../src/store/ingest.js');
  const { refusalReason } = await import('../../src/cli/commands/run.js');
  // The issue's record: rows naming a result the aggregate left out (made here by removing the result).
  const task = writeTask(
    join(dir, 'refused'),
    'refused',
    'name: refused\ndataset: {path: refused.jsonl}\nscorers: [includes]\n',
    SAMPLES.slice(0, 2),
  );
  server.setScript(script(verdict));
  const out = join(dir, 'refused-out');
  const ran = await cli(runArgs(task, out, ['acme/alpha']));
  assert.equal(ran.code, 0, ran.stdout + ran.stderr);
  const rec = recordsUnder(out).get('acme/alpha')!;
  rec.aggregate.evaluation_results[0].evaluation_result_id = 'refused.other';
  writeFileSync(rec.path, JSON.stringify(rec.aggregate));
  const store = await openStore(join(dir, 'refused.duckdb'), { readOnly: false });
  try {
    const ingested = await ingestPaths(store, [rec.path], { cwd: out });
    const item = ingested.items.find((i) => i.status === 'rejected')!;
    assert.ok(item, JSON.stringify(ingested.items));
    const reason = refusalReason(ingested, item);
    assert.match(reason, /\.jsonl:\d+:\d+ error eee\.evaluation-result-id /, reason);
    assert.doesNotMatch(reason, /no reason/);
  } finally {
    store.close();
  }
});
