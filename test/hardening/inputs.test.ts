// An evaluation read with a benchmark it was not run on is an error naming both values;
// a document of the wrong kind is named ("this is an X; this command takes a Y") by every command.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { projectRoot } from '../helpers/shared.js';
import { benchmarkMismatches } from '../../src/checks/benchmark-hash.js';
import { describeDocument } from '../../src/validate/expect-kind.js';

const fixtures = join(projectRoot, 'test/fixtures/metrics');
const eta = join(fixtures, 'eta-run1.json');
const bench = join(fixtures, 'benchmark.json');
const birds = join(projectRoot, 'examples/run/birds.benchmark.json');
const aggregate = join(
  projectRoot,
  'examples/datastore/current/data/demo-bench/acme/tiny-model/3f6c1b2a-9d4e-4f7a-8b1c-2d3e4f5a6b7c.json',
);
const samples = aggregate.replace(/\.json$/, '_samples.jsonl');
let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'evalkit-harden-inputs-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('metrics, report, structure, monotonicity, retest refuse a benchmark of another id', async () => {
  const runs: [string, string[]][] = [
    ['metrics', ['metrics', eta, '--benchmark', birds]],
    ['report', ['report', eta, '--benchmark', birds]],
    ['structure', ['structure', eta, '--benchmark', birds]],
    ['monotonicity', ['monotonicity', eta, birds]],
    ['retest', ['retest', eta, eta, '--benchmark', birds]],
  ];
  for (const [name, args] of runs) {
    const r = await cli(args);
    assert.equal(r.code, 1, `${name}: ${r.stderr}`);
    assert.match(
      r.stderr,
      /error infereval\.benchmark-id: .*eta-run1\.json was not run on .*birds\.benchmark\.json: benchmark_id "metrics-fixture" is not the benchmark's id "birds-defeasible-demo"/,
      name,
    );
  }
  // The matching benchmark is still accepted.
  assert.equal((await cli(['metrics', eta, '--benchmark', bench])).code, 0);
});

test("a recorded benchmark_hash that is not the benchmark's is refused with both hashes", async () => {
  const doc = JSON.parse(readFileSync(eta, 'utf8'));
  doc.benchmark_hash = `sha256:${'0'.repeat(64)}`;
  const wrong = join(dir, 'eta-wrong-hash.json');
  writeFileSync(wrong, JSON.stringify(doc));
  const r = await cli(['metrics', wrong, '--benchmark', bench]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /infereval\.benchmark-hash: .*benchmark_hash sha256:0{64} differs from the benchmark's sha256:[0-9a-f]{64}/,
  );
  // validate --benchmark says the same (one comparison).
  const v = await cli(['validate', wrong, '--benchmark', bench]);
  assert.match(v.stdout, /infereval\.benchmark-hash .*differs from the benchmark's sha256:/);
  assert.deepEqual(
    benchmarkMismatches({ benchmark_id: 'a', benchmark_hash: 'sha256:x' }, { id: 'a', hash: 'sha256:x' }),
    [],
  );
});

test('the wrong kind of document is named by every command', async () => {
  const jsonl = join(projectRoot, 'examples/eee/instances-0.2.0.jsonl');
  const cases: [string[], RegExp][] = [
    [
      ['metrics', aggregate],
      /this is an Every Eval Ever aggregate record \(eee\.aggregate 0\.3\.0\); this command takes an infereval evaluation \(η\)/,
    ],
    [
      ['stats', eta, '--samples', samples],
      /this is an infereval evaluation \(η\) \(infereval\.evaluation 1\.0\); this command takes an Every Eval Ever aggregate record/,
    ],
    [
      ['audit', jsonl],
      /this is JSON Lines \(rows: an Every Eval Ever instance-level row \(eee\.instance 0\.2\.0\)\); this command takes an infereval evaluation/,
    ],
    [
      ['report', birds],
      /this is an infereval benchmark \(β\) \(infereval\.benchmark 1\.0\); this command takes an infereval evaluation/,
    ],
    [
      [
        'retrieval',
        'score',
        '--gold',
        samples,
        '--results',
        join(projectRoot, 'examples/retrieval/results.jsonl'),
      ],
      /samples\.jsonl:1: this is an Every Eval Ever instance-level row .*; this command takes a retrieval gold row/,
    ],
  ];
  for (const [args, expected] of cases) {
    const r = await cli(args);
    assert.notEqual(r.code, 0, args.join(' '));
    assert.match(r.stderr, /input\.wrong-kind/, args.join(' '));
    assert.match(r.stderr, expected, args.join(' '));
  }
});

test('an older infereval benchmark given to hash is named as such', async () => {
  const old = JSON.parse(readFileSync(birds, 'utf8'));
  old.schema_version = '0.9';
  const path = join(dir, 'old.benchmark.json');
  writeFileSync(path, JSON.stringify(old));
  const r = await cli(['hash', path]);
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    /this is an infereval benchmark \(β\) of a version evalkit does not read \(schema_version "0\.9"\); this command takes an infereval benchmark \(β\) 1\.0/,
  );
  assert.equal(describeDocument({ foo: 1 }), undefined, 'what no type claims is left to the command');
});
