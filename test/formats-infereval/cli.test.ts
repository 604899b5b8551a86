// The infereval types through the real `evalkit validate` (one run, to keep the suite fast): the examples pass,
// each invalid example reports the codes its README names — the registry data (schema, rules, explanations) wired
// into the engine.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { projectRoot } from '../helpers/shared.js';

test('evalkit validate examples/infereval: examples valid, invalid ones with their codes and positions', async () => {
  const run = await cli(['validate', 'examples/infereval', '--format', 'json']);
  assert.equal(run.code, 1, run.stderr);
  const report = JSON.parse(run.stdout);
  const entry = (file: string) => report.files.find((f: { path: string }) => f.path.endsWith(`/${file}`));
  const valid = [
    'benchmark.json',
    'evaluation.json',
    'evaluation.shuffled.json',
    'model/benchmark.json',
    'model/evaluation.json',
  ];
  for (const file of valid) {
    assert.ok(entry(file), file);
    assert.deepEqual(entry(file).diagnostics, [], file);
  }
  const readme = readFileSync(join(projectRoot, 'examples/infereval/invalid/README.md'), 'utf8');
  const expected = [...readme.matchAll(/^\|\s*`([^`]+\.json)`\s*\|[^|]*\|(.+)\|\s*$/gm)].map((m) => ({
    file: m[1],
    codes: [...m[2].matchAll(/`([^`]+)`/g)].map((c) => c[1]).sort(),
  }));
  assert.ok(expected.length >= 6);
  assert.equal(report.files.length, expected.length + valid.length);
  for (const { file, codes } of expected) {
    const found = entry(`invalid/${file}`);
    assert.ok(found, file);
    const got = [...new Set<string>(found.diagnostics.map((d: { code: string }) => d.code))].sort();
    assert.deepEqual(got, codes, file);
    for (const d of found.diagnostics)
      assert.ok(d.line > 0 && d.column > 0, `${file}: position of ${d.code}`);
  }
});
