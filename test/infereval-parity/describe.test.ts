// `evalkit describe` on the repository's examples and on the real benchmarks in ../shared/reference.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { loadInfereval } from '../../src/validate/infereval.js';
import { describeBenchmark } from '../../src/metrics/infereval/describe.js';
import { reference, skipWithoutReference } from '../helpers/shared.js';
import { cli as runInProcess } from '../helpers/cli.js';

const codes = (d: { gaps: { code: string }[] }): string[] =>
  d.gaps.map((g) => g.code.replace('describe.gap.', ''));

describe('describeBenchmark: the ferry-and-lawn example', async () => {
  const bench = await loadInfereval('examples/infereval/benchmark.json', 'benchmark');
  const d = describeBenchmark(bench);

  it('counts bearers, items, analysts, labels and paraphrase variants', () => {
    assert.equal(d.n_bearers, 18);
    assert.equal(d.n_items, 16);
    assert.equal(d.n_analysts, 2);
    assert.equal(d.paraphrase_variants, 3);
    assert.deepEqual(d.analysts[0].verdicts, { good: 11, bad: 4, abstain: 1 });
    // Fleiss over the 13 items both analysts judged substantively (computed by hand in Python: 0.804511278195489).
    assert.ok(Math.abs(d.inter_analyst_fleiss! - 0.804511278195489) < 1e-12);
    assert.deepEqual(d.panels?.panels, ['practice', 'theory']);
    assert.equal(d.panels?.primary_panel, 'theory');
  });

  it('lays out the factorial design with items per cell', () => {
    const fd = d.factorial_design!;
    assert.deepEqual(
      fd.factors.map((f) => [f.name, f.levels.length, f.kind]),
      [
        ['domain', 2, 'experimentally_controlled'],
        ['modification', 5, 'substantive'],
      ],
    );
    assert.equal(fd.n_cells, 10);
    assert.equal(fd.n_populated_cells, 10);
    assert.equal(
      fd.cells.reduce((s, c) => s + c.n_items, 0),
      12,
    ); // the 4 wind-ladder items have no factor levels
    assert.deepEqual(fd.items_without_levels, ['wind-0', 'wind-1', 'wind-2', 'wind-3']);
    assert.equal(fd.min_items_per_cell, 1);
    assert.equal(fd.required_items_per_cell, 2);
    assert.equal(fd.under_populated_cells.length, 8);
  });

  it('groups RSR targets, ladders and monotonicity ladders, and lists the gaps', () => {
    assert.deepEqual(
      d.rsr_targets.map((t) => [t.X, t.A, t.n_items]),
      [
        [['ferry_scheduled'], ['ferry_departs'], 11],
        [['heavy_rain'], ['lawn_wet'], 5],
      ],
    );
    assert.deepEqual(d.ordinal_families, [
      { name: 'wind', tiers: ['wind_calm', 'wind_breeze', 'wind_gale', 'wind_storm'] },
    ]);
    assert.deepEqual(d.monotonicity_ladders, [{ ladder: 'wind', family: 'wind', fixed: null, steps: 4 }]);
    assert.deepEqual(codes(d), ['under-populated-cells', 'items-without-levels']);
  });
});

describe(
  'describeBenchmark: the real reference benchmarks',
  { skip: skipWithoutReference('infereval/examples') },
  () => {
    it('clinical pilot: ladders, families, targets, placeholders, and what it lacks', async () => {
      const bench = await loadInfereval(
        reference('infereval/examples/clinical_pilot/benchmark.json')!,
        'benchmark',
      );
      const d = describeBenchmark(bench);
      assert.equal(d.n_items, 35);
      assert.equal(d.ordinal_families.length, 11);
      assert.deepEqual(
        d.ladders.map((l) => [l.ladder, l.n_items]),
        [
          ['A', 10],
          ['B', 9],
          ['C', 5],
          ['D', 3],
          ['F', 3],
          ['G', 5],
        ],
      );
      assert.deepEqual(
        d.monotonicity_ladders.find((l) => l.ladder === 'G'),
        {
          ladder: 'G',
          family: 'rs',
          fixed: 'pf_mild',
          steps: 5,
        },
      );
      assert.deepEqual(d.targets, [
        { target: 'cpe', n_items: 21 },
        { target: 'ards', n_items: 14 },
      ]);
      assert.equal(d.placeholder_items, 35);
      assert.deepEqual(codes(d), [
        'no-substantive-labels',
        'single-analyst',
        'no-factors',
        'placeholder-verdicts',
        'no-independent-panel',
        'no-paraphrases',
        'no-provenance',
      ]);
    });

    it('stop sign and pulmonary edema: single analyst, no factors; few items where there are few', async () => {
      const stop = describeBenchmark(
        await loadInfereval(reference('infereval/examples/stop_sign/benchmark.json')!, 'benchmark'),
      );
      assert.deepEqual(codes(stop).slice(0, 3), ['single-analyst', 'no-factors', 'few-items']);
      const pulm = describeBenchmark(
        await loadInfereval(reference('infereval/examples/pulmonary_edema/benchmark.json')!, 'benchmark'),
      );
      assert.equal(pulm.n_items, 30);
      assert.ok(codes(pulm).includes('single-analyst'));
      assert.ok(!codes(pulm).includes('few-items'));
    });
  },
);

describe('evalkit describe (CLI)', () => {
  it('prints the summary, the gaps, and the JSON with the benchmark hash', async () => {
    const text = await runInProcess(['describe', 'examples/infereval/model/benchmark.json']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^id: {11}tweety-factorial$/m);
    assert.match(text.stdout, /\(modification=defeating, register=technical\): 3/);
    assert.match(text.stdout, /missing for a construct-validity claim \(0 gaps, 4 notes\)/);
    const out = await runInProcess([
      'describe',
      'examples/infereval/model/benchmark.json',
      '--format',
      'json',
    ]);
    const d = JSON.parse(out.stdout);
    assert.match(d.benchmark_hash, /^sha256:[0-9a-f]{64}$/);
    assert.equal(d.factorial_design.n_cells, 6);
    assert.equal(d.factorial_design.under_populated_cells.length, 0);
  });

  it('--items lists every item for expert review, in natural id order', async () => {
    const out = await runInProcess(['describe', 'examples/infereval/benchmark.json', '--items']);
    assert.equal(out.code, 0, out.stderr);
    const listing = out.stdout.slice(out.stdout.indexOf('items (16):'));
    assert.match(
      listing,
      /ferry-closed {2}\{ferry_scheduled, harbour_closed\} ⊢\? \{ferry_departs\} {2}→ {2}bad, bad {3}\[defeater\]\n {6}Γ: the ferry is scheduled to leave the harbour at noon\n {9}the coastguard has closed the harbour to all traffic\n {6}Δ: the ferry leaves the harbour at noon/,
    );
    assert.match(listing, /rationale \[a-mariner\]: Nobody sails against a coastguard closure\./);
    const ids = [...listing.matchAll(/^ {2}(\S+) {2}\{/gm)].map((m) => m[1]);
    assert.equal(ids.length, 16);
    assert.deepEqual(ids.slice(-4), ['wind-0', 'wind-1', 'wind-2', 'wind-3']);
  });

  it('an invalid benchmark is exit 1 with one line', async () => {
    const out = await runInProcess(['describe', 'examples/infereval/evaluation.json']);
    assert.equal(out.code, 1);
  });
});
