/**
 * The bearers file (infereval 0.17.x, "v0.5 sources"): the human-written vocabulary of a benchmark. One
 * `id "expression"` line per content bearer; structure is declared on `#` comment lines, so the file still reads as
 * a plain list once comments are stripped:
 *
 *   # @ordinal FAM = [t0, t1, ...]  @target T   an ordered, mutually exclusive family (lowest tier first)
 *   # @mutex FAM = [a, b, ...]                  an unordered mutually exclusive family
 *   # @entails a -> b                           bearer a present entails bearer b
 *   # @copresent A & B [& C ...]                families that must occur together in an item's premises
 *   # ~regularity: <description>                a defeasible regularity: tested, not enforced
 *
 * A marker counts only as the first word of a comment; other comments are prose. Unlike the reference parser,
 * which stops at the first problem and reads a misspelt declaration (`# @ordinal FAM [a, b]`) as prose, this one
 * reports every problem with its line and column, treats a comment that starts with a known marker but does not
 * parse as an error, warns about an unknown `@word`, and refuses a bearer listed in two families (the benchmark
 * gives a bearer one `ordinal_family`; the reference kept the last silently).
 */
import type { Diagnostic } from '../../../diagnostics.js';

export interface FamilyDecl {
  family: string;
  tiers: string[];
  /** `@ordinal` (true) or `@mutex` (false). */
  ordered: boolean;
  target: string | null;
  line: number;
}

export interface BearersDoc {
  /** Bearer id → expression, in file order. */
  bearers: Map<string, string>;
  families: FamilyDecl[];
  copresence: { families: string[]; line: number }[];
  entailments: { antecedent: string; consequent: string; line: number }[];
  regularities: string[];
}

const ORDINAL = /^@(ordinal|mutex)\s+(\w+)\s*=\s*\[([^\]]*)\](.*)$/;
const TARGET = /@target\s+(\w+)/;
const ENTAILS = /^@entails\s+(\w+)\s*->\s*(\w+)/;
const COPRESENT = /^@copresent\s+(.+)$/;
const REGULARITY = /^~regularity\s*:\s*(.+)$/;
const BEARER = /^(\S+)\s+"(.*)"\s*$/;
const MARKER = /^(@\w+|~regularity\b)/;
const KNOWN_MARKERS = new Set(['@ordinal', '@mutex', '@entails', '@copresent', '@target', '~regularity']);

/** Parses a bearers file; `diagnostics` holds every problem (errors leave the doc incomplete but never throw). */
export function parseBearers(text: string, file: string): { doc: BearersDoc; diagnostics: Diagnostic[] } {
  const doc: BearersDoc = {
    bearers: new Map(),
    families: [],
    copresence: [],
    entailments: [],
    regularities: [],
  };
  const diagnostics: Diagnostic[] = [];
  const report = (
    line: number,
    column: number,
    code: string,
    message: string,
    severity: 'error' | 'warning' = 'error',
  ) => diagnostics.push({ file, line, column, pointer: '', severity, code, message });
  const bearerLine = new Map<string, number>();
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((raw, i) => {
    const lineNo = i + 1;
    const line = raw.trim();
    const indent = raw.length - raw.trimStart().length;
    if (line === '') return;
    if (line.startsWith('#')) {
      const afterHashes = line.replace(/^#+/, '');
      const body = afterHashes.trim();
      const col =
        indent +
        (line.length - afterHashes.length) +
        (afterHashes.length - afterHashes.trimStart().length) +
        1;
      annotation(body, lineNo, col);
      return;
    }
    const m = BEARER.exec(line);
    if (!m) {
      report(
        lineNo,
        indent + 1,
        'bearers.syntax',
        `not a bearer line: expected id "expression", found ${JSON.stringify(line)}`,
      );
      return;
    }
    const [, id, expression] = m;
    const earlier = doc.bearers.get(id);
    if (earlier !== undefined && earlier !== expression) {
      report(
        lineNo,
        indent + 1,
        'bearers.redefined',
        `bearer "${id}" is redefined with another expression (line ${bearerLine.get(id)}: ${JSON.stringify(earlier)}); bearer ids are additive only: give the new meaning a new id`,
      );
      return;
    }
    doc.bearers.set(id, expression);
    if (!bearerLine.has(id)) bearerLine.set(id, lineNo);
  });

  function annotation(body: string, line: number, col: number): void {
    const marker = MARKER.exec(body)?.[1];
    if (marker === undefined) return; // prose
    if (!KNOWN_MARKERS.has(marker)) {
      report(
        line,
        col,
        'bearers.unknown-annotation',
        `unknown annotation ${marker} (read as a comment; known: @ordinal, @mutex, @entails, @copresent, ~regularity)`,
        'warning',
      );
      return;
    }
    const expected: Record<string, string> = {
      '@ordinal': '@ordinal FAMILY = [tier, tier, ...] [@target T]',
      '@mutex': '@mutex FAMILY = [bearer, bearer, ...]',
      '@entails': '@entails a -> b',
      '@copresent': '@copresent FAMILY & FAMILY [& ...]',
      '@target': '@target T after an @ordinal declaration on the same line',
      '~regularity': '~regularity: description',
    };
    const bad = () =>
      report(line, col, 'bearers.syntax', `malformed ${marker}: expected ${expected[marker]}`);
    let m: RegExpExecArray | null;
    if ((m = ORDINAL.exec(body))) {
      const tiers = m[3]
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== '');
      if (tiers.length === 0) {
        report(line, col, 'bearers.syntax', `@${m[1]} ${m[2]} declares no tiers`);
        return;
      }
      if (doc.families.some((f) => f.family === m![2])) {
        report(line, col, 'bearers.family-redeclared', `family "${m[2]}" is declared twice`);
        return;
      }
      doc.families.push({
        family: m[2],
        tiers,
        ordered: m[1] === 'ordinal',
        target: TARGET.exec(m[4])?.[1] ?? null,
        line,
      });
    } else if ((m = ENTAILS.exec(body))) doc.entailments.push({ antecedent: m[1], consequent: m[2], line });
    else if ((m = COPRESENT.exec(body))) {
      const families = m[1]
        .split('&')
        .map((part) => part.trim().split(/\s+/)[0])
        .filter((f) => f !== undefined && f !== '');
      if (families.length < 2)
        report(
          line,
          col,
          'bearers.syntax',
          `@copresent needs at least two families, found ${families.length}`,
        );
      else doc.copresence.push({ families, line });
    } else if ((m = REGULARITY.exec(body))) doc.regularities.push(m[1].trim());
    else bad();
  }

  // References: every tier, entailment end and co-present family must be defined.
  const familyOf = new Map<string, FamilyDecl>();
  for (const f of doc.families) {
    for (const tier of f.tiers) {
      if (!doc.bearers.has(tier))
        report(
          f.line,
          1,
          'bearers.unknown-bearer',
          `@${f.ordered ? 'ordinal' : 'mutex'} ${f.family} lists "${tier}", which is not a bearer of this file`,
        );
      const other = familyOf.get(tier);
      if (other !== undefined && other !== f)
        report(
          f.line,
          1,
          'bearers.bearer-in-two-families',
          `bearer "${tier}" is a tier of both ${other.family} (line ${other.line}) and ${f.family}; a bearer belongs to one family`,
        );
      familyOf.set(tier, f);
    }
    if (new Set(f.tiers).size !== f.tiers.length)
      report(f.line, 1, 'bearers.syntax', `family ${f.family} lists a tier twice`);
  }
  for (const e of doc.entailments)
    for (const end of [e.antecedent, e.consequent])
      if (!doc.bearers.has(end))
        report(
          e.line,
          1,
          'bearers.unknown-bearer',
          `@entails ${e.antecedent} -> ${e.consequent}: "${end}" is not a bearer of this file`,
        );
  const families = new Set(doc.families.map((f) => f.family));
  for (const c of doc.copresence)
    for (const f of c.families)
      if (!families.has(f))
        report(
          c.line,
          1,
          'bearers.unknown-family',
          `@copresent ${c.families.join(' & ')}: "${f}" is not a declared family`,
        );
  diagnostics.sort((a, b) => a.line - b.line || a.column - b.column);
  return { doc, diagnostics };
}

/** Bearer id → the family it is a tier of. */
export function familyOfBearer(doc: BearersDoc): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of doc.families) for (const t of f.tiers) out.set(t, f.family);
  return out;
}
