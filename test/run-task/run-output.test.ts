// What `evalkit run` says and writes about itself (issue 39 items 10 and 19): a model named without its developer is
// warned about before the run; records keep the task's files relative to its folder, with the task file's hash; a
// rate over a run too short to have one is not printed; an error names its code once; the progress bar ends on the
// summary's figures. A real local OpenAI-compatible server answers.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { startProviderServer, type ProviderServer } from '../helpers/provider-server.js';
import { rateText } from '../../src/cli/commands/evaluate.js';
import { runCliInPty, skipWithoutScript, stripSgr } from '../helpers/pty.js';
import { errorLine } from '../../src/errors.js';
import { recordsUnder, writeTask } from './helpers.js';

let server: ProviderServer;
let dir: string;
before(async () => {
  server = await startProviderServer();
  server.setScript(() => ({ text: 'Paris', usage: { input: 10, output: 2 } }));
  dir = mkdtempSync(join(tmpdir(), 'evalkit-run-output-'));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const ROWS = [
  { id: 'c1', input: 'Capital of France?', target: 'Paris' },
  { id: 'c2', input: 'Capital of Italy?', target: 'Rome' },
];

const run = (task: string, out: string, extra: string[]) =>
  cli(['run', task, '--provider', 'openai', '--base-url', server.openaiBaseUrl, '-o', out, ...extra]);

test('a model named without a developer is warned about at run time; org/name, a known name or --model-map are not', async () => {
  const task = writeTask(
    join(dir, 'dev'),
    'dev',
    'name: dev\ndataset: {path: dev.jsonl}\nscorers: [match]\n',
    ROWS,
  );
  const out = join(dir, 'dev-out');
  const bare = await run(task, out, ['--model', 'alpha', '--model', 'beta']);
  assert.equal(bare.code, 0, bare.stdout + bare.stderr);
  for (const m of ['alpha', 'beta'])
    assert.match(
      bare.stderr,
      new RegExp(
        `warning: the model "${m}" names no developer: its records say unknown/${m} .*--model acme/${m}\\) or map it with --model-map`,
      ),
    );
  const map = join(dir, 'map.json');
  writeFileSync(map, JSON.stringify({ alpha: { id: 'acme/alpha' } }));
  for (const extra of [
    ['--model', 'acme/alpha'],
    ['--model', 'gpt-4o'],
    ['--model', 'alpha', '--model-map', map],
  ]) {
    const named = await run(task, out, extra);
    assert.equal(named.code, 0, named.stdout + named.stderr);
    assert.doesNotMatch(named.stderr, /names no developer/, extra.join(' '));
  }
});

test('records name the task file and dataset relative to the task folder, with the task file hash; no absolute path', async () => {
  const folder = join(dir, 'rel');
  mkdirSync(join(folder, 'data'), { recursive: true });
  writeFileSync(join(folder, 'data', 'caps.jsonl'), ROWS.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const task = join(folder, 'caps.task.yaml');
  writeFileSync(task, 'name: caps\ndataset: {path: data/caps.jsonl}\nscorers: [match]\n');
  const out = join(dir, 'rel-out');
  const r = await run(task, out, ['--model', 'acme/alpha']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const rec = recordsUnder(out).get('acme/alpha')!;
  const details = rec.aggregate.evaluation_results[0].source_data.additional_details;
  assert.equal(details.task_file, 'caps.task.yaml');
  assert.equal(details.dataset, 'data/caps.jsonl');
  assert.equal(details.task_file_sha256, createHash('sha256').update(readFileSync(task)).digest('hex'));
  const text =
    readFileSync(rec.path, 'utf8') + readFileSync(rec.path.replace(/\.json$/, '_samples.jsonl'), 'utf8');
  assert.ok(!text.includes(dir), 'no absolute local path in the record');
});

test('a run too short for a rate says its count and time; a longer one its rate', () => {
  assert.equal(rateText(1215, 1), '1215 calls in 1 ms');
  assert.equal(rateText(1, 0.2), '1 call in 0 ms');
  assert.equal(rateText(30, 2000), '15.0 samples/s over 2.0 s');
  assert.doesNotMatch(rateText(1215, 999), /samples\/s|0\.0 s/);
});

test('an error names its code once, as the task loader wrote it and the printer prints it', async () => {
  assert.equal(
    errorLine(
      'task.unscorable',
      'a.jsonl:3:1 error task.unscorable the target is no number (scorer "numeric")',
    ),
    'a.jsonl:3:1 error task.unscorable the target is no number (scorer "numeric")',
  );
  assert.equal(errorLine('io.write', 'cannot write x'), 'error io.write: cannot write x');
  // A code named in the prose (not as "error CODE") is no diagnostic line: the code is still said first.
  assert.equal(
    errorLine('io.write', 'cannot write x: io.write refused'),
    'error io.write: cannot write x: io.write refused',
  );
  const task = writeTask(
    join(dir, 'unscorable'),
    'uns',
    'name: uns\ndataset: {path: uns.jsonl}\nscorers: [numeric]\n',
    [{ id: 'n1', input: 'How many?', target: 'several' }],
  );
  const r = await run(task, join(dir, 'uns-out'), ['--model', 'acme/alpha']);
  assert.notEqual(r.code, 0);
  assert.equal(r.stderr.match(/task\.unscorable/g)?.length, 1, r.stderr);
  assert.match(
    r.stderr,
    /^evalkit: \S*uns\.jsonl:1 error task\.unscorable the target "several" is not a number/,
  );
});

test(
  "the progress bar's last line shows the summary's tokens (on a real terminal)",
  { skip: skipWithoutScript() },
  async () => {
    const task = writeTask(
      join(dir, 'bar'),
      'bar',
      'name: bar\ndataset: {path: bar.jsonl}\nscorers: [match]\n',
      [...ROWS, { id: 'c3', input: 'Capital of Peru?', target: 'Lima' }],
    );
    const r = await runCliInPty(
      [
        'run',
        task,
        '--provider',
        'openai',
        '--base-url',
        server.openaiBaseUrl,
        '--model',
        'acme/alpha',
        '-o',
        join(dir, 'bar-out'),
        '--concurrency',
        '1',
      ],
      { columns: 200 },
    );
    assert.equal(r.code, 0, r.output);
    const frames = [...stripSgr(r.output).matchAll(/\r(bar × acme\/alpha [^\r\n]*?)\x1b\[K/g)].map(
      (m) => m[1]!,
    );
    assert.ok(frames.length > 0, r.output);
    const summary = /tokens (\d+) in, (\d+) out/.exec(stripSgr(r.output));
    assert.ok(summary, r.output);
    assert.equal(Number(summary[1]) + Number(summary[2]), 36);
    assert.match(frames.at(-1)!, / tokens 36 /, frames.join('\n'));
  },
);

test('a developer inferred from a model name is said with its article: "an openai", "a google" model name', async () => {
  const { buildModel, FieldReport } = await import('../../src/convert/record.js');
  const said = (name: string) => {
    const report = new FieldReport();
    buildModel({ name, field: '--model' }, {}, report);
    return report.fates.map((f) => ('reason' in f ? f.reason : '')).join('\n');
  };
  assert.match(said('gpt-4o'), /"gpt-4o" is an openai model name/);
  assert.match(said('gemini-2.0'), /"gemini-2.0" is a google model name/);
  // Behind a server's prefix, the same.
  assert.match(said('vllm/o3-mini'), /"o3-mini" is an openai model name/);
  assert.doesNotMatch(said('gpt-4o') + said('vllm/o3-mini'), /\ba openai\b/);
});
