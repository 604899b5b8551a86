// An index of flat rows lying outside `flat/indexes/by_collection/` (upstream's community-evals converter reads
// `aggregate.jsonl` beside its `datastore/`) is recognised by its content and its rows checked as the datastore's
// index rows; a flat object is never given the tree layout's folder check, whatever `data/` folder lies above it.
import assert from 'node:assert/strict';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runInProcess } from '../metrics/inproc.js';
import { projectRoot, reference, skipWithoutReference } from '../helpers/shared.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-flat-loose-'));
after(() => rmSync(temp, { recursive: true, force: true }));

const CASE =
  'peers-wild-3/every-eval-ever/evaleval__every_eval_ever__community-evals-converter-aggregate-0.2.2';

interface JsonReport {
  files: { path: string; diagnostics: { code: string; severity: string; line: number; pointer: string }[] }[];
}

async function validateJson(
  path: string,
): Promise<{ code: number; errors: { path: string; code: string; pointer: string }[] }> {
  const r = await runInProcess(['validate', path, '--format', 'json']);
  const report = JSON.parse(r.stdout) as JsonReport;
  const errors = report.files.flatMap((f) =>
    f.diagnostics
      .filter((d) => d.severity === 'error')
      .map((d) => ({ path: f.path, code: d.code, pointer: d.pointer })),
  );
  return { code: r.code, errors };
}

/**
 * The examples' datastore in the flat layout, its collection indexes joined into one `aggregate.jsonl` lying beside
 * the datastore folder `store/` (which keeps only `flat/objects/`), all below an ancestor folder named `data/`.
 */
async function looseLayout(name: string): Promise<{ dir: string; index: string }> {
  const tree = join(temp, `${name}-tree`);
  cpSync(join(projectRoot, 'examples/compare'), tree, { recursive: true });
  const dir = join(temp, name, 'tests', 'data', 'converter');
  mkdirSync(dir, { recursive: true });
  const store = join(dir, 'store');
  const r = await runInProcess(['migrate', '--layout', 'flat', tree, '-o', store]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const indexes = join(store, 'flat/indexes/by_collection');
  const rows = readdirSync(indexes)
    .sort()
    .map((f) => readFileSync(join(indexes, f), 'utf8'))
    .join('');
  rmSync(join(store, 'flat/indexes'), { recursive: true });
  const index = join(dir, 'aggregate.jsonl');
  writeFileSync(index, rows);
  return { dir, index };
}

function editRow(index: string, edit: (row: Record<string, unknown>) => void): void {
  const lines = readFileSync(index, 'utf8').trimEnd().split('\n');
  const row = JSON.parse(lines[0]!) as Record<string, unknown>;
  edit(row);
  lines[0] = JSON.stringify(row);
  writeFileSync(index, `${lines.join('\n')}\n`);
}

test(
  'the community-evals converter fixture (aggregate.jsonl beside datastore/) validates',
  { skip: skipWithoutReference(CASE) },
  async () => {
    const result = await validateJson(reference(CASE)!);
    assert.deepEqual(result.errors, []);
    assert.equal(result.code, 0);
    // The index alone, too: its datastore is found beside it.
    const alone = await validateJson(
      join(reference(CASE)!, 'tests/data/community_evals_converter/aggregate.jsonl'),
    );
    assert.deepEqual(alone.errors, []);
  },
);

test('an index JSONL lying beside its datastore names its objects: no unknown type, no orphan, no tree layout', async () => {
  const { dir, index } = await looseLayout('ok');
  assert.ok(readFileSync(index, 'utf8').trimEnd().split('\n').length > 1);
  const result = await validateJson(dir);
  assert.deepEqual(result.errors, []);
  assert.equal(result.code, 0);
});

for (const [what, field, code, value] of [
  ['sha256', 'sha256', 'eee.flat-hash', '0'.repeat(64)],
  ['size', 'size_bytes', 'eee.flat-size', 1],
] as const)
  test(`a tampered ${what} in a row of an index lying elsewhere is ${code} on that row`, async () => {
    const { dir, index } = await looseLayout(`tampered-${what}`);
    editRow(index, (row) => (row[field] = value));
    const result = await validateJson(dir);
    assert.equal(result.code, 1);
    assert.deepEqual(
      result.errors.map((e) => [e.path.endsWith('aggregate.jsonl'), e.code, e.pointer]),
      [[true, code, `/${field}`]],
    );
  });

test('a row of an index lying elsewhere naming a missing object is eee.flat-missing', async () => {
  const { dir, index } = await looseLayout('missing');
  const row = JSON.parse(readFileSync(index, 'utf8').split('\n')[0]!) as { object_path: string };
  rmSync(join(dir, 'store', row.object_path));
  const result = await validateJson(dir);
  assert.equal(result.code, 1);
  assert.deepEqual(
    result.errors.map((e) => e.code),
    ['eee.flat-missing'],
  );
});

test('a flat object under an ancestor data/ folder gets no tree layout check (only the orphan finding)', async () => {
  const { dir, index } = await looseLayout('orphan');
  renameSync(index, join(dir, 'aggregate.txt'));
  const result = await validateJson(dir);
  assert.equal(result.code, 1);
  const codes = new Set(result.errors.map((e) => e.code));
  assert.deepEqual([...codes], ['eee.flat-orphan']);
});
