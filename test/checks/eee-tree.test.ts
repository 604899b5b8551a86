import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { projectRoot } from '../helpers/shared.js';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { CHECK_CODES, runTreeChecks } from '../../src/checks/index.js';
import { SAMPLE_HASH_RECIPES } from '../../src/formats/eee/sample-hash.js';
import type { Diagnostic } from '../../src/diagnostics.js';
import { walkFiles } from './walk.js';
import { copyTree, MODEL_DIR, tempDir, type TempTree } from './tree-fixture.js';

const trees: TempTree[] = [];
after(() => trees.forEach((t) => t.cleanup()));
function tree(which: 'current' | 'legacy' = 'current'): TempTree {
  const t = copyTree(which);
  trees.push(t);
  return t;
}
async function check(t: TempTree, options = {}): Promise<Diagnostic[]> {
  return runTreeChecks(walkFiles(t.root), options);
}
const codes = (ds: Diagnostic[]) => [...new Set(ds.map((d) => d.code))].sort();

test('the example 0.3.0 tree passes every check', async () => {
  assert.deepEqual(await check(tree()), []);
});

test('every code has a fix-it text, and messages end with it', async () => {
  for (const [code, entry] of Object.entries(CHECK_CODES)) {
    assert.ok(entry.fix.length > 20, code);
    assert.ok(entry.check.length > 0, code);
  }
  const t = tree();
  const doc = t.readAggregate();
  doc.detailed_evaluation_results.total_rows = 99;
  t.writeAggregate(doc);
  const [d] = await check(t);
  assert.equal(d.code, 'eee.total-rows');
  assert.ok(d.message.endsWith(CHECK_CODES['eee.total-rows'].fix));
  assert.equal(d.pointer, '/detailed_evaluation_results/total_rows');
  assert.ok(d.line > 1 && d.column > 1, 'the diagnostic has the line and column of the value');
});

test('every code is documented in docs/validate.md', () => {
  const doc = readFileSync(join(projectRoot, 'docs', 'validate.md'), 'utf8');
  for (const code of Object.keys(CHECK_CODES)) assert.ok(doc.includes(`\`${code}\``), code);
});

test('a samples file reached only as a companion gets the strict JSON check', async () => {
  const t = tree();
  writeFileSync(t.samples, '{"sample_id": "a", "sample_id": "b"}\n{broken\n');
  const ds = await runTreeChecks([t.aggregate]);
  const strict = ds.filter((d) => d.code === 'eee.strict-json');
  assert.deepEqual(
    strict.map((d) => d.line),
    [1, 2],
  );
  assert.ok(ds.some((d) => d.code === 'eee.checksum'));
});

test('checksum: sha256 and md5 are both verified', async () => {
  const t = tree();
  const doc = t.readAggregate();
  doc.detailed_evaluation_results.checksum = '0'.repeat(64);
  t.writeAggregate(doc);
  assert.deepEqual(codes(await check(t)), ['eee.checksum']);
  const rows = t.readRows();
  t.writeRows(rows);
  const md5 = t.readAggregate();
  md5.detailed_evaluation_results.hash_algorithm = 'md5';
  md5.detailed_evaluation_results.checksum = createHash('md5').update('something else').digest('hex');
  t.writeAggregate(md5);
  assert.deepEqual(codes(await check(t)), ['eee.checksum']);
});

test('companion pairing: unreferenced sibling, wrong format, missing file, orphan samples file', async () => {
  const a = tree();
  const doc = a.readAggregate();
  delete doc.detailed_evaluation_results;
  a.writeAggregate(doc);
  assert.ok(codes(await check(a)).includes('eee.companion-unreferenced'));

  const b = tree();
  const wrong = b.readAggregate();
  wrong.detailed_evaluation_results.format = 'json';
  b.writeAggregate(wrong);
  assert.deepEqual(codes(await check(b)), ['eee.companion-mismatch']);

  const c = tree();
  const missing = c.readAggregate();
  missing.detailed_evaluation_results.file_path = `${MODEL_DIR}/0b7c6d5e-4f3a-4b2c-9d1e-0f1a2b3c4d5e_samples.jsonl`;
  c.writeAggregate(missing);
  // The sibling is then pointed at by nobody: an orphan too.
  assert.deepEqual(codes(await check(c)), [
    'eee.companion-mismatch',
    'eee.companion-missing',
    'eee.companion-orphan',
  ]);

  const d = tree();
  rmSync(d.aggregate);
  assert.deepEqual(codes(await check(d)), ['eee.companion-orphan']);
});

test('file_path leaving the datastore (.., absolute, symlink) is reported and never followed', async () => {
  for (const bad of ['data/../../etc/passwd', '/etc/passwd', '..\\..\\x_samples.jsonl']) {
    const t = tree();
    const doc = t.readAggregate();
    doc.detailed_evaluation_results.file_path = bad;
    t.writeAggregate(doc);
    const found = codes(await check(t));
    assert.ok(found.includes('eee.file-path-outside'), `${bad}: ${found}`);
    assert.ok(!found.includes('eee.total-rows') && !found.includes('eee.checksum'), 'the file was not read');
  }
  const t = tree();
  const outside = tempDir();
  trees.push({ ...t, cleanup: () => rmSync(outside, { recursive: true, force: true }) });
  copyFileSync(t.samples, join(outside, 'elsewhere.jsonl'));
  rmSync(t.samples);
  symlinkSync(join(outside, 'elsewhere.jsonl'), t.samples);
  const found = codes(await check(t));
  assert.ok(found.includes('eee.file-path-outside'), String(found));
  assert.ok(!found.includes('eee.checksum'));
});

test('foreign keys, evaluation_result_id, unique sample_id', async () => {
  const t = tree();
  const rows = t.readRows();
  rows[0].evaluation_id = 'someone-else';
  rows[1].model_id = 'acme/other-model';
  rows[2].evaluation_result_id = 'no-such-result';
  rows.push({ ...rows[1], model_id: 'acme/tiny-model' });
  t.writeRows(rows);
  const ds = await check(t);
  assert.deepEqual(codes(ds), ['eee.evaluation-result-id', 'eee.foreign-key', 'eee.sample-id-duplicate']);
  const dup = ds.find((d) => d.code === 'eee.sample-id-duplicate')!;
  assert.equal(dup.line, 4, 'reported on the repeated row');
  assert.match(dup.message, /line 2/);
});

test('sample_hash: an older recipe is a warning naming it, an unknown hash an error', async () => {
  const t = tree();
  const rows = t.readRows();
  const concat = SAMPLE_HASH_RECIPES.find((r) => r.id === 'concat-raw-reference')!;
  rows[0].sample_hash = createHash('sha256')
    .update(concat.text(rows[0].input.raw, rows[0].input.reference))
    .digest('hex');
  rows[1].sample_hash = 'f'.repeat(64);
  t.writeRows(rows);
  const ds = await check(t);
  const old = ds.find((d) => d.code === 'eee.sample-hash-recipe')!;
  assert.equal(old.severity, 'warning');
  assert.match(old.message, /concat-raw-reference/);
  assert.equal(old.line, 1);
  const bad = ds.find((d) => d.code === 'eee.sample-hash')!;
  assert.equal(bad.severity, 'error');
  assert.equal(bad.line, 2);
});

test('scores: bounds, finiteness, range (percent against 0–1)', async () => {
  const t = tree();
  const doc = t.readAggregate();
  const base = doc.evaluation_results[0];
  const r = (patch: (x: any) => void) => {
    const x = structuredClone(base);
    patch(x);
    return x;
  };
  doc.evaluation_results = [
    base,
    r((x) => delete x.metric_config.max_score),
    r((x) => Object.assign(x.metric_config, { min_score: 5, max_score: 1 })),
    r((x) => (x.score_details.score = 66.67)),
    r((x) => Object.assign(x.metric_config, { min_score: '-Infinity', max_score: 'Infinity' })),
    r((x) => (x.metric_config.max_score = 'lots')),
  ];
  t.writeAggregate(doc);
  const ds = await check(t);
  const at = (i: number) =>
    ds.filter((d) => d.pointer.startsWith(`/evaluation_results/${i}/`)).map((d) => d.code);
  assert.deepEqual(at(0), []);
  assert.deepEqual(at(1), ['eee.score-bounds']);
  assert.deepEqual(at(2), ['eee.score-bounds']);
  assert.deepEqual(at(3), ['eee.score-out-of-range']);
  assert.match(ds.find((d) => d.code === 'eee.score-out-of-range')!.message, /percentage/);
  assert.deepEqual(at(4), []);
  assert.deepEqual(at(5), ['eee.score-bounds']);
  // An overflowing number (1e999) in an uncertainty figure.
  const text = JSON.stringify(doc, null, 2).replace('"value": 0.2722', '"value": 1e999');
  writeFileSync(t.aggregate, text);
  assert.ok(codes(await check(t)).includes('eee.score-not-finite'));
});

test('deployment axes required in 0.3.0 for the model and every judge', async () => {
  const t = tree();
  const doc = t.readAggregate();
  delete doc.model_info.additional_details.model_availability;
  doc.evaluation_results[0].metric_config.llm_scoring = {
    judges: [
      { model_info: { name: 'judge', id: 'acme/judge', additional_details: { deployment_type: 'unknown' } } },
    ],
  };
  t.writeAggregate(doc);
  const ds = (await check(t)).filter((d) => d.code === 'eee.deployment-axes');
  assert.deepEqual(
    ds.map((d) => d.pointer),
    [
      '/model_info/additional_details',
      '/evaluation_results/0/metric_config/llm_scoring/judges/0/model_info/additional_details',
    ],
  );
});

test('layout and portable names inside data/ are errors', async () => {
  const t = tree();
  const renamed = join(t.root, MODEL_DIR, 'record.json');
  renameSync(t.aggregate, renamed);
  const ds = await check(t);
  assert.ok(ds.some((d) => d.code === 'eee.layout' && d.severity === 'error'));
  const u = tree();
  const badDir = join(u.root, 'data/demo-bench/acme/model.');
  mkdirSync(badDir, { recursive: true });
  copyFileSync(u.aggregate, join(badDir, '0b7c6d5e-4f3a-4b2c-9d1e-0f1a2b3c4d5e.json'));
  const found = await check(u);
  assert.ok(found.some((d) => d.code === 'eee.portable-name' && /ends with a dot/.test(d.message)));
});

test('duplicates across the tree ignore evaluation_id and retrieved_timestamp and list order', async () => {
  const t = tree();
  const doc = t.readAggregate();
  doc.evaluation_id = 'another-id';
  doc.retrieved_timestamp = '1800000000';
  doc.evaluation_results[0].source_data.url = [...doc.evaluation_results[0].source_data.url].reverse();
  const dir = join(t.root, 'data/demo-bench/acme/tiny-model-copy');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, '0b7c6d5e-4f3a-4b2c-9d1e-0f1a2b3c4d5e.json'), JSON.stringify(doc));
  const ds = await check(t);
  assert.deepEqual(codes(ds), ['eee.duplicate-record']);
  doc.evaluation_results[0].score_details.score = 0.5;
  writeFileSync(join(dir, '0b7c6d5e-4f3a-4b2c-9d1e-0f1a2b3c4d5e.json'), JSON.stringify(doc));
  assert.deepEqual(await check(t), []);
});
