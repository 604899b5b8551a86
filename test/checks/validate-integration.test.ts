import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runTreeChecks } from '../../src/checks/index.js';
import { benchmarkHash } from '../../src/formats/infereval/hash.js';
import { cli } from '../helpers/cli.js';
import { reference, skipWithoutReference } from '../helpers/shared.js';
import { benchRepoWithStrayOutput, copyTree, tempDir, type TempTree } from './tree-fixture.js';
import { walkFiles } from './walk.js';

const cleanups: (() => void)[] = [];
after(() => cleanups.forEach((c) => c()));

test('evalkit validate runs the datastore checks: 0 on a sound tree, 1 with codes in --format json', async () => {
  const t: TempTree = copyTree();
  cleanups.push(t.cleanup);
  const ok = await cli(['validate', t.root]);
  assert.equal(ok.code, 0, ok.stdout + ok.stderr);
  const rows = t.readRows();
  rows[0].model_id = 'wrong/model';
  t.writeRows(rows, true);
  const bad = await cli(['validate', '--format', 'json', t.root]);
  assert.equal(bad.code, 1);
  const codes = new Set<string>();
  JSON.parse(bad.stdout, (k, v) => {
    if (k === 'code' && typeof v === 'string') codes.add(v);
    return v;
  });
  for (const c of ['eee.foreign-key', 'eee.checksum']) assert.ok(codes.has(c), `${c} in ${[...codes]}`);
});

const CLINICAL = 'infereval/examples/clinical_pilot/benchmark.json';

test(
  '--benchmark: an evaluation whose benchmark_hash differs is reported',
  { skip: skipWithoutReference(CLINICAL) },
  async () => {
    const dir = tempDir();
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const benchmarkPath = reference(CLINICAL) as string;
    const benchmark = JSON.parse(readFileSync(benchmarkPath, 'utf8'));
    const evaluation = (hash: string | undefined) => ({
      schema_version: '1.0',
      framework_version: '0.17.6',
      id: 'eta-1',
      benchmark_id: benchmark.id,
      ...(hash ? { benchmark_hash: hash } : {}),
      model: { provider: 'replay', model_id: 'm' },
      endorsement_config: {},
      items: [],
    });
    const good = join(dir, 'good.json');
    const bad = join(dir, 'bad.json');
    const none = join(dir, 'none.json');
    writeFileSync(good, JSON.stringify(evaluation(benchmarkHash(benchmark))));
    writeFileSync(bad, JSON.stringify(evaluation(`sha256:${'0'.repeat(64)}`), null, 2));
    writeFileSync(none, JSON.stringify(evaluation(undefined)));
    const ds = await runTreeChecks([good, bad, none], { benchmark: benchmarkPath });
    assert.deepEqual(
      ds.map((d) => [d.file, d.code, d.severity]),
      [
        [bad, 'infereval.benchmark-hash', 'error'],
        [none, 'infereval.benchmark-hash', 'warning'],
      ],
    );
    assert.equal(ds[0].pointer, '/benchmark_hash');
    assert.ok(ds[0].line > 1);
  },
);

const STOP = 'infereval/evaluations/stop_sign_haiku_eta0.json';
test(
  'the reference stop_sign evaluation was made from another version of the benchmark',
  { skip: skipWithoutReference(STOP) },
  async () => {
    const ds = await runTreeChecks([reference(STOP) as string], {
      benchmark: reference('infereval/examples/stop_sign/benchmark.json'),
    });
    assert.ok(ds.some((d) => d.code === 'infereval.benchmark-hash'));
  },
);

test('validate applies the path policy to benchmark outputs in a repository', async () => {
  const repo = benchRepoWithStrayOutput();
  cleanups.push(() => rmSync(repo, { recursive: true, force: true }));
  const ds = await runTreeChecks(walkFiles(repo).filter((f) => !f.includes('/.git/')));
  assert.deepEqual(ds.map((d) => [d.file.slice(repo.length + 1), d.code, d.severity]).sort(), [
    ['misc/run.json', 'bench.path-unrecognised', 'warning'],
    ['results/failed-run.json', 'bench.path-deprecated', 'error'],
    ['results/mmlu/output.json', 'bench.path-deprecated', 'error'],
  ]);
  assert.match(
    ds.find((d) => d.file.endsWith('output.json'))!.message,
    /move it to outputs\/mmlu\/run-002\.json/,
  );
});

test('validate feeds the samples rows to the datastore checks in its one read: same findings as the checks reading the file', async () => {
  const t: TempTree = copyTree();
  cleanups.push(t.cleanup);
  const rows = t.readRows();
  rows[0].evaluation_id = 'someone-else';
  rows[1].sample_hash = 'f'.repeat(64);
  rows.push({ ...rows[1], model_id: 'acme/other-model' });
  // a line that is not strict JSON is counted but not row-checked (its own diagnostic comes from validate)
  writeFileSync(
    t.samples,
    `${rows.map((r) => JSON.stringify(r)).join('\n')}\n{"sample_id": "x", "sample_id": "y", "model_id": "z"}\n`,
  );
  const { validatePaths } = await import('../../src/validate/index.js');
  const tree = (r: Awaited<ReturnType<typeof validatePaths>>) =>
    r.files
      .flatMap((f) => f.diagnostics)
      .filter((d) => d.code.startsWith('eee.'))
      .map((d) => `${d.file}:${d.line}:${d.column} ${d.code} ${d.message}`)
      .sort();
  const fed = await validatePaths([t.root], { cwd: t.root }); // one read in this thread: rows fed
  const reread = await validatePaths([t.root], { cwd: t.root, jobs: 2 }); // workers: the checks read it again
  const own = (await runTreeChecks(walkFiles(t.root)))
    .map((d) => `${d.file}:${d.line}:${d.column} ${d.code} ${d.message}`)
    .sort();
  const codes = tree(fed).map((l) => l.split(' ')[1]);
  for (const c of ['eee.foreign-key', 'eee.sample-hash', 'eee.total-rows', 'eee.checksum'])
    assert.ok(codes.includes(c), `${c} in ${codes}`);
  assert.deepEqual(tree(fed), tree(reread));
  assert.deepEqual(tree(fed), own);
});
