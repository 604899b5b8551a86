// A gate never passes on nothing (issue 39, items 1 and 2): `compare BASE CAND --fail-if-worse` fails, with its own
// reason, when a benchmark and metric of the baseline was not tested — no possible test (`untested`), fewer paired
// samples than --min-pairs (`too few pairs`), or none in the candidate (`missing`) — unless --allow-untested, which
// the output then says. A margin the gate could never exceed (not below a bounded metric's range) is a usage error.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../src/store/db.js';
import { compareModels } from '../../src/store/compare.js';
import { freshStore, insertRecord, type FixtureResult, type FixtureSample } from './stats-fixture.js';
import { cli } from '../helpers/cli.js';

const rows = (name: string, scores: (number | null)[], prefix = 'q'): FixtureSample[] =>
  scores.map((score, i) => ({ evaluation_name: name, sample_id: `${prefix}${i}`, score }));
const ones = (n: number) => Array.from({ length: n }, () => 1);
const zeros = (n: number) => Array.from({ length: n }, () => 0);
const BOUNDED = { min_score: 0, max_score: 1 };
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
// The same 0/1 answers for baseline and candidate (12 items, so the default --min-pairs 10 is met).
const SAME = [1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0];

async function model(store: Store, key: string, results: FixtureResult[], samples: FixtureSample[]) {
  await insertRecord(store, { record_key: key, model_id: `org/${key}`, results, samples });
}

describe('compare --fail-if-worse never passes on nothing', () => {
  let store: Store;
  let path: string;
  let done: () => void;
  before(async () => {
    ({ store, path, done } = await freshStore());
    // No shared sample: baseline 30/30 right, candidate 0/30 on other sample ids.
    await model(
      store,
      'disjoint-base',
      [{ evaluation_name: 'qa', score: 1, ...BOUNDED }],
      rows('qa', ones(30), 'a'),
    );
    await model(
      store,
      'disjoint-cand',
      [{ evaluation_name: 'qa', score: 0, ...BOUNDED }],
      rows('qa', zeros(30), 'b'),
    );
    // Variant: 5 shared samples (the rest on other ids), identical answers.
    await model(
      store,
      'few-base',
      [{ evaluation_name: 'qa', score: 1, ...BOUNDED }],
      rows('qa', ones(20), 'a'),
    );
    await model(
      store,
      'few-cand',
      [{ evaluation_name: 'qa', score: 1, ...BOUNDED }],
      [...rows('qa', ones(5), 'a'), ...rows('qa', ones(15), 'z')],
    );
    // Every candidate row failed (no score).
    await model(
      store,
      'failed-cand',
      [{ evaluation_name: 'qa', score: 0, ...BOUNDED }],
      rows('qa', Array(30).fill(null), 'a'),
    );
    // Records without instance rows: with standard errors (a z test runs, but nothing pairs) and without.
    await model(
      store,
      'bare-base',
      [{ evaluation_name: 'qa', score: 0.8, standard_error: 0.02, ...BOUNDED }],
      [],
    );
    await model(
      store,
      'bare-cand',
      [{ evaluation_name: 'qa', score: 0.8, standard_error: 0.02, ...BOUNDED }],
      [],
    );
    await model(store, 'bare-nose', [{ evaluation_name: 'qa', score: 0.8, ...BOUNDED }], []);
    // A single paired sample, 1.0 against 0.0.
    await model(store, 'one-base', [{ evaluation_name: 'qa', score: 1, ...BOUNDED }], rows('qa', [1]));
    await model(store, 'one-cand', [{ evaluation_name: 'qa', score: 0, ...BOUNDED }], rows('qa', [0]));
    // A benchmark the baseline has and the candidate lacks (the shared one is equal on 12 items).
    await model(
      store,
      'two-base',
      [
        { evaluation_name: 'qa', score: mean(SAME), ...BOUNDED },
        { evaluation_name: 'math', score: 0.5, ...BOUNDED },
      ],
      [...rows('qa', SAME), ...rows('math', [1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0])],
    );
    await model(
      store,
      'two-cand',
      [{ evaluation_name: 'qa', score: mean(SAME), ...BOUNDED }],
      rows('qa', SAME),
    );
    // Variant: the candidate has the benchmark but not the metric.
    await model(
      store,
      'metric-cand',
      [
        { evaluation_name: 'qa', score: mean(SAME), ...BOUNDED },
        { evaluation_name: 'math', metric_name: 'f1', score: 0.5, ...BOUNDED },
      ],
      [...rows('qa', SAME)],
    );
    // Unbounded and 0–100 metrics for the margin check.
    const loss = [2.5, 3.1, 2.2, 2.9, 3.3, 2.4, 2.8, 3.0, 2.6, 2.7, 3.2, 2.1];
    await model(
      store,
      'scale-base',
      [
        { evaluation_name: 'loss', score: mean(loss), lower_is_better: true },
        { evaluation_name: 'pct', score: 50, min_score: 0, max_score: 100 },
      ],
      [
        ...rows('loss', loss),
        ...rows(
          'pct',
          SAME.map((x) => 100 * x),
        ),
      ],
    );
    await model(
      store,
      'scale-cand',
      [
        { evaluation_name: 'loss', score: mean(loss), lower_is_better: true },
        { evaluation_name: 'pct', score: 50, min_score: 0, max_score: 100 },
      ],
      [
        ...rows('loss', loss),
        ...rows(
          'pct',
          SAME.map((x) => 100 * x),
        ),
      ],
    );
  });
  after(() => done());

  const gate = (a: string, b: string, extra: string[] = []) =>
    cli(['compare', `org/${a}`, `org/${b}`, '--fail-if-worse', '--db', path, ...extra]);

  test('two runs that share no sample: exit 1, untested, and --allow-untested passes saying so', async () => {
    const r = await gate('disjoint-base', 'disjoint-cand');
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /gate failed: not everything the baseline has was tested — untested: qa · accuracy/,
    );
    assert.match(r.stdout, /share no sample/);
    const allowed = await gate('disjoint-base', 'disjoint-cand', ['--allow-untested']);
    assert.equal(allowed.code, 0, allowed.stdout);
    assert.match(
      allowed.stdout,
      /gate passed: .* on any of 0 tested comparison\(s\) .*--allow-untested: not counted — untested: qa · accuracy/,
    );
  });

  test('a few shared samples (5 < --min-pairs 10): too few pairs; --min-pairs 5 passes', async () => {
    const r = await gate('few-base', 'few-cand');
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, /too few pairs: qa · accuracy \(fewer than 10 paired samples\)/);
    const lowered = await gate('few-base', 'few-cand', ['--min-pairs', '5']);
    assert.equal(lowered.code, 0, lowered.stdout);
    const json = JSON.parse((await gate('few-base', 'few-cand', ['--format', 'json'])).stdout);
    assert.deepEqual(json.gate.reasons, ['too few pairs']);
    assert.equal(json.gate.min_pairs, 10);
    assert.equal(json.comparisons[0].gate.reason, 'too few pairs');
    assert.equal(json.comparisons[0].gate.n_paired, 5);
    assert.equal(json.comparisons[0].gate.verdict, 'untested');
  });

  test('every candidate row failed: exit 1', async () => {
    const r = await gate('disjoint-base', 'failed-cand');
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, /gate failed: not everything the baseline has was tested/);
  });

  test('records without instance rows: too few pairs (a z test on headlines is not item evidence), untested without SEs', async () => {
    const r = await gate('bare-base', 'bare-cand');
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, /too few pairs: qa · accuracy/);
    const nose = await gate('bare-base', 'bare-nose', ['--format', 'json']);
    assert.equal(nose.code, 1);
    const j = JSON.parse(nose.stdout);
    assert.deepEqual(j.gate.reasons, ['untested']);
    assert.equal(j.comparisons[0].gate.reason, 'untested');
  });

  test('a single paired sample (1.0 vs 0.0): exit 1; the text states one thing about the standard error', async () => {
    const r = await gate('one-base', 'one-cand');
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, /gate failed: not everything the baseline has was tested/);
    assert.match(r.stdout, /SE n\/a/);
    assert.doesNotMatch(r.stdout, /SE 0\.0000/);
    assert.equal(r.stdout.match(/standard error/g)?.length ?? 0, 1, r.stdout);
    // The disjoint case: both standard errors are 0, printed as such, and nothing calls them unknown.
    const d = await gate('disjoint-base', 'disjoint-cand');
    assert.match(d.stdout, /SE 0\.0000/);
    assert.doesNotMatch(d.stdout, /unknown/);
  });

  test('a benchmark (or metric) the baseline has and the candidate lacks: missing, named', async () => {
    const r = await gate('two-base', 'two-cand');
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, /missing: math · accuracy \(the candidate has no result\)/);
    const j = JSON.parse((await gate('two-base', 'two-cand', ['--format', 'json'])).stdout);
    assert.deepEqual(j.gate.missing, [{ benchmark: 'math', metric: 'accuracy' }]);
    assert.deepEqual(j.gate.reasons, ['missing']);
    assert.equal(j.gate.failed, true);
    const variant = await gate('two-base', 'metric-cand');
    assert.equal(variant.code, 1);
    assert.match(variant.stdout, /missing: math · accuracy/);
    const allowed = await gate('two-base', 'two-cand', ['--allow-untested', '--format', 'markdown']);
    assert.equal(allowed.code, 0);
    assert.match(allowed.stdout, /--allow-untested: not counted — missing: math · accuracy/);
    // Without the gate nothing changes: no missing benchmark is an error for a plain compare.
    assert.equal((await cli(['compare', 'org/two-base', 'org/two-cand', '--db', path])).code, 0);
  });

  test('the library: every reason in the report, a tested comparison is not-worse', async () => {
    const report = await compareModels(store, 'org/two-base', 'org/two-cand', {
      gate: { margin: 0, alpha: 0.05 },
    });
    assert.equal(report.comparisons[0]!.gate!.verdict, 'not-worse');
    assert.equal(report.comparisons[0]!.gate!.reason, null);
    assert.equal(report.gate!.failed, true);
    const allowed = await compareModels(store, 'org/two-base', 'org/two-cand', {
      gate: { margin: 0, alpha: 0.05, allow_untested: true },
    });
    assert.equal(allowed.gate!.failed, false);
    assert.equal(allowed.gate!.allow_untested, true);
  });

  test('--margin not below a bounded metric range is a usage error (exit 2); unbounded metrics take any margin', async () => {
    for (const [margin, re] of [
      ['2', /--margin 2 is not below the range of qa · accuracy \(1\)/],
      ['1', /--margin 1 is not below the range of qa · accuracy \(1\)/],
    ] as const) {
      const r = await gate('two-base', 'two-cand', ['--margin', margin]);
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.match(r.stderr, re);
    }
    // Variant: a 0–100 metric refuses 150 and takes 50; an unbounded loss takes 1000 when filtered to it.
    const pct = await gate('scale-base', 'scale-cand', ['--margin', '150']);
    assert.equal(pct.code, 2);
    assert.match(pct.stderr, /range of pct · accuracy \(100\)/);
    assert.equal((await gate('scale-base', 'scale-cand', ['--margin', '50'])).code, 0);
    assert.equal(
      (await gate('scale-base', 'scale-cand', ['--margin', '1000', '--benchmark', 'loss'])).code,
      0,
    );
  });

  test('--min-pairs and --allow-untested need --fail-if-worse; --min-pairs must be an integer ≥ 2', async () => {
    const r = await cli(['compare', 'org/two-base', 'org/two-cand', '--allow-untested', '--db', path]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /need --fail-if-worse/);
    assert.equal((await gate('two-base', 'two-cand', ['--min-pairs', '1'])).code, 2);
    assert.equal((await gate('two-base', 'two-cand', ['--min-pairs', 'x'])).code, 2);
  });
});
