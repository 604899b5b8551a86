// Issue 31 items 2 and 3: `migrate --layout flat` into an existing flat datastore merges only where nothing
// existing changes (same uuid, same bytes), refuses otherwise naming what differs, and never writes through a
// symbolic link; `migrate --layout tree` killed mid-write is completed by a rerun, which removes its leftovers.
// test-runner: own process (kills a child migration).
import assert from 'node:assert/strict';
import { killBeforeFirstRename } from '../helpers/pause.js';
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
import { join, relative, sep } from 'node:path';
import { after, before, test } from 'node:test';
import { runInProcess } from '../metrics/inproc.js';
import { fileDigests } from '../checks/walk.js';
import { cliCommand } from '../helpers/cli.js';
import { projectRoot } from '../helpers/shared.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-layout-merge-'));
after(() => rmSync(temp, { recursive: true, force: true }));
const TREE_A = join(projectRoot, 'examples/eee');
const TREE_B = join(projectRoot, 'examples/datastore/current');
let CLI: string[] = [];
before(async () => {
  CLI = await cliCommand();
});

const migrate = (to: 'flat' | 'tree', from: string, out: string) =>
  runInProcess(['migrate', '--layout', to, from, '-o', out, '--format', 'json']);
const INDEX = 'flat/indexes/by_collection/demo-bench.jsonl';

test('into an existing flat datastore: another record is added beside the rows there, which stay as they were', async () => {
  const out = join(temp, 'merged');
  assert.equal((await migrate('flat', TREE_A, out)).code, 0);
  const before = readFileSync(join(out, INDEX), 'utf8');
  const r = await migrate('flat', TREE_B, out);
  assert.equal(r.code, 0, r.stdout);
  const after = readFileSync(join(out, INDEX), 'utf8');
  assert.ok(after.startsWith(before), 'the existing rows are kept byte for byte');
  assert.equal(after.split('\n').filter(Boolean).length, 2, 'both records are indexed');
  const v = await runInProcess(['validate', out]);
  assert.equal(v.code, 0, v.stdout);
  // Both records come back out as a tree.
  const back = join(temp, 'merged-back');
  assert.equal((await migrate('tree', out, back)).code, 0);
  for (const tree of [TREE_A, TREE_B])
    for (const [rel, digest] of fileDigests(join(tree, 'data')))
      assert.equal(fileDigests(join(back, 'data')).get(rel), digest, rel);
  // The same migration again writes nothing.
  assert.equal((await migrate('flat', TREE_B, out)).code, 0);
  assert.equal(readFileSync(join(out, INDEX), 'utf8'), after);
});

test('a row or object that would change is refused with what differs, and nothing is written', async () => {
  // The user's own index file: its row of the record says another schema version.
  const out = join(temp, 'conflict');
  assert.equal((await migrate('flat', TREE_A, out)).code, 0);
  const index = join(out, INDEX);
  writeFileSync(
    index,
    readFileSync(index, 'utf8').replace('"eval_schema_version":"0.3.0"', '"eval_schema_version":"0.3.1"'),
  );
  const snapshot = fileDigests(out);
  const r = await migrate('flat', TREE_A, out);
  assert.equal(r.code, 1, r.stdout);
  assert.match(r.stdout, /eval_schema_version: \\?"0\.3\.1\\?" → \\?"0\.3\.0\\?"/);
  assert.deepEqual(fileDigests(out), snapshot, 'nothing changed');
  // A variant: an object of the same uuid with other bytes.
  const out2 = join(temp, 'conflict-object');
  assert.equal((await migrate('flat', TREE_A, out2)).code, 0);
  const object = [...fileDigests(join(out2, 'flat/objects')).keys()].find((f) => f.endsWith('.json'))!;
  writeFileSync(join(out2, 'flat/objects', object), '{"changed": true}\n');
  const snapshot2 = fileDigests(out2);
  const r2 = await migrate('flat', TREE_A, out2);
  assert.equal(r2.code, 1);
  assert.match(r2.stdout, /exists .* with other bytes/);
  assert.deepEqual(fileDigests(out2), snapshot2);
});

test('flat/ (or a folder below it) that is a symbolic link is never written through', async () => {
  for (const linked of ['flat', 'flat/objects']) {
    const out = join(temp, `linked-${linked.replace('/', '-')}`);
    const elsewhere = join(temp, `elsewhere-${linked.replace('/', '-')}`);
    mkdirSync(elsewhere);
    mkdirSync(join(out, linked, '..'), { recursive: true });
    symlinkSync(elsewhere, join(out, linked));
    const r = await migrate('flat', TREE_A, out);
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, /is a symbolic link/);
    assert.deepEqual(readdirSync(elsewhere), [], `nothing written through ${linked}`);
  }
});

test('migrate --layout tree killed mid-write: the rerun completes the tree and removes the leftover', async () => {
  const tree = join(temp, 'big-tree');
  cpSync(join(TREE_A, 'data'), join(tree, 'data'), { recursive: true });
  const flat = join(temp, 'big-flat');
  assert.equal((await migrate('flat', tree, flat)).code, 0);

  const out = join(temp, 'big-back');
  // The first file copied whole waits before its rename (the copies of migrate --layout): the kill lands there.
  const paused = await killBeforeFirstRename([...CLI, 'migrate', '--layout', 'tree', flat, '-o', out]);
  const landed = relative(out, paused).split(sep).join('/');
  assert.match(landed, /\.\d+\.[0-9a-f]{12}\.tmp$/, 'the kill landed while a file was being written');
  assert.ok(existsSync(join(out, landed)), 'the leftover is there after the kill');
  const r = await migrate('tree', flat, out);
  assert.equal(r.code, 0, r.stdout);
  assert.deepEqual(
    fileDigests(join(out, 'data')),
    fileDigests(join(tree, 'data')),
    'the tree is complete, byte for byte',
  );
  assert.equal(existsSync(join(out, landed)), false, 'the leftover is removed');
  // And the completed tree goes flat again (the leftover would have been refused there).
  assert.equal((await migrate('flat', out, join(temp, 'big-flat-again'))).code, 0);
});
