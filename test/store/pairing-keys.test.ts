// Issue 30, defect 1: pairing keys that collide. A promptfoo run whose providers get an empty rendered prompt (HTTP
// providers build the request from the test) stored one sample_hash per assertion slot, so the leaderboard's n was
// the number of assertions per test and compare paired 8 "samples" out of 312. A test's identity is now its input
// (index, vars, fields), so n counts assertions, compare pairs every assertion and clusters them by test (the unit
// the results declare); where hashes still collide inside a result the store pairs it by sample_id, with a warning
// at convert time, never treating the duplicates as epochs. Real file from ../shared/reference/peers-wild-2 plus a
// generated file of the same shape.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { reference, skipWithoutReference } from '../helpers/shared.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-pairing-'));
after(() => rmSync(temp, { recursive: true, force: true }));

const VOYAGE = 'peers-wild-2/promptfoo/suhaasnv-voyageai-safety/promptfoo-results.json';

async function ingest(name: string, path: string): Promise<{ db: string; stderr: string; report: any }> {
  const db = join(temp, `${name}.duckdb`);
  const r = await cli(['ingest', '--db', db, '--format', 'json', '--no-progress', path]);
  assert.equal(r.code, 0, r.stderr);
  return { db, stderr: r.stderr, report: JSON.parse(r.stdout) };
}

async function board(db: string, metric: string): Promise<any[]> {
  const r = await cli(['leaderboard', '--db', db, '--metric', metric, '--format', 'json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout).leaderboards[0].rows;
}

async function compare(db: string, a: string, b: string, metric: string): Promise<any> {
  const r = await cli(['compare', '--db', db, a, b, '--metric', metric, '--format', 'json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test(
  'promptfoo HTTP providers with an empty prompt (real): n 312 assertions, compare paired on 312, clustered by test',
  { skip: skipWithoutReference(VOYAGE) },
  async () => {
    const { db } = await ingest('voyage', reference(VOYAGE)!);
    const rows = await board(db, 'assertion pass rate');
    assert.deepEqual(
      rows.map((r) => r.n),
      [312, 312],
    );
    const report = await compare(db, 'unknown/Planner API', 'unknown/Research API', 'assertion pass rate');
    const [c] = report.comparisons;
    assert.equal(c.n_paired, 312);
    assert.equal(report.cluster_by, 'test_idx');
    assert.equal(report.cluster_by_declared, true);
    // Every assertion passes for both: no variance between the 39 tests, said so rather than a number.
    assert.equal(c.clustered, null);
    assert.match(c.clustered_reason, /no variance between clusters/);
  },
);

/** A promptfoo export of `tests` tests × the assertions, two HTTP providers, the rendered prompt empty. */
function httpRun(
  tests: { vars: Record<string, unknown>; passA: boolean[]; passB: boolean[] }[],
  values: string[],
) {
  const results = [];
  for (const [p, provider] of ['http://127.0.0.1:1/a', 'http://127.0.0.1:1/b'].entries())
    for (const [t, test] of tests.entries()) {
      const pass = p === 0 ? test.passA : test.passB;
      const componentResults = values.map((value, k) => ({
        pass: pass[k],
        score: pass[k] ? 1 : 0,
        assertion: { type: 'contains', value },
      }));
      results.push({
        provider: { id: provider, label: p === 0 ? 'Alpha API' : 'Beta API' },
        prompt: { raw: '', label: '{{q}}' },
        promptId: 'p',
        promptIdx: 0,
        testIdx: t,
        testCase: { vars: test.vars, description: `case ${t}` },
        vars: test.vars,
        response: { output: 'ok' },
        success: pass.every(Boolean),
        score: pass.filter(Boolean).length / pass.length,
        namedScores: {},
        gradingResult: { pass: pass.every(Boolean), score: 1, componentResults },
      });
    }
  return {
    evalId: 'eval-http',
    results: { version: 3, timestamp: '2025-01-02T03:04:05Z', results },
    config: {},
  };
}

test('promptfoo HTTP providers with an empty prompt (generated): one sample per test × assertion, tests as clusters', async () => {
  // Two tests share their vars: the test's index still tells them apart.
  const tests = [
    { vars: { city: 'Oslo' }, passA: [true, true], passB: [false, false] },
    { vars: { city: 'Oslo' }, passA: [true, false], passB: [true, false] },
    { vars: { city: 'Rome' }, passA: [true, true], passB: [false, true] },
    { vars: { city: 'Lima' }, passA: [false, true], passB: [false, false] },
  ];
  const path = join(temp, 'http.json');
  writeFileSync(path, JSON.stringify(httpRun(tests, ['hotel', 'flight'])));
  const { db, stderr } = await ingest('http', path);
  assert.doesNotMatch(stderr, /share their sample_hash/);
  const rows = await board(db, 'assertion pass rate');
  assert.deepEqual(
    rows.map((r) => [r.model_id, r.score, r.n]),
    [
      ['unknown/Alpha API', 6 / 8, 8],
      ['unknown/Beta API', 2 / 8, 8],
    ],
  );
  const report = await compare(db, 'unknown/Alpha API', 'unknown/Beta API', 'assertion pass rate');
  const [c] = report.comparisons;
  assert.equal(c.n_paired, 8);
  assert.equal(report.cluster_by, 'test_idx');
  assert.equal(c.clustered.clusters, 4);
});

test('hashes that still collide inside a result: paired by sample_id, a warning, never epochs', async () => {
  // The same assertion twice in every test: the two rows of a test have the same input and reference.
  const tests = [
    { vars: { city: 'Oslo' }, passA: [true, false], passB: [false, false] },
    { vars: { city: 'Rome' }, passA: [true, true], passB: [true, false] },
    { vars: { city: 'Lima' }, passA: [false, false], passB: [true, true] },
  ];
  const path = join(temp, 'collide.json');
  writeFileSync(path, JSON.stringify(httpRun(tests, ['hotel', 'hotel'])));
  const converted = await cli(['convert', '-o', join(temp, 'collide-out'), '--format', 'json', path]);
  assert.equal(converted.code, 0, converted.stderr);
  const notes = JSON.parse(converted.stdout).records.flatMap((r: any) => r.notes);
  assert.ok(
    notes.some((n: string) => /^warning: 3 row\(s\) of assertion_pass_rate share their sample_hash/.test(n)),
    notes.join('\n'),
  );
  const { db } = await ingest('collide', path);
  const rows = await board(db, 'assertion pass rate');
  // 6 assertions each, not 3 "samples" with two epochs.
  assert.deepEqual(
    rows.map((r) => [r.model_id, r.score, r.n]),
    [
      ['unknown/Alpha API', 3 / 6, 6],
      ['unknown/Beta API', 3 / 6, 6],
    ],
  );
  const [c] = (await compare(db, 'unknown/Alpha API', 'unknown/Beta API', 'assertion pass rate')).comparisons;
  assert.equal(c.n_paired, 6);
});
