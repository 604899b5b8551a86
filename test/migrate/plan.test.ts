// The migration plan is made without a disk: every read goes through the MigrationFiles it is given, here files
// held in memory under a root that does not exist, so a plan that touched the disk would fail to find them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { planMigration, type Input, type MigrationFiles } from '../../src/migrate/index.js';
import { EXAMPLES, LEGACY_UUID, MODEL_DIR } from '../checks/tree-fixture.js';

const ROOT = '/nonexistent-evalkit-plan-test';

function memoryFiles(files: Map<string, Buffer>, modified = '2026-01-02T03:04:05.000Z'): MigrationFiles {
  return {
    read: async (abs) => {
      const bytes = files.get(abs);
      if (!bytes) throw new Error(`read outside the plan's files: ${abs}`);
      return bytes;
    },
    kindOf: async (abs) => (files.has(abs) ? 'file' : undefined),
    modifiedAt: async () => modified,
    repoRootOf: () => undefined,
  };
}

const legacyAggregate = `${MODEL_DIR}/${LEGACY_UUID}.json`;
const legacySamples = `${MODEL_DIR}/${LEGACY_UUID}_samples.jsonl`;

function legacyTree(): { files: Map<string, Buffer>; inputs: Input[] } {
  const files = new Map<string, Buffer>();
  const inputs: Input[] = [];
  for (const rel of [legacyAggregate, legacySamples]) {
    const abs = join(ROOT, 'in', rel);
    files.set(abs, readFileSync(join(EXAMPLES, 'legacy', rel)));
    inputs.push({ abs, rel, base: join(ROOT, 'in'), explicit: false });
  }
  return { files, inputs };
}

test('an EEE 0.2.0 pair is planned to the output folder with its samples first, and nothing is written', async () => {
  const { files, inputs } = legacyTree();
  const plan = await planMigration(inputs, memoryFiles(files), { cwd: ROOT, outDir: join(ROOT, 'out') });
  assert.deepEqual(
    plan.files.map((f) => [f.report.kind, f.report.status, f.report.from, f.report.to, f.report.output]),
    [
      ['eee.instance', 'migrated', '0.2.0', '0.3.0', `out/${legacySamples}`],
      ['eee.aggregate', 'migrated', '0.2.0', '0.3.0', `out/${legacyAggregate}`],
    ],
  );
  const [samples, aggregate] = plan.files.map((f) => f.writes);
  assert.equal(samples[0].dest, join(ROOT, 'out', legacySamples));
  assert.equal(samples[0].root, join(ROOT, 'out'));
  const migrated = JSON.parse(String(aggregate[0].bytes));
  assert.equal(migrated.schema_version, '0.3.0');
  // The companion checksum is the checksum of the planned samples bytes.
  const rows = String(samples[0].bytes).trim().split('\n');
  assert.equal(migrated.detailed_evaluation_results.total_rows, rows.length);
  assert.deepEqual(
    plan.inputs,
    inputs.map((i) => i.abs),
  );
});

test('in place, an unchanged file plans no write; a target that does not apply leaves the file alone', async () => {
  const { files, inputs } = legacyTree();
  const plan = await planMigration(inputs, memoryFiles(files), { cwd: ROOT, inPlace: true, to: 'v1' });
  assert.deepEqual(
    plan.files.map((f) => [f.report.kind, f.report.status, f.writes.length]),
    [
      ['eee.aggregate', 'skipped', 0],
      ['eee.instance', 'skipped', 0],
    ],
  );
  assert.match(plan.files[0].report.problems[0], /left alone: the target v1 does not apply/);
});

test('a legacy benchmark output takes its benchmark from its folder and its start time from the given file time', async () => {
  const abs = join(ROOT, 'outputs', 'mmlu', 'old.json');
  const legacy = JSON.parse(readFileSync(join('examples', 'bench-output', 'legacy', 'results.json'), 'utf8'));
  delete legacy.config.date;
  delete legacy.config.benchmark;
  const files = new Map([[abs, Buffer.from(JSON.stringify(legacy))]]);
  const plan = await planMigration(
    [{ abs, rel: 'mmlu/old.json', base: join(ROOT, 'outputs'), explicit: true }],
    memoryFiles(files, '2020-05-06T07:08:09.000Z'),
    { cwd: ROOT, outDir: join(ROOT, 'out') },
  );
  const [file] = plan.files;
  assert.deepEqual(
    [file.report.kind, file.report.status, file.report.to],
    ['bench.output', 'migrated', 'v1'],
  );
  const doc = JSON.parse(String(file.writes[0].bytes));
  assert.equal(doc.metadata.run.started_at, '2020-05-06T07:08:09.000Z');
  assert.equal(doc.metadata.benchmark.name ?? doc.metadata.benchmark, 'mmlu');
});
