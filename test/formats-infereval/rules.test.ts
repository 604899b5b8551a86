// Every cross-field rule of an infereval benchmark / evaluation: a document that passes it and one that fails it,
// with the rule's own code, a pointer to the offending value and a message naming the item or field.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  benchmarkRules,
  evaluationRules,
  factorCells,
  type BenchmarkDocument,
} from '../../src/formats/infereval/index.js';
import { checkInfereval } from '../../src/validate/infereval.js';
import type { CrossFieldRule } from '../../src/formats/types.js';

/** A small benchmark that satisfies every rule. */
function base(): any {
  return {
    schema_version: '1.0',
    id: 'rules-base',
    bearers: {
      p: { expression: 'it rains', ordinal_family: 'rain' },
      p2: { expression: 'it pours', ordinal_family: 'rain' },
      q: { expression: 'the street is wet' },
      r: { expression: 'the street is covered' },
    },
    analysts: [
      { id: 'a1', panel: 'experts' },
      { id: 'a2', panel: 'novices' },
    ],
    primary_panel: 'experts',
    items: [
      {
        id: 'i1',
        premises: ['p'],
        conclusions: ['q'],
        analyst_verdicts: ['good', 'good'],
        analyst_rationales: ['rain wets streets', ''],
        rsr_target: { X: ['p'], A: ['q'] },
        factor_levels: { cover: 'no', strength: 'weak' },
        target: 'wet',
        monotonicity_step: { family: 'rain', tier: 'p', tier_index: 0, fixed: 'q' },
      },
      {
        id: 'i2',
        premises: ['p', 'r'],
        conclusions: ['q'],
        analyst_verdicts: ['bad', 'abstain'],
        factor_levels: { cover: 'yes', strength: 'weak' },
        target: 'wet',
      },
      {
        id: 'i3',
        premises: ['p2'],
        conclusions: ['q'],
        analyst_verdicts: ['good', 'good'],
        factor_levels: { cover: 'no', strength: 'strong' },
        monotonicity_step: { family: 'rain', tier: 'p2', tier_index: 1 },
      },
      {
        id: 'i4',
        premises: ['p2', 'r'],
        conclusions: ['q'],
        analyst_verdicts: ['bad', 'bad'],
        factor_levels: { cover: 'yes', strength: 'strong' },
      },
    ],
    factors: { strength: ['weak', 'strong'], cover: ['no', 'yes'] },
    factor_kinds: { cover: 'substantive' },
    factor_constraints: { min_items_per_cell: 1 },
    ordinal_families: { rain: ['p', 'p2'], wetness: ['q'] },
    copresence_rules: [{ families: ['rain', 'wetness'] }],
    entailment_rules: [{ antecedent: 'p2', consequent: 'p' }],
    regularities: [{ description: 'more rain, wetter street', test_item_ids: ['i1', 'i3'] }],
    targets: ['wet', 'dry'],
  };
}

const byCode = (rules: CrossFieldRule[], code: string): CrossFieldRule => {
  const rule = rules.find((r) => r.code === code);
  assert.ok(rule, `rule ${code} exists`);
  return rule;
};

interface Case {
  code: string;
  break: (d: any) => void;
  pointer: string;
  mentions: string[];
}

const cases: Case[] = [
  {
    code: 'infereval.analyst-ids-unique',
    break: (d) => (d.analysts[1].id = 'a1'),
    pointer: '/analysts/1/id',
    mentions: ['"a1"', 'analysts[0]'],
  },
  {
    code: 'infereval.panel-all-or-none',
    break: (d) => delete d.analysts[1].panel,
    pointer: '/analysts/1',
    mentions: ['"a2"', 'all-or-none'],
  },
  {
    code: 'infereval.primary-panel-declared',
    break: (d) => (d.primary_panel = 'clinicians'),
    pointer: '/primary_panel',
    mentions: ['"clinicians"', '"experts"'],
  },
  {
    code: 'infereval.item-ids-unique',
    break: (d) => (d.items[2].id = 'i1'),
    pointer: '/items/2/id',
    mentions: ['"i1"', 'items[0]'],
  },
  {
    code: 'infereval.item-bearers-exist',
    break: (d) => (d.items[1].conclusions = ['zz']),
    pointer: '/items/1/conclusions/0',
    mentions: ['"i2"', '"zz"', 'conclusions'],
  },
  {
    code: 'infereval.rsr-target-bearers-exist',
    break: (d) => (d.items[0].rsr_target.A = ['q', 'nope']),
    pointer: '/items/0/rsr_target/A/1',
    mentions: ['"i1"', '"nope"', 'rsr_target.A'],
  },
  {
    code: 'infereval.entailment-bearers-exist',
    break: (d) => (d.entailment_rules[0].consequent = 'ghost'),
    pointer: '/entailment_rules/0/consequent',
    mentions: ['"ghost"'],
  },
  {
    code: 'infereval.ordinal-family-tiers-are-bearers',
    break: (d) => d.ordinal_families.rain.push('p3'),
    pointer: '/ordinal_families/rain/2',
    mentions: ['"rain"', '"p3"'],
  },
  {
    code: 'infereval.bearer-ordinal-family-declared',
    break: (d) => (d.bearers.r.ordinal_family = 'cover'),
    pointer: '/bearers/r/ordinal_family',
    mentions: ['"r"', '"cover"'],
  },
  {
    code: 'infereval.copresence-families-declared',
    break: (d) => d.copresence_rules[0].families.push('heat'),
    pointer: '/copresence_rules/0/families/2',
    mentions: ['"heat"'],
  },
  {
    code: 'infereval.item-target-declared',
    break: (d) => (d.items[1].target = 'damp'),
    pointer: '/items/1/target',
    mentions: ['"i2"', '"damp"'],
  },
  {
    code: 'infereval.monotonicity-family-declared',
    break: (d) => (d.items[2].monotonicity_step.family = 'snow'),
    pointer: '/items/2/monotonicity_step/family',
    mentions: ['"i3"', '"snow"'],
  },
  {
    code: 'infereval.monotonicity-tier-in-family',
    break: (d) => (d.items[2].monotonicity_step.tier = 'q'),
    pointer: '/items/2/monotonicity_step/tier',
    mentions: ['"i3"', '"q"', '"rain"'],
  },
  {
    code: 'infereval.monotonicity-tier-index',
    break: (d) => (d.items[2].monotonicity_step.tier_index = 0),
    pointer: '/items/2/monotonicity_step/tier_index',
    mentions: ['"i3"', 'index 1'],
  },
  {
    code: 'infereval.monotonicity-fixed-bearer',
    break: (d) => (d.items[0].monotonicity_step.fixed = 'x'),
    pointer: '/items/0/monotonicity_step/fixed',
    mentions: ['"i1"', '"x"'],
  },
  {
    code: 'infereval.analyst-verdicts-length',
    break: (d) => d.items[3].analyst_verdicts.pop(),
    pointer: '/items/3/analyst_verdicts',
    mentions: ['"i4"', '1 analyst verdict for 2 analysts'],
  },
  {
    code: 'infereval.analyst-rationales-length',
    break: (d) => (d.items[0].analyst_rationales = ['only one']),
    pointer: '/items/0/analyst_rationales',
    mentions: ['"i1"', '1 analyst rationale for 2 analysts'],
  },
  {
    code: 'infereval.factor-levels-declared',
    break: (d) => (d.items[1].factor_levels.cover = 'partly'),
    pointer: '/items/1/factor_levels/cover',
    mentions: ['"i2"', '"partly"', '"cover"'],
  },
  {
    code: 'infereval.factor-kinds-declared',
    break: (d) => (d.factor_kinds.colour = 'substantive'),
    pointer: '/factor_kinds/colour',
    mentions: ['"colour"'],
  },
  {
    code: 'infereval.regularity-items-exist',
    break: (d) => d.regularities[0].test_item_ids.push('i9'),
    pointer: '/regularities/0/test_item_ids/2',
    mentions: ['"i9"'],
  },
  {
    code: 'infereval.min-items-per-cell',
    break: (d) => (d.factor_constraints.min_items_per_cell = 2),
    pointer: '/factor_constraints/min_items_per_cell',
    mentions: ['4 cell(s)', 'fewer than 2', 'cover=no, strength=weak'],
  },
];

describe('benchmark cross-field rules', () => {
  test('the base benchmark passes the schema and every rule', () => {
    assert.deepEqual(checkInfereval(base(), 'benchmark'), []);
  });

  test('every rule has a distinct stable code and a test case', () => {
    const codes = benchmarkRules.map((r) => r.code);
    assert.equal(new Set(codes).size, codes.length);
    assert.deepEqual([...codes].sort(), cases.map((c) => c.code).sort());
    for (const code of codes) assert.match(code, /^infereval\.[a-z-]+$/);
  });

  for (const c of cases) {
    test(`${c.code}: passes the base, fails the broken document with its own code`, () => {
      const rule = byCode(benchmarkRules, c.code);
      assert.deepEqual(rule.check(base()), []);
      const broken = base();
      c.break(broken);
      const issues = rule.check(broken);
      assert.equal(issues.length, 1, JSON.stringify(issues));
      assert.equal(issues[0].code, c.code);
      assert.equal(issues[0].pointer, c.pointer);
      for (const m of c.mentions)
        assert.ok(issues[0].message.includes(m), `"${issues[0].message}" mentions ${m}`);
      // Through the full check the broken document is still schema-valid and reports this rule.
      assert.ok(checkInfereval(broken, 'benchmark').some((i) => i.code === c.code));
    });
  }

  test('panels: none declared is fine, primary_panel without panels is not', () => {
    const d = base();
    for (const a of d.analysts) delete a.panel;
    delete d.primary_panel;
    assert.deepEqual(byCode(benchmarkRules, 'infereval.panel-all-or-none').check(d), []);
    d.primary_panel = 'experts';
    const issues = byCode(benchmarkRules, 'infereval.primary-panel-declared').check(d);
    assert.match(issues[0].message, /no analyst declares a panel/);
  });

  test('targets: an empty targets list allows any item target', () => {
    const d = base();
    d.targets = [];
    d.items[0].target = 'anything';
    assert.deepEqual(byCode(benchmarkRules, 'infereval.item-target-declared').check(d), []);
  });

  test('rationales: null means none at all; a list of empty strings of the right length is fine', () => {
    const d = base();
    d.items[0].analyst_rationales = null;
    d.items[1].analyst_rationales = ['', ''];
    assert.deepEqual(byCode(benchmarkRules, 'infereval.analyst-rationales-length').check(d), []);
    d.items[1].analyst_rationales = [];
    assert.equal(byCode(benchmarkRules, 'infereval.analyst-rationales-length').check(d).length, 1);
  });

  test('factor levels: an undeclared factor is named', () => {
    const d = base();
    d.items[0].factor_levels.colour = 'red';
    const issues = byCode(benchmarkRules, 'infereval.factor-levels-declared').check(d);
    assert.equal(issues[0].pointer, '/items/0/factor_levels/colour');
    assert.match(issues[0].message, /factor "colour" is not declared/);
  });

  test('factor cells: full cross product over sorted factor names, items counted per cell', () => {
    const cells = factorCells(base() as BenchmarkDocument);
    assert.deepEqual(
      cells.map((c) => [Object.keys(c.levels), c.count]),
      [
        [['cover', 'strength'], 1],
        [['cover', 'strength'], 1],
        [['cover', 'strength'], 1],
        [['cover', 'strength'], 1],
      ],
    );
    assert.deepEqual(cells[0].levels, { cover: 'no', strength: 'weak' });
    const d = base();
    d.items[3].factor_levels = { cover: 'no', strength: 'strong' }; // cell cover=yes,strength=strong now empty
    const issues = byCode(benchmarkRules, 'infereval.min-items-per-cell').check(d);
    assert.equal(issues.length, 1);
    assert.match(issues[0].message, /^1 cell\(s\).*\{cover=yes, strength=strong\}: 0$/);
  });

  test('pointers escape "/" and "~" in keys', () => {
    const d = base();
    d.factor_kinds['a/b~c'] = 'substantive';
    const issues = byCode(benchmarkRules, 'infereval.factor-kinds-declared').check(d);
    assert.equal(issues[0].pointer, '/factor_kinds/a~1b~0c');
  });
});

describe('evaluation consistency rules (warnings)', () => {
  const evaluation = (): any => ({
    schema_version: '1.0',
    id: 'eval-1',
    benchmark_id: 'rules-base',
    model: { provider: 'replay', model_id: 'm' },
    items: [
      {
        id: 'i1',
        premises: ['p'],
        conclusions: ['q'],
        analyst_verdicts: ['good', 'good'],
        model_verdict: 'good',
        samples: [
          { sample_index: 0, raw_response: 'GOOD', parsed_verdict: 'good', parse_status: 'ok' },
          {
            sample_index: 1,
            raw_response: '',
            parsed_verdict: 'abstain',
            parse_status: 'sample_failed',
            provider_error: 'HTTP 503 after 3 retries',
          },
        ],
        majority_vote: { good: 1, bad: 0, abstain: 0, verdict: 'good', tie_broken: false },
      },
      {
        id: 'i2',
        premises: ['p'],
        conclusions: ['r'],
        analyst_verdicts: ['bad', 'bad'],
        model_verdict: 'bad',
      },
    ],
  });

  const evalCases: { code: string; break: (d: any) => void; pointer: string }[] = [
    {
      code: 'infereval.evaluation-item-ids-unique',
      break: (d) => (d.items[1].id = 'i1'),
      pointer: '/items/1/id',
    },
    {
      code: 'infereval.sample-failed-needs-provider-error',
      break: (d) => delete d.items[0].samples[1].provider_error,
      pointer: '/items/0/samples/1',
    },
    {
      code: 'infereval.majority-vote-matches-model-verdict',
      break: (d) => (d.items[0].model_verdict = 'bad'),
      pointer: '/items/0/model_verdict',
    },
    {
      code: 'infereval.evaluation-analyst-count-consistent',
      break: (d) => d.items[1].analyst_verdicts.push('good'),
      pointer: '/items/1/analyst_verdicts',
    },
  ];

  test('the base evaluation passes', () => {
    assert.deepEqual(checkInfereval(evaluation(), 'evaluation'), []);
    assert.deepEqual(evaluationRules.map((r) => r.code).sort(), evalCases.map((c) => c.code).sort());
  });

  for (const c of evalCases) {
    test(`${c.code}: a warning at the offending value`, () => {
      const rule = byCode(evaluationRules, c.code);
      assert.deepEqual(rule.check(evaluation()), []);
      const broken = evaluation();
      c.break(broken);
      const issues = rule.check(broken);
      assert.equal(issues.length, 1);
      assert.equal(issues[0].code, c.code);
      assert.equal(issues[0].pointer, c.pointer);
      assert.equal(issues[0].severity, 'warning');
    });
  }
});
