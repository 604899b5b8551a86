import assert from 'node:assert/strict';
import { killBeforeFirstRename } from '../helpers/pause.js';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { after, test } from 'node:test';
import { UsageError } from '../../src/errors.js';
import { migratePaths } from '../../src/migrate/index.js';
import { validatePaths } from '../../src/validate/index.js';
import { cli as runCli, cliCommand } from '../helpers/cli.js';
import { projectRoot, reference, skipWithoutReference } from '../helpers/shared.js';
import { walkFiles } from '../checks/walk.js';
import { EXAMPLES, LEGACY_UUID, MODEL_DIR, copyTree, tempDir } from '../checks/tree-fixture.js';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const fresh = () => {
  const d = tempDir('evalkit-migrate-');
  dirs.push(d);
  return d;
};
const snapshot = (dir: string) =>
  Object.fromEntries(walkFiles(dir).map((f) => [f.slice(dir.length), readFileSync(f).toString('base64')]));
async function errorsIn(dir: string) {
  const result = await validatePaths([dir]);
  return result.files.flatMap((f) => f.diagnostics.filter((d) => d.severity === 'error'));
}
const rowsOf = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

test('EEE 0.2.0 → 0.3.0: valid (integrity checks included), scores unchanged, inferred fields reported and recorded', async () => {
  const out = fresh();
  const input = join(EXAMPLES, 'legacy');
  const result = await migratePaths([input], { outDir: out });
  assert.deepEqual(result.summary, { migrated: 2, current: 0, failed: 0, skipped: 0 });
  assert.deepEqual(await errorsIn(out), []);
  const before = JSON.parse(readFileSync(join(input, MODEL_DIR, `${LEGACY_UUID}.json`), 'utf8'));
  const after_ = JSON.parse(readFileSync(join(out, MODEL_DIR, `${LEGACY_UUID}.json`), 'utf8'));
  assert.equal(after_.schema_version, '0.3.0');
  assert.deepEqual(
    after_.evaluation_results.map((r: any) => r.score_details.score),
    before.evaluation_results.map((r: any) => r.score_details.score),
  );
  const report = result.files.find((f) => f.kind === 'eee.aggregate')!;
  const inferred = report.notes.filter((n) => n.kind === 'inferred').map((n) => n.pointer);
  for (const p of [
    '/eval_library/name',
    '/model_info/additional_details/deployment_type',
    '/model_info/additional_details/model_availability',
  ])
    assert.ok(inferred.includes(p), p);
  const recorded = JSON.parse(after_.source_metadata.additional_details.evalkit_migration);
  assert.equal(recorded.from, '0.2.0');
  assert.ok(recorded.inferred.includes('/model_info/additional_details/deployment_type'));
  assert.equal(after_.model_info.additional_details.params_billions, '0.5', 'string maps are string-valued');
  assert.equal(after_.evaluation_results[0].generation_config.additional_details.stop_sequences, '["\\n"]');
  const rowsBefore = rowsOf(join(input, MODEL_DIR, `${LEGACY_UUID}_samples.jsonl`));
  const rows = rowsOf(join(out, MODEL_DIR, `${LEGACY_UUID}_samples.jsonl`));
  assert.deepEqual(
    rows.map((r) => r.evaluation.score),
    rowsBefore.map((r) => Number(r.evaluation.score)),
  );
  assert.ok(rows.every((r) => 'messages' in r && !('interactions' in r) && Array.isArray(r.input.reference)));
  const samplesBytes = readFileSync(join(out, MODEL_DIR, `${LEGACY_UUID}_samples.jsonl`));
  assert.equal(
    after_.detailed_evaluation_results.checksum,
    createHash('sha256').update(samplesBytes).digest('hex'),
  );
});

test('a re-run gives the same bytes, and a current tree is left alone in place', async () => {
  const first = fresh();
  const second = fresh();
  await migratePaths([join(EXAMPLES, 'legacy')], { outDir: first });
  const again = await migratePaths([first], { outDir: second });
  assert.deepEqual(again.summary, { migrated: 0, current: 2, failed: 0, skipped: 0 });
  assert.deepEqual(snapshot(second), snapshot(first));
  const before = snapshot(first);
  const inPlace = await migratePaths([first], { inPlace: true });
  assert.ok(
    inPlace.files.every((f) => f.output === undefined),
    'nothing rewritten',
  );
  assert.deepEqual(snapshot(first), before);
});

test('--in-place replaces files by rename (new inode), leaves no temporary file, and validates', async () => {
  const t = copyTree('legacy');
  dirs.push(t.root);
  const inode = statSync(t.aggregate).ino;
  const result = await migratePaths([t.root], { inPlace: true });
  assert.equal(result.summary.migrated, 2);
  assert.notEqual(statSync(t.aggregate).ino, inode);
  assert.deepEqual(
    walkFiles(t.root).filter((f) => f.endsWith('.tmp')),
    [],
  );
  assert.deepEqual(await errorsIn(t.root), []);
});

test('--dry-run writes nothing; mode and --to mistakes are usage errors', async () => {
  const t = copyTree('legacy');
  dirs.push(t.root);
  const before = snapshot(t.root);
  const result = await migratePaths([t.root], { dryRun: true, layout: true });
  assert.equal(result.summary.migrated, 2);
  assert.deepEqual(snapshot(t.root), before);
  await assert.rejects(migratePaths([t.root], {}), UsageError);
  await assert.rejects(migratePaths([t.root], { inPlace: true, outDir: fresh() }), UsageError);
  await assert.rejects(migratePaths([t.root], { dryRun: true, to: '9.9' }), UsageError);
});

test('--layout moves a flat pair into data/<collection>/<developer>/<model>/<uuid4> and rewrites the reference', async () => {
  const flat = fresh();
  const src = join(EXAMPLES, 'legacy', MODEL_DIR);
  cpSync(join(src, `${LEGACY_UUID}.json`), join(flat, 'record.json'));
  cpSync(join(src, `${LEGACY_UUID}_samples.jsonl`), join(flat, 'record_samples.jsonl'));
  const doc = JSON.parse(readFileSync(join(flat, 'record.json'), 'utf8'));
  doc.detailed_evaluation_results.file_path = 'record_samples.jsonl';
  writeFileSync(join(flat, 'record.json'), JSON.stringify(doc));
  const out = fresh();
  const result = await migratePaths([flat], { outDir: out, layout: true });
  assert.equal(result.summary.failed, 0, JSON.stringify(result.files, null, 1));
  const files = walkFiles(out).map((f) => f.slice(out.length + 1));
  assert.equal(files.length, 2);
  assert.match(files[0], /^data\/demo-bench\/acme\/tiny-model\/[0-9a-f-]{36}\.json$/);
  const migrated = JSON.parse(readFileSync(join(out, files[0]), 'utf8'));
  assert.equal(migrated.detailed_evaluation_results.file_path, files[1]);
  assert.deepEqual(await errorsIn(out), []);
  const out2 = fresh();
  await migratePaths([flat], { outDir: out2, layout: true });
  assert.deepEqual(snapshot(out2), snapshot(out), 'the uuid is derived from the content');
});

test('legacy benchmark outputs → v1: mapped, unmapped kept and reported, moved to outputs/<benchmark>/<run_id>.json', async () => {
  const out = fresh();
  const result = await migratePaths([join(EXAMPLES, 'bench-repo')], { outDir: out, layout: true });
  assert.deepEqual(result.summary, { migrated: 2, current: 1, failed: 0, skipped: 1 });
  assert.deepEqual(
    walkFiles(out).map((f) => f.slice(out.length + 1)),
    ['outputs/gsm8k/run-003.json', 'outputs/mmlu/run-001.json', 'outputs/mmlu/run-002.json'],
  );
  assert.deepEqual(await errorsIn(out), []);
  const run2 = JSON.parse(readFileSync(join(out, 'outputs/mmlu/run-002.json'), 'utf8'));
  assert.deepEqual(run2.results.metrics, { accuracy: 0.705 });
  assert.equal(run2.metadata.model.parameters.temperature, 0.2);
  assert.equal(run2.results.details.legacy.predictions_file, 'preds.jsonl');
  const report = result.files.find((f) => f.input.endsWith('output.json'))!;
  assert.ok(report.notes.some((n) => n.kind === 'unmapped' && n.pointer.endsWith('/predictions_file')));
  const failed = JSON.parse(readFileSync(join(out, 'outputs/gsm8k/run-003.json'), 'utf8'));
  assert.deepEqual([failed.results.status, failed.results.error.message], ['error', 'CUDA out of memory']);
});

test('evalkit migrate CLI: json report, exit 1 for an input that cannot be migrated, 2 for usage', async () => {
  const dir = fresh();
  writeFileSync(join(dir, 'broken.json'), '{"schema_version": "0.2.0", "evaluation_results": [');
  const json = await runCli(['migrate', '--dry-run', '--format', 'json', join(dir, 'broken.json')]);
  assert.equal(json.code, 1, json.stderr);
  const report = JSON.parse(json.stdout);
  assert.equal(report.files[0].status, 'failed');
  assert.match(report.files[0].problems[0], /not strict JSON/);
  const usage = await runCli(['migrate', dir]);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /-o DIR, --in-place, or --dry-run/);
});

const RECORDS = 'eee/records/data';
test(
  'every reference 0.2.x record migrates to a schema-valid 0.3.0 record',
  { skip: skipWithoutReference(RECORDS) },
  async () => {
    const out = fresh();
    const result = await migratePaths([reference(RECORDS) as string], { outDir: out });
    assert.equal(result.summary.failed, 0);
    assert.ok(result.summary.migrated > 100);
    const validated = await validatePaths([out], { schemaOnly: true });
    assert.equal(validated.summary.errors, 0);
  },
);

test('a kill during --in-place leaves either the old file or the new one', async (ctx) => {
  const t = copyTree('legacy');
  dirs.push(t.root);
  // A samples file of many rows: what the cut must leave whole.
  const row = readFileSync(t.samples, 'utf8').split('\n')[0];
  const big =
    Array.from({ length: 15000 }, (_, i) => row.replace('"sample_id":1', `"sample_id":${i + 1}`)).join('\n') +
    '\n';
  writeFileSync(t.samples, big);
  const original = readFileSync(t.samples);
  // The first file written whole waits before its rename (src/io/atomic.ts): the kill lands there, every time.
  const paused = await killBeforeFirstRename(
    [...(await cliCommand()), 'migrate', '--in-place', t.root],
    projectRoot,
  );
  const folder = join(t.root, MODEL_DIR);
  const started = basename(paused);
  ctx.diagnostic(`killed with ${started} written but not renamed`);
  assert.ok(readdirSync(folder).includes(started), 'the temporary file is left as it was');
  const now = readFileSync(t.samples);
  // Cut while its new version was being written, the samples file is still the old one, byte for byte.
  if (started.includes('_samples.jsonl')) assert.ok(now.equals(original), 'the old samples file, untouched');
  else if (!now.equals(original)) {
    const lines = now.toString('utf8').split('\n').filter(Boolean);
    assert.equal(lines.length, 15000);
    for (const l of lines) JSON.parse(l);
  }
  const agg = readFileSync(t.aggregate, 'utf8');
  JSON.parse(agg);
  assert.ok(existsSync(t.aggregate));
});

test('--to limits the migration to one family; --layout in place moves the pair and removes the old files', async () => {
  const repo = fresh();
  cpSync(join(EXAMPLES, 'bench-repo'), join(repo, 'bench'), { recursive: true });
  cpSync(join(EXAMPLES, 'legacy'), join(repo, 'eee'), { recursive: true });
  const onlyBench = await migratePaths([repo], { dryRun: true, to: 'v1' });
  assert.ok(onlyBench.files.filter((f) => f.kind.startsWith('eee')).every((f) => f.status === 'skipped'));
  assert.equal(onlyBench.files.filter((f) => f.kind === 'bench.output' && f.status === 'migrated').length, 2);

  const flat = fresh();
  const src = join(EXAMPLES, 'legacy', MODEL_DIR);
  cpSync(join(src, `${LEGACY_UUID}.json`), join(flat, `${LEGACY_UUID}.json`));
  cpSync(join(src, `${LEGACY_UUID}_samples.jsonl`), join(flat, `${LEGACY_UUID}_samples.jsonl`));
  const result = await migratePaths([flat], { inPlace: true, layout: true });
  assert.equal(result.summary.failed, 0, JSON.stringify(result.files));
  assert.deepEqual(
    walkFiles(flat).map((f) => f.slice(flat.length + 1)),
    [`${MODEL_DIR}/${LEGACY_UUID}.json`, `${MODEL_DIR}/${LEGACY_UUID}_samples.jsonl`],
  );
  assert.deepEqual(await errorsIn(flat), []);
});

test('in place with --layout, a folder argument is the repository root of the moved outputs', async () => {
  const repo = fresh();
  cpSync(join(EXAMPLES, 'bench-repo'), repo, { recursive: true });
  const result = await migratePaths([repo], { inPlace: true, layout: true });
  assert.equal(result.summary.failed, 0);
  assert.deepEqual(
    walkFiles(repo).map((f) => f.slice(repo.length + 1)),
    ['outputs/gsm8k/run-003.json', 'outputs/mmlu/run-001.json', 'outputs/mmlu/run-002.json', 'package.json'],
  );
  assert.ok(!existsSync(join(repo, 'results')), 'the emptied legacy folders are removed');
});

test('migrate never follows a samples file that is a symbolic link', async () => {
  const t = copyTree('legacy');
  dirs.push(t.root);
  const outside = fresh();
  cpSync(t.samples, join(outside, 'secret.jsonl'));
  rmSync(t.samples);
  symlinkSync(join(outside, 'secret.jsonl'), t.samples);
  const out = fresh();
  const result = await migratePaths([t.root], { outDir: out });
  assert.deepEqual(
    walkFiles(out).map((f) => f.slice(out.length + 1)),
    [],
    'nothing is written; the linked file is not read',
  );
  assert.ok(result.files.every((f) => f.kind !== 'eee.instance'));
  const aggregate = result.files.find((f) => f.kind === 'eee.aggregate')!;
  assert.equal(aggregate.status, 'failed');
  assert.match(aggregate.problems.join(), /symbolic link: it is never followed/);
});

test('instance rows: a non-string value in a nested string map is JSON-encoded and reported at its full pointer', async () => {
  const { migrateEeeInstanceRow } = await import('../../src/formats/eee/migrate.js');
  const row = {
    schema_version: 'instance_level_eval_0.2.0',
    evaluation_id: 'e1',
    model_id: 'acme/m',
    evaluation_name: 'x',
    sample_id: 's1',
    interaction_type: 'single_turn',
    input: { raw: 'q', reference: 'a' },
    output: { raw: 'a' },
    evaluation: { score: 1, is_correct: true },
    performance: { additional_details: { gpu: 'a100', batch: 8 } },
  };
  const out = migrateEeeInstanceRow(row);
  assert.equal((out.value as any).performance.additional_details.batch, '8');
  assert.ok(
    out.notes.some((n) => n.pointer === '/performance/additional_details/batch'),
    JSON.stringify(out.notes.map((n) => n.pointer)),
  );
});
