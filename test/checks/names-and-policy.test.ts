import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { datastoreLocation, layoutProblems, nonPortableReason } from '../../src/checks/names.js';
import { classifyPath, discoverJsonFiles, policyGlobToRegExp } from '../../src/checks/path-policy.js';
import { cli as runCli } from '../helpers/cli.js';
import { tempDir } from './tree-fixture.js';

test('portable names: every rule of the spec, and ordinary names pass', () => {
  for (const bad of [
    '',
    '.',
    '..',
    'a\\b',
    'a<b',
    'a:b',
    'a"b',
    'a|b',
    'a?b',
    'a*b',
    'tab\there',
    'dot.',
    'space ',
    'CON',
    'con.txt',
    'LPT9.json',
    'Com1',
  ])
    assert.ok(nonPortableReason(bad), `${JSON.stringify(bad)} is not portable`);
  for (const good of ['gpt-4o', 'llama-3.1-8b', 'CONSOLE', 'COM10', '.hidden', 'a b'])
    assert.equal(nonPortableReason(good), undefined, `${JSON.stringify(good)} is portable`);
});

test('layout: data/<collection>/<developer>/<model>/<uuid4>.json and _samples.jsonl, lowercase uuid4', () => {
  const loc = datastoreLocation('/x/repo/data/c/d/m/3f6c1b2a-9d4e-4f7a-8b1c-2d3e4f5a6b7c.json');
  assert.deepEqual(loc, {
    root: '/x/repo',
    parts: ['c', 'd', 'm', '3f6c1b2a-9d4e-4f7a-8b1c-2d3e4f5a6b7c.json'],
  });
  assert.deepEqual(layoutProblems(loc!.parts, 'aggregate'), []);
  assert.equal(
    layoutProblems(['c', 'd', 'm', '3F6C1B2A-9D4E-4F7A-8B1C-2D3E4F5A6B7C.json'], 'aggregate').length,
    1,
  );
  assert.equal(
    layoutProblems(['c', 'd', 'm', '3f6c1b2a-9d4e-1f7a-8b1c-2d3e4f5a6b7c.json'], 'aggregate').length,
    1,
    'not v4',
  );
  assert.equal(
    layoutProblems(['c', 'd', '3f6c1b2a-9d4e-4f7a-8b1c-2d3e4f5a6b7c.json'], 'aggregate').length,
    1,
    'depth',
  );
  assert.deepEqual(
    layoutProblems(['c', 'd', 'm', '3f6c1b2a-9d4e-4f7a-8b1c-2d3e4f5a6b7c_samples.jsonl'], 'samples'),
    [],
  );
  assert.equal(datastoreLocation('/x/repo/other/file.json'), undefined);
});

test('globstar: ** matches zero or more folders (the cases the original got wrong)', () => {
  assert.ok(policyGlobToRegExp('outputs/**/*.json').test('outputs/a.json'));
  assert.ok(policyGlobToRegExp('outputs/**/*.json').test('outputs/x/y/a.json'));
  assert.ok(policyGlobToRegExp('benchmarks/**/results/**/*.json').test('benchmarks/x/results/a.json'));
  assert.ok(policyGlobToRegExp('benchmarks/**/results/**/*.json').test('benchmarks/results/a.json'));
  assert.ok(policyGlobToRegExp('**/output.json').test('output.json'));
  assert.ok(!policyGlobToRegExp('**/output.json').test('myoutput.json'));
  assert.ok(!policyGlobToRegExp('outputs/**/*.json').test('outputs.json'));
  assert.ok(!policyGlobToRegExp('outputs/*.json').test('outputs/a/b.json'));
});

test('classifyPath: allowed, deprecated with a destination, unrecognised; leading dots kept', () => {
  assert.equal(classifyPath('outputs/a.json').status, 'allowed');
  assert.equal(classifyPath('./outputs/mmlu/r1.json').status, 'allowed');
  assert.equal(classifyPath('benchmarks/x/results/a.json').status, 'allowed');
  const top = classifyPath('output.json');
  assert.equal(top.status, 'deprecated');
  assert.equal(top.rule, '**/output.json');
  const old = classifyPath('results/mmlu/run7.json');
  assert.deepEqual([old.status, old.canonical], ['deprecated', 'outputs/mmlu/run7.json']);
  for (const generic of ['metrics.json', 'x/eval.json', 'outputs/mmlu/results.json'])
    assert.equal(classifyPath(generic).status, 'deprecated', generic);
  const gh = classifyPath('.github/x.json');
  assert.deepEqual([gh.status, gh.path], ['unrecognised', '.github/x.json']);
  const fromDoc = classifyPath('results/output.json', {
    metadata: { benchmark: { name: 'swe bench' }, run: { id: '2025-12-22T18:00:00Z_001' } },
  });
  assert.equal(fromDoc.canonical, 'outputs/swe-bench/2025-12-22T18-00-00Z_001.json');
});

test('discovery skips .git, node_modules, virtualenvs and the schema folder; never enters linked folders', async () => {
  const root = tempDir();
  try {
    const files = [
      'outputs/a.json',
      'outputs/schemas/benchmark_schema.json',
      '.git/x.json',
      'node_modules/p/package.json',
      'env/pyvenv.cfg',
      'env/lib/x.json',
      '.venv/x.json',
      'results/r.json',
      '.github/w.json',
    ];
    for (const f of files) {
      mkdirSync(join(root, f, '..'), { recursive: true });
      writeFileSync(join(root, f), '{}');
    }
    symlinkSync(join(root, 'outputs'), join(root, 'linked'));
    assert.deepEqual(await discoverJsonFiles(root), ['.github/w.json', 'outputs/a.json', 'results/r.json']);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('evalkit paths: text and json output, exit 1 on deprecated files, 2 with --fail-on-empty', async () => {
  const root = tempDir();
  try {
    mkdirSync(join(root, 'outputs', 'm'), { recursive: true });
    mkdirSync(join(root, 'results'), { recursive: true });
    writeFileSync(join(root, 'outputs', 'm', 'r1.json'), '{}');
    writeFileSync(join(root, 'results', 'old.json'), '{}');
    writeFileSync(join(root, 'package.json'), '{}');
    const json = await runCli(['paths', root, '--format', 'json']);
    assert.equal(json.code, 1);
    const out = JSON.parse(json.stdout);
    assert.deepEqual(out.summary, { allowed: 1, deprecated: 1, unrecognised: 1 });
    assert.equal(out.files.find((f: any) => f.path === 'results/old.json').canonical, 'outputs/old.json');
    rmSync(join(root, 'results'), { recursive: true });
    rmSync(join(root, 'outputs'), { recursive: true });
    const empty = await runCli(['paths', root, '--fail-on-empty']);
    assert.equal(empty.code, 2);
    assert.match(empty.stdout, /unrecognised package\.json/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
