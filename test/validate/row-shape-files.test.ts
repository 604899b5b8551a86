// Whole files validated with the row-shape fast path and without it (EngineOptions.rowShapes = false) must give the
// same results: generated files of valid, near-valid and broken rows, every JSONL file of ../shared/reference and of
// examples/, the real EEE 0.2.1 samples file with generated variants of its rows, and a datastore tree whose row
// checks must see the rows the fast path accepted.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createRng } from '../../src/metrics/stats/rng.js';
import { validatePaths } from '../../src/validate/index.js';
import { copyTree } from '../checks/tree-fixture.js';
import { projectRoot, reference, skipWithoutReference } from '../helpers/shared.js';
import { makeTree } from './fixtures.js';
import { baseRow, jsonlFiles, pick, readLines, textMutation, valueMutation } from './row-shape-fixtures.js';

// ---------------------------------------------------------------------------------------------------------------
// Whole files: the results with the fast path equal those of the exact path alone, in one thread and with workers.

describe('row-shape fast path on whole files', () => {
  let root = '';
  before(async () => {
    const next = createRng(4242);
    const lines: (string | Buffer)[] = [];
    for (let i = 0; i < 3000; i++) {
      const base = baseRow(next, i);
      const r = next();
      if (r < 0.8) lines.push(JSON.stringify(base));
      else if (r < 0.9) lines.push(JSON.stringify(valueMutation(next, base)));
      else lines.push(textMutation(next, JSON.stringify(base)));
    }
    const bytes = Buffer.concat(lines.map((l) => Buffer.concat([Buffer.from(l), Buffer.from('\n')])));
    root = await makeTree({ 'rows.jsonl': bytes });
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('a generated file of valid, near-valid and broken rows: the same results, 1 and 2 jobs', async () => {
    const exact = await validatePaths(['rows.jsonl'], { cwd: root, rowShapes: false, jobs: 1 });
    assert.ok(exact.summary.invalid > 300 && exact.summary.valid > 2000, JSON.stringify(exact.summary));
    assert.deepEqual(await validatePaths(['rows.jsonl'], { cwd: root, jobs: 1 }), exact);
    const ranges = { cwd: root, jobs: 2, rangeBytes: 64 * 1024 };
    assert.deepEqual(await validatePaths(['rows.jsonl'], ranges), exact);
    const schemaOnly = { cwd: root, jobs: 1, schemaOnly: true };
    assert.deepEqual(
      await validatePaths(['rows.jsonl'], schemaOnly),
      await validatePaths(['rows.jsonl'], { ...schemaOnly, rowShapes: false }),
    );
  });

  it(
    'every JSONL file of the reference data and of examples/: the same results',
    { skip: skipWithoutReference() },
    async () => {
      const files = [...jsonlFiles(reference()!), ...jsonlFiles(join(projectRoot, 'examples'))];
      assert.ok(
        files.some((f) => f.includes('instances-0.2.1')),
        'the real EEE 0.2.1 samples file is among them',
      );
      for (const file of files)
        for (const schemaOnly of [true, false])
          for (const forced of [{}, { type: 'eee.instance', schemaVersion: '0.2.1' }]) {
            const options = { cwd: '/', schemaOnly, ...forced };
            const exact = await validatePaths([file], { ...options, rowShapes: false });
            assert.deepEqual(
              await validatePaths([file], options),
              exact,
              `${file} ${JSON.stringify(options)}`,
            );
          }
    },
  );
});

// The real file, written a second time with generated variants of its rows: the same results either way.
describe('row-shape fast path on the real EEE 0.2.1 samples file, with generated variants', () => {
  const path = 'eee/records/instances-0.2.1/mmlu_gpt2_samples.jsonl';
  it('the same results', { skip: skipWithoutReference(path) }, async () => {
    const rows = readLines(reference(path)!);
    const next = createRng(11);
    const out: Buffer[] = [];
    for (const row of rows) {
      out.push(row);
      for (let k = 0; k < 5; k++) out.push(textMutation(next, row.toString('utf8')));
    }
    const root = await makeTree({
      'variants.jsonl': Buffer.concat(out.map((b) => Buffer.concat([b, Buffer.from('\n')]))),
    });
    try {
      const exact = await validatePaths(['variants.jsonl'], { cwd: root, rowShapes: false });
      assert.ok(
        exact.summary.valid > rows.length && exact.summary.invalid > rows.length,
        JSON.stringify(exact.summary),
      );
      assert.deepEqual(await validatePaths(['variants.jsonl'], { cwd: root }), exact);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

// A datastore tree: its samples file's rows also feed the row checks (unique sample_id, canonical sample_hash,
// foreign keys), which must see the rows the fast path accepted as they see the others.
describe('row-shape fast path in a datastore tree', () => {
  it('the row checks find the same faults in rows the fast path accepted', async () => {
    const t = copyTree('current');
    try {
      const rows = t.readRows();
      const next = createRng(5);
      const more: unknown[] = [...rows];
      for (let i = 0; i < 600; i++) {
        const row = structuredClone(pick(next, rows)) as Record<string, unknown>;
        const r = next();
        if (r < 0.6) row.sample_id = `gen-${i}`;
        else if (r < 0.7) row.evaluation_id = 'someone-else';
        else if (r < 0.8) row.sample_hash = `${String(row.sample_hash)}0`;
        // else: a duplicate sample_id
        more.push(r < 0.9 ? row : valueMutation(next, row));
      }
      t.writeRows(more);
      for (const jobs of [1, 2]) {
        const options = { cwd: t.root, jobs, rangeBytes: 4096 };
        const exact = await validatePaths(['.'], { ...options, rowShapes: false });
        const codes = new Set(exact.files.flatMap((f) => f.diagnostics.map((d) => d.code)));
        for (const code of ['eee.sample-id-duplicate', 'eee.foreign-key', 'eee.sample-hash'])
          assert.ok(codes.has(code), `${code} in ${[...codes].join(', ')}`);
        assert.deepEqual(await validatePaths(['.'], options), exact, `jobs ${jobs}`);
      }
    } finally {
      t.cleanup();
    }
  });
});
