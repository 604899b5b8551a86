// The infereval metrics on the project's own fixtures (test/fixtures/metrics, written by generate.py there).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DataError, UsageError } from '../../src/errors.js';
import { loadInfereval } from '../../src/validate/infereval.js';
import type { Evaluation } from '../../src/formats/infereval/types.js';
import {
  audit,
  evaluationMetrics,
  monotonicity,
  retest,
  structure,
  type ItemLike,
} from '../../src/metrics/infereval/index.js';
import { projectRoot } from '../helpers/shared.js';

const fixture = (name: string): string => join(projectRoot, 'test/fixtures/metrics', name);
const run1 = (): Promise<Evaluation> => loadInfereval(fixture('eta-run1.json'), 'evaluation');
const bench = () => loadInfereval(fixture('benchmark.json'), 'benchmark');

// Expected CI values come from an independent Python 3.11 implementation of the spec's procedure (consensus κ_C and
// Fleiss κ_F; random.Random(seed).sample(range(43), 14), 1000 draws) run on eta-run1.json:
// scripts/python/infereval_ci_reference.py prints every number of this test and the next.
test('subsampling CI is seed-compatible with CPython random.Random(seed).sample', async () => {
  const report = evaluationMetrics(await run1(), { ci: { seed: 42 } });
  const kc = report['cohens_kappa[consensus]_ci'] as {
    lo: number;
    hi: number;
    defined: number;
    subsample_size: number;
  };
  assert.equal(kc.subsample_size, 14);
  assert.equal(kc.defined, 998);
  assert.equal(report.cohens_kappa_consensus, 0.5791855203619908);
  assert.equal(kc.lo, 0.26304796538905273);
  assert.equal(kc.hi, 0.8336453675465084);
  assert.equal(report.fleiss_kappa, 0.4687791239515379);
  assert.equal(report.fleiss_kappa_ci!.lo, 0.30619506863160717);
  assert.equal(report.fleiss_kappa_ci!.hi, 0.6185714552782785);
  const other = evaluationMetrics(await run1(), { ci: { seed: 7, iterations: 500 } });
  assert.equal((other['cohens_kappa[consensus]_ci'] as { lo: number }).lo, 0.27048273317838456);
  assert.equal(other.fleiss_kappa_ci!.hi, 0.6182770724892814);
});

// n = 2000 takes CPython's set-based branch of random.sample (n > 21 + 4^⌈log4(3b)⌉ with b = 205). Expected values
// from the same rows built in Python 3.11 (see the formula below) with random.Random(2024), 200 draws.
test('subsampling CI matches CPython on the set-based sample branch too', () => {
  const V = ['good', 'bad', 'abstain'] as const;
  const items: ItemLike[] = Array.from({ length: 2000 }, (_, i) => {
    const analysts = [
      V[(i * 7) % 3]!,
      V[(i * 11 + 1) % 3]!,
      i % 5 ? 'good' : 'bad',
    ] as ItemLike['analyst_verdicts'];
    return {
      id: `r${i}`,
      analyst_verdicts: analysts,
      model_verdict: i % 4 ? analysts[0]! : V[(i * 13) % 3]!,
    };
  });
  const r = evaluationMetrics({ items }, { ci: { seed: 2024, iterations: 200 } });
  const ci = r['cohens_kappa[consensus]_ci'] as {
    lo: number;
    hi: number;
    subsample_size: number;
    defined: number;
  };
  assert.equal(ci.subsample_size, 205);
  assert.equal(ci.defined, 200);
  assert.equal(r.cohens_kappa_consensus, -0.0014992503748125774);
  assert.equal(ci.lo, -0.04003899719438612);
  assert.equal(ci.hi, 0.040630234285729);
});

test('an empty evaluation gives zeros and nulls, not errors', () => {
  const r = evaluationMetrics({ items: [] }, { ci: { seed: 1 } });
  assert.equal(r.n, 0);
  assert.equal(r.coverage, 0);
  assert.deepEqual(r.coverage_per_analyst, []);
  assert.equal(r.cohens_kappa_consensus, null);
  assert.equal(r.fleiss_kappa, null);
  assert.equal(r.aggregate_dispersion.mean_margin, 0);
});

test('CI on fewer than 10 items is null with the reason', () => {
  const items: ItemLike[] = Array.from({ length: 6 }, (_, i) => ({
    id: `i${i}`,
    analyst_verdicts: [i % 2 ? 'good' : 'bad'],
    model_verdict: i % 3 ? 'good' : 'bad',
  }));
  const r = evaluationMetrics({ items }, { ci: { seed: 1 } });
  assert.equal(r['cohens_kappa[consensus]_ci'], null);
  assert.match(r.undefined_reasons['cohens_kappa[consensus]_ci']!, /at least 10 items \(n = 6\)/);
});

test('instrument failures are counted in every section and --exclude-failed drops them', async () => {
  const eta = await run1();
  const kept = evaluationMetrics(eta, { byTag: ['regular'] });
  assert.deepEqual(kept.instrument_failures, {
    n_items: 2,
    item_ids: ['item-05', 'item-17'],
    excluded: false,
  });
  assert.equal(kept.by_tag!.regular!.instrument_failures.n_items, 2);
  assert.equal(kept.n, 43);
  const dropped = evaluationMetrics(eta, { excludeFailed: true });
  assert.equal(dropped.n, 41);
  assert.equal(dropped.instrument_failures.excluded, true);
  assert.equal(dropped.instrument_failures.n_items, 2);
  // The failed items were abstentions in the recorded η: leaving them out raises coverage to 39/41.
  assert.equal(kept.coverage, 39 / 43);
  assert.equal(dropped.coverage, 39 / 41);
});

test('panels: per-panel κ_F*, primary panel and cross-panel κ; analyst references by id and index', async () => {
  const eta = await run1();
  const b = await bench();
  const r = evaluationMetrics(eta, { benchmark: b, reference: 'analyst:lay-1' });
  assert.deepEqual(r.panels!.panels, ['clinicians', 'lay']);
  assert.equal(r.panels!.primary_panel, 'clinicians');
  assert.equal(r.panels!.check_panel, 'lay');
  assert.ok(typeof r.panels!.cross_panel_kappa === 'number');
  assert.equal(r.reference.analyst_index, 2);
  assert.equal(
    r['cohens_kappa[analyst[2]]'],
    evaluationMetrics(eta, { reference: 'analyst:2' }).cohens_kappa,
  );
  assert.deepEqual(Object.keys(r.coverage_per_analyst_named!), ['clin-1', 'clin-2', 'lay-1', 'lay-2']);
  assert.throws(() => evaluationMetrics(eta, { reference: 'analyst:lay-1' }), UsageError);
  assert.throws(() => evaluationMetrics(eta, { reference: 'analyst:9' }), UsageError);
  assert.throws(() => evaluationMetrics(eta, { reference: 'majority' }), UsageError);
  // An analyst index stays valid in a decomposition cell with no items.
  const empty = evaluationMetrics(eta, { reference: 'analyst:3', byTag: ['no-such-tag'] });
  assert.equal(empty.by_tag!['no-such-tag']!.n, 0);
  assert.equal(empty.by_tag!['no-such-tag']!.cohens_kappa, null);
  // A benchmark with another analyst count is refused.
  assert.throws(
    () => evaluationMetrics(eta, { benchmark: { ...b, analysts: b.analysts.slice(0, 2) } }),
    (e: unknown) => e instanceof DataError && e.code === 'metrics.benchmark-mismatch',
  );
});

test('margin weighting: thin items count less; a 3/0 vs 2/1 split changes κ_C', () => {
  const mk = (
    id: string,
    analyst: 'good' | 'bad',
    model: 'good' | 'bad',
    split: [number, number],
  ): ItemLike => ({
    id,
    analyst_verdicts: [analyst],
    model_verdict: model,
    majority_vote: { good: split[0], bad: split[1], abstain: 0, verdict: model, tie_broken: false },
  });
  const items = [
    mk('a', 'good', 'good', [3, 0]),
    mk('b', 'bad', 'bad', [0, 3]),
    mk('c', 'good', 'bad', [1, 2]), // thin disagreement, weight 1/3
    mk('d', 'bad', 'bad', [0, 3]),
  ];
  const plain = evaluationMetrics({ items });
  const weighted = evaluationMetrics({ items }, { weightByMargin: true });
  // Unweighted: p_o = 3/4, p_e = (1/4)(2/4) + (3/4)(2/4) = 1/2 → κ = 0.5.
  assert.equal(plain.cohens_kappa, 0.5);
  // Weighted (w = 1, 1, 1/3, 1; W = 10/3): p_o = 0.9, p_M(good) = 0.3, p_r(good) = 0.4 → p_e = 0.12 + 0.42 = 0.54.
  assert.ok(Math.abs(weighted.cohens_kappa! - (0.9 - 0.54) / (1 - 0.54)) < 1e-12);
  assert.equal(weighted.reference.label, 'consensus,margin-weighted');
  assert.equal(weighted.cohens_kappa_consensus, 0.5);
});

test('by RSR target needs the benchmark and selects the X ⊢ A group', async () => {
  const eta = await run1();
  assert.throws(() => evaluationMetrics(eta, { byRsrTarget: [{ X: ['p0'], A: ['c0'] }] }), UsageError);
  const r = evaluationMetrics(eta, { benchmark: await bench(), byRsrTarget: [{ X: ['p0'], A: ['c0'] }] });
  const cell = r.by_rsr_target![0]!;
  assert.equal(cell.n, 4);
  assert.equal(cell.under_powered, true);
  assert.deepEqual(cell.rsr_target, { X: ['p0'], A: ['c0'] });
});

test('retest: κ, agreement and flip rates on two runs; mismatches are DataErrors', async () => {
  const a = await run1();
  const b = await loadInfereval(fixture('eta-run2.json'), 'evaluation');
  const r = retest(a, b);
  assert.equal(r.n_items, 43);
  assert.equal(r.n_disagreements, 5);
  assert.equal(r.flip_rate, 5 / 43);
  assert.ok(r.test_retest_kappa! > 0.6 && r.test_retest_kappa! < 0.8, String(r.test_retest_kappa));
  assert.equal(r.stability, 'moderately stable');
  assert.deepEqual(
    r.flipped_items.map((f) => f.item_id),
    ['item-01', 'item-08', 'item-13', 'item-22', 'item-27'],
  );
  assert.deepEqual(r.instrument_failures, {
    run_a: ['item-05', 'item-17'],
    run_b: ['item-05', 'item-17'],
    excluded: false,
  });
  assert.equal(retest(a, b, { excludeFailed: true }).n_items, 41);
  const tie = await loadInfereval(fixture('eta-tie-good.json'), 'evaluation');
  assert.throws(
    () => retest(a, tie),
    (e: unknown) => {
      assert.ok(e instanceof DataError);
      assert.equal(e.code, 'retest.mismatch.endorsement-config');
      assert.match(e.message, /tie_break: "abstain" vs "good"/);
      return true;
    },
  );
  assert.throws(() => retest(a, { ...b, benchmark_id: 'other' }), /different benchmarks/);
  assert.throws(
    () => retest({ ...a, benchmark_hash: 'sha256:aa' }, { ...b, benchmark_hash: 'sha256:bb' }),
    /benchmark changed/,
  );
  assert.throws(() => retest(a, { ...b, paraphrase_variant: 1 }), /paraphrase variants/);
});

test('audit: silent failures, instrument failures left out, verdict re-voted', async () => {
  const r = audit(await run1());
  // item-05 and item-17: 3 provider errors each; item-11: two empty zero-time abstains.
  assert.equal(r.n_silent_failures, 8);
  assert.equal(r.n_items_affected, 3);
  assert.deepEqual(r.instrument_failure_items, ['item-05', 'item-17']);
  assert.deepEqual(r.verdict_changes, [{ item_id: 'item-11', recorded: 'abstain', recomputed: 'good' }]);
  assert.equal(r.recomputed.n, 41);
  assert.equal(r.recomputed.coverage, 40 / 41); // ladder-broken-1 is a genuine abstain
  assert.ok(r.silent_failures.some((f) => f.reasons.includes('abstain with an empty response')));
});

test('monotonicity: one monotone ladder, one violated with its inversion', async () => {
  const r = monotonicity(await run1(), await bench());
  assert.equal(r.n_ladders, 2);
  const broken = r.ladders.find((l) => l.ladder === 'ladder-broken')!;
  assert.equal(broken.sequence, 'G·BG');
  assert.equal(broken.status, 'violated');
  assert.deepEqual(broken.violations, [['ladder-broken-0', 'ladder-broken-2']]);
  assert.equal(broken.n_gaps, 1);
  assert.equal(r.ladders.find((l) => l.ladder === 'ladder-up')!.status, 'monotone');
});

test('instrument failures in ladders and RSR groups are marked, never read as abstentions', async () => {
  const eta = await run1();
  const failedSamples = [
    { sample_index: 0, raw_response: '', parsed_verdict: 'abstain' as const, provider_error: 'HTTP 500' },
  ];
  const items = eta.items.map((it) =>
    it.id === 'ladder-up-1' || it.id === 'rsr-defeater'
      ? { ...it, model_verdict: 'abstain' as const, majority_vote: null, samples: failedSamples }
      : it,
  );
  const m = monotonicity({ ...eta, items }, await bench());
  const up = m.ladders.find((l) => l.ladder === 'ladder-up')!;
  assert.equal(up.sequence, 'B×GG');
  assert.equal(up.n_instrument_failures, 1);
  assert.deepEqual(m.instrument_failures, ['ladder-up-1']);
  const s = structure({ ...eta, items }, await bench());
  const defeater = s.rsr_role_consistency.findings.find((f) => f.item_id === 'rsr-defeater')!;
  assert.equal(defeater.outcome, 'undetermined');
  assert.match(defeater.explanation, /instrument failure/);
  assert.ok(s.instrument_failures.includes('rsr-defeater'));
});

test('structure: containment, RSR roles, base case and thin margins', async () => {
  const r = structure(await run1(), await bench());
  assert.equal(r.containment.status, 'pass');
  assert.equal(r.containment.n_items, 1);
  const roles = Object.fromEntries(r.rsr_role_consistency.findings.map((f) => [f.item_id, f.outcome]));
  assert.deepEqual(roles, {
    'rsr-irrelevant': 'inconsistent',
    'rsr-defeater': 'consistent',
    'rsr-supporter': 'consistent',
  });
  assert.equal(r.rsr_role_consistency.status, 'fail');
  assert.equal(r.base_case_stability.n_base_cases, 1);
  assert.ok(r.thin_margin_agreement.n_agreements > 0);
  assert.ok(r.thin_margin_agreement.thin_items.every((t) => t.margin < 0.4));
});
