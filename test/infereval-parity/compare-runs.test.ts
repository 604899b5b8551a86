// `evalkit compare-runs`: the reference's cross-run comparison and validity guards, and retest's refusal of runs
// elicited under different coherence frames. Expected values are worked out by hand from the counts below.
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DataError } from '../../src/errors.js';
import {
  compareRuns,
  totalVariationDistance,
  type RunLike,
} from '../../src/metrics/infereval/compare-runs.js';
import { checkRetestCompatibility } from '../../src/metrics/infereval/retest.js';
import { cli as runInProcess } from '../helpers/cli.js';

type V = 'good' | 'bad' | 'abstain';
const sample = (v: V) => ({ parsed_verdict: v, parse_status: 'ok' as const });
const failed = () => ({
  parsed_verdict: 'abstain' as const,
  parse_status: 'sample_failed' as const,
  provider_error: 'HTTP 503',
});

function item(id: string, verdict: V, counts: [number, number, number], fail = 0) {
  const samples = [
    ...Array.from({ length: counts[0] }, () => sample('good')),
    ...Array.from({ length: counts[1] }, () => sample('bad')),
    ...Array.from({ length: counts[2] }, () => sample('abstain')),
    ...Array.from({ length: fail }, failed),
  ];
  return { id, analyst_verdicts: ['good' as V], model_verdict: verdict, samples };
}

const model = { provider: 'openai', model_id: 'm', params: { temperature: 1, max_tokens: 1024, stop: [] } };
const run = (id: string, items: RunLike['items'], config: Record<string, unknown> = {}): RunLike => ({
  id,
  benchmark_id: 'b',
  model,
  endorsement_config: { n_samples: 4, question_form: 'support', coherence_frame_id: 'thin-v1', ...config },
  items,
});

describe('compareRuns', () => {
  const A = run('A', [
    item('i1', 'good', [4, 0, 0]),
    item('i2', 'bad', [1, 3, 0]),
    item('i3', 'good', [3, 1, 0]),
    item('i4', 'abstain', [1, 1, 2]),
  ]);
  const B = run(
    'B',
    [
      item('i4', 'bad', [0, 4, 0]),
      item('i1', 'good', [3, 0, 1]),
      item('i2', 'bad', [0, 4, 0]),
      item('i3', 'bad', [1, 3, 0]),
    ],
    { question_form: 'coherence' },
  );

  it('per-item TV, its mean, cross-run κ over the both-substantive items', () => {
    const c = compareRuns(A, B);
    // i1: ½(|1−.75| + 0 + |0−.25|) = .25; i2: ½(.25+.25) = .25; i3: ½(.5+.5) = .5; i4: ½(.25+.75+.5) = .75
    assert.deepEqual(
      c.per_item.map((p) => [p.item_id, p.tv]),
      [
        ['i1', 0.25],
        ['i2', 0.25],
        ['i3', 0.5],
        ['i4', 0.75],
      ],
    );
    assert.equal(c.mean_tv_distance, 0.4375);
    // Both substantive: i1 (good, good), i2 (bad, bad), i3 (good, bad). p_o = 2/3; A: 2 good 1 bad; B: 1 good 2 bad;
    // p_e = (2/3)(1/3) + (1/3)(2/3) = 4/9; κ = (2/3 − 4/9)/(5/9) = 0.4.
    assert.equal(c.n_both_substantive, 3);
    assert.ok(Math.abs(c.cross_run_kappa! - 0.4) < 1e-12);
    assert.equal(c.coverage_a, 0.75);
    assert.equal(c.coverage_b, 1);
    assert.deepEqual(c.differences, { 'endorsement_config.question_form': { a: 'support', b: 'coherence' } });
    assert.equal(totalVariationDistance({ good: 1, bad: 0, abstain: 0 }, { good: 0, bad: 0, abstain: 1 }), 1);
  });

  it('below the coverage floor κ is insufficient overlap, not a low-n number', () => {
    const c = compareRuns(A, B, { coverageFloor: 0.8 });
    assert.equal(c.insufficient_overlap, true);
    assert.equal(c.cross_run_kappa, null);
    assert.match(c.undefined_reasons.cross_run_kappa, /insufficient overlap: 3 of 4/);
  });

  it('the gate: offenders at or above the threshold, under-powered items below the sample floor', () => {
    const c = compareRuns(A, B, { guard: 'template', threshold: 0.5, nFloor: 4 });
    assert.deepEqual(c.guard!.offenders, [
      { item_id: 'i4', tv: 0.75 },
      { item_id: 'i3', tv: 0.5 },
    ]);
    assert.deepEqual(c.guard!.under_powered, []);
    assert.equal(c.guard!.passed, false);
    assert.equal(c.guard!.max_tv, 0.75);
    assert.deepEqual(c.warnings, []); // the question form differs, so the template guard has an axis
    const loose = compareRuns(A, B, { guard: 'template', threshold: 0.8, nFloor: 4 });
    assert.equal(loose.guard!.passed, true);
    const floor = compareRuns(A, B, { guard: 'distribution', threshold: 0.8 });
    assert.equal(floor.guard!.passed, false); // 4 samples < the default floor of 30
    assert.equal(floor.guard!.under_powered.length, 4);
    const shuffle = compareRuns(A, B, { guard: 'shuffle', threshold: 0.8, nFloor: 4 });
    assert.match(shuffle.warnings[0], /premise context builder/);
  });

  it('an item whose every sample failed has no TV and fails the gate (the reference would say 0.5)', () => {
    const B2 = run('B2', [...B.items.slice(0, 3), item('i3', 'abstain', [0, 0, 0], 4)], {
      question_form: 'coherence',
    });
    const c = compareRuns(A, B2, { guard: 'template', threshold: 0.9, nFloor: 1 });
    assert.equal(c.per_item.find((p) => p.item_id === 'i3')!.tv, null);
    assert.deepEqual(c.instrument_failures.run_b, ['i3']);
    assert.deepEqual(c.guard!.under_powered, ['i3']);
    assert.equal(c.guard!.passed, false);
    assert.equal(c.mean_tv_distance, (0.25 + 0.25 + 0.75) / 3);
  });

  it("the setup guard: same model and sampler unless overridden; B must hold A's items", () => {
    const other = { ...B, model: { ...model, model_id: 'other' } };
    assert.throws(
      () => compareRuns(A, other),
      (e: unknown) => e instanceof DataError && e.code === 'compare.mismatch.model',
    );
    const hotter = { ...B, model: { ...model, params: { ...model.params, temperature: 0 } } };
    assert.throws(() => compareRuns(A, hotter), /temperature \(1 vs 0\)/);
    assert.equal(compareRuns(A, hotter, { allowDifferentSetup: true }).n_items, 4);
    const short = { ...B, items: B.items.slice(0, 2) };
    assert.throws(() => compareRuns(A, short), /run B lacks 2 item\(s\) of run A: i2, i3/);
  });
});

describe('retest refuses runs elicited under different coherence frames', () => {
  it('names the frames', () => {
    const a = {
      items: [],
      id: 'A',
      benchmark_id: 'b',
      endorsement_config: { question_form: 'coherence', coherence_frame_id: 'thin-v1' },
    };
    const b = {
      ...a,
      id: 'B',
      endorsement_config: {
        question_form: 'coherence',
        coherence_frame_id: 'defeasible-coherence-explicit-v1',
      },
    };
    assert.throws(
      () => checkRetestCompatibility(a as never, b as never),
      (e: unknown) =>
        e instanceof DataError &&
        e.code === 'retest.mismatch.coherence-frame' &&
        /"thin-v1".*"defeasible-coherence-explicit-v1"/.test(e.message),
    );
  });
});

describe('evalkit compare-runs (CLI)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'evalkit-compare-'));
  const eta = JSON.parse(readFileSync('examples/infereval/evaluation.json', 'utf8'));
  const a = join(dir, 'a.json');
  writeFileSync(a, JSON.stringify(eta));
  // Run B: the same run with the premise builder swapped and one item's samples all flipped to bad.
  const etaB = structuredClone(eta);
  etaB.id = 'run-b';
  etaB.endorsement_config.context_builder_premise_id = 'shuffled-v1';
  const flipped = etaB.items[0];
  for (const s of flipped.samples) {
    s.parsed_verdict = 'bad';
    s.raw_response = 'BAD';
  }
  flipped.model_verdict = 'bad';
  flipped.majority_vote = {
    good: 0,
    bad: flipped.samples.length,
    abstain: 0,
    verdict: 'bad',
    tie_broken: false,
  };
  const b = join(dir, 'b.json');
  writeFileSync(b, JSON.stringify(etaB));

  it('fails the shuffle gate on the flipped item and prints JSON', async () => {
    const out = await runInProcess([
      'compare-runs',
      a,
      b,
      '--guard',
      'shuffle',
      '--n-floor',
      '3',
      '--format',
      'json',
    ]);
    assert.equal(out.code, 1, out.stderr);
    const c = JSON.parse(out.stdout);
    assert.deepEqual(
      c.guard.offenders.map((o: { item_id: string }) => o.item_id),
      [flipped.id],
    );
    assert.deepEqual(Object.keys(c.differences), ['endorsement_config.context_builder_premise_id']);
    const text = await runInProcess(['compare-runs', a, b]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /setups differ in: {3}endorsement_config\.context_builder_premise_id/);
  });
});
