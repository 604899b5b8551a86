// A promptfoo config whose provider declares OpenAI function tools (run by evalkit's tool runners, said in
// config.evalkit) runs as an agent against a real local server that answers with tool calls by rule; every
// trajectory assertion (`trajectory:tool-used`, `-sequence`, `-args-match`, `-step-count`, `tool-call-f1`, with
// `not-`) is checked against the value this test derives from the recorded messages by promptfoo's rules, written
// here from promptfoo's documentation. What evalkit cannot run is refused, with its code, before any request.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';
import { cli } from '../helpers/cli.js';
import { startProviderServer, type ProviderServer } from '../helpers/provider-server.js';
import { loadPromptfooConfig } from '../../src/run/task/promptfoo.js';
import { recordsUnder } from './helpers.js';

let server: ProviderServer;
let dir: string;
before(async () => {
  server = await startProviderServer();
  dir = mkdtempSync(join(tmpdir(), 'evalkit-pf-agent-'));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const ENV = { OPENAI_API_KEY: 'sk-test' };

/** Each city's agent: the tool calls of each turn, then a final text. */
const PLANS: Record<string, { name: string; arguments: string }[][]> = {
  // Parallel calls, then one, then submit (its turn is the last).
  Paris: [
    [
      { name: 'weather', arguments: '{"city": "Paris"}' },
      { name: 'search_flights', arguments: '{"to": "Paris", "page": 2}' },
    ],
    [{ name: 'weather', arguments: '{"city": "Oslo", "days": [1]}' }],
    [{ name: 'submit', arguments: '{"answer": "go"}' }],
  ],
  Oslo: [[{ name: 'search_flights', arguments: '{"to": "Oslo", "page": 1, "request_id": "r9"}' }]],
  Rome: [],
  // Arguments that are no JSON, then a call of "Weather" (no such tool: an error result, but a recorded call).
  Lima: [
    [{ name: 'weather', arguments: '{"city": ' }],
    [{ name: 'Weather', arguments: '{"city": "Lima", "days": [1, 2]}' }],
  ],
};

const ASSERTS = `
    - {type: 'trajectory:tool-used', value: weather}
    - {type: 'trajectory:tool-used', value: [weather, search_flights]}
    - {type: 'not-trajectory:tool-used', value: [submit, calculator]}
    - {type: 'trajectory:tool-used', value: {pattern: 'search*', max: 1}}
    - {type: 'trajectory:tool-sequence', value: [weather, submit]}
    - {type: 'trajectory:tool-sequence', value: {mode: exact, steps: [search_flights]}}
    - {type: 'not-trajectory:tool-sequence', value: {steps: [weather, {pattern: 'WEATHER'}]}}
    - {type: 'trajectory:tool-args-match', value: {name: search_flights, args: {to: '{{city}}'}}}
    - type: 'trajectory:tool-args-match'
      value: {pattern: 'search_*', mode: exact, args: {to: Oslo, request_id: x}, defaults: {page: 1}, ignore: ['*_ID']}
    - {type: 'trajectory:tool-args-match', value: {name: weather, mode: exact, arguments: {city: Paris}}}
    - {type: 'trajectory:tool-args-match', value: {pattern: weather, args: {days: [1]}}}
    - {type: 'trajectory:step-count', value: {max: 4}}
    - {type: 'trajectory:step-count', value: {type: message, min: 2}}
    - {type: 'not-trajectory:step-count', value: {type: tool, pattern: 'WEATHER', min: 2}}
    - {type: tool-call-f1, value: [weather, search_flights]}
    - {type: tool-call-f1, value: 'weather, submit', threshold: 0.5, weight: 2}
    - {type: not-tool-call-f1, value: [search_flights], threshold: 0.9}
`;

const CONFIG = (baseUrl: string) => `
description: trips
prompts: ['Plan a trip to {{city}}']
providers:
  - id: openai:chat:agent
    config:
      apiBaseUrl: ${baseUrl}
      tools:
        - type: function
          function:
            name: weather
            description: Current temperature of a city
            parameters: {type: object, properties: {city: {type: string}, days: {type: array}}, required: [city]}
        - type: function
          function:
            name: search_flights
            description: Flights to a city
            parameters: {type: object, properties: {to: {type: string}, page: {type: integer}, request_id: {type: string}}}
      evalkit:
        tools:
          weather: {table: weather.jsonl}
          search_flights: {table: flights.jsonl}
          submit: {builtin: submit}
        limits: {max_turns: 5}
defaultTest:
  assert:${ASSERTS}
tests:
  - {vars: {city: Paris}}
  - {vars: {city: Oslo}, threshold: 0.5}
  - {vars: {city: Rome}}
  - {vars: {city: Lima}}
`;

const TABLES = {
  'weather.jsonl': [
    { arguments: { city: 'Paris' }, result: { temp_c: 18 } },
    { arguments: { city: 'Oslo' }, result: { temp_c: 4 } },
  ],
  'flights.jsonl': [
    { arguments: { to: 'Paris', page: 2 }, result: 'AF1' },
    { arguments: { to: 'Oslo', page: 1, request_id: 'r9' }, result: 'SK2' },
  ],
};

function writeConfig(name: string, text: string): string {
  const d = join(dir, name);
  mkdirSync(d, { recursive: true });
  for (const [file, rows] of Object.entries(TABLES))
    writeFileSync(join(d, file), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const path = join(d, 'promptfooconfig.yaml');
  writeFileSync(path, text);
  return path;
}

const agentScript = (ctx: { body: any; user: string }) => {
  const first = ctx.body.messages.find((m: any) => m.role === 'user').content as string;
  const plan = PLANS[/to (\w+)/.exec(first)![1]];
  const turn = ctx.body.messages.filter((m: any) => m.role === 'assistant').length;
  return turn < plan.length ? { toolCalls: plan[turn] } : { text: 'done' };
};

// ---- promptfoo's rules, written here from its documentation, on the steps read back from a row's messages ----

interface Step {
  type: string;
  name: string;
  args?: any;
}

/** Each assistant message a `message` step, then each of its tool calls a `tool` step (args when JSON objects). */
function stepsOf(row: any): Step[] {
  const steps: Step[] = [];
  for (const m of row.messages.filter((x: any) => x.role === 'assistant')) {
    steps.push({ type: 'message', name: 'message' });
    for (const c of m.tool_calls ?? []) {
      let args: any;
      try {
        args = JSON.parse(c.arguments_json);
      } catch {
        args = undefined;
      }
      steps.push({ type: 'tool', name: c.name, ...(args && typeof args === 'object' ? { args } : {}) });
    }
  }
  return steps;
}

const glob = (name: string, pattern: string): boolean =>
  new RegExp(
    '^' +
      [...pattern]
        .map((ch) => (ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[^\w]/g, '\\$&')))
        .join('') +
      '$',
    'i',
  ).test(name);

const toolsOf = (steps: Step[]) => steps.filter((s) => s.type === 'tool');
const named = (s: Step, m: any): boolean => glob(s.name, typeof m === 'string' ? m : (m.pattern ?? m.name));

function subset(actual: any, expected: any): boolean {
  if (Array.isArray(expected))
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((e, i) => subset(actual[i], e))
    );
  if (expected && typeof expected === 'object')
    return (
      !!actual &&
      typeof actual === 'object' &&
      !Array.isArray(actual) &&
      Object.keys(expected).every((k) => k in actual && subset(actual[k], expected[k]))
    );
  return isDeepStrictEqual(actual, expected);
}

/** [pass, score] of one assertion on a row's steps. */
function promptfooRule(a: any, steps: Step[], vars: Record<string, string>): [boolean, number] {
  const neg = a.type.startsWith('not-');
  const type = a.type.replace(/^not-/, '');
  const v = JSON.parse(JSON.stringify(a.value).replace(/\{\{(\w+)\}\}/g, (_, k) => vars[k]));
  const tools = toolsOf(steps);
  let pass: boolean;
  if (type === 'tool-call-f1') {
    const want = new Set<string>((Array.isArray(v) ? v : v.split(',')).map((x: string) => x.trim()));
    const called = new Set(tools.map((s) => s.name));
    const hits = [...called].filter((n) => want.has(n)).length;
    const p = called.size ? hits / called.size : 0;
    const r = hits / want.size;
    const f1 = p + r > 0 ? (2 * p * r) / (p + r) : 0;
    return [f1 >= (a.threshold ?? 1) !== neg, f1];
  }
  if (type === 'trajectory:tool-used') {
    if (typeof v === 'string' || Array.isArray(v)) {
      const list = typeof v === 'string' ? [v] : v;
      const used = list.filter((m: string) => tools.some((s) => named(s, m)));
      pass = neg ? used.length === 0 : used.length === list.length;
      return [pass, pass ? 1 : 0];
    }
    const n = tools.filter((s) => named(s, v)).length;
    pass = n >= (v.min ?? 1) && (v.max === undefined || n <= v.max);
  } else if (type === 'trajectory:tool-sequence') {
    const want = Array.isArray(v) ? v : v.steps;
    if (!Array.isArray(v) && v.mode === 'exact')
      pass = tools.length === want.length && want.every((m: any, i: number) => named(tools[i], m));
    else {
      let i = 0;
      for (const s of tools) if (i < want.length && named(s, want[i])) i++;
      pass = i === want.length;
    }
  } else if (type === 'trajectory:tool-args-match') {
    const expectedArgs = 'args' in v ? v.args : v.arguments;
    const ignore: string[] = v.ignore ?? [];
    const drop = (o: any, f: (k: string, x: any) => boolean) =>
      Object.fromEntries(Object.entries(o).filter(([k, x]) => !f(k, x)));
    const ignored = (k: string) => ignore.some((e) => e === k || (/[*?]/.test(e) && glob(k, e)));
    const want = drop(expectedArgs, ignored);
    pass = tools.some((s) => {
      if (!named(s, v) || s.args === undefined) return false;
      const got = drop(
        drop(s.args, ignored),
        (k, x) => v.defaults && k in v.defaults && isDeepStrictEqual(x, v.defaults[k]),
      );
      return v.mode === 'exact' ? isDeepStrictEqual(got, want) : subset(got, want);
    });
  } else if (type === 'trajectory:step-count') {
    const n = steps.filter(
      (s) =>
        (v.type === undefined || s.type === v.type) && (v.pattern === undefined || glob(s.name, v.pattern)),
    ).length;
    pass = (v.min === undefined || n >= v.min) && (v.max === undefined || n <= v.max);
  } else throw new Error(type);
  pass = pass !== neg;
  return [pass, pass ? 1 : 0];
}

test("a promptfoo agent config: every trajectory assertion by promptfoo's rules, on the recorded messages", async () => {
  server.setScript(agentScript);
  const config = writeConfig('agent', CONFIG(server.openaiBaseUrl));
  const out = join(dir, 'agent-out');
  const before = server.requests.length;
  const result = await cli(['run', config, '-o', out, '--format', 'json'], { env: ENV });
  assert.equal(result.code, 0, result.stderr);
  // The tools were offered as declared, and the conversation carried the results (a real loop, not one call).
  const sent = server.requests.slice(before);
  assert.deepEqual(
    sent[0].body.tools.map((t: any) => t.function.name),
    ['weather', 'search_flights', 'submit'],
  );
  assert.equal(sent.length, 3 + 2 + 1 + 3); // Paris ends with submit, Rome answers at once

  await checkTrajectoryScores(out, CONFIG(server.openaiBaseUrl));
});

/** Each row's scores are those promptfoo's rules give on the row's recorded messages; the record validates. */
async function checkTrajectoryScores(out: string, configText: string): Promise<void> {
  const [record] = [...recordsUnder(out).values()];
  const cfg = parse(configText);
  const asserts: any[] = cfg.defaultTest.assert;
  const byName = new Map<string, any>();
  const seen = new Map<string, number>();
  for (const a of asserts) {
    const n = (seen.get(a.type) ?? 0) + 1;
    seen.set(a.type, n);
    byName.set(n === 1 ? a.type : `${a.type}#${n}`, a);
  }
  const values = new Map<string, number[]>();
  let checked = 0;
  for (const row of record.rows) {
    assert.equal(row.interaction_type, 'agentic');
    const ti = Number(/^test-(\d)/.exec(row.sample_id)![1]) - 1;
    const test = cfg.tests[ti];
    const steps = stepsOf(row);
    const scorer = row.metadata.scorer;
    if (scorer === 'pass') {
      const results = asserts.map((a) => ({ a, r: promptfooRule(a, steps, test.vars) }));
      const want =
        test.threshold !== undefined
          ? results.reduce((s, x) => s + (x.a.weight ?? 1) * x.r[1], 0) /
              results.reduce((s, x) => s + (x.a.weight ?? 1), 0) >=
            test.threshold
          : results.every((x) => x.r[0]);
      assert.equal(row.evaluation.score, want ? 1 : 0, `pass of ${test.vars.city}`);
    } else {
      const a = byName.get(scorer);
      assert.ok(a, scorer);
      const [pass, score] = promptfooRule(a, steps, test.vars);
      assert.equal(row.evaluation.score, score, `${scorer} on ${test.vars.city}`);
      assert.equal(
        row.answer_attribution[0].extracted_value,
        pass ? 'pass' : 'fail',
        `${scorer} on ${test.vars.city}`,
      );
      values.set(scorer, [...(values.get(scorer) ?? []), score]);
    }
    checked++;
  }
  assert.equal(checked, 4 * (asserts.length + 1));
  // The four agents tell every assertion's outcomes apart: each has a pass and a fail among them.
  for (const [name, v] of values) assert.ok(v.some((x) => x > 0) && v.some((x) => x < 1), `${name}: ${v}`);
  const validate = await cli(['validate', join(out, 'data')]);
  assert.equal(validate.code, 0, validate.stdout + validate.stderr);
}

test("an anthropic: provider with tools in Anthropic's shape runs the same agents through the Messages API", async () => {
  // The Messages API sends a call's input as JSON: Lima's arguments that are no JSON come as an input that is a
  // string (not an object), which the tool's schema refuses as well.
  server.setScript((ctx) => {
    const reply: any = agentScript(ctx);
    const input = (text: string): unknown => {
      try {
        return JSON.parse(text);
      } catch {
        return text;
      }
    };
    return reply.toolCalls
      ? { toolCalls: reply.toolCalls.map((c: any) => ({ ...c, input: input(c.arguments) })) }
      : reply;
  });
  const openai = parse(CONFIG(server.openaiBaseUrl));
  const provider = openai.providers[0];
  provider.id = 'anthropic:messages:agent';
  provider.config.apiBaseUrl = server.anthropicBaseUrl;
  provider.config.tools = provider.config.tools.map((t: any) => ({
    name: t.function.name,
    description: t.function.description,
    input_schema: t.function.parameters,
  }));
  const text = JSON.stringify(openai);
  const config = writeConfig('agent-anthropic', text);
  const out = join(dir, 'agent-anthropic-out');
  const before = server.requests.length;
  const result = await cli(['run', config, '-o', out, '--format', 'json'], {
    env: { ANTHROPIC_API_KEY: 'sk-ant-test' },
  });
  assert.equal(result.code, 0, result.stderr + result.stdout);
  const sent = server.requests.slice(before);
  assert.ok(sent.every((r) => r.protocol === 'anthropic'));
  assert.deepEqual(
    sent[0].body.tools.map((t: any) => [t.name, Object.keys(t.input_schema.properties ?? {})]),
    [
      ['weather', ['city', 'days']],
      ['search_flights', ['to', 'page', 'request_id']],
      ['submit', ['answer']],
    ],
  );
  assert.equal(sent.length, 3 + 2 + 1 + 3);
  await checkTrajectoryScores(out, text);
});

test('what evalkit cannot run in a promptfoo agent config is refused with its code before any request', async () => {
  const url = server.openaiBaseUrl;
  const base = parse(CONFIG(url));
  const variant = (edit: (c: any) => void): string => {
    const c = structuredClone(base);
    c.defaultTest.assert = [{ type: 'trajectory:tool-used', value: 'weather' }];
    edit(c);
    return JSON.stringify(c);
  };
  const cfg = (c: any) => c.providers[0].config;
  const cases: [string, string, RegExp][] = [
    [
      'no tools',
      variant((c) => (c.providers[0].config = { apiBaseUrl: url })),
      /promptfoo\.trajectory-without-tools/,
    ],
    [
      'no runner',
      variant((c) => delete cfg(c).evalkit.tools.weather),
      /promptfoo\.tool-runner.*"weather" has no runner/,
    ],
    [
      'runner of an undeclared tool',
      variant((c) => (cfg(c).evalkit.tools.lookup = { table: 'weather.jsonl' })),
      /promptfoo\.tool-runner.*lookup/,
    ],
    [
      'another kind of tool',
      variant((c) => cfg(c).tools.push({ type: 'code_interpreter' })),
      /promptfoo\.tool-type.*code_interpreter/,
    ],
    [
      'JavaScript callbacks',
      variant((c) => (cfg(c).functionToolCallbacks = { weather: 'async (args) => 1' })),
      /promptfoo\.tool-callbacks/,
    ],
    [
      'a runner the task schema refuses',
      variant((c) => (cfg(c).evalkit.tools.weather = { table: 'weather.jsonl', timeout_ms: 0 })),
      /promptfoo\.tool-spec.*tool "weather"/,
    ],
    [
      'limits the task schema refuses',
      variant((c) => (cfg(c).evalkit.limits = { max_turns: 0 })),
      /promptfoo\.tool-spec.*config\.evalkit\.limits/,
    ],
    [
      'a table outside the folder',
      variant((c) => (cfg(c).evalkit.tools.weather = { table: '../elsewhere.jsonl' })),
      /task\.file-outside/,
    ],
    [
      'a tools file outside the folder',
      variant((c) => (cfg(c).tools = 'file://../tools.yaml')),
      /promptfoo\.file-outside/,
    ],
    [
      'a tools file that is no list',
      variant((c) => (cfg(c).tools = 'file://weather.jsonl')),
      /promptfoo\.tool-type/,
    ],
    [
      'a mode promptfoo does not have',
      variant(
        (c) =>
          (c.defaultTest.assert = [
            { type: 'trajectory:tool-sequence', value: { mode: 'any_order', steps: ['weather'] } },
          ]),
      ),
      /promptfoo\.assert-value.*mode is in_order or exact/,
    ],
    [
      'step-count without min or max',
      variant((c) => (c.defaultTest.assert = [{ type: 'trajectory:step-count', value: { type: 'tool' } }])),
      /promptfoo\.assert-value.*min or max/,
    ],
    [
      'tool-call-f1 with nothing expected',
      variant((c) => (c.defaultTest.assert = [{ type: 'tool-call-f1', value: ' , ' }])),
      /promptfoo\.assert-value.*at least one/,
    ],
  ];
  for (const [name, text, code] of cases) {
    const config = writeConfig(`bad-${cases.findIndex((c) => c[0] === name)}`, text);
    const before = server.requests.length;
    const result = await cli(['run', config, '-o', join(dir, 'bad-out')], { env: ENV });
    // A usage the config cannot have exits 2, a value it cannot hold 1: never 0, never a crash.
    assert.ok(result.code === 1 || result.code === 2, `${name}: exit ${result.code}: ${result.stderr}`);
    assert.match(result.stderr, code, name);
    assert.doesNotMatch(result.stderr, /\n\s+at /, `${name}: no stack trace`);
    assert.equal(server.requests.length, before, `${name}: nothing sent`);
  }
});

test("tools from a file:// list; the tools and their tables are part of the task's digest (a journal under others is refused)", async () => {
  const text = (tools: string) =>
    JSON.stringify({
      prompts: ['Plan a trip to {{city}}'],
      providers: [
        {
          id: 'openai:chat:agent',
          config: {
            apiBaseUrl: server.openaiBaseUrl,
            tools,
            evalkit: { tools: { weather: { table: 'weather.jsonl' }, submit: { builtin: 'submit' } } },
          },
        },
      ],
      tests: [{ vars: { city: 'Paris' }, assert: [{ type: 'trajectory:tool-used', value: 'weather' }] }],
    });
  const config = writeConfig('from-file', text('file://tools.yaml'));
  const d = join(dir, 'from-file');
  writeFileSync(
    join(d, 'tools.yaml'),
    '- {type: function, function: {name: weather, parameters: {type: object, properties: {city: {type: string}}}}}\n',
  );
  server.setScript(agentScript);
  const before = server.requests.length;
  const result = await cli(['run', config, '-o', join(d, 'out')], { env: ENV });
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(
    server.requests[before].body.tools.map((t: any) => t.function.name),
    ['weather', 'submit'],
  );
  const digest = () => loadPromptfooConfig(config, parse(text('file://tools.yaml')))[0].task.digest;
  const first = digest();
  assert.equal(digest(), first);
  writeFileSync(
    join(d, 'weather.jsonl'),
    JSON.stringify({ arguments: { city: 'Paris' }, result: 'warm' }) + '\n',
  );
  assert.notEqual(digest(), first);
});
