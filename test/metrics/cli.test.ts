// The metrics-family commands through the CLI (in process), on the project's fixtures, the quick-start examples
// and the reference's real η.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli as runInProcess } from '../helpers/cli.js';
import { projectRoot, reference, skipWithoutReference } from '../helpers/shared.js';

const F = 'test/fixtures/metrics';
const REAL = 'infereval/evaluations/stop_sign_haiku_eta0.json';

// Tests that wait on file reads overlap when run side by side.
describe('metrics-family commands', { concurrency: 4 }, () => {
  test(
    'metrics --format json keeps the reference key names; undefined is null with a reason',
    { skip: skipWithoutReference(REAL) },
    async () => {
      const r = await runInProcess(['metrics', reference(REAL)!, '--format', 'json']);
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout) as Record<string, unknown>;
      for (const key of [
        'n',
        'coverage',
        'coverage_per_analyst',
        'cohens_kappa_consensus',
        'fleiss_kappa',
        'inter_analyst_fleiss',
        'verdict_distributions',
        'aggregate_dispersion',
        'cohens_kappa[consensus]',
      ]) {
        assert.ok(key in out, `missing ${key}`);
      }
      assert.equal(out.cohens_kappa_consensus, 0.2);
      assert.equal(out.inter_analyst_fleiss, null);
      assert.match(
        (out.undefined_reasons as Record<string, string>).inter_analyst_fleiss!,
        /fewer than 2 raters/,
      );
      assert.deepEqual(out.instrument_failures, { n_items: 0, item_ids: [], excluded: false });
    },
  );

  test('metrics text: undefined values say why; instrument failures and the CI are shown', async () => {
    const r = await runInProcess([
      'metrics',
      `${F}/eta-run1.json`,
      '-b',
      `${F}/benchmark.json`,
      '--by-tag',
      'containment',
      '--ci',
      '--ci-seed',
      '42',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /κ_C\(η, consensus\) +: \+0\.5792 \[\+0\.2630, \+0\.8336\]/);
    assert.match(r.stdout, /instrument failures +: 2 item\(s\) whose every sample failed: item-05, item-17/);
    assert.match(r.stdout, /By tag: containment/);
    assert.match(r.stdout, /undefined \(chance agreement p_e = 1/);
    assert.match(r.stdout, /CI undefined \(subsampling needs at least 10 items \(n = 1\)\)/);
    assert.match(r.stdout, /under-powered: n < 10/);
  });

  test('metrics --exclude-failed and markdown', async () => {
    const r = await runInProcess([
      'metrics',
      `${F}/eta-run1.json`,
      '--exclude-failed',
      '--format',
      'markdown',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\| n \(items\) \| 41 \|/);
    assert.match(r.stdout, /\| instrument failures \| 2 item\(s\) .*\(excluded\) \|/);
  });

  test('metrics usage errors exit 2 with a clear message', async () => {
    const bad = await runInProcess(['metrics', `${F}/eta-run1.json`, '--reference', 'analyst:zed']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /needs the benchmark to resolve the analyst id \(pass --benchmark FILE\)/);
    assert.doesNotMatch(bad.stderr, /at .*\.([cm]?js|ts):\d+/);
  });

  test('retest: stable comparison and mismatch error', async () => {
    const ok = await runInProcess(['retest', `${F}/eta-run1.json`, `${F}/eta-run2.json`, '--format', 'json']);
    assert.equal(ok.code, 0, ok.stderr);
    const out = JSON.parse(ok.stdout) as {
      n_disagreements: number;
      stability: string;
      stability_verdict: string;
    };
    assert.equal(out.n_disagreements, 5);
    assert.equal(out.stability, 'moderately stable');
    const bad = await runInProcess(['retest', `${F}/eta-run1.json`, `${F}/eta-tie-good.json`]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /retest\.mismatch\.endorsement-config.*tie_break: "abstain" vs "good"/);
  });

  test('audit exits 1 on silent failures and shows the recomputed figures', async () => {
    const r = await runInProcess(['audit', `${F}/eta-run1.json`]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /silent failures +: 8 sample\(s\) in 3 item\(s\)/);
    assert.match(r.stdout, /coverage \(recorded → audited\) : 0\.9070 → 0\.9756 \(n 43 → 41\)/);
  });

  test('monotonicity exits 1 on a violated ladder; structure reports its checks', async () => {
    const m = await runInProcess(['monotonicity', `${F}/eta-run1.json`, `${F}/benchmark.json`]);
    assert.equal(m.code, 1);
    assert.match(m.stdout, /ladder-broken-0 → ladder-broken-2/);
    const s = await runInProcess([
      'structure',
      `${F}/eta-run1.json`,
      '--benchmark',
      `${F}/benchmark.json`,
      '--strict',
      '--format',
      'json',
    ]);
    assert.equal(s.code, 1);
    const out = JSON.parse(s.stdout) as {
      rsr_role_consistency: { status: string };
      containment: { status: string };
    };
    assert.equal(out.rsr_role_consistency.status, 'fail');
    assert.equal(out.containment.status, 'pass');
  });

  test('the quick-start examples work as the README shows', async () => {
    const ex = 'examples/infereval';
    const m = await runInProcess([
      'metrics',
      `${ex}/evaluation.json`,
      '-b',
      `${ex}/benchmark.json`,
      '--format',
      'json',
    ]);
    assert.equal(m.code, 0, m.stderr);
    const out = JSON.parse(m.stdout) as { n: number; panels?: { panels: string[] } };
    const items = JSON.parse(readFileSync(join(projectRoot, ex, 'evaluation.json'), 'utf8'))
      .items as unknown[];
    assert.equal(out.n, items.length, 'every item of the example evaluation');
    assert.equal(out.n, 16);
    assert.deepEqual(out.panels?.panels, ['practice', 'theory'], "the benchmark's two panels, sorted");
    const mono = await runInProcess(['monotonicity', `${ex}/evaluation.json`, `${ex}/benchmark.json`]);
    assert.equal(mono.code, 0, mono.stderr);
    assert.match(mono.stdout, /ladder\(s\):/);
    assert.match(mono.stdout, /^wind \(wind, non_increasing\): GGBB {2}monotone$/m);
  });
});
