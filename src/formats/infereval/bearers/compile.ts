/**
 * The constraint compiler, as the infereval reference defines it (`compiler.py`): a bearers file's declarations
 * become
 * - exclusivity sequents ⟨{a, b}, ∅⟩ for every pair of tiers of one family (`@ordinal` and `@mutex` alike: holding
 *   two tiers at once is incoherent);
 * - one admissibility rule per `@copresent` (an item's premises carry a tier of every listed family, or of none);
 * - entailment sequents ⟨{a}, {b}⟩ per `@entails a -> b`.
 * Exhaustivity sequents are opt-in in the reference and a bearers file cannot ask for them, so none are made here.
 *
 * `itemViolations` checks each item against them (the reference leaves this to the item generator; here every
 * rule an item breaks is reported, naming the item):
 * - `bearers.copresence-unsaturated`: the premises carry a tier of some families of a `@copresent` rule but not all
 *   (items with no conclusion are exempt: they are the compiler's own exclusivity sequents, which name one family);
 * - `bearers.exclusive-tiers`: the premises hold two tiers of one family while the item asks about a conclusion (an
 *   item with no conclusion is the exclusivity sequent itself, and fine);
 * - `bearers.entailment-contradicted`: the premises hold `a` of `@entails a -> b` and another tier of b's family.
 */
import { compareCodePoints } from '../../../io/canonical.js';
import { familyOfBearer, type BearersDoc } from './parse.js';

export interface Sequent {
  premises: string[];
  conclusions: string[];
}

export interface CompiledConstraints {
  exclusivity: Sequent[];
  admissibility: { families: string[] }[];
  entailment: Sequent[];
}

const sorted = (xs: Iterable<string>): string[] => [...new Set(xs)].sort(compareCodePoints);

export function compileConstraints(doc: BearersDoc): CompiledConstraints {
  const exclusivity: Sequent[] = [];
  for (const f of [...doc.families].sort((a, b) => compareCodePoints(a.family, b.family))) {
    const tiers = sorted(f.tiers);
    for (let i = 0; i < tiers.length; i++)
      for (let j = i + 1; j < tiers.length; j++)
        exclusivity.push({ premises: [tiers[i], tiers[j]], conclusions: [] });
  }
  return {
    exclusivity,
    admissibility: doc.copresence.map((c) => ({ families: [...c.families] })),
    entailment: doc.entailments.map((e) => ({ premises: [e.antecedent], conclusions: [e.consequent] })),
  };
}

export interface ItemViolation {
  pointer: string;
  severity: 'error';
  code: string;
  message: string;
}

export function itemViolations(
  items: readonly Record<string, unknown>[],
  doc: BearersDoc,
  compiled: CompiledConstraints,
): ItemViolation[] {
  const familyOf = familyOfBearer(doc);
  const tiersOf = new Map(doc.families.map((f) => [f.family, f.tiers]));
  const out: ItemViolation[] = [];
  items.forEach((item, i) => {
    const premises = Array.isArray(item.premises)
      ? item.premises.filter((p): p is string => typeof p === 'string')
      : [];
    const conclusions = Array.isArray(item.conclusions) ? item.conclusions : [];
    const at = `/items/${i}/premises`;
    const present = new Map<string, string[]>();
    for (const p of premises) {
      const f = familyOf.get(p);
      if (f !== undefined) present.set(f, [...(present.get(f) ?? []), p]);
    }
    for (const rule of conclusions.length > 0 ? compiled.admissibility : []) {
      const carried = rule.families.filter((f) => present.has(f));
      if (carried.length > 0 && carried.length < rule.families.length) {
        const missing = rule.families.filter((f) => !present.has(f));
        out.push({
          pointer: at,
          severity: 'error',
          code: 'bearers.copresence-unsaturated',
          message: `@copresent ${rule.families.join(' & ')}: the premises carry a tier of ${carried.join(', ')} but none of ${missing.join(', ')}`,
        });
      }
    }
    if (conclusions.length > 0)
      for (const [family, held] of present)
        if (held.length > 1)
          out.push({
            pointer: at,
            severity: 'error',
            code: 'bearers.exclusive-tiers',
            message: `the premises hold ${held.length} tiers of family ${family} (${held.join(', ')}), which exclude each other`,
          });
    for (const e of doc.entailments) {
      if (!premises.includes(e.antecedent)) continue;
      const family = familyOf.get(e.consequent);
      if (family === undefined) continue;
      const rival = premises.find((p) => p !== e.consequent && (tiersOf.get(family) ?? []).includes(p));
      if (rival !== undefined)
        out.push({
          pointer: at,
          severity: 'error',
          code: 'bearers.entailment-contradicted',
          message: `@entails ${e.antecedent} -> ${e.consequent}: the premises hold ${e.antecedent} and ${rival}, another tier of ${e.consequent}'s family ${family}`,
        });
    }
  });
  return out;
}
