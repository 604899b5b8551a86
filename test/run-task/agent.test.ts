// `evalkit run` for agent tasks (tools:, limits:) against a real local server that answers with tool calls by
// rule: parallel calls, a call with bad JSON arguments, an unknown tool, arguments the schema refuses, a model that
// never stops, each limit; the records are EEE agentic rows that validate, and every trajectory scorer's value is
// checked against what the test derives from the recorded messages.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { startProviderServer, type ProviderServer, type Script } from '../helpers/provider-server.js';
import { assertUpstream, openaiRun, recordsUnder, resultOf, writeTask } from './helpers.js';
import {
  assertRecordReplay,
  callsOf,
  modelTurns,
  onlyRecord,
  WEATHER,
  writeAgentTask,
} from './agent-helpers.js';
import { calculate } from '../../src/run/task/calculator.js';
import { loadTask } from '../../src/run/task/load.js';
import { projectRoot } from '../helpers/shared.js';

let server: ProviderServer;
let dir: string;
before(async () => {
  server = await startProviderServer();
  dir = mkdtempSync(join(tmpdir(), 'evalkit-agent-'));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The messages of the request (the conversation so far). */
const conversation = (body: any): any[] => body.messages ?? [];
const toolResults = (body: any): any[] => conversation(body).filter((m) => m.role === 'tool');
const sampleOf = (sampleId: string): string => sampleId.split(':')[1];

const agentTask = (name: string, extra = '', rows?: object[]): string =>
  writeAgentTask(dir, name, extra, rows);

async function runAgent(task: string, out: string, script: Script, extra: string[] = []) {
  server.setScript(script);
  return cli(openaiRun(task, server.openaiBaseUrl, out, extra));
}

const only = onlyRecord;

test('calculator: the grammar, with errors instead of eval', () => {
  assert.equal(calculate('2 + 3 * 4'), 14);
  assert.equal(calculate('(2 + 3) * 4'), 20);
  assert.equal(calculate('2^3^2'), 512);
  assert.equal(calculate('-2^2'), -4);
  assert.equal(calculate('10 / 4 - .5'), 2);
  assert.equal(calculate('1e3 + 1'), 1001);
  for (const bad of [
    '',
    '2 +',
    '(1',
    '1)',
    'process.exit(1)',
    '2 ** 3',
    '1 / 0',
    '9^999',
    '('.repeat(200) + '1',
  ])
    assert.throws(() => calculate(bad), /./, bad);
});

test('parallel calls, a bad-JSON call, an unknown tool and refused arguments are error results; submit ends', async (t) => {
  const task = agentTask('par', 'scorers: [match]\n');
  const out = join(dir, 'par-out');
  const first = server.requests.length;
  const result = await runAgent(task, out, (ctx) => {
    const tools = toolResults(ctx.body);
    if (tools.length === 0)
      return {
        toolCalls: [
          { id: 'a', name: 'weather', arguments: '{"city": "Paris"}' },
          { id: 'b', name: 'weather', arguments: '{"city": "Oslo"}' },
          { id: 'c', name: 'weather', arguments: '{"city": ' },
          { id: 'd', name: 'browser', arguments: '{}' },
          { id: 'e', name: 'weather', arguments: '{"town": "Rome"}' },
        ],
      };
    return { toolCalls: [{ id: 'f', name: 'submit', arguments: '{"answer": "14"}' }] };
  });
  assert.equal(result.code, 0, result.stderr);
  // The second request carried the five results, in the calls' order, each answering its call.
  const second = server.requests.slice(first)[1].body;
  assert.deepEqual(
    second.tools.map((t: any) => t.function.name),
    ['weather', 'calculator', 'submit'],
  );
  const results = toolResults(second);
  assert.deepEqual(
    results.map((m) => m.tool_call_id),
    ['a', 'b', 'c', 'd', 'e'],
  );
  assert.equal(results[0].content, '{"temp_c":18}');
  assert.equal(results[1].content, '{"temp_c":4}');
  assert.match(results[2].content, /^error: the arguments of weather are not valid JSON/);
  assert.match(results[3].content, /^error: unknown tool "browser"/);
  assert.match(results[4].content, /^error: the arguments of weather do not match its parameters/);

  const rec = only(out);
  const row = rec.rows[0];
  assert.equal(row.interaction_type, 'agentic');
  assert.equal(row.output, undefined);
  assert.equal(row.metadata.stop_reason, 'submit');
  assert.equal(row.metadata.final_answer, '14');
  assert.equal(row.evaluation.score, 1);
  assert.equal(row.evaluation.num_turns, 2);
  assert.equal(row.evaluation.tool_calls_count, 6);
  const roles = row.messages.map((m: any) => m.role);
  assert.deepEqual(roles, ['user', 'assistant', 'tool', 'tool', 'tool', 'tool', 'tool', 'assistant', 'tool']);
  assert.deepEqual(
    row.messages.map((m: any) => m.turn_idx),
    roles.map((_: string, i: number) => i),
  );
  const calls = row.messages[1].tool_calls;
  assert.deepEqual(calls[0], {
    id: 'a',
    name: 'weather',
    arguments: { city: 'Paris' },
    arguments_json: '{"city": "Paris"}',
  });
  assert.equal(calls[2].arguments, null);
  assert.equal(calls[2].arguments_json, '{"city": ');
  assert.deepEqual(row.messages[4], {
    turn_idx: 4,
    role: 'tool',
    content: row.messages[4].content,
    tool_call_id: ['c'],
    error: 'tool.bad-json',
  });
  assert.equal(row.messages[5].error, 'tool.unknown');
  assert.equal(row.messages[6].error, 'tool.bad-arguments');
  assert.equal(row.answer_attribution[0].source, 'messages[7].tool_calls[0].arguments.answer');

  const args = resultOf(rec, 'match').generation_config.generation_args;
  assert.deepEqual(
    args.agentic_eval_config.available_tools.map((t: any) => [t.name, t.parameters.kind]),
    [
      ['weather', 'table'],
      ['calculator', 'calculator'],
      ['submit', 'submit'],
    ],
  );
  assert.equal(args.agentic_eval_config.additional_details.max_turns, '10');
  const validate = await cli(['validate', join(out, 'data')]);
  assert.equal(validate.code, 0, validate.stdout + validate.stderr);
  await assertUpstream(t, rec);
});

test('a model that never stops hits max_turns; each other limit stops with its own reason', async (t) => {
  const forever: Script = () => ({
    toolCalls: [{ name: 'calculator', arguments: '{"expression": "1 + 1"}' }],
    usage: { input: 40, output: 10 },
  });
  const cases: [string, string, string][] = [
    ['turns', 'limits: {max_turns: 3}\n', 'limit:max_turns'],
    ['calls', 'limits: {max_tool_calls: 2}\n', 'limit:max_tool_calls'],
    ['tokens', 'limits: {token_limit: 120}\n', 'limit:token_limit'],
  ];
  for (const [name, limits, stop] of cases) {
    const task = agentTask(name, `${limits}scorers: [match, {step_count: {max: 2}}]\n`);
    const out = join(dir, `${name}-out`);
    const first = server.requests.length;
    const result = await runAgent(task, out, forever);
    assert.equal(result.code, 0, result.stderr);
    const sent = server.requests.length - first;
    const row = only(out).rows[0];
    assert.equal(row.metadata.stop_reason, stop, name);
    // max_turns 3: three turns; max_tool_calls 2: the third turn's call is not run; 120 tokens: 50 a turn → 3.
    assert.equal(sent, 3, name);
    assert.equal(modelTurns(row), 3, name);
    const results = row.messages.filter((m: any) => m.role === 'tool').length;
    assert.equal(results, name === 'calls' ? 2 : 3, name);
    const rec = only(out);
    const steps = rec.rows.find((r: any) => r.evaluation_result_id.endsWith('.step_count'));
    assert.equal(steps.evaluation.score, modelTurns(steps) <= 2 ? 1 : 0);
    await assertUpstream(t, rec);
  }
  const limits = resultOf(only(join(dir, 'tokens-out')), 'match').generation_config.generation_args
    .eval_limits;
  assert.deepEqual(limits, { token_limit: 120 });
});

test('time_limit_s stops between turns on the journaled latency', async () => {
  const task = agentTask('time', 'limits: {time_limit_s: 1}\nscorers: [match]\n');
  const out = join(dir, 'time-out');
  const result = await runAgent(task, out, () => ({
    toolCalls: [{ name: 'calculator', arguments: '{"expression": "2"}' }],
    delayMs: 1100,
  }));
  assert.equal(result.code, 0, result.stderr);
  const row = only(out).rows[0];
  assert.equal(row.metadata.stop_reason, 'limit:time_limit_s');
  assert.equal(modelTurns(row), 1);
});

test('a final answer without a tool call ends with answered; the answer is scored', async () => {
  const task = agentTask('ans', 'scorers: [match, numeric]\n');
  const out = join(dir, 'ans-out');
  const result = await runAgent(task, out, (ctx) =>
    toolResults(ctx.body).length === 0
      ? { toolCalls: [{ name: 'calculator', arguments: '{"expression": "2 + 3 * 4"}' }] }
      : { text: `The answer is ${toolResults(ctx.body)[0].content}` },
  );
  assert.equal(result.code, 0, result.stderr);
  const rows = only(out).rows;
  const match = rows.find((r: any) => r.evaluation_result_id === 'ans.match');
  const numeric = rows.find((r: any) => r.evaluation_result_id === 'ans.numeric');
  assert.equal(match.metadata.stop_reason, 'answered');
  assert.equal(match.messages[2].content, '14');
  assert.equal(match.evaluation.score, 0);
  assert.equal(numeric.evaluation.score, 1);
  assert.equal(numeric.answer_attribution[0].source, 'messages[3].content');
});

test('trajectory scorers: each value as derived from the recorded messages', async () => {
  const rows = [
    { id: 'a', input: 'paris then oslo', target: 'x' },
    { id: 'b', input: 'oslo only', target: 'x' },
    { id: 'c', input: 'nothing', target: 'x' },
    { id: 'd', input: 'oslo and paris at once, then sum', target: 'x' },
  ];
  const plans: Record<string, { name: string; arguments: string }[][]> = {
    a: [
      [{ name: 'weather', arguments: '{"city":"Paris"}' }],
      [{ name: 'weather', arguments: '{"city":"Oslo"}' }],
    ],
    b: [[{ name: 'weather', arguments: '{"city":"Oslo"}' }]],
    c: [],
    d: [
      [
        { name: 'weather', arguments: '{"city":"Oslo"}' },
        { name: 'weather', arguments: '{"city":"Paris"}' },
      ],
      [{ name: 'calculator', arguments: '{"expression":"18+4"}' }],
    ],
  };
  const scorers = `scorers:
  - {tool_used: {name: weather, min: 2}}
  - {tool_used: {name: calculator, min: 0, max: 0, metric: no_calculator}}
  - {tool_sequence: {names: [weather, weather], mode: exact}}
  - {tool_sequence: {names: [weather, calculator], mode: in_order, name: seq_in_order}}
  - {tool_sequence: {names: [calculator, weather], mode: any_order, name: seq_any}}
  - {tool_args_match: {name: weather, args: {city: Paris}, mode: exact}}
  - {tool_args_match: {name: weather, args: {}, mode: partial, metric: weather_partial}}
  - {step_count: {max: 2}}
  - {tool_call_f1: {expected: [weather, calculator]}}
`;
  const task = agentTask('traj', scorers, rows);
  const out = join(dir, 'traj-out');
  const result = await runAgent(task, out, (ctx) => {
    const plan = plans[sampleOf(ctx.sampleId)];
    const turn = conversation(ctx.body).filter((m) => m.role === 'assistant').length;
    return turn < plan.length ? { toolCalls: plan[turn] } : { text: 'done' };
  });
  assert.equal(result.code, 0, result.stderr);
  const rec = only(out);
  const expected: Record<string, (calls: { name: string; args: any }[], turns: number) => number> = {
    tool_used: (c) => (c.filter((x) => x.name === 'weather').length >= 2 ? 1 : 0),
    no_calculator: (c) => (c.some((x) => x.name === 'calculator') ? 0 : 1),
    tool_sequence: (c) => (JSON.stringify(c.map((x) => x.name)) === '["weather","weather"]' ? 1 : 0),
    seq_in_order: (c) => {
      const w = c.findIndex((x) => x.name === 'weather');
      return w >= 0 && c.slice(w + 1).some((x) => x.name === 'calculator') ? 1 : 0;
    },
    seq_any: (c) => (c.some((x) => x.name === 'calculator') && c.some((x) => x.name === 'weather') ? 1 : 0),
    tool_args_match: (c) =>
      c.some((x) => x.name === 'weather' && JSON.stringify(x.args) === '{"city":"Paris"}') ? 1 : 0,
    weather_partial: (c) => (c.some((x) => x.name === 'weather') ? 1 : 0),
    step_count: (_c, turns) => (turns <= 2 ? 1 : 0),
    tool_call_f1: (c) => {
      const called = new Set(c.map((x) => x.name));
      const want = new Set(['weather', 'calculator']);
      const hits = [...called].filter((n) => want.has(n)).length;
      if (hits === 0) return 0;
      const p = hits / called.size;
      const r = hits / want.size;
      return (2 * p * r) / (p + r);
    },
  };
  const seen = new Map<string, number[]>();
  for (const row of rec.rows) {
    const metric = row.evaluation_result_id.slice('traj.'.length);
    const want = expected[metric](callsOf(row), modelTurns(row));
    assert.equal(row.evaluation.score, want, `${row.sample_id}`);
    seen.set(metric, [...(seen.get(metric) ?? []), want]);
  }
  assert.deepEqual([...seen.keys()].sort(), Object.keys(expected).sort());
  // The samples tell the scorers apart: each metric has both a 1 and a 0 over the four samples, except f1's ½.
  for (const [metric, values] of seen)
    if (metric !== 'tool_call_f1') assert.deepEqual(new Set(values), new Set([0, 1]), metric);
  assert.deepEqual(seen.get('tool_call_f1'), [2 / 3, 2 / 3, 0, 1]);
});

test('a trajectory scorer or limits in a task without tools are refused before anything is sent', async () => {
  const d = join(dir, 'notools');
  const t1 = writeTask(d, 't1', 'name: t1\ndataset: {path: t1.jsonl}\nscorers: [{step_count: {max: 2}}]\n', [
    { input: 'x', target: 'y' },
  ]);
  const first = server.requests.length;
  const r1 = await cli(openaiRun(t1, server.openaiBaseUrl, join(d, 'out')));
  assert.equal(r1.code, 1);
  assert.match(r1.stderr, /task\.trajectory-without-tools/);
  const t2 = writeTask(
    d,
    't2',
    'name: t2\ndataset: {path: t2.jsonl}\nlimits: {max_turns: 2}\nscorers: [match]\n',
    [{ input: 'x', target: 'y' }],
  );
  const r2 = await cli(openaiRun(t2, server.openaiBaseUrl, join(d, 'out')));
  assert.equal(r2.code, 1);
  assert.match(r2.stderr, /task\.limits-without-tools/);
  assert.equal(server.requests.length, first);
});

test('a table file outside the task folder is refused', async () => {
  const d = join(dir, 'outside');
  const task = writeTask(
    d,
    'o',
    'name: o\ndataset: {path: o.jsonl}\ntools: [{name: t, table: ../secret.jsonl}]\nscorers: [match]\n',
    [{ input: 'x', target: 'y' }],
  );
  const r = await cli(openaiRun(task, server.openaiBaseUrl, join(d, 'out')));
  assert.equal(r.code, 2);
  assert.match(r.stderr, /task\.file-outside/);
});

test('the example agent task replays whole trajectories offline from its fixture', async () => {
  const out = join(dir, 'example-out');
  const first = server.requests.length;
  const args = (o: string) => [
    'run',
    join(projectRoot, 'examples/agent/trips.task.yaml'),
    '--provider',
    'replay',
    '--replay-from',
    join(projectRoot, 'examples/agent/trips.fixture.jsonl'),
    '--model',
    'demo-small',
    '--model',
    'demo-large',
    '--model-map',
    join(projectRoot, 'examples/agent/models.json'),
    '-o',
    o,
  ];
  const result = await cli(args(out));
  assert.equal(result.code, 0, result.stderr);
  assert.equal(server.requests.length, first, 'nothing was sent');
  const records = recordsUnder(out);
  const large = records.get('demo/demo-large')!;
  const small = records.get('demo/demo-small')!;
  assert.equal(resultOf(large, 'numeric').score_details.score, 1);
  assert.equal(resultOf(small, 'numeric').score_details.score, 0.5);
  // The large model's trajectories: weather (in parallel), calculator, submit; the small one's end other ways.
  for (const row of large.rows.filter((r: any) => r.evaluation_result_id.endsWith('.numeric'))) {
    assert.equal(row.metadata.stop_reason, 'submit');
    assert.deepEqual([...new Set(callsOf(row).map((c) => c.name))], ['weather', 'calculator', 'submit']);
  }
  const stops = small.rows
    .filter((r: any) => r.evaluation_result_id.endsWith('.numeric'))
    .map((r: any) => r.metadata.stop_reason);
  assert.deepEqual(stops, ['answered', 'answered', 'answered', 'submit']);
  const validate = await cli(['validate', join(out, 'data')]);
  assert.equal(validate.code, 0, validate.stdout + validate.stderr);
  // A second replay writes the same rows.
  const again = join(dir, 'example-again');
  assert.equal((await cli(args(again))).code, 0);
  const rowsOf = (root: string) =>
    [...recordsUnder(root).values()].flatMap((r) =>
      r.rows.map((x: any) => [x.sample_id, x.messages, x.evaluation]),
    );
  assert.deepEqual(rowsOf(again), rowsOf(out));
});

test('an API key in a table result or in a tool call the model makes is redacted before it is sent or recorded', async () => {
  const secret = 'sk-agent-secret-7f3a9c';
  const d = join(dir, 'secret');
  const task = writeTask(
    d,
    's',
    'name: s\ndataset: {path: s.jsonl}\ntools: [{name: lookup, description: "key lookup", table: t.jsonl}]\nscorers: [match]\n',
    [{ id: 'q', input: 'x', target: 'y' }],
    { 't.jsonl': JSON.stringify({ arguments: { k: 1 }, result: `the key is ${secret}` }) + '\n' },
  );
  const out = join(d, 'out');
  server.setScript((ctx) =>
    toolResults(ctx.body).length === 0
      ? {
          toolCalls: [
            { id: 'a', name: 'lookup', arguments: '{"k": 1}' },
            { id: 'b', name: 'lookup', arguments: JSON.stringify({ k: secret }) },
          ],
        }
      : { text: 'y' },
  );
  const first = server.requests.length;
  const result = await cli(openaiRun(task, server.openaiBaseUrl, out), { env: { OPENAI_API_KEY: secret } });
  assert.equal(result.code, 0, result.stderr);
  const sent = server.requests.slice(first).map((r) => JSON.stringify(r.body));
  assert.equal(sent.length, 2);
  // The secret arrives only as the Authorization header, never in a message: not the table's result, not the echo.
  assert.ok(!sent.some((b) => b.includes(secret)), sent[1]);
  assert.match(sent[1], /the key is \[redacted\]/);
  const written = [...recordsUnder(out).values()][0];
  assert.ok(!JSON.stringify(written.rows).includes(secret));
  assert.ok(!readFileSync(join(`${out}.journal`, 's', 'openai--m.jsonl'), 'utf8').includes(secret));
});

test('command tools: JSON on stdin, stdout the result, a fresh folder per sample, no API key; failures are error results', async () => {
  const d = join(dir, 'cmd');
  const script = (body: string) => `#!/usr/bin/env node\n${body}\n`;
  const task = writeTask(
    d,
    'c',
    `name: c
dataset: {path: c.jsonl}
tools:
  - {name: probe, command: [./probe.mjs, extra-arg], parameters: {type: object, properties: {n: {type: integer}}}}
  - {name: sleepy, command: [./sleepy.mjs], timeout_ms: 300}
  - {name: loud, command: [./loud.mjs], max_output_bytes: 1000}
  - {name: broken, command: [./broken.mjs]}
scorers: [match]
`,
    [
      { id: 'one', input: 'x', target: 'y' },
      { id: 'two', input: 'x', target: 'y' },
    ],
    {
      'probe.mjs': script(`import { readdirSync, writeFileSync } from 'node:fs';
let input = '';
process.stdin.on('data', (c) => (input += c)).on('end', () => {
  const seen = readdirSync('.');
  writeFileSync('mark-' + JSON.parse(input).n, '');
  console.log(JSON.stringify({ input, argv: process.argv.slice(2), seen, openai: 'OPENAI_API_KEY' in process.env, mine: 'MY_KEY' in process.env, path: 'PATH' in process.env }));
});`),
      'sleepy.mjs': script(`setInterval(() => {}, 1000);`),
      'loud.mjs': script(`process.stdout.write('x'.repeat(100000));`),
      'broken.mjs': script(`process.stderr.write('boom'); process.exit(3);`),
    },
  );
  for (const f of ['probe.mjs', 'sleepy.mjs', 'loud.mjs', 'broken.mjs']) chmodSync(join(d, f), 0o755);
  server.setScript((ctx) => {
    const turn = conversation(ctx.body).filter((m) => m.role === 'assistant').length;
    if (turn === 0) return { toolCalls: [{ name: 'probe', arguments: '{"n": 1}' }] };
    if (turn === 1)
      return {
        toolCalls: [
          { name: 'probe', arguments: '{"n": 2}' },
          { name: 'sleepy', arguments: '{}' },
          { name: 'loud', arguments: '{}' },
          { name: 'broken', arguments: '{}' },
          { name: 'probe', arguments: '{"n": "two"}' },
        ],
      };
    return { text: 'y' };
  });
  const out = join(d, 'out');
  const result = await cli(openaiRun(task, server.openaiBaseUrl, out, ['--api-key-env', 'MY_KEY']), {
    env: { MY_KEY: 'k-123', OPENAI_API_KEY: 'sk-456' },
  });
  assert.equal(result.code, 0, result.stderr);
  const rows = [...recordsUnder(out).values()][0].rows;
  assert.equal(rows.length, 2);
  for (const row of rows) {
    const tools = row.messages.filter((m: any) => m.role === 'tool');
    const first = JSON.parse(tools[0].content);
    assert.deepEqual(first, {
      input: '{"n":1}',
      argv: ['extra-arg'],
      seen: [],
      openai: false,
      mine: false,
      path: true,
    });
    // The second call of the sample runs in the same folder; the other sample's folder was its own (seen: []).
    assert.deepEqual(JSON.parse(tools[1].content).seen, ['mark-1']);
    assert.equal(tools[2].error, 'tool.timeout');
    assert.match(tools[2].content, /longer than 300 ms/);
    assert.equal(tools[3].error, 'tool.output-too-large');
    assert.equal(tools[4].error, 'tool.failed');
    assert.match(tools[4].content, /exited with status 3: boom/);
    assert.equal(tools[5].error, 'tool.bad-arguments');
  }
  const args = resultOf([...recordsUnder(out).values()][0], 'match').generation_config.generation_args;
  assert.deepEqual(args.agentic_eval_config.available_tools[1].parameters, {
    kind: 'command',
    json_schema: '{"type":"object"}',
    command: '["./sleepy.mjs"]',
    sha256: createHash('sha256')
      .update(readFileSync(join(d, 'sleepy.mjs')))
      .digest('hex'),
    timeout_ms: '300',
    max_output_bytes: '65536',
  });
});

test('a command outside the task folder (or looked up on PATH) is refused before anything is sent', async () => {
  for (const command of ['[/bin/echo, hi]', '[../x.sh]']) {
    const d = join(dir, `cmd-out-${command.length}`);
    const task = writeTask(
      d,
      'o',
      `name: o\ndataset: {path: o.jsonl}\ntools: [{name: t, command: ${command}}]\nscorers: [match]\n`,
      [{ input: 'x', target: 'y' }],
    );
    const first = server.requests.length;
    const r = await cli(openaiRun(task, server.openaiBaseUrl, join(d, 'out')));
    assert.equal(r.code, 2, command);
    assert.match(r.stderr, /task\.file-outside/);
    assert.equal(server.requests.length, first);
  }
});

test('a model call that fails mid-trajectory is an error row (stop reason error), left out of n; it validates', async (t) => {
  const task = agentTask('fail', 'scorers: [match, {step_count: {max: 5}}]\n', [
    { id: 'ok', input: 'fine', target: '3' },
    { id: 'bad', input: 'breaks', target: '3' },
  ]);
  const out = join(dir, 'fail-out');
  const result = await runAgent(
    task,
    out,
    (ctx) => {
      const turn = conversation(ctx.body).filter((m) => m.role === 'assistant').length;
      if (turn === 0) return { toolCalls: [{ name: 'calculator', arguments: '{"expression": "1 + 2"}' }] };
      if (sampleOf(ctx.sampleId) === 'bad') return { status: 400, message: 'context too long' };
      return { text: '3' };
    },
    ['--max-attempts', '1'],
  );
  assert.equal(result.code, 1, result.stderr);
  const rec = only(out);
  const bad = rec.rows.filter((r: any) => r.metadata.sample === 'bad');
  const ok = rec.rows.filter((r: any) => r.metadata.sample === 'ok');
  for (const r of bad) {
    assert.equal(r.metadata.stop_reason, 'error');
    assert.match(r.error, /context too long/);
    assert.equal(r.metadata.score_missing, 'true');
    // The turn that completed is kept: the prompt, the calculator call and its result.
    assert.deepEqual(
      r.messages.map((m: any) => m.role),
      ['user', 'assistant', 'tool'],
    );
  }
  for (const r of ok) assert.equal(r.evaluation.score, 1);
  assert.equal(resultOf(rec, 'match').score_details.score, 1);
  assert.equal(JSON.stringify(resultOf(rec, 'match').score_details).match(/"num_samples":(\d+)/)?.[1], '1');
  await assertUpstream(t, rec);
  const validate = await cli(['validate', join(out, 'data')]);
  assert.equal(validate.code, 0, validate.stdout + validate.stderr);
});

test("trajectory scorers read each row's expected_tools / expected_args when the task gives none", async () => {
  const rows = [
    { id: 'p', input: 'paris', target: 'x', expected_tools: ['weather'], expected_args: { city: 'Paris' } },
    {
      id: 'o',
      input: 'oslo',
      target: 'x',
      expected_tools: ['weather', 'calculator'],
      expected_args: { city: 'Rome' },
    },
  ];
  const task = agentTask(
    'rowexp',
    'scorers:\n  - tool_call_f1\n  - {tool_sequence: {mode: exact}}\n  - {tool_args_match: {name: weather}}\n',
    rows,
  );
  const out = join(dir, 'rowexp-out');
  const result = await runAgent(task, out, (ctx) => {
    const turn = conversation(ctx.body).filter((m) => m.role === 'assistant').length;
    const city = sampleOf(ctx.sampleId) === 'p' ? 'Paris' : 'Oslo';
    return turn === 0
      ? { toolCalls: [{ name: 'weather', arguments: JSON.stringify({ city }) }] }
      : { text: 'x' };
  });
  assert.equal(result.code, 0, result.stderr);
  const rec = only(out);
  const score = (sample: string, metric: string) =>
    rec.rows.find((r: any) => r.metadata.sample === sample && r.evaluation_result_id === `rowexp.${metric}`)
      .evaluation.score;
  for (const row of rows) {
    const r = rec.rows.find((x: any) => x.metadata.sample === row.id);
    const called = callsOf(r);
    const names = called.map((c) => c.name);
    const hits = new Set(names.filter((n) => row.expected_tools.includes(n))).size;
    const p = hits / new Set(names).size;
    const rc = hits / row.expected_tools.length;
    assert.equal(score(row.id, 'tool_call_f1'), hits === 0 ? 0 : (2 * p * rc) / (p + rc));
    assert.equal(
      score(row.id, 'tool_sequence'),
      JSON.stringify(names) === JSON.stringify(row.expected_tools) ? 1 : 0,
    );
    assert.equal(
      score(row.id, 'tool_args_match'),
      called.some((c) => c.name === 'weather' && c.args.city === row.expected_args.city) ? 1 : 0,
    );
  }
  assert.deepEqual(
    [
      score('p', 'tool_sequence'),
      score('o', 'tool_sequence'),
      score('p', 'tool_args_match'),
      score('o', 'tool_args_match'),
    ],
    [1, 0, 1, 0],
  );

  // A row without the expectation, or a scorer without the option it needs, is refused before any request.
  const first = server.requests.length;
  const missing = agentTask('rowmiss', 'scorers: [tool_call_f1]\n', [{ id: 'z', input: 'x', target: 'y' }]);
  const r1 = await cli(openaiRun(missing, server.openaiBaseUrl, join(dir, 'rowmiss-out')));
  assert.equal(r1.code, 1);
  assert.match(r1.stderr, /task\.unscorable .*expected_tools/);
  const bare = agentTask('bare', 'scorers: [tool_used]\n');
  const r2 = await cli(openaiRun(bare, server.openaiBaseUrl, join(dir, 'bare-out')));
  assert.equal(r2.code, 1);
  assert.match(r2.stderr, /task\.scorer-options .*tool_used scorer needs name/);
  assert.equal(server.requests.length, first);
});

test('--dry-run of an agent task shows the tools and limits and sends nothing', async () => {
  const task = agentTask('dry', 'limits: {max_turns: 4}\nscorers: [match]\n');
  const first = server.requests.length;
  const r = await cli([...openaiRun(task, server.openaiBaseUrl, join(dir, 'dry-out')), '--dry-run']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^\[tools\] weather, calculator, submit; limits max_turns 4$/m);
  const j = await cli([
    ...openaiRun(task, server.openaiBaseUrl, join(dir, 'dry-out')),
    '--dry-run',
    '-f',
    'json',
  ]);
  assert.deepEqual(JSON.parse(j.stdout).prompts[0].limits, { max_turns: 4 });
  assert.equal(server.requests.length, first);
});

test('a model_graded judge of an agent task reads the whole transcript through {{transcript}}', async () => {
  const d = join(dir, 'judge');
  const task = writeTask(
    d,
    'j',
    `name: j\ndataset: {path: j.jsonl}\ntools: [{name: calculator, builtin: calculator}]\nscorers: [{model_graded: {template: grade.txt}}]\n`,
    [{ id: 'q', input: 'what is 6 * 7', target: '42' }],
    {
      'grade.txt':
        'Target {{target}}. Answer {{output}}.\nTranscript:\n{{transcript}}\nEnd with GRADE: C or I.',
    },
  );
  server.setScript((ctx) => {
    if (ctx.body.model === 'judge') return { text: 'GRADE: C' };
    return toolResults(ctx.body).length === 0
      ? { toolCalls: [{ id: 'k', name: 'calculator', arguments: '{"expression": "6 * 7"}' }] }
      : { text: 'It is 42.' };
  });
  const first = server.requests.length;
  const r = await cli(openaiRun(task, server.openaiBaseUrl, join(d, 'out'), ['--judge-model', 'judge']));
  assert.equal(r.code, 0, r.stderr);
  const judged = server.requests.slice(first).filter((x) => x.body.model === 'judge');
  assert.equal(judged.length, 1);
  assert.equal(
    judged[0].body.messages.at(-1).content,
    'Target 42. Answer It is 42..\nTranscript:\n[user]\nwhat is 6 * 7\n\n[assistant → calculator]\n{"expression": "6 * 7"}\n\n[tool calculator]\n42\n\n[assistant]\nIt is 42.\nEnd with GRADE: C or I.',
  );
  const row = [...recordsUnder(join(d, 'out')).values()][0].rows[0];
  assert.equal(row.evaluation.score, 1);
  assert.equal(row.interaction_type, 'agentic');
});

test('mistakes in tools are named by file:line:column, code and pointer before anything is sent', async () => {
  const cases: [string, RegExp][] = [
    [
      '  - {name: a, builtin: calculator, table: weather.jsonl}\n',
      /:5:5 error task\.tool-kind .*exactly one of .*\(at \/tools\/1\)/,
    ],
    ['  - {name: weather, builtin: submit}\n', /:5:\d+ error task\.duplicate-tool .*\(at \/tools\/1\/name\)/],
    [
      '  - {name: a, builtin: submit, parameters: {type: object}}\n',
      /:5:\d+ error task\.tool-parameters .*\(at \/tools\/1\/parameters\)/,
    ],
    [
      '  - {name: a, table: weather.jsonl, parameters: {type: string}}\n',
      /:5:\d+ error task\.tool-parameters .*object schema/,
    ],
    ['  - {name: a, table: weather.jsonl, timeout_ms: 5}\n', /error task\.tool-kind .*bound a command tool/],
    ['  - {name: a, table: bad.jsonl}\n', /bad\.jsonl:2 error task\.tool-table/],
    ['  - {name: "a b", builtin: submit}\n', /:5:12 error task\.schema\.pattern .*\(at \/tools\/1\/name\)/],
  ];
  const first = server.requests.length;
  for (const [i, [tool, expected]] of cases.entries()) {
    const d = join(dir, `toolerr${i}`);
    const task = writeTask(
      d,
      't',
      `name: t\ndataset: {path: t.jsonl}\ntools:\n  - {name: weather, table: weather.jsonl}\n${tool}scorers: [match]\n`,
      [{ input: 'x', target: 'y' }],
      {
        'weather.jsonl': WEATHER.map((r) => JSON.stringify(r)).join('\n') + '\n',
        'bad.jsonl': '{"arguments": {}, "result": 1}\n{"args": {}}\n',
      },
    );
    const r = await cli(openaiRun(task, server.openaiBaseUrl, join(d, 'out')));
    assert.equal(r.code, 1, `${tool}: ${r.stderr}`);
    assert.match(r.stderr, expected, tool);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  }
  assert.equal(server.requests.length, first);
});

test('--record keeps whole trajectories; --provider replay gives the same rows offline', () =>
  assertRecordReplay({
    dir,
    server,
    model: 'm',
    results: (body) => toolResults(body).map((m: any) => m.content),
    runLive: runAgent,
  }));

test("the task's digest (what a journal is resumed under) covers every tool: a command's script and bounds, a table's rows", () => {
  const d = join(dir, 'digest');
  const write = (tools: string, files: Record<string, string>) =>
    writeTask(
      d,
      'g',
      `name: g\ndataset: {path: g.jsonl}\ntools:\n${tools}scorers: [match]\n`,
      [{ input: 'x', target: 'y' }],
      files,
    );
  const base = (timeout: number) =>
    `  - {name: c, command: [./c.mjs, a], timeout_ms: ${timeout}}\n  - {name: t, table: t.jsonl}\n`;
  const table = (r: number) => JSON.stringify({ arguments: {}, result: r }) + '\n';
  const digest = (tools: string, files: Record<string, string>) => loadTask(write(tools, files)).digest;
  const d0 = digest(base(100), { 'c.mjs': 'one', 't.jsonl': table(1) });
  assert.equal(digest(base(100), { 'c.mjs': 'one', 't.jsonl': table(1) }), d0);
  const variants = [
    digest(base(100), { 'c.mjs': 'two', 't.jsonl': table(1) }),
    digest(base(200), { 'c.mjs': 'one', 't.jsonl': table(1) }),
    digest(base(100).replace('a]', 'b]'), { 'c.mjs': 'one', 't.jsonl': table(1) }),
    digest(base(100), { 'c.mjs': 'one', 't.jsonl': table(2) }),
    digest(base(100).replace('timeout_ms: 100', 'timeout_ms: 100, max_output_bytes: 9'), {
      'c.mjs': 'one',
      't.jsonl': table(1),
    }),
  ];
  assert.equal(new Set([d0, ...variants]).size, 6);
});
