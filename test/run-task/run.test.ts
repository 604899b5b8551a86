// `evalkit run` end to end, in process, against a real local OpenAI-compatible server that answers by rule and
// misbehaves (429, 503, a garbage body): every scorer, several models in one command, errors left out of n, a judge
// that fails, epochs with each reducer, the records valid, and `compare` of two models paired on every sample with
// its statistics checked against values computed here from the raw rows.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { openStore } from '../../src/store/db.js';
import { writeResultItems } from '../../src/store/result-items.js';
import { startProviderServer, type ProviderServer, type Script } from '../helpers/provider-server.js';
import { openaiRun, readTree, recordsUnder, requestKey, resultOf, writeTask } from './helpers.js';

let server: ProviderServer;
let dir: string;
before(async () => {
  server = await startProviderServer();
  dir = mkdtempSync(join(tmpdir(), 'evalkit-run-task-'));
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
    ['--max-attempts', '3', '--retry-base-ms', '1', '--concurrency', '4', ...extra],
    models,
  );

/** Answers by (model, sample id, epoch) from a table; anything else is a scripted 500. */
const byTable =
  (answers: (model: string, sample: string, epoch: number, attempt: number) => ReturnType<Script>): Script =>
  (ctx) => {
    const key = requestKey(ctx.sampleId);
    return answers(ctx.body.model, key.sample, key.epoch, ctx.attempt);
  };

const ARITH = [
  { id: 'q1', x: 12, y: 30 },
  { id: 'q2', x: 7, y: 8 },
  { id: 'q3', x: 25, y: 25 },
  { id: 'q4', x: 19, y: 23 },
  { id: 'q5', x: 33, y: 44 },
  { id: 'q6', x: 60, y: 9 },
].map((r) => ({ ...r, question: `What is ${r.x} + ${r.y}?`, answer: r.x + r.y }));

test('match, includes, pattern and numeric on two models; a 429 and a 503 are retried, a garbage body is an error left out of n (exit 1)', async () => {
  const task = writeTask(
    join(dir, 'arith'),
    'arith',
    [
      'name: arith',
      'dataset: {path: arith.jsonl, input: question, target: answer}',
      'system: Answer with the number only.',
      'scorers:',
      '  - match',
      '  - includes',
      '  - {pattern: {regex: "ANSWER: *(\\\\d+)", name: extracted}}',
      '  - {numeric: {tolerance: 0}}',
      'generation: {temperature: 0, max_tokens: 32, seed: 7}',
      '',
    ].join('\n'),
    ARITH,
  );
  const row = (id: string) => ARITH.find((r) => r.id === id)!;
  server.setScript(
    byTable((model, id, _epoch, attempt) => {
      const r = row(id);
      if (model === 'alpha') {
        if (id === 'q3' && attempt === 1) return { status: 429, retryAfterMs: 5 };
        if (id === 'q4' && attempt === 1) return { status: 503 };
        return { text: id === 'q2' ? `${r.answer}.` : `ANSWER: ${r.answer}` };
      }
      if (id === 'q6') return { malformed: true };
      return { text: `I think ${r.answer + (r.x % 3 === 0 ? 1 : 0)}` };
    }),
  );
  const first = server.requests.length;
  const out = join(dir, 'arith-out');
  const result = await cli([...runArgs(task, out, ['alpha', 'beta']), '--format', 'json']);
  assert.equal(result.code, 1, result.stderr);
  const summary = JSON.parse(result.stdout);
  assert.equal(summary.length, 2);
  const sent = server.requests.slice(first);
  // The seed and the decoding are sent as the task says.
  assert.equal(sent[0].body.seed, 7);
  assert.equal(sent[0].body.max_tokens, 32);
  assert.equal(sent[0].body.messages[0].content, 'Answer with the number only.');
  assert.ok(
    sent.some((r) => r.body.model === 'alpha' && r.attempt === 2 && requestKey(r.sampleId).sample === 'q3'),
  );
  assert.ok(
    sent.some((r) => r.body.model === 'alpha' && r.attempt === 2 && requestKey(r.sampleId).sample === 'q4'),
  );
  assert.equal(
    sent.filter((r) => r.body.model === 'beta' && requestKey(r.sampleId).sample === 'q6').length,
    3,
  );

  const records = recordsUnder(out);
  const alpha = records.get('unknown/alpha')!;
  const beta = records.get('unknown/beta')!;
  assert.ok(alpha && beta, [...records.keys()].join());
  // Expected values, by the scorers' definitions, from the answers above.
  const expectAlpha = { match: 1 / 6, includes: 1, extracted: 5 / 6, numeric: 1 };
  for (const [metric, score] of Object.entries(expectAlpha)) {
    const r = resultOf(alpha, metric);
    assert.ok(Math.abs(r.score_details.score - score) < 1e-12, `alpha ${metric}: ${r.score_details.score}`);
    assert.equal(r.score_details.uncertainty.num_samples, 6);
    assert.equal(r.metric_config.min_score, 0);
    assert.equal(r.metric_config.max_score, 1);
    assert.equal(r.metric_config.lower_is_better, false);
    assert.equal(r.generation_config.generation_args.temperature, 0);
    assert.deepEqual(JSON.parse(r.generation_config.generation_args.prompt_template), [
      { role: 'system', content: 'Answer with the number only.' },
      { role: 'user', content: '{{input}}' },
    ]);
    assert.equal(r.generation_config.additional_details.seed, '7');
  }
  // Binary values get Wilson's interval, which never collapses to a point: 6 of 6 right is [n / (n + z²), 1], and
  // 1 of 6 is the closed form (p + z²/2n ± z·√(p(1−p)/n + z²/4n²)) / (1 + z²/n).
  const z = 1.959963984540054;
  const allRight = resultOf(alpha, 'includes').score_details.uncertainty.confidence_interval;
  assert.ok(Math.abs(allRight.lower - 6 / (6 + z * z)) < 1e-12, String(allRight.lower));
  assert.equal(allRight.upper, 1);
  assert.match(allRight.method, /Wilson/);
  const p1 = 1 / 6;
  const centre = (p1 + (z * z) / 12) / (1 + (z * z) / 6);
  const half = (z * Math.sqrt((p1 * (1 - p1)) / 6 + (z * z) / 144)) / (1 + (z * z) / 6);
  const oneRight = resultOf(alpha, 'match').score_details.uncertainty.confidence_interval;
  assert.ok(Math.abs(oneRight.lower - (centre - half)) < 1e-12, String(oneRight.lower));
  assert.ok(Math.abs(oneRight.upper - (centre + half)) < 1e-12, String(oneRight.upper));
  // beta: q6 failed, so n = 5; of q1..q5 it answered 43, 15, 50, 42, 78.
  const expectBeta = { match: 0, includes: 3 / 5, extracted: 0, numeric: 3 / 5 };
  for (const [metric, score] of Object.entries(expectBeta)) {
    const r = resultOf(beta, metric);
    assert.ok(Math.abs(r.score_details.score - score) < 1e-12, `beta ${metric}: ${r.score_details.score}`);
    assert.equal(r.score_details.uncertainty.num_samples, 5);
  }
  const numeric = resultOf(beta, 'numeric').score_details.uncertainty;
  const values = [0, 1, 1, 1, 0];
  const sd = Math.sqrt(values.reduce((s, v) => s + (v - 0.6) ** 2, 0) / 4);
  assert.ok(Math.abs(numeric.standard_error.value - sd / Math.sqrt(5)) < 1e-12);
  // One row per (sample, scorer); the failed answer's rows carry the error and no output.
  assert.equal(beta.rows.length, 6 * 4);
  const failed = beta.rows.filter((r) => r.sample_id.startsWith('q6'));
  assert.equal(failed.length, 4);
  for (const r of failed) {
    assert.match(r.error, /after 3 attempts/);
    assert.deepEqual(r.output.raw, ['']);
    assert.equal(r.metadata.score_missing, 'true');
  }
  // Both models' rows pair by sample_hash, which depends on the task and the row only.
  const hashes = (rec: typeof alpha) => rec.rows.map((r) => `${r.sample_id} ${r.sample_hash}`).sort();
  assert.deepEqual(hashes(alpha), hashes(beta));
  assert.equal(alpha.rows.find((r) => r.sample_id === 'q1/match').input.raw, 'What is 12 + 30?');

  const validate = await cli(['validate', join(out, 'data')]);
  assert.equal(validate.code, 0, validate.stdout + validate.stderr);
  // In the store the failed rows are no scored rows either: beta's n and mean are the record's (5 samples, not 6
  // with the failure counted as wrong), and the rows agree with the record's figures.
  const db = join(dir, 'arith.duckdb');
  const ingested = await cli(['ingest', join(out, 'data'), '--db', db]);
  assert.equal(ingested.code, 0, ingested.stdout + ingested.stderr);
  const board = await cli(['leaderboard', '--db', db, '--metric', 'numeric', '--format', 'json']);
  assert.equal(board.code, 0, board.stdout + board.stderr);
  const entries = JSON.parse(board.stdout).leaderboards[0].rows as {
    model_id: string;
    n: number;
    score: number;
  }[];
  const betaEntry = entries.find((e) => e.model_id === 'unknown/beta')!;
  assert.equal(betaEntry.n, 5);
  assert.ok(Math.abs(betaEntry.score - 3 / 5) < 1e-12, String(betaEntry.score));
  // compare pairs the samples both models have a value for: q6 failed for beta, so 5 pairs, beta's mean 3/5.
  const numericPair = async () => {
    const compared = await cli([
      'compare',
      'unknown/alpha',
      'unknown/beta',
      '--db',
      db,
      '--metric',
      'numeric',
      '--format',
      'json',
    ]);
    assert.equal(compared.code, 0, compared.stdout + compared.stderr);
    return JSON.parse(compared.stdout).comparisons[0] as {
      n_paired: number;
      n_unpaired_a: number;
      mean_b: number;
    };
  };
  const pair = await numericPair();
  assert.equal(pair.n_paired, 5);
  assert.equal(pair.n_unpaired_a, 1);
  assert.ok(Math.abs(pair.mean_b - 3 / 5) < 1e-12, String(pair.mean_b));
  const reconciled = await cli(['reconcile', '--db', db, '--format', 'json']);
  assert.equal(reconciled.code, 0, reconciled.stdout + reconciled.stderr);
  // The store gives the failed rows back as they were written (their placeholder score kept).
  const failedRowsStored = async () => {
    const stored = await cli([
      'query',
      '--db',
      db,
      '--format',
      'json',
      `SELECT raw FROM sample_rows WHERE model_id = 'unknown/beta' AND sample_id LIKE 'q6/%' ORDER BY sample_id`,
    ]);
    assert.equal(stored.code, 0, stored.stdout + stored.stderr);
    return (JSON.parse(stored.stdout).rows as { raw: string }[]).map((r) =>
      typeof r.raw === 'string' ? JSON.parse(r.raw) : r.raw,
    );
  };
  const failedSorted = [...failed].sort((x, y) => (x.sample_id < y.sample_id ? -1 : 1));
  assert.deepEqual(await failedRowsStored(), failedSorted);
  // A store written by an evalkit that kept the placeholder in the columns (made here by moving it back) paired
  // the failure as a wrong answer; the next ingest into it repairs the rows and the record's items.
  const old = await openStore(db, { readOnly: false });
  try {
    await old.connection.run(
      `UPDATE samples SET score = CAST(json_extract(raw, '$.evaluation.score') AS DOUBLE),
         is_correct = CAST(json_extract(raw, '$.evaluation.is_correct') AS BOOLEAN),
         raw = json_merge_patch(raw, '{"evaluation": {"score": null, "is_correct": null}}')
       WHERE json_extract_string(raw, '$.metadata.score_missing') = 'true'`,
    );
    for (const { record_key } of await old.all<{ record_key: string }>('SELECT record_key FROM records')) {
      for (const table of ['result_items', 'result_item_sets'])
        await old.connection.run(`DELETE FROM ${table} WHERE record_key = $1`, [record_key]);
      await writeResultItems(old.connection, record_key);
    }
  } finally {
    old.close();
  }
  assert.equal((await numericPair()).n_paired, 6, 'the old layout pairs the failure');
  assert.equal((await cli(['ingest', join(out, 'data'), '--db', db])).code, 0);
  const repaired = await numericPair();
  assert.deepEqual([repaired.n_paired, repaired.mean_b], [pair.n_paired, pair.mean_b]);
  assert.deepEqual(await failedRowsStored(), failedSorted);
  // The key is never written: the server saw it, the records and journals do not hold it.
  const again = await cli([...runArgs(task, out, ['alpha']), '--format', 'json']);
  assert.equal(again.code, 0);
  assert.equal(JSON.parse(again.stdout)[0].status, 'unchanged');
  assert.equal(JSON.parse(again.stdout)[0].run.called, 0);
});

test('choice and json scorers', async () => {
  const mc = writeTask(
    join(dir, 'mc'),
    'mc',
    'name: mc\ndataset: {path: mc.jsonl, input: q, target: a, choices: options}\nscorers: [choice]\n',
    [
      { id: 'm1', q: 'Colour of grass?', options: ['red', 'green', 'blue', 'yellow'], a: 'B' },
      { id: 'm2', q: 'Colour of the sky?', options: ['red', 'green', 'blue', 'yellow'], a: 'blue' },
      { id: 'm3', q: 'Colour of blood?', options: ['red', 'green', 'blue', 'yellow'], a: 'A' },
      { id: 'm4', q: 'Colour of the sun?', options: ['red', 'green', 'blue', 'yellow'], a: 'D' },
    ],
  );
  const answers: Record<string, Record<string, string>> = {
    alpha: { m1: 'The answer is B.', m2: 'ANSWER: C', m3: 'A', m4: 'B) green' },
    beta: { m1: '(C)', m2: "I'd say A, no wait, C", m3: 'Definitely D', m4: 'I choose D.' },
  };
  server.setScript(byTable((model, id) => ({ text: answers[model][id] })));
  const first = server.requests.length;
  const out = join(dir, 'mc-out');
  assert.equal((await cli(runArgs(mc, out, ['alpha', 'beta']))).code, 0);
  // The default multiple-choice prompt lists the choices as lettered lines.
  const prompt = server.requests[first].body.messages.at(-1).content;
  assert.match(prompt, /\nA\) red\nB\) green\nC\) blue\nD\) yellow\n/);
  const records = recordsUnder(out);
  assert.equal(resultOf(records.get('unknown/alpha')!, 'choice').score_details.score, 3 / 4);
  assert.equal(resultOf(records.get('unknown/beta')!, 'choice').score_details.score, 2 / 4);
  const extracted = records.get('unknown/beta')!.rows.map((r) => r.answer_attribution[0].extracted_value);
  assert.deepEqual(extracted, ['C', 'C', 'D', 'D']);

  const json = writeTask(
    join(dir, 'json'),
    'json',
    'name: json-out\ndataset: {path: json.jsonl}\nscorers: [{json: {schema: value.schema.json}}]\n',
    [1, 2, 3].map((n) => ({ id: `j${n}`, input: `Give ${n} as JSON`, target: String(n) })),
    {
      'value.schema.json': JSON.stringify({
        type: 'object',
        required: ['value'],
        properties: { value: { type: 'integer' } },
      }),
    },
  );
  const jsonAnswers: Record<string, Record<string, string>> = {
    alpha: { j1: 'Here:\n```json\n{"value": 1}\n```', j2: '{"value": 2}', j3: '{"value": "three"}' },
    beta: { j1: 'value: 1', j2: '```\n{"value": 2}\n```', j3: ' {"value": 3} ' },
  };
  server.setScript(byTable((model, id) => ({ text: jsonAnswers[model][id] })));
  const jsonOut = join(dir, 'json-out');
  assert.equal((await cli(runArgs(json, jsonOut, ['alpha', 'beta']))).code, 0);
  const jsonRecords = recordsUnder(jsonOut);
  const scores = (m: string) => jsonRecords.get(m)!.rows.map((r) => r.evaluation.score);
  assert.deepEqual(scores('unknown/alpha'), [1, 1, 0]);
  assert.deepEqual(scores('unknown/beta'), [0, 1, 1]);
});

test('model_graded: the judge grades by its last GRADE; a reply without one and a judge that fails leave the value missing (exit 1)', async () => {
  const task = writeTask(
    join(dir, 'judge'),
    'capitals',
    [
      'name: capitals',
      'dataset: {path: capitals.jsonl}',
      'scorers:',
      '  - match',
      '  - {model_graded: {grades: {C: 1, P: 0.5, I: 0}}}',
      '',
    ].join('\n'),
    [
      { id: 'g1', input: 'Capital of France?', target: 'Paris' },
      { id: 'g2', input: 'Capital of Italy?', target: 'Rome' },
      { id: 'g3', input: 'Capital of Spain?', target: 'Madrid' },
      { id: 'g4', input: 'Capital of Peru?', target: 'Lima' },
    ],
  );
  const judged: Record<string, ReturnType<Script>> = {
    g1: { text: 'GRADE: I at first sight, but on reflection it is right.\nGRADE: C' },
    g2: { text: 'Partly.\nGRADE: P' },
    g3: { text: 'I cannot decide.' },
    g4: { status: 500 },
  };
  server.setScript((ctx) => {
    const key = requestKey(ctx.sampleId);
    if (ctx.body.model === 'judge') {
      assert.match(ctx.user, /\[Submitted answer\]\nanswer to g\d/);
      assert.equal(key.judge, true);
      return judged[key.sample];
    }
    return { text: `answer to ${key.sample}` };
  });
  const out = join(dir, 'judge-out');
  const result = await cli([...runArgs(task, out, ['alpha']), '--judge-model', 'judge']);
  assert.equal(result.code, 1, result.stdout + result.stderr);
  assert.match(result.stdout, /2 judge verdicts missing/);
  const rec = recordsUnder(out).get('unknown/alpha')!;
  const graded = resultOf(rec, 'model_graded');
  assert.equal(graded.score_details.score, 0.75);
  assert.equal(graded.score_details.uncertainty.num_samples, 2);
  assert.equal(graded.metric_config.llm_scoring.judges[0].model_info.name, 'judge');
  assert.match(graded.metric_config.llm_scoring.input_prompt, /\{\{output\}\}/);
  // The other scorer is unaffected: n = 4.
  assert.equal(resultOf(rec, 'match').score_details.uncertainty.num_samples, 4);
  const rows = rec.rows.filter((r) => r.evaluation_result_id === 'capitals.model_graded');
  assert.deepEqual(
    rows.map((r) => [r.sample_id, r.metadata.score_missing ?? 'false']),
    [
      ['g1/model_graded', 'false'],
      ['g2/model_graded', 'false'],
      ['g3/model_graded', 'true'],
      ['g4/model_graded', 'true'],
    ],
  );
  assert.match(rows[2].error, /no "GRADE: X"/);
  assert.match(rows[3].error, /judge failed: .*after 3 attempts/);
});

/** Which epochs of which sample the model answers correctly (1) in the reducer test. */
const EPOCH_TABLE: Record<string, number[]> = {
  r1: [1, 1, 0, 0],
  r2: [0, 0, 0, 1],
  r3: [1, 1, 1, 1],
  r4: [0, 1, 0, 1],
};

/** The reducers as their definitions say, written here apart from the library's. */
const REDUCE: Record<string, (v: number[]) => number> = {
  mean: (v) => v.reduce((a, b) => a + b, 0) / v.length,
  max: (v) => Math.max(...v),
  min: (v) => Math.min(...v),
  // Most frequent; a tie goes to the value of the earliest epoch among the tied.
  mode: (v) => {
    const count = (x: number) => v.filter((y) => y === x).length;
    return v.reduce((best, x) => (count(x) > count(best) ? x : best), v[0]);
  },
  // pass@2 = 1 − C(n−c, 2) / C(n, 2)
  pass_at_k: (v) => {
    const n = v.length;
    const c = v.filter((x) => x === 1).length;
    const choose2 = (m: number) => (m * (m - 1)) / 2;
    return 1 - choose2(n - c) / choose2(n);
  },
};

test('epochs with each reducer: mean, mode, max, min, pass_at_k; compare reduces the stored rows the same way', async () => {
  // beta answers right exactly where alpha does not.
  const right = (model: string, id: string, epoch: number) =>
    (EPOCH_TABLE[id][epoch - 1] === 1) === (model === 'alpha');
  server.setScript(byTable((m, id, epoch) => ({ text: right(m, id, epoch) ? '42' : '41' })));
  const db = join(dir, 'reducers.duckdb');
  const rows = Object.keys(EPOCH_TABLE).map((id) => ({ id, input: `sample ${id}`, target: 42 }));
  for (const reducer of Object.keys(REDUCE)) {
    const task = writeTask(
      join(dir, `reduce-${reducer}`),
      'r',
      `name: reduce-${reducer.replace(/_/g, '-')}\ndataset: {path: r.jsonl}\nscorers: [match]\nepochs: 4\nreducer: ${reducer}\n${reducer === 'pass_at_k' ? 'k: 2\n' : ''}`,
      rows,
    );
    const out = join(dir, `reduce-${reducer}-out`);
    const result = await cli(runArgs(task, out, ['alpha', 'beta'], ['--db', db]));
    assert.equal(result.code, 0, result.stderr);
    const rec = recordsUnder(out).get('unknown/alpha')!;
    const expected = REDUCE[reducer];
    const want = Object.values(EPOCH_TABLE).reduce((s, v) => s + expected(v), 0) / 4;
    const r = resultOf(rec, 'match');
    assert.ok(
      Math.abs(r.score_details.score - want) < 1e-12,
      `${reducer}: ${r.score_details.score} vs ${want}`,
    );
    assert.equal(
      r.metric_config.additional_details.epoch_reducer,
      reducer === 'pass_at_k' ? 'pass_at_2' : reducer,
    );
    assert.equal(rec.rows.length, 16);
    const compared = await cli([
      'compare',
      'unknown/alpha',
      'unknown/beta',
      '--db',
      db,
      '--benchmark',
      `reduce-${reducer.replace(/_/g, '-')}`,
      '--format',
      'json',
    ]);
    assert.equal(compared.code, 0, compared.stderr);
    const c = JSON.parse(compared.stdout).comparisons[0];
    const flip = (v: number[]) => v.map((x) => 1 - x);
    const wantDiff = Object.values(EPOCH_TABLE).reduce((s, v) => s + expected(v) - expected(flip(v)), 0) / 4;
    assert.equal(c.n_paired, 4);
    assert.ok(
      Math.abs(c.difference - wantDiff) < 1e-12,
      `${reducer}: compare ${c.difference} vs ${wantDiff}`,
    );
    assert.deepEqual(
      rec.rows.filter((x) => x.sample_id.startsWith('r4#')).map((x) => [x.sample_id, x.metadata.epoch]),
      [1, 2, 3, 4].map((e) => [`r4#epoch${e}`, String(e)]),
    );
  }
});

test('compare pairs two models on every sample; its paired t equals the one computed here from the raw rows', async () => {
  const N = 12;
  const EPOCHS = 4;
  // Deterministic, different per model: whether epoch e of sample i is answered right.
  const right = (model: string, i: number, e: number) =>
    model === 'alpha' ? (i * 7 + e * 3) % 5 !== 0 : (i * 5 + e) % 3 === 0 || i % 4 === 0;
  server.setScript(
    byTable((model, id, epoch) => ({ text: right(model, Number(id.slice(1)), epoch) ? 'Paris' : 'Lyon' })),
  );
  const task = writeTask(
    join(dir, 'pair'),
    'pair',
    `name: pair\ndataset: {path: pair.jsonl}\nscorers: [match]\nepochs: ${EPOCHS}\n`,
    Array.from({ length: N }, (_, i) => ({
      id: `s${i}`,
      input: `Question ${i}: capital of France?`,
      target: 'Paris',
    })),
  );
  const out = join(dir, 'pair-out');
  const db = join(dir, 'pair.duckdb');
  const mapFile = join(dir, 'models.json');
  writeFileSync(mapFile, JSON.stringify({ alpha: { id: 'acme/alpha' }, beta: { id: 'acme/beta' } }));
  const run = await cli(runArgs(task, out, ['alpha', 'beta'], ['--db', db, '--model-map', mapFile]));
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const compared = await cli(['compare', 'acme/alpha', 'acme/beta', '--db', db, '--format', 'json']);
  assert.equal(compared.code, 0, compared.stdout + compared.stderr);
  const c = JSON.parse(compared.stdout).comparisons[0];
  assert.equal(c.paired, true);
  assert.equal(c.n_paired, N);
  assert.equal(c.n_unpaired_a + c.n_unpaired_b, 0);

  // The paired t from the rows the run wrote: each sample's value is the mean over its epochs.
  const records = recordsUnder(out);
  const perSample = (model: string) => {
    const by = new Map<string, number[]>();
    for (const r of records.get(model)!.rows) {
      const key = r.sample_hash;
      by.set(key, [...(by.get(key) ?? []), r.evaluation.score]);
    }
    return by;
  };
  const a = perSample('acme/alpha');
  const b = perSample('acme/beta');
  const d = [...a.keys()].map(
    (k) => a.get(k)!.reduce((s, x) => s + x, 0) / EPOCHS - b.get(k)!.reduce((s, x) => s + x, 0) / EPOCHS,
  );
  assert.equal(d.length, N);
  const mean = d.reduce((s, x) => s + x, 0) / N;
  const sd = Math.sqrt(d.reduce((s, x) => s + (x - mean) ** 2, 0) / (N - 1));
  const se = sd / Math.sqrt(N);
  const t = mean / se;
  // Two-sided p of Student's t with N − 1 df: 2 ∫_|t|^∞ f(x) dx, f the t density, by Simpson's rule on [|t|, 60].
  const df = N - 1;
  let logC = 0; // log Γ((df+1)/2) − log Γ(df/2) for odd df = 11 via the half-integer recurrence
  const lgamma = (z: number): number => {
    // Lanczos (g = 7), enough for these arguments.
    const g = [
      0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
      12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
    ];
    if (z < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * z)) - lgamma(1 - z);
    z -= 1;
    let x = g[0];
    for (let i = 1; i < 9; i++) x += g[i] / (z + i);
    const tt = z + 7.5;
    return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(tt) - tt + Math.log(x);
  };
  logC = lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * Math.log(df * Math.PI);
  const f = (x: number) => Math.exp(logC - ((df + 1) / 2) * Math.log(1 + (x * x) / df));
  const lo = Math.abs(t);
  const hi = 60;
  const steps = 20000;
  const h = (hi - lo) / steps;
  let integral = f(lo) + f(hi);
  for (let i = 1; i < steps; i++) integral += (i % 2 === 1 ? 4 : 2) * f(lo + i * h);
  const p = (2 * integral * h) / 3;

  assert.equal(c.test, 't');
  assert.ok(Math.abs(c.difference - mean) < 1e-12, `difference ${c.difference} vs ${mean}`);
  assert.ok(Math.abs(c.se - se) < 1e-12, `se ${c.se} vs ${se}`);
  assert.equal(c.df, df);
  assert.ok(Math.abs(c.p_value - p) < 1e-6, `p ${c.p_value} vs ${p}`);
  assert.ok(
    Math.abs(c.mean_a - [...a.values()].reduce((s, v) => s + v.reduce((x, y) => x + y, 0) / EPOCHS, 0) / N) <
      1e-12,
  );
});

test('task file mistakes name file:line:column, the JSON pointer and a stable code; --dry-run sends nothing', async () => {
  const bad = writeTask(
    join(dir, 'bad'),
    'bad',
    'name: bad\ndataset: {path: bad.jsonl}\nscorers:\n  - match\n  - {numeric: {tolerance: -1}}\n',
    [{ id: 'a', input: 'x', target: '1' }],
  );
  const result = await cli(['run', bad, '--provider', 'openai', '--model', 'm', '--dry-run']);
  assert.equal(result.code, 1);
  assert.match(
    result.stderr,
    /bad\.task\.yaml:5:\d+ error task\.[a-z.-]+ .*\(at \/scorers\/1\/numeric\/tolerance\)/,
  );
  assert.doesNotMatch(result.stderr, /\n\s+at /);

  const dataset = writeTask(
    join(dir, 'bad2'),
    'bad2',
    'name: bad2\ndataset: {path: bad2.jsonl}\nscorers: [numeric]\n',
    [
      { id: 'a', input: 'x', target: '1' },
      { id: 'b', input: 'y', target: 'one' },
    ],
  );
  const unscorable = await cli(['run', dataset, '--provider', 'openai', '--model', 'm', '--dry-run']);
  assert.equal(unscorable.code, 1);
  assert.match(unscorable.stderr, /bad2\.jsonl:2 error task\.unscorable the target "one" is not a number/);

  const first = server.requests.length;
  const ok = writeTask(
    join(dir, 'dry'),
    'dry',
    'name: dry\ndataset: {path: dry.jsonl}\nsystem: Be brief.\nscorers: [match]\n',
    [
      { id: 'a', input: 'first question', target: '1' },
      { id: 'b', input: 'second question', target: '2' },
    ],
  );
  const dry = await cli(['run', ok, '--provider', 'openai', '--model', 'm', '--dry-run', '--limit', '1']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /\[system\]\nBe brief\.\n\[user\]\nfirst question/);
  assert.doesNotMatch(dry.stdout, /second question/);
  assert.equal(server.requests.length, first);
});

test('few-shot turns reach OpenAI-compatible and Anthropic servers as a conversation; the API key is written nowhere', async () => {
  const task = writeTask(
    join(dir, 'fewshot'),
    'fewshot',
    [
      'name: fewshot',
      'dataset: {path: fewshot.jsonl}',
      'system: Reply in one word.',
      'messages:',
      '  - {role: user, content: "Capital of France?"}',
      '  - {role: assistant, content: "Paris"}',
      '  - {role: user, content: "{{input}}"}',
      'scorers: [match]',
      '',
    ].join('\n'),
    [{ id: 'f1', input: 'Capital of Italy?', target: 'Rome' }],
  );
  server.setScript(() => ({ text: 'Rome' }));
  const secret = 'sk-evalkit-test-secret-4711';
  const sent = (from: number) => server.requests.slice(from).map((r) => r.body);
  for (const [provider, baseUrl, keyVar] of [
    ['openai', server.openaiBaseUrl, 'OPENAI_API_KEY'],
    ['anthropic', server.anthropicBaseUrl, 'ANTHROPIC_API_KEY'],
  ]) {
    const first = server.requests.length;
    const out = join(dir, `fewshot-${provider}`);
    const result = await cli(
      [
        'run',
        task,
        '--provider',
        provider,
        '--model',
        'm',
        '--base-url',
        baseUrl,
        '-o',
        out,
        '--log',
        `${out}.log`,
      ],
      { env: { [keyVar]: secret } },
    );
    assert.equal(result.code, 0, result.stderr);
    const [body] = sent(first);
    const turns = body.messages.map((m: any) => [
      m.role,
      typeof m.content === 'string' ? m.content : m.content[0].text,
    ]);
    const expected = [
      ['user', 'Capital of France?'],
      ['assistant', 'Paris'],
      ['user', 'Capital of Italy?'],
    ];
    if (provider === 'openai') assert.deepEqual(turns, [['system', 'Reply in one word.'], ...expected]);
    else {
      assert.deepEqual(turns, expected);
      assert.equal(body.system, 'Reply in one word.');
    }
    assert.ok(server.requests[first].authorization?.includes(secret), 'the key was sent');
    const rec = recordsUnder(out).get('unknown/m')!;
    assert.equal(resultOf(rec, 'match').score_details.score, 1);
    assert.equal(rec.rows[0].input.raw, 'Capital of Italy?');
    assert.equal(JSON.parse(rec.rows[0].input.formatted).length, 4);
    const written = [
      readTree(out),
      readTree(`${out}.journal`),
      readFileSync(`${out}.log`, 'utf8'),
      result.stdout,
      result.stderr,
    ];
    assert.ok(!written.join('\n').includes(secret), 'the API key was written somewhere');
  }
});
