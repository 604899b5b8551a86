// `evalkit run --provider anthropic` for agent tasks, against a real local server speaking the Messages API wire
// format (POST /v1/messages, content blocks, its error bodies): tools sent as {name, description, input_schema},
// parallel tool_use blocks, an input the schema refuses, an unknown tool, a model that never stops, replies cut at
// max_tokens, 429/529/5xx retried mid-trajectory and a 400 as an error row; the rows are the same EEE agentic rows
// as an OpenAI run's and validate upstream; --record / --provider replay gives the same rows offline.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { startProviderServer, type ProviderServer, type Script } from '../helpers/provider-server.js';
import { ANTHROPIC_KEY_ENV, anthropicRun, assertUpstream } from './helpers.js';
import { assertRecordReplay, callsOf, modelTurns, onlyRecord, writeAgentTask } from './agent-helpers.js';

let server: ProviderServer;
let dir: string;
before(async () => {
  server = await startProviderServer();
  dir = mkdtempSync(join(tmpdir(), 'evalkit-agent-anth-'));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every tool_result block of a Messages API request (they ride in user messages). */
const toolResults = (body: any): any[] =>
  (body.messages ?? []).flatMap((m: any) =>
    m.role === 'user' && Array.isArray(m.content)
      ? m.content.filter((b: any) => b.type === 'tool_result')
      : [],
  );
const turnOf = (body: any): number => (body.messages ?? []).filter((m: any) => m.role === 'assistant').length;
const sampleOf = (sampleId: string): string => sampleId.split(':')[1];

async function runAgent(task: string, out: string, script: Script, extra: string[] = []) {
  server.setScript(script);
  return cli(anthropicRun(task, server.anthropicBaseUrl, out, extra), { env: ANTHROPIC_KEY_ENV });
}

test('tools go as {name, description, input_schema}; parallel tool_use blocks, a refused input, an unknown tool; results return as one user message of tool_result blocks', async (t) => {
  const task = writeAgentTask(dir, 'par', 'system: Use the tools.\nscorers: [match]\n');
  const out = join(dir, 'par-out');
  const first = server.requests.length;
  const result = await runAgent(task, out, (ctx) =>
    toolResults(ctx.body).length === 0
      ? {
          text: 'Let me look.',
          toolCalls: [
            { id: 'toolu_a', name: 'weather', arguments: '{"city": "Paris"}' },
            { id: 'toolu_b', name: 'weather', arguments: '{"city": "Oslo"}' },
            { id: 'toolu_c', name: 'weather', arguments: '{"town": "Rome"}' },
            { id: 'toolu_d', name: 'browser', arguments: '{}' },
            { id: 'toolu_e', name: 'weather', arguments: '', input: 'Paris' },
          ],
          usage: { input: 100, output: 20 },
        }
      : {
          toolCalls: [{ id: 'toolu_f', name: 'submit', arguments: '{"answer": "14"}' }],
          usage: { input: 150, output: 5 },
        },
  );
  assert.equal(result.code, 0, result.stderr);
  const [one, two] = server.requests.slice(first);
  assert.equal(server.requests.length - first, 2);
  assert.equal(one.protocol, 'anthropic');
  assert.equal(one.body.system, 'Use the tools.');
  assert.deepEqual(one.body.messages, [{ role: 'user', content: 'go' }]);
  assert.deepEqual(one.body.tools[0], {
    name: 'weather',
    description: 'Current temperature of a city',
    input_schema: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
  });
  assert.deepEqual(
    one.body.tools.map((x: any) => Object.keys(x).sort().join(',')),
    Array(3).fill('description,input_schema,name'),
  );
  assert.deepEqual(
    one.body.tools.map((x: any) => x.name),
    ['weather', 'calculator', 'submit'],
  );

  // The second request: the assistant turn as the model sent it, then one user message holding the five results.
  const messages = two.body.messages;
  assert.deepEqual(
    messages.map((m: any) => m.role),
    ['user', 'assistant', 'user'],
  );
  assert.deepEqual(messages[1].content, [
    { type: 'text', text: 'Let me look.' },
    { type: 'tool_use', id: 'toolu_a', name: 'weather', input: { city: 'Paris' } },
    { type: 'tool_use', id: 'toolu_b', name: 'weather', input: { city: 'Oslo' } },
    { type: 'tool_use', id: 'toolu_c', name: 'weather', input: { town: 'Rome' } },
    { type: 'tool_use', id: 'toolu_d', name: 'browser', input: {} },
    { type: 'tool_use', id: 'toolu_e', name: 'weather', input: {} },
  ]);
  const results = messages[2].content;
  assert.ok(results.every((b: any) => b.type === 'tool_result'));
  assert.deepEqual(
    results.map((b: any) => [b.tool_use_id, b.is_error ?? false]),
    [
      ['toolu_a', false],
      ['toolu_b', false],
      ['toolu_c', true],
      ['toolu_d', true],
      ['toolu_e', true],
    ],
  );
  assert.equal(results[0].content, '{"temp_c":18}');
  assert.equal(results[1].content, '{"temp_c":4}');
  assert.match(results[2].content, /^error: the arguments of weather do not match its parameters/);
  assert.match(results[3].content, /^error: unknown tool "browser"/);
  assert.match(
    results[4].content,
    /^error: the arguments of weather are not valid JSON: .*not a JSON object/,
  );

  // The row is the same agentic row an OpenAI run writes.
  const rec = onlyRecord(out);
  const row = rec.rows[0];
  assert.equal(row.interaction_type, 'agentic');
  assert.equal(row.metadata.stop_reason, 'submit');
  assert.equal(row.metadata.final_answer, '14');
  assert.equal(row.metadata.finish_reason, 'tool_use');
  assert.equal(row.evaluation.score, 1);
  assert.equal(row.evaluation.num_turns, 2);
  assert.equal(row.evaluation.tool_calls_count, 6);
  assert.deepEqual(row.token_usage, { input_tokens: 250, output_tokens: 25, total_tokens: 275 });
  assert.deepEqual(
    row.messages.map((m: any) => m.role),
    ['system', 'user', 'assistant', 'tool', 'tool', 'tool', 'tool', 'tool', 'assistant', 'tool'],
  );
  assert.equal(row.messages[2].content, 'Let me look.');
  assert.deepEqual(row.messages[2].tool_calls[0], {
    id: 'toolu_a',
    name: 'weather',
    arguments: { city: 'Paris' },
    arguments_json: '{"city":"Paris"}',
  });
  assert.equal(row.messages[2].tool_calls[4].arguments_json, '"Paris"');
  assert.deepEqual(
    row.messages.slice(3, 8).map((m: any) => [m.tool_call_id[0], m.error ?? null]),
    [
      ['toolu_a', null],
      ['toolu_b', null],
      ['toolu_c', 'tool.bad-arguments'],
      ['toolu_d', 'tool.unknown'],
      ['toolu_e', 'tool.bad-json'],
    ],
  );
  assert.equal(row.answer_attribution[0].source, 'messages[8].tool_calls[0].arguments.answer');
  const validate = await cli(['validate', join(out, 'data')]);
  assert.equal(validate.code, 0, validate.stdout + validate.stderr);
  await assertUpstream(t, rec);
});

test('a model that never stops hits max_turns (and token_limit on the summed usage)', async (t) => {
  const forever: Script = () => ({
    toolCalls: [{ name: 'calculator', arguments: '{"expression": "1 + 1"}' }],
    usage: { input: 40, output: 10 },
  });
  for (const [name, limits, stop, turns] of [
    ['turns', 'limits: {max_turns: 3}\n', 'limit:max_turns', 3],
    ['tokens', 'limits: {token_limit: 120}\n', 'limit:token_limit', 3],
    ['default', '', 'limit:max_turns', 10],
  ] as const) {
    const task = writeAgentTask(dir, `never-${name}`, `${limits}scorers: [match, {step_count: {max: 2}}]\n`);
    const out = join(dir, `never-${name}-out`);
    const first = server.requests.length;
    const result = await runAgent(task, out, forever);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(server.requests.length - first, turns, name);
    const rec = onlyRecord(out);
    for (const row of rec.rows) {
      assert.equal(row.metadata.stop_reason, stop, name);
      assert.equal(modelTurns(row), turns, name);
      assert.equal(row.token_usage.input_tokens, 40 * turns, name);
      assert.deepEqual(
        callsOf(row).map((c) => c.args),
        Array(turns).fill({ expression: '1 + 1' }),
      );
    }
    const steps = rec.rows.find((r: any) => r.evaluation_result_id.endsWith('.step_count'));
    assert.equal(steps.evaluation.score, 0);
    await assertUpstream(t, rec);
  }
});

test('a reply cut at max_tokens: a cut tool_use is an error result the model reads; a cut text is the answer', async () => {
  const task = writeAgentTask(dir, 'cut', 'scorers: [match]\n', [
    { id: 'q', input: 'go', target: 'It is 1' },
  ]);
  const out = join(dir, 'cut-out');
  const result = await runAgent(task, out, (ctx) =>
    turnOf(ctx.body) === 0
      ? {
          toolCalls: [{ id: 'toolu_cut', name: 'weather', arguments: '{}' }],
          finishReason: 'max_tokens',
        }
      : { text: 'It is 1', finishReason: 'max_tokens' },
  );
  assert.equal(result.code, 0, result.stderr);
  const sent = server.requests.at(-1)!.body;
  assert.deepEqual(toolResults(sent)[0].tool_use_id, 'toolu_cut');
  assert.equal(toolResults(sent)[0].is_error, true);
  const row = onlyRecord(out).rows[0];
  assert.equal(row.metadata.stop_reason, 'answered');
  assert.equal(row.metadata.finish_reason, 'max_tokens');
  assert.equal(row.messages[2].error, 'tool.bad-arguments');
  assert.equal(row.evaluation.score, 1);
});

test('429 rate_limit_error, 529 overloaded_error and 500 api_error mid-trajectory are retried; a 400 invalid_request_error is an error row', async (t) => {
  const task = writeAgentTask(dir, 'errs', 'scorers: [match]\n', [
    { id: 'flaky', input: 'go', target: 'done' },
    { id: 'bad', input: 'go', target: 'done' },
  ]);
  const out = join(dir, 'errs-out');
  const first = server.requests.length;
  const result = await runAgent(
    task,
    out,
    (ctx) => {
      const turn = turnOf(ctx.body);
      if (sampleOf(ctx.sampleId) === 'bad' && turn === 1)
        return { status: 400, message: 'prompt is too long: 300000 tokens > 200000 maximum' };
      if (sampleOf(ctx.sampleId) === 'flaky' && ctx.attempt === 1)
        return [{ status: 429, retryAfter: '0' }, { status: 529 }, { status: 500 }][turn] ?? { text: '?' };
      return turn < 2
        ? { toolCalls: [{ name: 'calculator', arguments: `{"expression": "${turn}"}` }] }
        : { text: 'done' };
    },
    ['--max-attempts', '3', '--retry-base-ms', '1'],
  );
  assert.equal(result.code, 1, result.stderr);
  const sent = server.requests.slice(first);
  const flaky = sent.filter((r) => sampleOf(r.sampleId) === 'flaky');
  assert.deepEqual(
    flaky.map((r) => r.attempt),
    [1, 2, 1, 2, 1, 2],
    'each turn once failed, once answered',
  );
  // A 400 is not retried.
  assert.equal(sent.filter((r) => sampleOf(r.sampleId) === 'bad').length, 2);
  const rec = onlyRecord(out);
  const ok = rec.rows.find((r: any) => r.metadata.sample === 'flaky');
  assert.equal(ok.metadata.stop_reason, 'answered');
  assert.equal(ok.evaluation.score, 1);
  assert.equal(modelTurns(ok), 3);
  const bad = rec.rows.find((r: any) => r.metadata.sample === 'bad');
  assert.equal(bad.metadata.stop_reason, 'error');
  assert.match(bad.error, /prompt is too long/);
  assert.deepEqual(
    bad.messages.map((m: any) => m.role),
    ['user', 'assistant', 'tool'],
  );
  await assertUpstream(t, rec);
});

test('--record keeps whole Anthropic trajectories; --provider replay gives the same rows offline', () =>
  assertRecordReplay({
    dir,
    server,
    model: 'claude-t',
    results: (body) => toolResults(body).map((b) => b.content),
    runLive: runAgent,
  }));
