// `evalkit run promptfooconfig.yaml` end to end against a real local server (OpenAI and Anthropic protocols): every
// supported assertion type, each with its result checked against promptfoo's rules applied here to the recorded
// answers; every test × prompt × provider a sample, paired across providers; an unsupported type refused before any
// request.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse, stringify } from 'yaml';
import { cli } from '../helpers/cli.js';
import { startProviderServer, type ProviderServer } from '../helpers/provider-server.js';
import { reference, skipWithoutReference } from '../helpers/shared.js';
import { recordsUnder, resultOf } from './helpers.js';

let server: ProviderServer;
let dir: string;
before(async () => {
  server = await startProviderServer();
  dir = mkdtempSync(join(tmpdir(), 'evalkit-run-promptfoo-'));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const ENV = { OPENAI_API_KEY: 'sk-test', ANTHROPIC_API_KEY: 'sk-ant-test' };

/** The answers by model and city: plain text, JSON, JSON inside prose. */
const ANSWERS: Record<string, Record<string, string>> = {
  alpha: {
    Paris: 'Paris is the capital of France.',
    Rome: '{"city": "Rome", "country": "Italy"}',
    Oslo: 'Sure: {"city": "Oslo"} is my answer',
  },
  beta: {
    Paris: 'paris',
    Rome: 'The answer is {"city": 7}',
    Oslo: 'Oslo',
  },
  gamma: {
    Paris: 'PARIS, France',
    Rome: 'Rome, Italy',
    Oslo: '{"city": "Oslo", "country": "Norway"}',
  },
};

const CONFIG = (baseUrl: string, anthropicUrl: string) => `
description: capitals
prompts:
  - 'Name the city: {{city}}'
  - file://chat.json
providers:
  - id: openai:chat:alpha
    config: { apiBaseUrl: ${baseUrl} }
  - id: openai:beta
    config: { apiBaseUrl: ${baseUrl}, temperature: 0.3, max_tokens: 50 }
  - id: anthropic:messages:gamma
    config: { apiBaseUrl: ${anthropicUrl} }
defaultTest:
  assert:
    - type: not-contains
      value: sorry
  options:
    provider:
      id: openai:chat:grader
      config: { apiBaseUrl: ${baseUrl} }
tests:
  - description: paris
    vars: { city: Paris }
    assert:
      - { type: equals, value: '{{city}}' }
      - { type: icontains, value: paris }
      - { type: contains, value: Paris }
      - { type: starts-with, value: Paris }
      - { type: contains-any, value: [France, Europe] }
      - { type: contains-all, value: 'Paris, France' }
      - { type: llm-rubric, value: names a European capital, threshold: 0.5 }
  - description: rome
    vars: { city: Rome }
    threshold: 0.6
    assert:
      - { type: is-json, value: { type: object, required: [city], properties: { city: { type: string } } }, weight: 2 }
      - { type: contains-json, value: { type: object, required: [city] } }
      - { type: regex, value: '^R' }
      - { type: not-regex, value: '\\d' }
      - { type: not-icontains, value: italy, weight: 0.5 }
  - file://more-tests.yaml
`;

const MORE_TESTS = `
- description: oslo
  vars: { city: Oslo }
  assert:
    - { type: contains-json }
    - { type: is-json }
    - { type: not-is-json }
    - { type: not-llm-rubric, value: 'mentions a country' }
`;

/** The grader's JSON verdict, chosen by the answer (some pass, some fail, one with a low score). */
function graderReply(user: string): string {
  if (user.includes('Norway')) return 'Thinking. {"reason": "names Norway", "pass": true, "score": 1}';
  if (user.includes('PARIS')) return '{"reason": "ok but shouting", "pass": true, "score": 0.4}';
  if (user.includes('paris')) return '{"reason": "lower case", "pass": false, "score": 0.2}';
  return '{"reason": "fine", "pass": true, "score": 0.9}';
}

/** promptfoo's rules for one assertion, written here from its documentation: [pass, score]. */
function expected(a: any, output: string, vars: Record<string, string>, reply?: string): [boolean, number] {
  const neg = a.type.startsWith('not-');
  const type = a.type.replace(/^not-/, '');
  const value =
    typeof a.value === 'string'
      ? a.value.replace(/\{\{(\w+)\}\}/g, (_: string, k: string) => vars[k])
      : a.value;
  const list = (v: any): string[] =>
    Array.isArray(v)
      ? v
      : String(v)
          .split(',')
          .map((s) => s.trim());
  const schemaOk = (v: any): boolean =>
    a.value === undefined ||
    (typeof v === 'object' &&
      v !== null &&
      !Array.isArray(v) &&
      (a.value.required ?? []).every((k: string) => k in v) &&
      Object.entries(a.value.properties ?? {}).every(
        ([k, p]: [string, any]) => !(k in v) || typeof v[k] === p.type,
      ));
  const jsonObjects = (s: string): any[] => {
    const found: any[] = [];
    for (let i = 0; i < s.length; i++)
      if (s[i] === '{')
        for (let j = s.length; j > i; j--) {
          try {
            found.push(JSON.parse(s.slice(i, j)));
            i = j - 1;
            break;
          } catch {
            /* next */
          }
        }
    return found;
  };
  let pass: boolean;
  let score: number | undefined;
  switch (type) {
    case 'equals':
      pass = output === value;
      break;
    case 'contains':
      pass = output.includes(value);
      break;
    case 'icontains':
      pass = output.toLowerCase().includes(value.toLowerCase());
      break;
    case 'contains-any':
      pass = list(value).some((v) => output.includes(v));
      break;
    case 'contains-all':
      pass = list(value).every((v) => output.includes(v));
      break;
    case 'starts-with':
      pass = output.startsWith(value);
      break;
    case 'regex':
      pass = new RegExp(value).test(output);
      break;
    case 'is-json': {
      let parsed: any;
      try {
        parsed = JSON.parse(output);
        pass = schemaOk(parsed);
      } catch {
        pass = false;
      }
      break;
    }
    case 'contains-json':
      pass = jsonObjects(output).some(schemaOk);
      break;
    case 'llm-rubric': {
      const v = JSON.parse(reply!.slice(reply!.indexOf('{')));
      score = v.score;
      pass = v.pass && (a.threshold === undefined || v.score >= a.threshold);
      break;
    }
    default:
      throw new Error(a.type);
  }
  score ??= pass ? 1 : 0;
  return neg ? [!pass, 1 - score] : [pass, score];
}

const TESTS = [
  { description: 'paris', vars: { city: 'Paris' }, threshold: undefined as number | undefined },
  { description: 'rome', vars: { city: 'Rome' }, threshold: 0.6 },
  { description: 'oslo', vars: { city: 'Oslo' }, threshold: undefined },
];

test("a promptfoo config runs every test × prompt × provider and scores each assertion by promptfoo's rules", async () => {
  server.setScript((ctx) => {
    if (ctx.sampleId.includes(':judge-')) return { text: graderReply(ctx.user) };
    const city = /(Paris|Rome|Oslo)/.exec(ctx.user)![1];
    return { text: ANSWERS[ctx.body.model][city] };
  });
  const cfgDir = join(dir, 'cfg');
  mkdirSync(cfgDir, { recursive: true });
  writeFileSync(
    join(cfgDir, 'chat.json'),
    JSON.stringify([
      { role: 'system', content: 'Answer with the city.' },
      { role: 'user', content: 'City: {{city}}' },
    ]),
  );
  writeFileSync(join(cfgDir, 'more-tests.yaml'), MORE_TESTS);
  const config = join(cfgDir, 'promptfooconfig.yaml');
  writeFileSync(config, CONFIG(server.openaiBaseUrl, server.anthropicBaseUrl));
  const out = join(dir, 'out');
  const before = server.requests.length;
  const db = join(dir, 'pf.duckdb');
  const result = await cli(
    ['run', config, '-o', out, '--db', db, '--retry-base-ms', '1', '--format', 'json'],
    {
      env: ENV,
    },
  );
  assert.equal(result.code, 0, result.stderr);
  // 3 tests × 2 prompts × 3 providers answers, and 2 graded assertions per prompt × provider.
  const sent = server.requests.slice(before);
  assert.equal(sent.filter((r) => !r.sampleId.includes(':judge-')).length, 18);
  assert.equal(sent.filter((r) => r.sampleId.includes(':judge-')).length, 12);
  assert.equal(sent.filter((r) => r.protocol === 'anthropic').length, 6);
  const beta = sent.find((r) => r.body.model === 'beta')!;
  assert.equal(beta.body.temperature, 0.3);

  const records = recordsUnder(out);
  assert.deepEqual([...records.keys()].map((k) => k.split('/').at(-1)).sort(), ['alpha', 'beta', 'gamma']);
  const cfg = parse(CONFIG(server.openaiBaseUrl, server.anthropicBaseUrl));
  const testAsserts = [...cfg.tests.slice(0, 2).map((t: any) => t.assert), parse(MORE_TESTS)[0].assert].map(
    (list: any[]) => [...cfg.defaultTest.assert, ...list],
  );
  let checked = 0;
  const sampleSets: string[][] = [];
  for (const [, record] of records) {
    assert.equal(resultOf(record, 'pass').metric_config.metric_name, 'pass');
    const ids = new Set<string>();
    for (const row of record.rows) {
      const [, t, p] = /^test-(\d)\.prompt-(\d)/.exec(row.sample_id)!;
      ids.add(`${t}.${p}`);
      const ti = Number(t) - 1;
      const output = row.output.raw[0];
      const asserts = testAsserts[ti];
      const byName = new Map<string, any>();
      const seen = new Map<string, number>();
      for (const a of asserts) {
        const n = (seen.get(a.type) ?? 0) + 1;
        seen.set(a.type, n);
        byName.set(n === 1 ? a.type : `${a.type}#${n}`, a);
      }
      const scorer = row.metadata.scorer;
      if (scorer === 'pass') {
        const results = asserts.map((a: any) => ({
          a,
          r: expected(a, output, TESTS[ti].vars, graderReplyFor(record, row, a)),
        }));
        const threshold = TESTS[ti].threshold;
        let want: boolean;
        if (threshold !== undefined) {
          const w = results.reduce((s: number, x: any) => s + (x.a.weight ?? 1), 0);
          want = results.reduce((s: number, x: any) => s + (x.a.weight ?? 1) * x.r[1], 0) / w >= threshold;
        } else want = results.every((x: any) => x.r[0]);
        assert.equal(row.evaluation.score, want ? 1 : 0, `pass of ${row.sample_id} (${output})`);
      } else {
        const a = byName.get(scorer);
        assert.ok(a, `${scorer} is an assertion of test ${t}`);
        const [pass, score] = expected(a, output, TESTS[ti].vars, row.metadata.judge_reply);
        assert.equal(row.evaluation.score, score, `${scorer} on ${row.sample_id}: ${output}`);
        assert.equal(row.answer_attribution[0]?.extracted_value, pass ? 'pass' : 'fail');
      }
      checked++;
    }
    sampleSets.push([...ids].sort());
  }
  // 3 providers × 2 prompts × (9 + 7 + 6 rows: each assertion and the pass).
  assert.equal(checked, 3 * 2 * (9 + 7 + 6));
  // The same samples under every provider: they pair.
  assert.deepEqual(sampleSets[0], sampleSets[1]);
  assert.deepEqual(sampleSets[0], sampleSets[2]);
  const validate = await cli(['validate', join(out, 'data')]);
  assert.equal(validate.code, 0, validate.stdout + validate.stderr);
  // compare pairs two providers on every test × prompt.
  const [a, b] = [...records.keys()].sort();
  const compared = await cli(['compare', a, b, '--db', db, '--format', 'json']);
  assert.equal(compared.code, 0, compared.stdout + compared.stderr);
  const pass = JSON.parse(compared.stdout).comparisons.find((c: any) => c.metric === 'pass');
  assert.ok(pass, compared.stdout);
  assert.equal(pass.paired, true);
  assert.equal(pass.n_paired, 6);
  assert.equal(pass.n_unpaired_a + pass.n_unpaired_b, 0);
});

/** The grader's reply the row of a pass metric needs for an llm-rubric assertion: from the rubric's own row. */
function graderReplyFor(record: any, row: any, a: any): string | undefined {
  if (!a.type.endsWith('llm-rubric')) return undefined;
  const base = row.sample_id.replace(/\/pass$/, '');
  return record.rows.find((r: any) => r.sample_id === `${base}/${a.type}`)?.metadata.judge_reply;
}

test('unsupported assertion types are refused, each named with its test, before any request', async () => {
  const cfg = join(dir, 'unsupported.yaml');
  writeFileSync(
    cfg,
    `prompts: ['Hi {{name}}']
providers: [openai:chat:alpha]
tests:
  - description: first
    vars: { name: a }
    assert:
      - { type: contains, value: a }
      - { type: javascript, value: 'output.length > 1' }
  - vars: { name: b }
    assert:
      - { type: similar, value: hello }
      - { type: not-python, value: 'True' }
`,
  );
  const before = server.requests.length;
  const result = await cli(
    ['run', cfg, '-o', join(dir, 'out-unsupported'), '--base-url', server.openaiBaseUrl],
    { env: ENV },
  );
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /tests\[0\] "first": assertion type "javascript"/);
  assert.match(result.stderr, /tests\[1\]: assertion type "similar"/);
  assert.match(result.stderr, /tests\[1\]: assertion type "not-python"/);
  assert.doesNotMatch(result.stderr, /"contains"/);
  assert.doesNotMatch(result.stderr, /\n\s+at /);
  assert.equal(server.requests.length, before, 'the server saw no request');
});

/** The configuration a real promptfoo output file was run with (its `config`), as a config file in `dir`. */
function realConfig(file: string, name: string, edit: (config: any) => void = () => {}): string {
  const config = JSON.parse(readFileSync(reference(file)!, 'utf8')).config;
  edit(config);
  const path = join(dir, name);
  writeFileSync(path, stringify(config));
  return path;
}

test(
  'real promptfoo configs whose assertions evalkit does not run are refused, each named, before any request',
  { skip: skipWithoutReference('peers-wild/promptfoo') || skipWithoutReference('peers/promptfoo') },
  async () => {
    const cases = [
      {
        file: 'peers/promptfoo/sample-export.trimmed.json',
        named: [/defaultTest: assertion type "cost"/, /defaultTest: assertion type "latency"/],
      },
      {
        file: 'peers-wild/promptfoo/hknyosu-simple-test-v2/output.json',
        named: [/assertion type "javascript"/, /assertion type "python"/, /assertion type "similar"/],
      },
    ];
    for (const [i, c] of cases.entries()) {
      const path = realConfig(c.file, `real-${i}.yaml`);
      const before = server.requests.length;
      const result = await cli(['run', path, '-o', join(dir, `out-real-${i}`)], { env: ENV });
      assert.equal(result.code, 2, result.stderr);
      for (const re of c.named) assert.match(result.stderr, re);
      assert.doesNotMatch(result.stderr, /type "(contains|equals|icontains|is-json|llm-rubric)"/);
      assert.equal(server.requests.length, before, 'the server saw no request');
    }
  },
);

test(
  'a real promptfoo config (its cost and latency assertions dropped) runs against the local server',
  { skip: skipWithoutReference('peers/promptfoo') },
  async () => {
    const path = realConfig('peers/promptfoo/sample-export.trimmed.json', 'riddles.yaml', (config) => {
      delete config.defaultTest;
      config.providers = config.providers.map((id: string) => ({
        id,
        config: { apiBaseUrl: server.openaiBaseUrl },
      }));
    });
    const riddles = parse(readFileSync(path, 'utf8')).tests;
    server.setScript((ctx) => {
      if (ctx.sampleId.includes(':judge-'))
        return {
          text: ctx.user.includes('Sorry') ? '{"pass": false, "score": 0}' : '{"pass": true, "score": 1}',
        };
      if (ctx.body.model === 'gpt-5')
        return { text: ctx.user.includes('wind') ? 'An echo.' : 'They are all married.' };
      return { text: 'Sorry, I do not know.' };
    });
    const out = join(dir, 'out-riddles');
    const result = await cli(
      [
        'run',
        path,
        '-o',
        out,
        '--judge-provider',
        'openai',
        '--judge-model',
        'grader',
        '--judge-base-url',
        server.openaiBaseUrl,
      ],
      { env: ENV },
    );
    assert.equal(result.code, 0, result.stderr);
    const records = recordsUnder(out);
    assert.equal(records.size, 2);
    for (const [id, record] of records) {
      const big = id.endsWith('/gpt-5');
      assert.equal(resultOf(record, 'contains').score_details.score, big ? 1 : 0);
      assert.equal(resultOf(record, 'llm-rubric').score_details.score, big ? 1 : 0);
      assert.equal(resultOf(record, 'pass').score_details.score, big ? 1 : 0);
      // contains: the one test that has it; llm-rubric and pass: both tests.
      assert.equal(resultOf(record, 'contains').score_details.uncertainty.num_samples, 1);
      assert.equal(resultOf(record, 'llm-rubric').score_details.uncertainty.num_samples, riddles.length);
      assert.equal(resultOf(record, 'pass').score_details.uncertainty.num_samples, riddles.length);
      assert.deepEqual([...new Set(record.rows.map((r: any) => r.sample_id.split('/')[0]))].sort(), [
        'test-1',
        'test-2',
      ]);
    }
  },
);
