// Issue 31 item 7 and issue 30 defect 6: validate, ingest and migrate share one reading of a flat datastore. Every
// fault is found by all three and a refused row's record is not stored (an object that is a link leaving the
// datastore, `../`, absolute and index-pointing object paths, one record in two collections); a repeated row is one
// diagnostic and fast; the tree layout's checks run on the flat objects; the legacy path follows the tree's rule, so
// real upstream folders that do not spell model_info.id are accepted and a tree goes flat and back byte for byte.
import assert from 'node:assert/strict';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, test } from 'node:test';
import { runInProcess } from '../metrics/inproc.js';
import { fileDigests } from './walk.js';
import { projectRoot, reference, skipWithoutReference } from '../helpers/shared.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-flat-reading-'));
after(() => rmSync(temp, { recursive: true, force: true }));
let made = 0;

/** A flat datastore made from a tree (default: the examples' datastore). */
async function flatOf(tree = join(projectRoot, 'examples/eee')): Promise<string> {
  const flat = join(temp, `flat-${++made}`);
  const r = await runInProcess(['migrate', '--layout', 'flat', tree, '-o', flat]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  return flat;
}

const indexFiles = (flat: string): string[] =>
  readdirSync(join(flat, 'flat/indexes/by_collection'))
    .sort()
    .map((n) => join(flat, 'flat/indexes/by_collection', n));
const rowsOf = (file: string): Record<string, unknown>[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const writeRows = (file: string, rows: Record<string, unknown>[]): void =>
  writeFileSync(file, rows.map((r) => JSON.stringify(r) + '\n').join(''));

interface Verdicts {
  validate: { code: number; errors: string[]; warnings: string[] };
  ingest: { code: number; added: number; collections: string[] };
  migrate: { code: number; out: string };
}

/** What validate, ingest and migrate --layout tree each make of a flat datastore. */
async function verdicts(flat: string): Promise<Verdicts> {
  const v = await runInProcess(['validate', flat, '--format', 'json']);
  const report = JSON.parse(v.stdout) as {
    files: { diagnostics: { code: string; severity: string }[] }[];
  };
  const all = report.files.flatMap((f) => f.diagnostics);
  const db = join(temp, `store-${++made}.duckdb`);
  const i = await runInProcess(['ingest', flat, '--db', db, '--format', 'json', '--no-progress']);
  const ingested = JSON.parse(i.stdout) as { summary: { records: number } };
  const q = await runInProcess([
    'query',
    'SELECT collection FROM records ORDER BY 1',
    '--db',
    db,
    '-f',
    'json',
  ]);
  const out = join(temp, `tree-${++made}`);
  const m = await runInProcess(['migrate', '--layout', 'tree', flat, '-o', out]);
  return {
    validate: {
      code: v.code,
      errors: all.filter((d) => d.severity === 'error').map((d) => d.code),
      warnings: all.filter((d) => d.severity === 'warning').map((d) => d.code),
    },
    ingest: {
      code: i.code,
      added: ingested.summary.records,
      collections:
        q.code === 0 ? (JSON.parse(q.stdout).rows as { collection: string }[]).map((r) => r.collection) : [],
    },
    migrate: { code: m.code, out },
  };
}

/** Validate fails with the code, ingest stores none of the faulty records, migrate refuses and writes nothing. */
function assertRefusedByAll(v: Verdicts, code: string, stored: number, what: string): void {
  assert.equal(v.validate.code, 1, `${what}: validate exits 1`);
  assert.ok(v.validate.errors.includes(code), `${what}: validate reports ${code} (${v.validate.errors})`);
  assert.equal(v.ingest.added, stored, `${what}: ingest stores only the records of valid rows`);
  assert.notEqual(v.ingest.code, 0, `${what}: ingest says it rejected a record`);
  assert.equal(v.migrate.code, 1, `${what}: migrate refuses`);
  assert.equal(existsSync(join(v.migrate.out, 'data')), false, `${what}: migrate writes nothing`);
}

test('an object that is a link to a file outside the datastore (same hash and size) is refused by all three', async () => {
  const flat = await flatOf();
  const [row] = rowsOf(indexFiles(flat)[0]!);
  const object = join(flat, String(row!.object_path));
  const outside = join(temp, 'outside.json');
  cpSync(object, outside);
  rmSync(object);
  symlinkSync(outside, object);
  assertRefusedByAll(await verdicts(flat), 'eee.flat-escape', 0, 'aggregate link');
  // A variant: the instance object is the link.
  const flat2 = await flatOf();
  const [row2] = rowsOf(indexFiles(flat2)[0]!);
  const instance = join(flat2, String(row2!.instance_object_path));
  cpSync(instance, join(temp, 'outside.jsonl'));
  rmSync(instance);
  symlinkSync(join(temp, 'outside.jsonl'), instance);
  assertRefusedByAll(await verdicts(flat2), 'eee.flat-escape', 0, 'instance link');
});

test('../, absolute and index-pointing object paths are refused by all three; the record is not stored', async () => {
  const cases: [string, (row: Record<string, unknown>, flat: string, index: string) => void, string][] = [
    [
      '../',
      (r) => (r.object_path = String(r.object_path).replace('flat/objects/', 'flat/objects/../objects/')),
      'eee.flat-index',
    ],
    ['absolute', (r, flat) => (r.object_path = join(flat, String(r.object_path))), 'eee.flat-index'],
    ['the index itself', (r, flat, index) => (r.object_path = relative(flat, index)), 'eee.flat-uuid'],
  ];
  for (const [what, edit, code] of cases) {
    const flat = await flatOf();
    const index = indexFiles(flat)[0]!;
    const rows = rowsOf(index);
    edit(rows[0]!, flat, index);
    writeRows(index, rows);
    assertRefusedByAll(await verdicts(flat), code, 0, what);
  }
});

test('a row repeated 30,000 times is one warning, fast, and its record is stored once', async () => {
  const flat = await flatOf();
  const index = indexFiles(flat)[0]!;
  const line = readFileSync(index, 'utf8');
  writeFileSync(index, line.repeat(30_000));
  // CPU time of this process (validate runs in it), not wall time: the machine is shared.
  const started = process.cpuUsage();
  const v = await runInProcess(['validate', flat, '--format', 'json']);
  const used = process.cpuUsage(started);
  const seconds = (used.user + used.system) / 1e6;
  const diagnostics = (
    JSON.parse(v.stdout) as {
      files: { diagnostics: { code: string; severity: string; message: string }[] }[];
    }
  ).files.flatMap((f) => f.diagnostics);
  const duplicates = diagnostics.filter((d) => d.code === 'eee.flat-duplicate');
  assert.equal(duplicates.length, 1, 'one diagnostic for the repeated row');
  assert.equal(duplicates[0]!.severity, 'warning');
  assert.match(duplicates[0]!.message, /repeated on 29999 more line\(s\)/);
  // Each row was hashed and parsed again: 24 s; once per object, the repeats cost their JSON parse only.
  assert.ok(seconds < 5, `validate took ${seconds} s of CPU`);
  const all = await verdicts(flat);
  assert.equal(all.ingest.added, 1);
  assert.equal(all.migrate.code, 0);
  // A variant: a second row for the same object that says something else is an error.
  const flat2 = await flatOf();
  const index2 = indexFiles(flat2)[0]!;
  const rows = rowsOf(index2);
  writeRows(index2, [...rows, { ...rows[0]!, eval_schema_version: '0.2.2' }]);
  assertRefusedByAll(await verdicts(flat2), 'eee.flat-duplicate', 0, 'a differing second row');
});

test('the same uuid in two collections is an error, and neither copy is stored', async () => {
  const flat = await flatOf();
  const index = indexFiles(flat)[0]!;
  const [row] = rowsOf(index);
  const other = join(flat, 'flat/indexes/by_collection/other-bench.jsonl');
  writeRows(other, [
    {
      ...row!,
      benchmark: 'other-bench',
      legacy_path: String(row!.legacy_path).replace(/^data\/[^/]+\//, 'data/other-bench/'),
    },
  ]);
  assertRefusedByAll(await verdicts(flat), 'eee.flat-collections', 0, 'two collections');
});

test('the tree layout checks run on flat objects: non-canonical sample_hash values are errors in both layouts', async () => {
  const tree = join(temp, 'bad-hash-tree');
  cpSync(join(projectRoot, 'examples/eee/data'), join(tree, 'data'), { recursive: true });
  const samples = (readdirSync(join(tree, 'data'), { recursive: true }) as string[]).find((f) =>
    f.endsWith('_samples.jsonl'),
  )!;
  const file = join(tree, 'data', samples);
  const rows = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  writeFileSync(
    file,
    rows.map((l) => JSON.stringify({ ...JSON.parse(l), sample_hash: 'f'.repeat(64) }) + '\n').join(''),
  );
  const count = async (dir: string): Promise<number> => {
    const r = await runInProcess(['validate', dir, '--format', 'json']);
    return (JSON.parse(r.stdout) as { files: { diagnostics: { code: string }[] }[] }).files
      .flatMap((f) => f.diagnostics)
      .filter((d) => d.code === 'eee.sample-hash').length;
  };
  const inTree = await count(tree);
  assert.equal(inTree, rows.length, 'one eee.sample-hash per row in the tree');
  const flat = await flatOf(tree);
  assert.equal(await count(join(flat, 'flat')), inTree, 'as many in the flat datastore');
  const v = await verdicts(flat);
  assert.equal(v.ingest.added, 0, 'ingest refuses the record there too');
});

/** A tree goes flat: it validates, ingests to the same records and collections, and goes back byte for byte. */
async function assertRoundTrip(tree: string): Promise<void> {
  const flat = await flatOf(tree);
  const v = await verdicts(flat);
  assert.deepEqual(
    v.validate.errors.filter((c) => c.startsWith('eee.flat')),
    [],
    'no flat check fails',
  );
  const treeDb = join(temp, `tree-${++made}.duckdb`);
  const t = await runInProcess(['ingest', tree, '--db', treeDb, '--format', 'json', '--no-progress']);
  const inTree = JSON.parse(t.stdout) as { summary: { records: number } };
  assert.equal(v.ingest.added, inTree.summary.records, 'the same number of records as the tree');
  const keys = async (db: string): Promise<string> =>
    (
      await runInProcess([
        'query',
        'SELECT record_key, collection FROM records ORDER BY 1',
        '--db',
        db,
        '-f',
        'json',
      ])
    ).stdout;
  const flatDb = join(temp, `flat-${++made}.duckdb`);
  await runInProcess(['ingest', flat, '--db', flatDb, '--no-progress']);
  assert.equal(await keys(flatDb), await keys(treeDb), 'the same records and collections');
  assert.equal(v.migrate.code, 0);
  assert.deepEqual(
    fileDigests(join(v.migrate.out, 'data')),
    fileDigests(join(tree, 'data')),
    'back byte for byte',
  );
}

test(
  'real upstream paths (google/gemini-2.0-flash under gemini-2-0-flash/, openai/gpt-4.1 under gpt-4-1/) go flat and back',
  { skip: skipWithoutReference('eee/records/data/hal-gaia') },
  async () => {
    const tree = join(temp, 'upstream');
    cpSync(reference('eee/records/data/hal-gaia')!, join(tree, 'data', 'hal-gaia'), { recursive: true });
    const ids = (readdirSync(join(tree, 'data/hal-gaia'), { recursive: true }) as string[]).filter((f) =>
      f.endsWith('.json'),
    );
    assert.ok(ids.some((f) => f.startsWith('google/gemini-2-0-flash/')));
    assert.ok(ids.some((f) => f.startsWith('openai/gpt-4-1/')));
    await assertRoundTrip(tree);
  },
);

test('a generated record whose model folder does not spell its model id goes flat and back', async () => {
  const tree = join(temp, 'generated');
  cpSync(join(projectRoot, 'examples/eee/data'), join(tree, 'data'), { recursive: true });
  // Rename every model folder to a spelling of its own (as upstream does with dots).
  for (const collection of readdirSync(join(tree, 'data')))
    for (const developer of readdirSync(join(tree, 'data', collection)))
      for (const model of readdirSync(join(tree, 'data', collection, developer))) {
        const from = join(tree, 'data', collection, developer, model);
        const to = join(tree, 'data', collection, developer, `${model}-v1-0`);
        mkdirSync(to);
        cpSync(from, to, { recursive: true });
        rmSync(from, { recursive: true });
      }
  // The samples file_path names the tree path: keep each record's reference true to where it now lies.
  for (const f of readdirSync(join(tree, 'data'), { recursive: true }) as string[]) {
    if (!f.endsWith('.json')) continue;
    const path = join(tree, 'data', f);
    const doc = JSON.parse(readFileSync(path, 'utf8')) as {
      detailed_evaluation_results?: { file_path?: string };
    };
    const der = doc.detailed_evaluation_results;
    if (der?.file_path) {
      der.file_path = `data/${f.replace(/\.json$/, '_samples.jsonl')}`;
      writeFileSync(path, JSON.stringify(doc, null, 2) + '\n');
    }
  }
  const valid = await runInProcess(['validate', tree]);
  assert.equal(valid.code, 0, valid.stdout);
  await assertRoundTrip(tree);
});
