// EEE's flat datastore layout: a flat datastore built from the examples (migrate --layout flat) and one in the
// upstream fixture's shape validate; every fault of an index row or object is reported with its code; converting
// tree → flat → tree and flat → tree → flat gives the same bytes; ingest reads a flat datastore, idempotently.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, test } from 'node:test';
import { runInProcess } from '../metrics/inproc.js';
import { projectRoot, reference, skipWithoutReference } from '../helpers/shared.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-flat-'));
after(() => rmSync(temp, { recursive: true, force: true }));

const FIXTURE = 'eee/records/fixtures/community_evals_converter';

function filesOf(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(relative(dir, p), createHash('sha256').update(readFileSync(p)).digest('hex'));
    }
  };
  walk(dir);
  return out;
}

interface JsonReport {
  files: { path: string; diagnostics: { code: string; severity: string; line: number; pointer: string }[] }[];
}

async function validateJson(path: string): Promise<{ code: number; codes: string[] }> {
  const r = await runInProcess(['validate', path, '--format', 'json']);
  const report = JSON.parse(r.stdout) as JsonReport;
  const codes = report.files.flatMap((f) =>
    f.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code),
  );
  return { code: r.code, codes };
}

/** The examples' datastore converted to the flat layout under a new folder. */
async function flatFromExamples(name: string): Promise<{ tree: string; flat: string }> {
  const tree = join(temp, `${name}-tree`);
  cpSync(join(projectRoot, 'examples/compare'), tree, { recursive: true });
  const flat = join(temp, `${name}-flat`);
  const r = await runInProcess(['migrate', '--layout', 'flat', tree, '-o', flat]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  return { tree, flat };
}

const indexFile = (flat: string): string => {
  const dir = join(flat, 'flat/indexes/by_collection');
  return join(dir, readdirSync(dir)[0]!);
};

function editIndex(flat: string, edit: (row: Record<string, unknown>) => void): void {
  const file = indexFile(flat);
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  const row = JSON.parse(lines[0]!) as Record<string, unknown>;
  edit(row);
  lines[0] = JSON.stringify(row);
  writeFileSync(file, `${lines.join('\n')}\n`);
}

test('a flat datastore made from the examples validates, and converting back gives the tree byte for byte', async () => {
  const { tree, flat } = await flatFromExamples('roundtrip');
  const index = readFileSync(indexFile(flat), 'utf8').trimEnd().split('\n');
  assert.ok(index.length >= 2);
  const row = JSON.parse(index[0]!) as Record<string, unknown>;
  assert.deepEqual(Object.keys(row), [...Object.keys(row)].sort(), 'keys sorted as upstream writes them');
  assert.match(String(row.object_path), /^flat\/objects\/[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f-]{36}\.json$/);
  assert.match(String(row.instance_object_path), /_samples\.jsonl$/);
  const valid = await validateJson(flat);
  assert.deepEqual(valid.codes, []);
  assert.equal(valid.code, 0);

  const back = join(temp, 'roundtrip-back');
  const r = await runInProcess(['migrate', '--layout', 'tree', flat, '-o', back]);
  assert.equal(r.code, 0, r.stdout);
  const original = filesOf(join(tree, 'data'));
  assert.deepEqual(filesOf(join(back, 'data')), original);

  const again = join(temp, 'roundtrip-again');
  assert.equal((await runInProcess(['migrate', '--layout', 'flat', back, '-o', again])).code, 0);
  assert.deepEqual(filesOf(join(again, 'flat')), filesOf(join(flat, 'flat')));
});

test(
  "the upstream fixture's flat datastore validates and converts to the tree and back byte for byte",
  {
    skip: skipWithoutReference(FIXTURE),
  },
  async () => {
    const root = join(temp, 'upstream');
    cpSync(join(reference(FIXTURE)!, 'datastore'), root, { recursive: true });
    mkdirSync(join(root, 'flat/indexes/by_collection'), { recursive: true });
    cpSync(
      join(reference(FIXTURE)!, 'aggregate.jsonl'),
      join(root, 'flat/indexes/by_collection/MMLU-Pro.jsonl'),
    );
    const valid = await validateJson(root);
    assert.deepEqual(valid.codes, []);
    const tree = join(temp, 'upstream-tree');
    assert.equal((await runInProcess(['migrate', '--layout', 'tree', root, '-o', tree])).code, 0);
    assert.ok(
      statSync(join(tree, 'data/MMLU-Pro/01-ai/yi-1.5-34b-chat/676f4465-ce78-411a-9f5a-c97b3d2eac4f.json')),
    );
    const flat = join(temp, 'upstream-flat');
    assert.equal((await runInProcess(['migrate', '--layout', 'flat', tree, '-o', flat])).code, 0);
    assert.deepEqual(filesOf(join(flat, 'flat')), filesOf(join(root, 'flat')));
  },
);

const FAULTS: [string, string, (flat: string) => void][] = [
  ['a wrong hash', 'eee.flat-hash', (f) => editIndex(f, (r) => (r.sha256 = '0'.repeat(64)))],
  ['a wrong size', 'eee.flat-size', (f) => editIndex(f, (r) => (r.size_bytes = Number(r.size_bytes) + 1))],
  [
    'a wrong instance hash',
    'eee.flat-hash',
    (f) => editIndex(f, (r) => (r.instance_sha256 = 'f'.repeat(64))),
  ],
  [
    'a missing object',
    'eee.flat-missing',
    (f) => editIndex(f, (r) => rmSync(join(f, String(r.object_path)))),
  ],
  [
    'an orphan object',
    'eee.flat-orphan',
    (f) => {
      mkdirSync(join(f, 'flat/objects/ab/cd'), { recursive: true });
      cpSync(
        join(
          f,
          String(
            (JSON.parse(readFileSync(indexFile(f), 'utf8').split('\n')[0]!) as { object_path: string })
              .object_path,
          ),
        ),
        join(f, 'flat/objects/ab/cd/abcd0000-0000-4000-8000-000000000000.json'),
      );
    },
  ],
  [
    // Another collection than the row's benchmark (a developer folder that does not spell model_info.id is
    // accepted, as the tree check accepts it: test/checks/flat-reading.test.ts).
    'a wrong legacy path',
    'eee.flat-legacy-path',
    (f) =>
      editIndex(
        f,
        (r) => (r.legacy_path = String(r.legacy_path).replace(/^data\/[^/]+\//, 'data/other-bench/')),
      ),
  ],
  ['a wrong record type', 'eee.flat-record-type', (f) => editIndex(f, (r) => (r.record_type = 'instance'))],
  [
    'a uuid not the file name',
    'eee.flat-uuid',
    (f) => editIndex(f, (r) => (r.object_uuid = 'abcd0000-0000-4000-8000-000000000000')),
  ],
  ['a row missing a field', 'eee.flat-index', (f) => editIndex(f, (r) => delete r.legacy_path)],
  ['a line that is not JSON', 'eee.flat-index', (f) => appendFileSync(indexFile(f), '{"benchmark":\n')],
];

for (const [name, code, fault] of FAULTS)
  test(`a flat datastore with ${name} is invalid (${code}) and is not converted back`, async () => {
    const { flat } = await flatFromExamples(name.replace(/ /g, '-'));
    fault(flat);
    const result = await validateJson(flat);
    assert.equal(result.code, 1);
    assert.ok(result.codes.includes(code), `codes: ${result.codes.join(', ')}`);
    const r = await runInProcess(['migrate', '--layout', 'tree', flat, '-o', join(temp, `${name}-back`)]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /not converted/);
  });

test('ingest reads a flat datastore (collection from the index) and a second ingest adds nothing', async () => {
  const { flat } = await flatFromExamples('ingest');
  const db = join(temp, 'flat.duckdb');
  const first = await runInProcess(['ingest', flat, '--db', db, '--format', 'json', '--no-progress']);
  assert.equal(first.code, 0, first.stdout + first.stderr);
  const summary = (JSON.parse(first.stdout) as { summary: { records: number; rows: number } }).summary;
  assert.equal(summary.records, 3);
  assert.ok(summary.rows > 0);
  const rows = await runInProcess([
    'query',
    'SELECT DISTINCT collection FROM records',
    '--db',
    db,
    '--format',
    'json',
  ]);
  assert.match(rows.stdout, /arith-40/);
  const second = await runInProcess(['ingest', flat, '--db', db, '--format', 'json', '--no-progress']);
  assert.equal(second.code, 0);
  assert.equal(
    (JSON.parse(second.stdout) as { summary: { records: number; skipped: number } }).summary.records,
    0,
  );
});

test('ingest does not store a flat record whose index row fails its checks', async () => {
  const { flat } = await flatFromExamples('ingest-fault');
  editIndex(flat, (r) => (r.sha256 = '0'.repeat(64)));
  const db = join(temp, 'flat-fault.duckdb');
  const r = await runInProcess(['ingest', flat, '--db', db, '--format', 'json', '--no-progress']);
  const result = JSON.parse(r.stdout) as { summary: { records: number }; diagnostics: { code: string }[] };
  assert.equal(result.summary.records, 2);
  assert.ok(result.diagnostics.some((d) => d.code === 'eee.flat-hash'));
});

test('migrate --layout followed by a path still moves files into the tree layout (the path is not a layout name)', async () => {
  const legacy = join(temp, 'legacy');
  cpSync(join(projectRoot, 'examples/datastore/legacy'), legacy, { recursive: true });
  const r = await runInProcess(['migrate', '--layout', legacy, '--dry-run']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /2 migrated/);
});

// Issue 39 item 21: a legacy_path whose model folder is another model's than the record's model_info.id (even after
// upstream's spelling: case aside, `.` as `-`) is a warning naming the object; upstream's own spellings are not.
test('a legacy_path in another model’s folder is a warning naming the object; upstream spellings are not', async () => {
  const { flat } = await flatFromExamples('legacy-model');
  const warningsFor = async (legacy: (path: string) => string): Promise<string[]> => {
    let objectPath = '';
    editIndex(flat, (r) => {
      r.legacy_path = legacy(String(r.legacy_path));
      objectPath = String(r.object_path);
    });
    const r = await runInProcess(['validate', flat, '--format', 'json']);
    assert.equal(r.code, 0, r.stdout);
    const found = (JSON.parse(r.stdout) as JsonReport).files.flatMap((f) =>
      f.diagnostics.filter((d) => d.code === 'eee.flat-legacy-model'),
    );
    for (const d of found) {
      assert.equal(d.severity, 'warning');
      assert.equal(d.pointer, '/legacy_path');
    }
    const text = await runInProcess(['validate', flat]);
    if (found.length > 0) assert.ok(text.stdout.includes(objectPath), 'the warning names the object');
    return found.length > 0
      ? [text.stdout.split('\n').find((l) => l.includes('eee.flat-legacy-model'))!]
      : [];
  };
  const original = JSON.parse(readFileSync(indexFile(flat), 'utf8').split('\n')[0]!).legacy_path as string;
  // The first row is acme/tiny-model-1b's record.
  assert.match(original, /^data\/arith-40\/acme\/tiny-model-1b\//);
  const other = await warningsFor((p) => p.replace('/acme/tiny-model-1b/', '/acme/tiny-model-3b/'));
  assert.equal(other.length, 1);
  assert.match(
    other[0]!,
    /lies in the model folder acme\/tiny-model-3b, but the object flat\/objects\/[0-9a-f/]+-[0-9a-f-]+\.json is a record of "acme\/tiny-model-1b"/,
  );
  // Variants: another developer; a model folder of another name altogether.
  assert.equal((await warningsFor(() => original.replace('/acme/', '/globex/'))).length, 1);
  assert.equal((await warningsFor(() => original.replace('/tiny-model-1b/', '/pocket-7b/'))).length, 1);
  // Upstream's spellings of the same id: case, and `.` for `-`. No warning; nor for the original.
  assert.deepEqual(
    await warningsFor(() => original.replace('/acme/tiny-model-1b/', '/ACME/Tiny-Model-1B/')),
    [],
  );
  assert.deepEqual(await warningsFor(() => original.replace('/tiny-model-1b/', '/tiny-model.1b/')), []);
  assert.deepEqual(await warningsFor(() => original), []);
});
