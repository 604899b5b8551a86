// migrate's guards: a document's type is detected before it is taken for "legacy", --in-place keeps mode and
// symlinks and refuses documents that were invalid before migrating, -o never writes onto an input, a temporary left
// by a killed run is removed, -q and a grouped summary.
import assert from 'node:assert/strict';
import {
  chmodSync,
  cpSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { walkFiles } from '../checks/walk.js';
import { tempDir } from '../checks/tree-fixture.js';
import { projectRoot } from '../helpers/shared.js';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const fresh = () => {
  const d = tempDir('evalkit-migrate-guards-');
  dirs.push(d);
  return d;
};
const snapshot = (dir: string) =>
  Object.fromEntries(walkFiles(dir).map((f) => [f.slice(dir.length), readFileSync(f).toString('base64')]));
const example = (p: string) => join(projectRoot, 'examples', p);

test('migrate DIR --in-place leaves infereval benchmarks and evaluations byte-identical (no "legacy" guess)', async () => {
  const d = fresh();
  cpSync(example('infereval/benchmark.json'), join(d, 'benchmark.json'));
  cpSync(example('infereval/evaluation.json'), join(d, 'evaluation.json'));
  cpSync(example('report/evaluation.json'), join(d, 'nested', 'eta.json'), { recursive: true });
  // one EEE instance row saved as .json: also a known type, also not a legacy benchmark output
  const row = readFileSync(example('eee/instances-0.2.0.jsonl'), 'utf8').split('\n')[0];
  writeFileSync(join(d, 'one-row.json'), row);
  cpSync(example('retrieval/gold.jsonl'), join(d, 'gold.jsonl'));
  const before = snapshot(d);
  const r = await cli(['migrate', d, '--in-place', '--format', 'json']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(snapshot(d), before);
  const kinds = Object.fromEntries(
    JSON.parse(r.stdout).files.map((f: any) => [f.input.slice(d.length + 1), `${f.status} ${f.kind}`]),
  );
  assert.deepEqual(kinds, {
    'benchmark.json': 'skipped infereval.benchmark',
    'evaluation.json': 'skipped infereval.evaluation',
    'nested/eta.json': 'skipped infereval.evaluation',
    'one-row.json': 'skipped eee.instance',
    'gold.jsonl': 'skipped retrieval.gold',
  });
});

test('a legacy benchmark output that no type claims is still migrated', async () => {
  const d = fresh();
  cpSync(example('bench-output/legacy/results.json'), join(d, 'results.json'));
  const r = await cli(['migrate', d, '--in-place', '--format', 'json']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).files[0].status, 'migrated');
  assert.equal(JSON.parse(readFileSync(join(d, 'results.json'), 'utf8')).schema_version, 'v1');
});

test('--in-place keeps a 0600 file 0600 and writes through a symlink (the link stays a link)', async () => {
  const d = fresh();
  cpSync(example('datastore/legacy'), d, { recursive: true });
  const folder = join(d, 'data/demo-bench/acme/tiny-model');
  const aggregate = join(folder, '7a1e5c3d-2b4f-4a6e-9c8d-0e1f2a3b4c5d.json');
  chmodSync(aggregate, 0o600);
  // the samples file is a symlink to a file kept elsewhere in the tree
  const samples = join(folder, '7a1e5c3d-2b4f-4a6e-9c8d-0e1f2a3b4c5d_samples.jsonl');
  const r = await cli(['migrate', d, '--in-place']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal(statSync(aggregate).mode & 0o777, 0o600);
  assert.equal(JSON.parse(readFileSync(aggregate, 'utf8')).schema_version, '0.3.0');
  assert.ok(statSync(samples).isFile());

  // A file given by a symlink is written through it: the link stays a link, its target is migrated.
  const target = join(d, 'kept', 'results.json');
  mkdirSync(join(d, 'kept'));
  cpSync(example('bench-output/legacy/results.json'), target);
  const link = join(d, 'results-link.json');
  symlinkSync(target, link);
  const viaLink = await cli(['migrate', link, '--in-place']);
  assert.equal(viaLink.code, 0, viaLink.stdout + viaLink.stderr);
  assert.ok(lstatSync(link).isSymbolicLink(), 'the symlink was not replaced by a regular file');
  assert.equal(JSON.parse(readFileSync(target, 'utf8')).schema_version, 'v1');
});

test('--in-place of a record that was invalid before migrating says so, is not "migrated" and is left as it was', async () => {
  const d = fresh();
  const file = join(d, 'agg.json');
  const doc = JSON.parse(readFileSync(example('eee/aggregate-0.2.0.json'), 'utf8'));
  delete doc.model_info.name;
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const before = readFileSync(file);
  const r = await cli(['migrate', '--in-place', file]);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^failed +\S*agg\.json \(eee\.aggregate 0\.2\.0 → 0\.3\.0\)/m);
  assert.match(r.stdout, /invalid before migration as eee\.aggregate 0\.2\.0: schema\.required .*"name"/);
  assert.doesNotMatch(r.stdout, /\b1 migrated/);
  assert.deepEqual(readFileSync(file), before);
});

test('-o onto the folder being migrated is refused before anything is written', async () => {
  const d = fresh();
  cpSync(example('datastore/legacy'), d, { recursive: true });
  const before = snapshot(d);
  const r = await cli(['migrate', d, '-o', d]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /error io\.output-is-input: the output .* is the input /);
  assert.deepEqual(snapshot(d), before);
});

test('a temporary left by a killed migrate is removed by the next run', async () => {
  const d = fresh();
  cpSync(example('bench-output/legacy/results.json'), join(d, 'results.json'));
  const dead = spawnSync(process.execPath, [
    '-e',
    'process.stdout.write(String(process.pid))',
  ]).stdout.toString();
  const debris = `.results.json.${dead}.a1b2c3d4e5f6.tmp`;
  writeFileSync(join(d, debris), '{"half": ');
  const r = await cli(['migrate', d, '--in-place']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.deepEqual(readdirSync(d), ['results.json']);
});

test('-q lists only failed files; the summary groups files by kind and reasons by count', async () => {
  const d = fresh();
  cpSync(example('infereval/benchmark.json'), join(d, 'b1.json'));
  cpSync(example('infereval/benchmark.json'), join(d, 'b2.json'));
  cpSync(example('bench-output/legacy/results.json'), join(d, 'results.json'));
  writeFileSync(join(d, 'broken.json'), '{"a": 1,}');
  const r = await cli(['migrate', d, '--dry-run', '-q']);
  assert.equal(r.code, 1);
  const lines = r.stdout.trimEnd().split('\n');
  assert.match(lines[0], /^failed +\S*broken\.json/);
  assert.doesNotMatch(r.stdout, /^(skipped|migrated) /m);
  assert.ok(
    lines.includes('(dry run) 4 file(s): 1 migrated, 0 already current, 1 failed, 2 skipped'),
    r.stdout,
  );
  assert.ok(lines.includes('  skipped: 2 infereval.benchmark'), r.stdout);
  assert.ok(lines.includes('    2 × left alone: infereval.benchmark is not a type evalkit migrate converts'));
  assert.ok(lines.includes('  migrated: 1 bench.output'));
});
