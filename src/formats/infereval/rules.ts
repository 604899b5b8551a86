// Cross-field rules of an infereval benchmark (and a few of an evaluation). They run after the schema passed, so
// they may assume its shape; each has its own stable code and names the item / field it is about.
import type { CrossFieldRule, RuleIssue } from '../types.js';
import { compareCodePoints } from '../../io/canonical.js';
import type { BenchmarkDocument, BenchmarkItemDocument } from './benchmark-schema.js';
import type { EvaluationDocument } from './evaluation-schema.js';

const ptr = (...tokens: (string | number)[]): string =>
  tokens.map((t) => '/' + String(t).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
const q = (s: string): string => JSON.stringify(s);
const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** A cross-field rule over a document of type T; every issue it reports carries the rule's code and severity. */
function defineRule<T>(
  severity: 'error' | 'warning',
  code: string,
  description: string,
  check: (doc: T, issue: (pointer: string, message: string) => void) => void,
): CrossFieldRule {
  return {
    code,
    description,
    check(doc: unknown): RuleIssue[] {
      const issues: RuleIssue[] = [];
      check(doc as T, (pointer, message) =>
        issues.push(severity === 'error' ? { pointer, code, message } : { pointer, code, message, severity }),
      );
      return issues;
    },
  };
}

const benchmarkRule = (
  code: string,
  description: string,
  check: (b: BenchmarkDocument, issue: (pointer: string, message: string) => void) => void,
): CrossFieldRule => defineRule('error', code, description, check);

/** Report every later occurrence of an id already seen. */
function uniqueIds(ids: string[], onDuplicate: (index: number, id: string, first: number) => void): void {
  const seen = new Map<string, number>();
  ids.forEach((id, i) => {
    const first = seen.get(id);
    if (first === undefined) seen.set(id, i);
    else onDuplicate(i, id, first);
  });
}

const itemLabel = (item: BenchmarkItemDocument, i: number): string => `item ${q(item.id)} (items[${i}])`;
const bearerIds = (b: BenchmarkDocument): Set<string> => new Set(Object.keys(b.bearers));

export const analystIdsUnique = benchmarkRule(
  'infereval.analyst-ids-unique',
  'Analyst ids are unique.',
  (b, issue) =>
    uniqueIds(
      b.analysts.map((a) => a.id),
      (i, id, first) =>
        issue(ptr('analysts', i, 'id'), `analyst id ${q(id)} is already used by analysts[${first}]`),
    ),
);

export const panelAllOrNone = benchmarkRule(
  'infereval.panel-all-or-none',
  'Either every analyst declares a panel or none does.',
  (b, issue) => {
    const withPanel = b.analysts.filter((a) => a.panel != null).length;
    if (withPanel === 0 || withPanel === b.analysts.length) return;
    b.analysts.forEach((a, i) => {
      if (a.panel == null) {
        issue(
          ptr('analysts', i),
          `analyst ${q(a.id)} declares no panel, but ${withPanel} of ${b.analysts.length} analysts do: panels are all-or-none`,
        );
      }
    });
  },
);

export const primaryPanelDeclared = benchmarkRule(
  'infereval.primary-panel-declared',
  'primary_panel names a panel some analyst declares.',
  (b, issue) => {
    if (b.primary_panel == null) return;
    const panels = [...new Set(b.analysts.map((a) => a.panel).filter((p): p is string => p != null))];
    if (!panels.includes(b.primary_panel)) {
      const known = panels.length
        ? `declared panels: ${panels.map(q).join(', ')}`
        : 'no analyst declares a panel';
      issue(ptr('primary_panel'), `primary_panel ${q(b.primary_panel)} is not a declared panel (${known})`);
    }
  },
);

export const itemIdsUnique = benchmarkRule('infereval.item-ids-unique', 'Item ids are unique.', (b, issue) =>
  uniqueIds(
    b.items.map((it) => it.id),
    (i, id, first) => issue(ptr('items', i, 'id'), `item id ${q(id)} is already used by items[${first}]`),
  ),
);

export const itemBearersExist = benchmarkRule(
  'infereval.item-bearers-exist',
  'Every premise and conclusion of an item is a declared bearer id.',
  (b, issue) => {
    const bearers = bearerIds(b);
    b.items.forEach((item, i) => {
      for (const field of ['premises', 'conclusions'] as const) {
        item[field].forEach((id, j) => {
          if (!bearers.has(id)) {
            issue(ptr('items', i, field, j), `${itemLabel(item, i)}: ${field} names unknown bearer ${q(id)}`);
          }
        });
      }
    });
  },
);

export const rsrTargetBearersExist = benchmarkRule(
  'infereval.rsr-target-bearers-exist',
  'Every bearer id in an item’s rsr_target (X and A) is declared.',
  (b, issue) => {
    const bearers = bearerIds(b);
    b.items.forEach((item, i) => {
      if (item.rsr_target == null) return;
      for (const side of ['X', 'A'] as const) {
        item.rsr_target[side].forEach((id, j) => {
          if (!bearers.has(id)) {
            issue(
              ptr('items', i, 'rsr_target', side, j),
              `${itemLabel(item, i)}: rsr_target.${side} names unknown bearer ${q(id)}`,
            );
          }
        });
      }
    });
  },
);

export const entailmentBearersExist = benchmarkRule(
  'infereval.entailment-bearers-exist',
  'The antecedent and consequent of every entailment rule are declared bearers.',
  (b, issue) => {
    const bearers = bearerIds(b);
    (b.entailment_rules ?? []).forEach((rule, i) => {
      for (const side of ['antecedent', 'consequent'] as const) {
        if (!bearers.has(rule[side])) {
          issue(
            ptr('entailment_rules', i, side),
            `entailment_rules[${i}].${side} names unknown bearer ${q(rule[side])}`,
          );
        }
      }
    });
  },
);

export const ordinalFamilyTiersAreBearers = benchmarkRule(
  'infereval.ordinal-family-tiers-are-bearers',
  'Every tier listed in an ordinal family is a declared bearer.',
  (b, issue) => {
    const bearers = bearerIds(b);
    for (const [family, tiers] of Object.entries(b.ordinal_families ?? {})) {
      tiers.forEach((tier, j) => {
        if (!bearers.has(tier)) {
          issue(
            ptr('ordinal_families', family, j),
            `ordinal family ${q(family)} lists unknown bearer ${q(tier)}`,
          );
        }
      });
    }
  },
);

export const bearerOrdinalFamilyDeclared = benchmarkRule(
  'infereval.bearer-ordinal-family-declared',
  'A bearer’s ordinal_family is a key of ordinal_families.',
  (b, issue) => {
    const families = b.ordinal_families ?? {};
    for (const [id, bearer] of Object.entries(b.bearers)) {
      if (bearer.ordinal_family != null && !Object.hasOwn(families, bearer.ordinal_family)) {
        issue(
          ptr('bearers', id, 'ordinal_family'),
          `bearer ${q(id)} names ordinal family ${q(bearer.ordinal_family)}, which ordinal_families does not declare`,
        );
      }
    }
  },
);

export const copresenceFamiliesDeclared = benchmarkRule(
  'infereval.copresence-families-declared',
  'Every family of a copresence rule is declared in ordinal_families.',
  (b, issue) => {
    const families = b.ordinal_families ?? {};
    (b.copresence_rules ?? []).forEach((rule, i) => {
      rule.families.forEach((family, j) => {
        if (!Object.hasOwn(families, family)) {
          issue(
            ptr('copresence_rules', i, 'families', j),
            `copresence_rules[${i}] names ordinal family ${q(family)}, which ordinal_families does not declare`,
          );
        }
      });
    });
  },
);

export const itemTargetDeclared = benchmarkRule(
  'infereval.item-target-declared',
  'When targets is non-empty, every item’s target is one of them.',
  (b, issue) => {
    const targets = b.targets ?? [];
    if (targets.length === 0) return;
    b.items.forEach((item, i) => {
      if (item.target != null && !targets.includes(item.target)) {
        issue(
          ptr('items', i, 'target'),
          `${itemLabel(item, i)}: target ${q(item.target)} is not in targets (${targets.map(q).join(', ')})`,
        );
      }
    });
  },
);

export const monotonicityFamilyDeclared = benchmarkRule(
  'infereval.monotonicity-family-declared',
  'monotonicity_step.family is declared in ordinal_families.',
  (b, issue) => {
    const families = b.ordinal_families ?? {};
    b.items.forEach((item, i) => {
      const step = item.monotonicity_step;
      if (step != null && !Object.hasOwn(families, step.family)) {
        issue(
          ptr('items', i, 'monotonicity_step', 'family'),
          `${itemLabel(item, i)}: monotonicity_step.family ${q(step.family)} is not declared in ordinal_families`,
        );
      }
    });
  },
);

export const monotonicityTierInFamily = benchmarkRule(
  'infereval.monotonicity-tier-in-family',
  'monotonicity_step.tier is one of its family’s tiers, and tier_index is that tier’s 0-based position.',
  (b, issue) => {
    const families = b.ordinal_families ?? {};
    b.items.forEach((item, i) => {
      const step = item.monotonicity_step;
      if (step == null || !Object.hasOwn(families, step.family)) return;
      const tiers = families[step.family];
      const index = tiers.indexOf(step.tier);
      if (index < 0) {
        issue(
          ptr('items', i, 'monotonicity_step', 'tier'),
          `${itemLabel(item, i)}: tier ${q(step.tier)} is not in ordinal family ${q(step.family)} (${tiers.map(q).join(', ')})`,
        );
      }
    });
  },
);

export const monotonicityTierIndex = benchmarkRule(
  'infereval.monotonicity-tier-index',
  'monotonicity_step.tier_index equals the position of tier in its family.',
  (b, issue) => {
    const families = b.ordinal_families ?? {};
    b.items.forEach((item, i) => {
      const step = item.monotonicity_step;
      if (step == null || !Object.hasOwn(families, step.family)) return;
      const index = families[step.family].indexOf(step.tier);
      if (index >= 0 && index !== step.tier_index) {
        issue(
          ptr('items', i, 'monotonicity_step', 'tier_index'),
          `${itemLabel(item, i)}: tier_index is ${step.tier_index}, but tier ${q(step.tier)} is at index ${index} of family ${q(step.family)}`,
        );
      }
    });
  },
);

export const monotonicityFixedBearer = benchmarkRule(
  'infereval.monotonicity-fixed-bearer',
  'monotonicity_step.fixed, when set, is a declared bearer.',
  (b, issue) => {
    const bearers = bearerIds(b);
    b.items.forEach((item, i) => {
      const fixed = item.monotonicity_step?.fixed;
      if (fixed != null && !bearers.has(fixed)) {
        issue(
          ptr('items', i, 'monotonicity_step', 'fixed'),
          `${itemLabel(item, i)}: monotonicity_step.fixed names unknown bearer ${q(fixed)}`,
        );
      }
    });
  },
);

export const analystVerdictsLength = benchmarkRule(
  'infereval.analyst-verdicts-length',
  'Every item has exactly one analyst verdict per analyst.',
  (b, issue) => {
    const m = b.analysts.length;
    b.items.forEach((item, i) => {
      if (item.analyst_verdicts.length !== m) {
        issue(
          ptr('items', i, 'analyst_verdicts'),
          `${itemLabel(item, i)}: ${count(item.analyst_verdicts.length, 'analyst verdict')} for ${count(m, 'analyst')}`,
        );
      }
    });
  },
);

export const analystRationalesLength = benchmarkRule(
  'infereval.analyst-rationales-length',
  'When an item has analyst_rationales (not null), it has one per analyst ("" for none given).',
  (b, issue) => {
    const m = b.analysts.length;
    b.items.forEach((item, i) => {
      const r = item.analyst_rationales;
      if (r != null && r.length !== m) {
        issue(
          ptr('items', i, 'analyst_rationales'),
          `${itemLabel(item, i)}: ${count(r.length, 'analyst rationale')} for ${count(m, 'analyst')} (use null for none at all, "" for an analyst without one)`,
        );
      }
    });
  },
);

export const factorLevelsDeclared = benchmarkRule(
  'infereval.factor-levels-declared',
  'Every key of an item’s factor_levels is a declared factor, and its value one of that factor’s levels.',
  (b, issue) => {
    const factors = b.factors ?? {};
    b.items.forEach((item, i) => {
      for (const [factor, level] of Object.entries(item.factor_levels ?? {})) {
        if (!Object.hasOwn(factors, factor)) {
          issue(
            ptr('items', i, 'factor_levels', factor),
            `${itemLabel(item, i)}: factor ${q(factor)} is not declared in factors`,
          );
        } else if (!factors[factor].includes(level)) {
          issue(
            ptr('items', i, 'factor_levels', factor),
            `${itemLabel(item, i)}: level ${q(level)} is not a declared level of factor ${q(factor)} (${factors[factor].map(q).join(', ')})`,
          );
        }
      }
    });
  },
);

export const factorKindsDeclared = benchmarkRule(
  'infereval.factor-kinds-declared',
  'Every key of factor_kinds is a declared factor.',
  (b, issue) => {
    const factors = b.factors ?? {};
    for (const factor of Object.keys(b.factor_kinds ?? {})) {
      if (!Object.hasOwn(factors, factor)) {
        issue(
          ptr('factor_kinds', factor),
          `factor_kinds names factor ${q(factor)}, which factors does not declare`,
        );
      }
    }
  },
);

export const regularityItemsExist = benchmarkRule(
  'infereval.regularity-items-exist',
  'Every test_item_id of a regularity is an item id.',
  (b, issue) => {
    const items = new Set(b.items.map((it) => it.id));
    (b.regularities ?? []).forEach((reg, i) => {
      (reg.test_item_ids ?? []).forEach((id, j) => {
        if (!items.has(id))
          issue(ptr('regularities', i, 'test_item_ids', j), `regularities[${i}] names unknown item ${q(id)}`);
      });
    });
  },
);

/** The cells of the full cross product over the factors in sorted name order, with the items in each. */
export function factorCells(b: BenchmarkDocument): { levels: Record<string, string>; count: number }[] {
  const factors = b.factors ?? {};
  const names = Object.keys(factors).sort(compareCodePoints);
  let cells: Record<string, string>[] = [{}];
  for (const name of names)
    cells = cells.flatMap((cell) => factors[name].map((level) => ({ ...cell, [name]: level })));
  return cells.map((levels) => ({
    levels,
    count: b.items.filter((item) => names.every((n) => (item.factor_levels ?? {})[n] === levels[n])).length,
  }));
}

export const minItemsPerCell = benchmarkRule(
  'infereval.min-items-per-cell',
  'With factor_constraints.min_items_per_cell = k, every cell of the fully crossed factor design has at least k items.',
  (b, issue) => {
    const k = b.factor_constraints?.min_items_per_cell;
    if (k == null || k <= 0 || Object.keys(b.factors ?? {}).length === 0) return;
    const under = factorCells(b).filter((c) => c.count < k);
    if (under.length === 0) return;
    const shown = under.slice(0, 20).map((c) => {
      const cell = Object.entries(c.levels)
        .map(([f, l]) => `${f}=${l}`)
        .join(', ');
      return `{${cell}}: ${c.count}`;
    });
    const more = under.length > shown.length ? `; and ${under.length - shown.length} more` : '';
    issue(
      ptr('factor_constraints', 'min_items_per_cell'),
      `${under.length} cell(s) of the factor design have fewer than ${k} items: ${shown.join('; ')}${more}`,
    );
  },
);

/** The cross-field rules of a benchmark, in the order they are reported. */
export const benchmarkRules: CrossFieldRule[] = [
  analystIdsUnique,
  panelAllOrNone,
  primaryPanelDeclared,
  itemIdsUnique,
  itemBearersExist,
  rsrTargetBearersExist,
  entailmentBearersExist,
  ordinalFamilyTiersAreBearers,
  bearerOrdinalFamilyDeclared,
  copresenceFamiliesDeclared,
  itemTargetDeclared,
  monotonicityFamilyDeclared,
  monotonicityTierInFamily,
  monotonicityTierIndex,
  monotonicityFixedBearer,
  analystVerdictsLength,
  analystRationalesLength,
  factorLevelsDeclared,
  factorKindsDeclared,
  regularityItemsExist,
  minItemsPerCell,
];

// ---- Evaluation: consistency checks the reference's writer guarantees. Warnings, since the reference's loader
// does not enforce them and older files may not satisfy them.

const evaluationRule = (
  code: string,
  description: string,
  check: (e: EvaluationDocument, issue: (pointer: string, message: string) => void) => void,
): CrossFieldRule => defineRule('warning', code, description, check);

export const evaluationItemIdsUnique = evaluationRule(
  'infereval.evaluation-item-ids-unique',
  'Item ids of an evaluation are unique (each benchmark item is evaluated once).',
  (e, issue) =>
    uniqueIds(
      e.items.map((it) => it.id),
      (i, id, first) => issue(ptr('items', i, 'id'), `item id ${q(id)} is already used by items[${first}]`),
    ),
);

export const sampleFailedHasProviderError = evaluationRule(
  'infereval.sample-failed-needs-provider-error',
  'A sample with parse_status "sample_failed" records its provider_error (instrument failure, not abstention).',
  (e, issue) => {
    e.items.forEach((item, i) => {
      (item.samples ?? []).forEach((s, j) => {
        if (s.parse_status === 'sample_failed' && (s.provider_error == null || s.provider_error === '')) {
          issue(
            ptr('items', i, 'samples', j),
            `item ${q(item.id)} sample ${s.sample_index}: parse_status is "sample_failed" but provider_error is not set`,
          );
        }
      });
    });
  },
);

export const majorityVoteMatchesModelVerdict = evaluationRule(
  'infereval.majority-vote-matches-model-verdict',
  'An item’s model_verdict equals its majority_vote.verdict when a vote is recorded.',
  (e, issue) => {
    e.items.forEach((item, i) => {
      const vote = item.majority_vote;
      if (vote != null && vote.verdict !== item.model_verdict) {
        issue(
          ptr('items', i, 'model_verdict'),
          `item ${q(item.id)}: model_verdict is ${q(item.model_verdict)} but majority_vote.verdict is ${q(vote.verdict)}`,
        );
      }
    });
  },
);

export const analystVerdictCountConsistent = evaluationRule(
  'infereval.evaluation-analyst-count-consistent',
  'Every item of an evaluation carries the same number of analyst verdicts.',
  (e, issue) => {
    if (e.items.length === 0) return;
    const m = e.items[0].analyst_verdicts.length;
    e.items.forEach((item, i) => {
      if (item.analyst_verdicts.length !== m) {
        issue(
          ptr('items', i, 'analyst_verdicts'),
          `item ${q(item.id)} has ${count(item.analyst_verdicts.length, 'analyst verdict')}, items[0] has ${m}`,
        );
      }
    });
  },
);

export const evaluationRules: CrossFieldRule[] = [
  evaluationItemIdsUnique,
  sampleFailedHasProviderError,
  majorityVoteMatchesModelVerdict,
  analystVerdictCountConsistent,
];
