// `evalkit run --prices FILE`: each sample's cost and the run's in the records, recomputed here from the recorded
// usage and the prices; the same cost when the run is replayed; an agent's cost_limit_usd; a prices file's mistakes
// and a cost limit without a price refused before anything is sent. Against a real local OpenAI-compatible server.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { startProviderServer, type ProviderServer, type Script } from '../helpers/provider-server.js';
import {
  ANTHROPIC_KEY_ENV,
  anthropicRun,
  assertUpstream,
  openaiRun,
  recordsUnder,
  requestKey,
  resultOf,
  writeTask,
} from './helpers.js';

let server: ProviderServer;
let dir: string;
before(async () => {
  server = await startProviderServer();
  dir = mkdtempSync(join(tmpdir(), 'evalkit-cost-'));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const PRICES = {
  'acme/m': { input: 2.5, output: 10, cached_input: 1.25 },
  judge: { input: 1, output: 4 },
};

function writePrices(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const runArgs = (task: string, out: string, models: string[]): string[] =>
  openaiRun(task, server.openaiBaseUrl, out, ['--retry-base-ms', '1'], models);

/** The cost of a row's recorded usage at a price (cached tokens a part of the input, priced apart). */
function costOf(usage: any, price: { input: number; output: number; cached_input?: number }): number {
  const cached = usage.input_tokens_cache_read ?? 0;
  return (
    ((usage.input_tokens - cached) * price.input +
      cached * (price.cached_input ?? price.input) +
      usage.output_tokens * price.output) /
    1e6
  );
}

const close = (actual: number, expected: number, what: string) =>
  assert.ok(Math.abs(actual - expected) < 1e-12, `${what}: ${actual} ≠ ${expected}`);

const SAMPLES = [
  { id: 's1', input: 'Capital of France?', target: 'Paris' },
  { id: 's2', input: 'Capital of Italy?', target: 'Rome' },
  { id: 's3', input: 'Capital of Spain?', target: 'Madrid' },
];

/** Usage by sample: each different, s2 with cached prompt tokens. */
const USAGE: Record<string, { input: number; output: number; cached?: number }> = {
  s1: { input: 120, output: 7 },
  s2: { input: 300, output: 11, cached: 200 },
  s3: { input: 95, output: 3 },
};
const JUDGE_USAGE = { input: 50, output: 5 };

const script: Script = (ctx) => {
  const key = requestKey(ctx.sampleId);
  if (ctx.body.model === 'judge') return { text: 'GRADE: C', usage: JUDGE_USAGE };
  return { text: `answer to ${key.sample}`, usage: USAGE[key.sample] };
};

test('--prices: each row has its sample cost, the result the run total, recomputed from the recorded usage; a model without a price has none', async (t) => {
  const task = writeTask(
    join(dir, 'caps'),
    'caps',
    'name: caps\ndataset: {path: caps.jsonl}\nscorers:\n  - includes\n  - {model_graded: {grades: {C: 1, I: 0}}}\n',
    SAMPLES,
  );
  const prices = writePrices(
    'prices.yaml',
    `# USD per million tokens\n${Object.entries(PRICES)
      .map(([m, p]) => `${m}: ${JSON.stringify(p)}`)
      .join('\n')}\n`,
  );
  server.setScript(script);
  const out = join(dir, 'caps-out');
  const fixture = join(dir, 'caps.fixture.jsonl');
  const db = join(dir, 'caps.duckdb');
  const args = [
    ...runArgs(task, out, ['acme/m', 'acme/unpriced']),
    '--judge-model',
    'judge',
    '--prices',
    prices,
    '--db',
    db,
  ];
  const result = await cli([...args, '--record', fixture, '--format', 'json']);
  assert.equal(result.code, 0, result.stderr);
  // A model the prices file does not list: a warning, and no cost anywhere in its record (never a guess, never 0).
  assert.match(result.stderr, /has no price for the model "acme\/unpriced"/);
  const records = recordsUnder(out);
  const unpriced = records.get('acme/unpriced')!;
  for (const r of unpriced.rows) assert.equal(r.metadata.cost, undefined);
  assert.equal(resultOf(unpriced, 'includes').generation_config.additional_details.total_cost_usd, undefined);

  const rec = records.get('acme/m')!;
  let total = 0;
  for (const r of rec.rows) {
    const expected = costOf(r.token_usage, PRICES['acme/m']);
    assert.equal(typeof r.metadata.cost, 'string', 'EEE metadata values are strings');
    close(Number(r.metadata.cost), expected, r.sample_id);
    if (r.evaluation_result_id === 'caps.includes') total += expected;
    // The judge's call is counted apart, on its scorer's row only.
    if (r.evaluation_result_id === 'caps.model_graded')
      close(Number(r.metadata.judge_cost), (50 * 1 + 5 * 4) / 1e6, `${r.sample_id} judge`);
    else assert.equal(r.metadata.judge_cost, undefined);
  }
  const s2 = rec.rows.find((r) => r.sample_id === 's2/includes');
  assert.equal(s2.token_usage.input_tokens_cache_read, 200);
  for (const metric of ['includes', 'model_graded']) {
    const details = resultOf(rec, metric).generation_config.additional_details;
    close(Number(details.total_cost_usd), total, `${metric} total`);
    assert.equal(details.cost_samples, '3');
    assert.deepEqual(JSON.parse(details.price_usd_per_million), PRICES['acme/m']);
  }
  close(
    Number(resultOf(rec, 'model_graded').score_details.details.judge_cost_usd),
    (3 * 70) / 1e6,
    'judge total',
  );
  const summary = JSON.parse(result.stdout).find((o: any) => o.model === 'acme/m').run;
  close(summary.costUsd, total, 'summary');
  await assertUpstream(t, rec);
  // Stored as it runs: the leaderboard shows each model's cost, and none for the model without a price.
  const board = await cli([
    'leaderboard',
    '--db',
    db,
    '--show',
    'cost',
    '--format',
    'json',
    '--metric',
    'includes',
  ]);
  assert.equal(board.code, 0, board.stderr);
  const byModel = new Map<string, any>(
    JSON.parse(board.stdout).leaderboards[0].rows.map((r: any) => [r.model_id, r]),
  );
  close(byModel.get('acme/m').cost.total_usd, total, 'leaderboard total');
  close(byModel.get('acme/m').cost.per_sample_usd, total / 3, 'leaderboard per sample');
  assert.equal(byModel.get('acme/unpriced').cost, null);

  // Replayed from the recording: the same usage, so the same cost on every row and the same total.
  const replayOut = join(dir, 'caps-replay');
  const replay = await cli([
    'run',
    task,
    '--provider',
    'replay',
    '--replay-from',
    fixture,
    '--model',
    'acme/m',
    '--judge-model',
    'judge',
    '-o',
    replayOut,
    '--prices',
    prices,
  ]);
  assert.equal(replay.code, 0, replay.stderr);
  const again = recordsUnder(replayOut).get('acme/m')!;
  assert.deepEqual(
    again.rows.map((r) => [r.sample_id, r.metadata.cost, r.metadata.judge_cost]),
    rec.rows.map((r) => [r.sample_id, r.metadata.cost, r.metadata.judge_cost]),
  );
  assert.equal(
    resultOf(again, 'includes').generation_config.additional_details.total_cost_usd,
    resultOf(rec, 'includes').generation_config.additional_details.total_cost_usd,
  );
  // Rerun from the journal: nothing sent, the same record.
  const sent = server.requests.length;
  const rerun = await cli([...args, '--format', 'json']);
  assert.equal(rerun.code, 0, rerun.stderr);
  assert.equal(server.requests.length, sent);
  assert.ok(
    JSON.parse(rerun.stdout).every((o: any) => o.status === 'unchanged'),
    rerun.stdout,
  );
});

test('Anthropic: the prompt tokens read from its cache (counted apart from input_tokens) are input, priced as cached', async () => {
  const task = writeTask(
    join(dir, 'anth'),
    'anth',
    'name: anth\ndataset: {path: anth.jsonl}\nscorers: [includes]\n',
    SAMPLES,
  );
  const prices = writePrices('anth-prices.yaml', `claude-t: ${JSON.stringify(PRICES['acme/m'])}\n`);
  server.setScript(script);
  const out = join(dir, 'anth-out');
  const result = await cli([...anthropicRun(task, server.anthropicBaseUrl, out), '--prices', prices], {
    env: ANTHROPIC_KEY_ENV,
  });
  assert.equal(result.code, 0, result.stderr);
  const [rec] = [...recordsUnder(out).values()];
  for (const r of rec.rows) {
    const sample = r.sample_id.split('/')[0];
    assert.equal(r.token_usage.input_tokens, USAGE[sample].input, `${sample}: the whole prompt`);
    assert.equal(
      r.token_usage.input_tokens_cache_read,
      USAGE[sample].cached,
      `${sample}: read from the cache`,
    );
    close(Number(r.metadata.cost), costOf(r.token_usage, PRICES['acme/m']), r.sample_id);
  }
});

test('a prices file with mistakes is refused with file:line:column, code and pointer, before anything is sent', async () => {
  const task = writeTask(
    join(dir, 'bad'),
    'bad',
    'name: bad\ndataset: {path: bad.jsonl}\nscorers: [match]\n',
    SAMPLES,
  );
  const sent = server.requests.length;
  const yaml = writePrices(
    'bad.yaml',
    [
      'acme/m:',
      '  input: -1',
      '  output: 2',
      '  cache: 1',
      'acme/n: {input: 1}',
      'acme/o: {input: "1", output: 2}',
      '',
    ].join('\n'),
  );
  const r = await cli([...runArgs(task, join(dir, 'bad-out'), ['acme/m']), '--prices', yaml]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /bad\.yaml:2:10 error prices\.bad-price .*\(at \/acme~1m\/input\)/);
  assert.match(r.stderr, /bad\.yaml:4:10 error prices\.unknown-field .*"cache".*\(at \/acme~1m\/cache\)/);
  assert.match(
    r.stderr,
    /bad\.yaml:5:9 error prices\.missing-field .*"output" is required.*\(at \/acme~1n\)/,
  );
  assert.match(r.stderr, /bad\.yaml:6:17 error prices\.bad-price .*got "1"/);
  assert.doesNotMatch(r.stderr, /at .*\.ts:\d+/);
  const json = writePrices('bad.json', '{"acme/m": {"input": 1, "output": 2,}}');
  const j = await cli([...runArgs(task, join(dir, 'bad-out'), ['acme/m']), '--prices', json]);
  assert.equal(j.code, 1, j.stderr);
  assert.match(j.stderr, /bad\.json:1:\d+ error prices\.json\.\S+/);
  const list = writePrices('list.yaml', '- acme/m\n');
  const l = await cli([...runArgs(task, join(dir, 'bad-out'), ['acme/m']), '--prices', list]);
  assert.match(l.stderr, /list\.yaml:1:1 error prices\.not-object/);
  assert.equal(server.requests.length, sent);
});

const AGENT_TOOLS = `tools:
  - {name: calculator, builtin: calculator}
`;

test('cost_limit_usd stops an agent between turns once its turns cost that much; without a price it is refused (exit 2)', async (t) => {
  const forever: Script = () => ({
    toolCalls: [{ name: 'calculator', arguments: '{"expression": "1 + 1"}' }],
    usage: { input: 40, output: 10 },
  });
  // 40 × $10 + 10 × $20 per million: $0.0006 a turn.
  const perTurn = (40 * 10 + 10 * 20) / 1e6;
  const prices = writePrices('agent-prices.json', JSON.stringify({ 'acme/a': { input: 10, output: 20 } }));
  for (const limit of [0.001, 0.0025]) {
    const name = `capped${String(limit).replace('.', '')}`;
    const task = writeTask(
      join(dir, name),
      name,
      `name: ${name}\ndataset: {path: ${name}.jsonl}\n${AGENT_TOOLS}limits: {max_turns: 20, cost_limit_usd: ${limit}}\nscorers: [match]\n`,
      [{ id: 'q1', input: 'go', target: '2' }],
    );
    const out = join(dir, `${name}-out`);
    server.setScript(forever);
    const first = server.requests.length;
    const result = await cli([...runArgs(task, out, ['acme/a']), '--prices', prices]);
    assert.equal(result.code, 0, result.stderr);
    // The first turn after which the turns' cost reaches the limit.
    const turns = Math.ceil(limit / perTurn - 1e-9);
    assert.equal(server.requests.length - first, turns, `${limit}`);
    const rec = [...recordsUnder(out).values()][0];
    const row = rec.rows[0];
    assert.equal(row.metadata.stop_reason, 'limit:cost_limit_usd');
    close(Number(row.metadata.cost), costOf(row.token_usage, { input: 10, output: 20 }), 'agent row');
    close(Number(row.metadata.cost), turns * perTurn, 'agent turns');
    await assertUpstream(t, rec);
  }
  // Under a cost limit the price decides where a sample stops: the journal refuses another price.
  const capped = join(dir, 'capped0001', 'capped0001.task.yaml');
  const dearer = writePrices('dearer.json', JSON.stringify({ 'acme/a': { input: 20, output: 20 } }));
  const sentBefore = server.requests.length;
  const refused = await cli([
    ...runArgs(capped, join(dir, 'capped0001-out'), ['acme/a']),
    '--prices',
    dearer,
  ]);
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /price/);
  assert.equal(server.requests.length, sentBefore);
  const task = writeTask(
    join(dir, 'nolimit'),
    'nolimit',
    `name: nolimit\ndataset: {path: nolimit.jsonl}\n${AGENT_TOOLS}limits: {cost_limit_usd: 0.01}\nscorers: [match]\n`,
    [{ id: 'q1', input: 'go', target: '2' }],
  );
  const sent = server.requests.length;
  const none = await cli(runArgs(task, join(dir, 'nolimit-out'), ['acme/a']));
  assert.equal(none.code, 2, none.stderr);
  assert.match(none.stderr, /run\.cost-limit-without-price: .*--prices/);
  const other = await cli([...runArgs(task, join(dir, 'nolimit-out'), ['acme/b']), '--prices', prices]);
  assert.equal(other.code, 2, other.stderr);
  assert.match(other.stderr, /run\.cost-limit-without-price: .*no price for the model "acme\/b"/);
  assert.equal(server.requests.length, sent);
});
