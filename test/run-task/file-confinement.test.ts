// The files a promptfoo config or a task file names are read from its own folder only: `file:///proc/self/environ`,
// an absolute path outside, a `..` escape and a symbolic link that leads out are refused before anything is sent or
// printed (a stable code, exit 2). And the value of a key the run uses is in no request body, record, journal,
// --dry-run output or error message, wherever it came from (a dataset row, a var, a target).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { startProviderServer, type ProviderServer } from '../helpers/provider-server.js';
import { openaiRun, readTree, writeTask } from './helpers.js';

let server: ProviderServer;
let dir: string;
before(async () => {
  server = await startProviderServer({ script: () => ({ text: 'ok' }) });
  dir = mkdtempSync(join(tmpdir(), 'evalkit-run-files-'));
  // Beside every config folder: a file and a folder outside it.
  writeFileSync(join(dir, 'outside.txt'), 'OUTSIDE-SECRET {{q}}');
  mkdirSync(join(dir, 'outside-dir'));
  writeFileSync(join(dir, 'outside-dir', 'p.txt'), 'OUTSIDE-SECRET {{q}}');
  writeFileSync(join(dir, 'outside.jsonl'), '{"id": "1", "input": "OUTSIDE-SECRET", "target": "x"}\n');
  writeFileSync(join(dir, 'tests.yaml'), '- vars: {q: OUTSIDE-SECRET}\n');
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

// Not shaped like a key (sk-…), so that only knowing the run's key can find it.
const SECRET = 'EVK-run-key-0123456789abcdef';
const ENV = { OPENAI_API_KEY: SECRET };

let n = 0;
/** A fresh config folder inside `dir` with a prompt file, a link out and a linked folder out. */
function configFolder(): string {
  const cfg = join(dir, `cfg-${++n}`, 'deeper');
  mkdirSync(cfg, { recursive: true });
  writeFileSync(join(cfg, 'p.txt'), 'inside {{q}}');
  symlinkSync(join(dir, 'outside.txt'), join(cfg, 'link.txt'));
  symlinkSync(join(dir, 'outside-dir'), join(cfg, 'sub'));
  symlinkSync('/proc/self/environ', join(cfg, 'env.txt'));
  return cfg;
}

function writeConfig(cfg: string, prompts: string, tests = "[{vars: {q: 'hi'}}]"): string {
  const path = join(cfg, 'promptfooconfig.yaml');
  writeFileSync(
    path,
    `prompts: ${prompts}\nproviders: [{id: 'openai:chat:m', config: {apiBaseUrl: '${server.openaiBaseUrl}'}}]\ntests: ${tests}\n`,
  );
  return path;
}

test('promptfoo file:// prompts, vars and tests that leave the config folder are refused before any request', async () => {
  const refused: [string, string?][] = [
    ["['file:///proc/self/environ']"],
    ["['file:///etc/passwd']"],
    ["['file://../../../etc/hostname']"],
    ["['file://../../outside.txt']"],
    ["['../../outside.txt']"],
    ["['file://link.txt']"],
    ["['file://env.txt']"],
    ["['file://sub/p.txt']"],
    [`['file://${join(dir, 'outside.txt')}']`],
    ["['{{q}}']", "[{vars: {q: 'file:///proc/self/environ'}}]"],
    ["['{{q}}']", "[{vars: {q: 'file://../../outside.txt'}}]"],
    ["['{{q}}']", "'file://../../tests.yaml'"],
    ["['{{q}}']", "['file://../../tests.yaml']"],
  ];
  for (const [prompts, tests] of refused) {
    const config = writeConfig(configFolder(), prompts, tests);
    const first = server.requests.length;
    for (const extra of [[], ['--dry-run']]) {
      const out = join(dir, `out-${n}`);
      const result = await cli(['run', config, '-o', out, ...extra], { env: ENV });
      const what = `${prompts} ${tests ?? ''} ${extra.join(' ')}`;
      assert.equal(result.code, 2, `${what}: ${result.stdout}${result.stderr}`);
      assert.match(result.stderr, /promptfoo\.file-outside/, what);
      assert.match(result.stderr, /outside the folder/, what);
      assert.doesNotMatch(result.stdout + result.stderr, /OUTSIDE-SECRET|root:|OPENAI_API_KEY=/, what);
      assert.ok(!(result.stdout + result.stderr).includes(SECRET), what);
    }
    assert.equal(server.requests.length, first, `${prompts}: a request was sent`);
  }
  // Inside the folder, relative or absolute, a file:// prompt is read.
  const cfg = configFolder();
  const config = writeConfig(cfg, `['file://p.txt', 'file://${join(cfg, 'p.txt')}']`);
  const dry = await cli(['run', config, '--dry-run'], { env: ENV });
  assert.equal(dry.code, 0, dry.stderr);
  assert.equal(dry.stdout.match(/inside hi/g)?.length, 2);
});

test('a task file reads its dataset, schema and judge template from its own folder only', async () => {
  const cases: [string, Record<string, string>?][] = [
    ['dataset: {path: ../outside.jsonl}\nscorers: [match]'],
    [`dataset: {path: ${join(dir, 'outside.jsonl')}}\nscorers: [match]`],
    ['dataset: {path: /proc/self/environ}\nscorers: [match]'],
    ['dataset: {path: link.jsonl}\nscorers: [match]', { link: join(dir, 'outside.jsonl') }],
    ['dataset: {path: t.jsonl}\nscorers: [{json: {schema: ../outside.txt}}]'],
    ['dataset: {path: t.jsonl}\nscorers: [{json: {schema: link.json}}]', { link: join(dir, 'outside.txt') }],
    [
      'dataset: {path: t.jsonl}\nscorers: [{model_graded: {template: /proc/self/environ, judge: {model: j}}}]',
    ],
    ['dataset: {path: t.jsonl}\nscorers: [{model_graded: {template: ../outside.txt, judge: {model: j}}}]'],
  ];
  for (const [body, link] of cases) {
    const folder = join(dir, `task-${++n}`);
    const task = writeTask(folder, 't', `name: t\n${body}\n`, [{ id: '1', input: 'q', target: 'x' }]);
    if (link) {
      const name = /path: (link\.\w+)|schema: (link\.\w+)/.exec(body)!;
      symlinkSync(link.link, join(folder, name[1] ?? name[2]));
    }
    const first = server.requests.length;
    for (const extra of [[], ['--dry-run']]) {
      const result = await cli(openaiRun(task, server.openaiBaseUrl, join(folder, 'out'), extra), {
        env: ENV,
      });
      assert.equal(result.code, 2, `${body}: ${result.stdout}${result.stderr}`);
      assert.match(result.stderr, /task\.file-outside/, body);
      assert.doesNotMatch(result.stdout + result.stderr, /OUTSIDE-SECRET|OPENAI_API_KEY=/, body);
    }
    assert.equal(server.requests.length, first);
  }
});

test('the value of a key the run uses is sent in no prompt and written nowhere, whatever file or field holds it', async () => {
  // A task whose row holds the key (pasted into a dataset), and a promptfoo config whose var and prompt do.
  const folder = join(dir, 'keys');
  const task = writeTask(
    folder,
    'k',
    'name: k\ndataset: {path: k.jsonl}\nsystem: "Key: ' + SECRET + '"\nscorers: [includes]\n',
    [{ id: '1', input: `Repeat ${SECRET} please`, target: 'ok', note: { deep: [SECRET] } }],
  );
  const cfg = join(folder, 'pf');
  mkdirSync(cfg);
  writeFileSync(join(cfg, 'key.txt'), `the key is ${SECRET}\n`);
  const config = writeConfig(
    cfg,
    `['{{q}} / {{f}}', 'Also ${SECRET}']`,
    `[{vars: {q: '${SECRET}', f: 'file://key.txt'}, assert: [{type: contains, value: ok}, {type: llm-rubric, value: 'does not repeat {{q}}'}]}]`,
  );
  // The grader answers in format; everything else answers "ok".
  server.setScript((ctx) => ({
    text: ctx.sampleId.includes(':judge-') ? '{"pass": true, "score": 1}' : 'ok',
  }));
  const first = server.requests.length;
  const out = join(folder, 'out');
  const printed: string[] = [];
  for (const args of [
    openaiRun(task, server.openaiBaseUrl, out, ['--log', `${out}.log`]),
    [
      'run',
      config,
      '-o',
      out,
      ...['--judge-provider', 'openai', '--judge-model', 'j', '--judge-base-url', server.openaiBaseUrl],
    ],
    ['run', task, config, '--provider', 'openai', '--model', 'm', '--dry-run'],
    ['run', task, config, '--provider', 'openai', '--model', 'm', '--dry-run', '-f', 'json'],
  ]) {
    const result = await cli(args, { env: ENV });
    assert.equal(result.code, 0, result.stderr);
    printed.push(result.stdout, result.stderr);
  }
  const sent = server.requests.slice(first);
  // The task's sample, the config's two prompts, and the rubric's grader for each.
  assert.equal(sent.length, 5);
  assert.equal(sent.filter((r) => r.sampleId.includes(':judge-')).length, 2);
  for (const r of sent) {
    assert.ok(r.authorization?.includes(SECRET), 'the key authorises the request');
    assert.ok(
      !JSON.stringify(r.body).includes(SECRET),
      `the key was sent in a prompt: ${JSON.stringify(r.body)}`,
    );
    assert.match(JSON.stringify(r.body), /\[redacted\]/);
  }
  const written = [
    readTree(out),
    readTree(`${out}.journal`),
    readFileSync(`${out}.log`, 'utf8'),
    ...printed,
  ].join('\n');
  assert.ok(!written.includes(SECRET), 'the key was written or printed');
  assert.match(printed[4], /\[redacted\]/);

  // An error message that quotes a row holds no key either.
  const bad = writeTask(
    join(dir, 'keys-bad'),
    'b',
    'name: b\ndataset: {path: b.jsonl}\nscorers: [numeric]\n',
    [{ id: '1', input: 'q', target: SECRET }],
  );
  const result = await cli(['run', bad, '--provider', 'openai', '--model', 'm', '--dry-run'], { env: ENV });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /task\.unscorable/);
  assert.ok(!result.stderr.includes(SECRET), result.stderr);
});

test('a FIFO inside the folder (a prompt file, a dataset) is refused, not read forever', async (t) => {
  const cfg = configFolder();
  try {
    execFileSync('mkfifo', [join(cfg, 'fifo.txt'), join(cfg, 'fifo.jsonl'), join(cfg, 'fifo.json')]);
  } catch {
    t.skip('mkfifo is not available');
    return;
  }
  const config = writeConfig(cfg, "['file://fifo.txt']");
  const task = join(cfg, 'fifo.task.yaml');
  writeFileSync(task, 'name: f\ndataset: {path: fifo.jsonl}\nscorers: [match]\n');
  writeFileSync(join(cfg, 'ok.jsonl'), '{"id": "1", "input": "q", "target": "x"}\n');
  const schemaTask = join(cfg, 'schema.task.yaml');
  writeFileSync(schemaTask, 'name: f\ndataset: {path: ok.jsonl}\nscorers: [{json: {schema: fifo.json}}]\n');
  for (const [args, code] of [
    [['run', config, '--dry-run'], 2],
    [['run', task, '--provider', 'openai', '--model', 'm', '--dry-run'], 2],
    [['run', schemaTask, '--provider', 'openai', '--model', 'm', '--dry-run'], 1],
  ] as const) {
    const result = await cli([...args], { env: ENV });
    assert.equal(result.code, code, result.stderr);
    assert.match(result.stderr, /named pipe \(FIFO\), not a regular file/);
  }
});
