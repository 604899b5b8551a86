// `evalkit run` on answers built to hang or crash the scorers: a user's catastrophic regex (a `pattern` scorer, a
// promptfoo `regex` assertion, a JSON Schema `pattern`) and JSON nested 200 000 levels deep. Each is a scorer error
// for that sample — no value, the reason and a stable code in the row — the run finishes, exits 1, writes a record
// that validates, and the rerun from the journal finishes the same way.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DataError } from '../../src/errors.js';
import { boundedRegExp, REGEX_TIMEOUT_CODE } from '../../src/io/bounded-regex.js';
import { JSON_DEPTH_CODE, jsonValuesIn } from '../../src/run/task/json-answer.js';
import { loadPromptfooConfig } from '../../src/run/task/promptfoo.js';
import { jsonIn } from '../../src/run/task/scorers.js';
import { cli } from '../helpers/cli.js';
import { startProviderServer, type ProviderServer } from '../helpers/provider-server.js';
import { openaiRun, recordsUnder, resultOf, writeTask } from './helpers.js';

let server: ProviderServer;
let dir: string;
before(async () => {
  server = await startProviderServer();
  dir = mkdtempSync(join(tmpdir(), 'evalkit-run-bounds-'));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const A40K = 'a'.repeat(40000) + '!';
const DEEP_ARRAY = '['.repeat(200000) + ']'.repeat(200000);
/** The variants: other catastrophic inputs, a deep object, an unbalanced deep array, brackets never closed. */
const ANSWERS: Record<string, string> = {
  a1: A40K,
  a2: DEEP_ARRAY,
  a3: `{"x": "${'a'.repeat(30000)}!"}`,
  a4: '{"a":'.repeat(1000) + '1' + '}'.repeat(1000),
  a5: '{"x": "aaa"}',
  a6: 'aaa',
  a7: '['.repeat(200000) + ']'.repeat(199999),
  a8: '{'.repeat(200000),
};
const answer = (user: string) => ({ text: ANSWERS[user.trim()] ?? 'no such input' });

const timedOut = (e: unknown) => e instanceof DataError && e.code === REGEX_TIMEOUT_CODE;
const tooDeep = (e: unknown) => e instanceof DataError && e.code === JSON_DEPTH_CODE;

test('a catastrophic regex is stopped at its bound; deep JSON is refused by depth; both with stable codes', () => {
  assert.throws(() => boundedRegExp('(a+)+$').test(A40K), timedOut);
  assert.throws(() => boundedRegExp('(x+x+)+y').exec('x'.repeat(5000)), timedOut);
  assert.throws(() => boundedRegExp('^(a|aa)+$', 'i').test('A'.repeat(30000) + '!'), timedOut);
  // Ordinary regexes give what RegExp gives, from the start every time.
  const re = boundedRegExp('ANSWER: *(\\w+)', 'i');
  assert.deepEqual([...re.exec('x answer: Paris')!], ['answer: Paris', 'Paris']);
  assert.deepEqual([...re.exec('ANSWER: Rome')!], ['ANSWER: Rome', 'Rome']);
  assert.equal(re.test('nothing'), false);

  assert.throws(() => jsonIn(DEEP_ARRAY), tooDeep);
  assert.throws(() => jsonIn('```json\n' + ANSWERS.a4 + '\n```'), tooDeep);
  assert.deepEqual(jsonIn('[[[1]]]'), { ok: true, value: [[[1]]] });
  assert.deepEqual(jsonIn('x```JSON \n{"a": 1}```'), { ok: true, value: { a: 1 } });
  assert.deepEqual(jsonIn('```'.repeat(50000)), { ok: false });
  // Finding JSON inside a text is linear: unbalanced or unclosed deep brackets end at once.
  assert.throws(() => jsonValuesIn(ANSWERS.a7), tooDeep);
  assert.deepEqual(jsonValuesIn(ANSWERS.a8), []);
  assert.deepEqual(jsonValuesIn('['.repeat(100000) + ' {"pass": true}'), [{ pass: true }]);
  assert.deepEqual(jsonValuesIn('see [x} then {"a": "}"} and [1, [2]] ]'), [{ a: '}' }, [1, [2]]]);
  assert.deepEqual(jsonValuesIn('a "quote\n{"pass": false, "s": "[" }'), [{ pass: false, s: '[' }]);
});

test('a task whose scorers meet catastrophic regexes and deep JSON: scorer errors, the run finishes (exit 1), and so does its rerun', async () => {
  const task = writeTask(
    join(dir, 'task'),
    'bounds',
    [
      'name: bounds',
      'dataset: {path: bounds.jsonl}',
      'scorers:',
      '  - {pattern: {regex: "(a+)+$", name: nested}}',
      '  - {pattern: {regex: "^(\\\\w+\\\\s?)*$", name: words}}',
      '  - {json: {schema: x.schema.json}}',
      '',
    ].join('\n'),
    ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'].map((id) => ({ id, input: id, target: 'aaa' })),
    {
      'x.schema.json': JSON.stringify({
        type: 'object',
        properties: { x: { type: 'string', pattern: '^(a|aa)+$' } },
      }),
    },
  );
  server.setScript((ctx) => answer(ctx.user));
  const out = join(dir, 'task-out');
  const args = openaiRun(task, server.openaiBaseUrl, out);
  const first = server.requests.length;
  const result = await cli(args);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stdout, /6 scores not computable/);
  const check = () => {
    const rec = recordsUnder(out).get('unknown/m')!;
    const row = (id: string) => rec.rows.find((r) => r.sample_id === id)!;
    for (const [id, code] of [
      ['a1/nested', REGEX_TIMEOUT_CODE],
      ['a1/words', REGEX_TIMEOUT_CODE],
      ['a3/nested', REGEX_TIMEOUT_CODE],
      ['a3/json', REGEX_TIMEOUT_CODE],
      ['a2/json', JSON_DEPTH_CODE],
      ['a4/json', JSON_DEPTH_CODE],
    ]) {
      assert.ok(row(id).error?.startsWith(`${code}: `), `${id}: ${row(id).error}`);
      assert.equal(row(id).metadata.score_missing, 'true', id);
    }
    assert.equal(row('a5/json').evaluation.score, 1);
    assert.equal(row('a6/nested').evaluation.score, 1);
    assert.equal(row('a6/words').evaluation.score, 1);
    // The errors are left out of n: nested has a2, a4, a5 (0) and a6 (1).
    assert.equal(resultOf(rec, 'nested').score_details.score, 1 / 4);
    assert.equal(resultOf(rec, 'json').score_details.score, 1 / 3);
  };
  check();
  assert.equal((await cli(['validate', out])).code, 0);
  // The answers are journaled: the rerun scores them again, within the same bounds, and sends nothing.
  const sent = server.requests.length;
  assert.equal(sent - first, 6);
  const again = await cli(args);
  assert.equal(again.code, 1, again.stderr);
  assert.equal(server.requests.length, sent);
  check();
});

test('a promptfoo config: regex, is-json with a schema pattern, contains-json, equals and not- on the same answers', async () => {
  const cfgDir = join(dir, 'pf');
  mkdirSync(cfgDir, { recursive: true });
  const cases: [string, string][] = [
    ['a1', '[{type: regex, value: "(a+)+$"}, {type: contains, value: "aaa"}]'],
    ['a3', '[{type: is-json, value: {type: object, properties: {x: {pattern: "^(a|aa)+$"}}}}]'],
    ['a2', '[{type: contains-json}, {type: is-json}, {type: equals, value: {a: 1}}]'],
    ['a4', '[{type: not-contains-json}]'],
    ['a7', '[{type: contains-json}]'],
    ['a8', '[{type: contains-json}, {type: not-regex, value: "(a+)+$"}]'],
    ['a5', '[{type: regex, value: "(a+)+$"}, {type: is-json}]'],
    // The grader's reply is read for JSON too: a deep one is the same scorer error.
    ['a6', '[{type: llm-rubric, value: "says aaa"}]'],
  ];
  writeFileSync(
    join(cfgDir, 'promptfooconfig.yaml'),
    [
      "prompts: ['{{q}}']",
      `providers: [{id: 'openai:chat:m', config: {apiBaseUrl: '${server.openaiBaseUrl}'}}]`,
      'tests:',
      ...cases.map(([q, asserts]) => `  - {vars: {q: ${q}}, assert: ${asserts}}`),
      '',
    ].join('\n'),
  );
  server.setScript((ctx) =>
    ctx.sampleId.includes(':judge-') ? { text: `${DEEP_ARRAY} {"pass": true}` } : answer(ctx.user),
  );
  const out = join(dir, 'pf-out');
  const judge = [
    '--judge-provider',
    'openai',
    '--judge-model',
    'j',
    '--judge-base-url',
    server.openaiBaseUrl,
  ];
  const result = await cli(['run', join(cfgDir, 'promptfooconfig.yaml'), '-o', out, ...judge], {
    env: { OPENAI_API_KEY: 'sk-test' },
  });
  assert.equal(result.code, 1, result.stderr);
  const rec = recordsUnder(out).get('unknown/m')!;
  const row = (test: number, metric: string) =>
    rec.rows.find((r) => r.sample_id === `test-${test}/${metric}`) ??
    assert.fail(`no row test-${test}/${metric}: ${rec.rows.map((r) => r.sample_id).join(', ')}`);
  const failed = (test: number, metric: string, code: string) => {
    const r = row(test, metric);
    assert.ok(r.error?.startsWith(`${code}: `), `test-${test}/${metric}: ${r.error}`);
    assert.equal(r.metadata.score_missing, 'true');
  };
  failed(1, 'regex', REGEX_TIMEOUT_CODE);
  assert.equal(row(1, 'contains').evaluation.score, 1);
  assert.equal(
    row(1, 'pass').metadata.score_missing,
    'true',
    'a test whose assertion has no result has no pass',
  );
  failed(2, 'is-json', REGEX_TIMEOUT_CODE);
  failed(3, 'contains-json', JSON_DEPTH_CODE);
  failed(3, 'is-json', JSON_DEPTH_CODE);
  failed(3, 'equals', JSON_DEPTH_CODE);
  failed(4, 'not-contains-json', JSON_DEPTH_CODE);
  failed(5, 'contains-json', JSON_DEPTH_CODE);
  assert.equal(row(6, 'contains-json').evaluation.score, 0);
  assert.equal(row(6, 'not-regex').evaluation.score, 1);
  assert.equal(row(7, 'regex').evaluation.score, 0);
  assert.equal(row(7, 'is-json').evaluation.score, 1);
  failed(8, 'llm-rubric', JSON_DEPTH_CODE);
});

test('a promptfoo .jsonl tests file nested too deep is refused with its line, not walked', () => {
  const cfg = join(dir, 'pf-deep');
  mkdirSync(cfg, { recursive: true });
  for (const [depth, line] of [
    [200000, '['.repeat(200000) + ']'.repeat(200000)],
    [5000, `{"vars": {"q": ${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}}`],
  ] as const) {
    writeFileSync(join(cfg, 'tests.jsonl'), `{"vars": {"q": "x"}}\n${line}\n`);
    assert.throws(
      () =>
        loadPromptfooConfig(join(cfg, 'c.yaml'), {
          prompts: ['{{q}}'],
          providers: ['openai:m'],
          tests: 'file://tests.jsonl',
        }),
      (e: unknown) =>
        e instanceof DataError &&
        e.code === 'promptfoo.parse' &&
        /tests\.jsonl:2:\d+: json\.nesting/.test(e.message),
      `depth ${depth}`,
    );
  }
});
