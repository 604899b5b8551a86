// `retrieval gate` refuses unknown metric names and does not pass with nothing to gate;
// the library's validateFile runs what validatePaths and the CLI run (benchmark option, datastore checks).
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { projectRoot } from '../helpers/shared.js';
import { validateFile, validatePaths } from '../../src/validate/index.js';
import { checkGateMetricNames } from '../../src/metrics/retrieval/gate.js';
import { parseThresholds } from '../../src/metrics/retrieval/thresholds.js';

const events = join(projectRoot, 'examples/retrieval/loop/events.jsonl');
let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'evalkit-harden-lib-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const thresholds = (doc: unknown): string => {
  const path = join(dir, `t${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify(doc));
  return path;
};

test('gate: an unknown metric name is an error naming it', async () => {
  const r = await cli([
    'retrieval',
    'gate',
    '--events',
    events,
    '--thresholds',
    thresholds({ thresholds: { p95ms: 800 } }),
  ]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /retrieval\.unknown-metric: .*unknown metric "p95ms" \(did you mean "p95_ms"\?\)/);
  assert.throws(
    () => checkGateMetricNames(parseThresholds({ thresholds: { latency: 1, p_at_5: 0.5, ndcg_10: 0.4 } })),
    /unknown metric "latency";/,
  );
});

test('gate: nothing to gate is not a pass', async () => {
  for (const doc of [{ thresholds: {} }, { thresholds: { p_at_5: 0.2 } }]) {
    const r = await cli(['retrieval', 'gate', '--events', events, '--thresholds', thresholds(doc)]);
    assert.equal(r.code, 1, JSON.stringify(doc));
    assert.match(r.stdout, /nothing to gate: .*not a pass/);
    assert.match(r.stdout, /gate failed: 0 results/);
  }
  // A real gate still passes or fails on its figures.
  const ok = await cli([
    'retrieval',
    'gate',
    '--events',
    events,
    '--thresholds',
    thresholds({ thresholds: { errors: 1e9 } }),
    '-f',
    'json',
  ]);
  assert.equal(JSON.parse(ok.stdout).pass, true, ok.stderr);
});

test('validateFile runs the benchmark check and the datastore checks, as validatePaths does', async () => {
  const eta = join(dir, 'eta.json');
  const doc = JSON.parse(readFileSync(join(projectRoot, 'test/fixtures/metrics/eta-run1.json'), 'utf8'));
  writeFileSync(eta, JSON.stringify(doc));
  const options = { benchmark: join(projectRoot, 'examples/run/birds.benchmark.json') };
  const viaFile = await validateFile(eta, options);
  assert.ok(
    viaFile.diagnostics.some((d) => d.code === 'infereval.benchmark-id'),
    'the benchmark option is used',
  );
  assert.deepEqual(viaFile, (await validatePaths([eta], options)).files[0]);

  // A datastore aggregate whose samples file lost rows: checksum and total_rows are checked by both.
  const src = join(projectRoot, 'examples/datastore/current/data/demo-bench/acme/tiny-model');
  const folder = join(dir, 'data/demo-bench/acme/tiny-model');
  mkdirSync(folder, { recursive: true });
  const name = '3f6c1b2a-9d4e-4f7a-8b1c-2d3e4f5a6b7c';
  copyFileSync(join(src, `${name}.json`), join(folder, `${name}.json`));
  const firstRow = readFileSync(join(src, `${name}_samples.jsonl`), 'utf8').split('\n')[0];
  writeFileSync(join(folder, `${name}_samples.jsonl`), `${firstRow}\n`);
  const aggregate = join(folder, `${name}.json`);
  const result = await validateFile(aggregate);
  const codes = result.diagnostics.map((d) => d.code).sort();
  assert.deepEqual(codes, ['eee.checksum', 'eee.total-rows']);
  assert.equal(result.errors, 2);
  const fromCli = await cli(['validate', aggregate, '-f', 'json']);
  const cliCodes = JSON.parse(fromCli.stdout)
    .files[0].diagnostics.map((d: { code: string }) => d.code)
    .sort();
  assert.deepEqual(cliCodes, codes, 'the library and the CLI agree');
});
