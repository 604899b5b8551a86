/**
 * `bearers-import`: a bearers file (parse.ts) and an items document (`{"_meta": {...}, "items": [...]}`, the
 * infereval v0.5 shape) become one infereval benchmark, mapped as the reference's `bearers-import` maps them:
 *
 * - `_meta` id / title / domain / description / targets / verification_prompt / template_id / context_builders /
 *   analysts → the benchmark's own fields; without `_meta.analysts` (a pilot before recruitment) one analyst
 *   `pending-analyst-panel` is made, with `abstain` on every item;
 * - an item's `target` → its one conclusion (else its `conclusions`); `ladder`, `variation`, `target`,
 *   `placeholder` kept; `note` → `construction_note`; `monotonicity` → `monotonicity_step`;
 * - a bearer's family → its `ordinal_family`; `@ordinal`/`@mutex` → `ordinal_families`; `@copresent` →
 *   `copresence_rules`; `@entails` → `entailment_rules`; `~regularity` → `regularities`.
 *
 * The constraint compiler (compile.ts) turns the declarations into sequents and admissibility rules, and every
 * item is checked against them; then the benchmark is validated by the caller's `checkBenchmark` (validate/infereval.ts passes the one Engine). Every problem is a
 * diagnostic at its place in the file the user wrote (the bearers file or the items document), naming the item.
 *
 * The placeholder firewall: an item's `placeholder` (a provisional read) is kept in its own field and never becomes
 * an analyst verdict — the pending panel abstains on everything, so nothing measures against a placeholder.
 */
import type { Diagnostic } from '../../../diagnostics.js';
import { locatePointers, parseStrictJson } from '../../../io/strict-json.js';
import type { RuleIssue } from '../../types.js';
import { compileConstraints, itemViolations, type CompiledConstraints } from './compile.js';
import { familyOfBearer, parseBearers, type BearersDoc } from './parse.js';
import { isObject } from '../../../io/json-value.js';

type Obj = Record<string, unknown>;

export const PENDING_ANALYST = {
  id: 'pending-analyst-panel',
  display_name: 'Analyst panel (pending recruitment)',
  notes:
    "Stand-in while the analyst panel is recruited: every verdict is 'abstain' and carries no judgement. Each item's provisional read is in its 'placeholder' field, which is never a verdict. Replace this analyst with the panel's verdicts (e.g. with evalkit survey import) once they are collected.",
};

const META_KEYS = [
  'title',
  'domain',
  'description',
  'verification_prompt',
  'template_id',
  'context_builders',
] as const;

export interface BearersImportResult {
  /** The benchmark, when it could be built (also when it has errors: the diagnostics say what is wrong). */
  benchmark: Obj | null;
  /** Errors and warnings, in file order, each at its place in the bearers file or the items document. */
  diagnostics: Diagnostic[];
  summary: {
    id: string | null;
    bearers: number;
    items: number;
    analysts: number;
    pending_panel: boolean;
    ordinal_families: number;
    copresence_rules: number;
    entailment_rules: number;
    regularities: number;
    exclusivity_sequents: number;
    errors: number;
    warnings: number;
  };
  compiled: CompiledConstraints | null;
}

/** Builds the benchmark object from a parsed bearers file and an items document (no checks beyond shape). */
export function mapToBenchmark(doc: BearersDoc, itemsDoc: Obj): { benchmark: Obj; pending: boolean } {
  const meta = isObject(itemsDoc._meta) ? itemsDoc._meta : {};
  const family = familyOfBearer(doc);
  const bearers: Obj = {};
  for (const [id, expression] of doc.bearers)
    bearers[id] = family.has(id) ? { expression, ordinal_family: family.get(id) } : { expression };
  const pending = meta.analysts === undefined || meta.analysts === null;
  const analysts = pending ? [{ ...PENDING_ANALYST }] : meta.analysts;
  const items = (Array.isArray(itemsDoc.items) ? itemsDoc.items : []).map((src: unknown) => {
    const s = isObject(src) ? src : {};
    const conclusions = s.target !== undefined && s.target !== null ? [s.target] : (s.conclusions ?? []);
    let verdicts = s.analyst_verdicts ?? [];
    if (pending && Array.isArray(verdicts) && verdicts.length === 0) verdicts = ['abstain'];
    const item: Obj = { id: s.id, premises: s.premises, conclusions, analyst_verdicts: verdicts };
    for (const key of ['ladder', 'variation', 'target', 'placeholder'])
      if (s[key] !== undefined && s[key] !== null) item[key] = s[key];
    if (s.note !== undefined) item.construction_note = s.note;
    if (s.monotonicity !== undefined) item.monotonicity_step = s.monotonicity;
    if (s.analyst_rationales !== undefined) item.analyst_rationales = s.analyst_rationales;
    return item;
  });
  const benchmark: Obj = {
    schema_version: '1.0',
    id: meta.id ?? 'imported-benchmark',
    bearers,
    analysts,
    items,
    ordinal_families: Object.fromEntries(doc.families.map((f) => [f.family, [...f.tiers]])),
    copresence_rules: doc.copresence.map((c) => ({ families: [...c.families] })),
    entailment_rules: doc.entailments.map((e) => ({ antecedent: e.antecedent, consequent: e.consequent })),
    regularities: doc.regularities.map((description) => ({ description })),
    targets: Array.isArray(meta.targets) ? [...meta.targets] : [],
  };
  for (const key of META_KEYS) if (meta[key] !== undefined) benchmark[key] = meta[key];
  return { benchmark, pending };
}

/** Where a pointer into the benchmark came from in the items document (the fields bearers-import renames). */
function sourcePointer(pointer: string, itemsDoc: Obj): string | undefined {
  const m = /^\/items\/(\d+)(\/[^/]+)?(.*)$/.exec(pointer);
  if (m) {
    const src =
      Array.isArray(itemsDoc.items) && isObject(itemsDoc.items[Number(m[1])])
        ? (itemsDoc.items[Number(m[1])] as Obj)
        : {};
    const renamed: Record<string, string> = {
      '/construction_note': '/note',
      '/monotonicity_step': '/monotonicity',
    };
    let field = m[2] ?? '';
    let rest = m[3];
    if (field === '/conclusions' && src.target !== undefined && src.target !== null) {
      field = '/target';
      rest = '';
    }
    return `/items/${m[1]}${renamed[field] ?? field}${rest}`;
  }
  const top = /^\/([^/]+)(.*)$/.exec(pointer);
  if (
    top &&
    (top[1] === 'analysts' ||
      top[1] === 'id' ||
      top[1] === 'targets' ||
      (META_KEYS as readonly string[]).includes(top[1]))
  )
    return `/_meta/${top[1]}${top[2]}`;
  return undefined;
}

/** "item "x": " before a message about an item, unless the message already names it. */
function itemName(pointer: string, benchmark: Obj, message: string): string {
  const m = /^\/items\/(\d+)/.exec(pointer);
  const items = benchmark.items as Obj[];
  const id = m ? items[Number(m[1])]?.id : undefined;
  if (typeof id !== 'string') return m ? `items[${m[1]}]: ` : '';
  const name = `item ${JSON.stringify(id)}`;
  return message.includes(name) ? '' : `${name}: `;
}

export function buildBearersBenchmark(
  bearersText: string,
  itemsText: string,
  files: { bearers: string; items: string },
  checkBenchmark: (benchmark: unknown) => RuleIssue[],
): BearersImportResult {
  const parsed = parseBearers(bearersText, files.bearers);
  const diagnostics = [...parsed.diagnostics];
  const empty = (): BearersImportResult['summary'] => ({
    id: null,
    bearers: parsed.doc.bearers.size,
    items: 0,
    analysts: 0,
    pending_panel: false,
    ordinal_families: parsed.doc.families.length,
    copresence_rules: parsed.doc.copresence.length,
    entailment_rules: parsed.doc.entailments.length,
    regularities: parsed.doc.regularities.length,
    exclusivity_sequents: 0,
    errors: 0,
    warnings: 0,
  });
  const json = parseStrictJson(itemsText);
  const itemsIssue = json.issues[0];
  let itemsDoc: Obj | undefined;
  if (itemsIssue)
    diagnostics.push({
      file: files.items,
      line: itemsIssue.line,
      column: itemsIssue.column,
      pointer: '',
      severity: 'error',
      code: itemsIssue.code,
      message: itemsIssue.message,
    });
  else if (!isObject(json.value) || !Array.isArray(json.value.items))
    diagnostics.push({
      file: files.items,
      line: 1,
      column: 1,
      pointer: '',
      severity: 'error',
      code: 'bearers.items-shape',
      message: 'an items document is an object {"_meta": {...}, "items": [...]}',
    });
  else itemsDoc = json.value;
  if (itemsDoc === undefined || parsed.diagnostics.some((d) => d.severity === 'error')) {
    return {
      benchmark: null,
      diagnostics: finish(diagnostics),
      summary: count(empty(), diagnostics),
      compiled: null,
    };
  }

  const { benchmark, pending } = mapToBenchmark(parsed.doc, itemsDoc);
  const compiled = compileConstraints(parsed.doc);
  const found: { pointer: string; severity: 'error' | 'warning'; code: string; message: string }[] = [];
  for (const v of itemViolations(benchmark.items as Obj[], parsed.doc, compiled)) found.push(v);
  if (pending)
    found.push({
      pointer: '/analysts',
      severity: 'warning',
      code: 'bearers.pending-panel',
      message: `no _meta.analysts: one stand-in analyst "${PENDING_ANALYST.id}" abstains on every item, so nothing can be measured against analysts yet (placeholders are never used as verdicts)`,
    });
  for (const d of checkBenchmark(benchmark))
    found.push({ pointer: d.pointer, severity: d.severity ?? 'error', code: d.code, message: d.message });

  // Positions: in the items document where the value came from there, else at the bearer's line.
  const bearerLine = new Map<string, number>();
  bearersText.split(/\r?\n/).forEach((l, i) => {
    const id = /^\s*(\S+)\s+"/.exec(l)?.[1];
    if (id !== undefined && !l.trimStart().startsWith('#') && !bearerLine.has(id)) bearerLine.set(id, i + 1);
  });
  const sources = found.map((f) => sourcePointer(f.pointer, itemsDoc!));
  const positions = locatePointers(
    itemsText,
    sources.filter((s): s is string => s !== undefined),
  );
  found.forEach((f, i) => {
    const source = sources[i];
    const bearer = /^\/bearers\/([^/]+)/.exec(f.pointer)?.[1];
    const message = `${itemName(f.pointer, benchmark, f.message)}${f.message}`;
    if (source !== undefined) {
      const at = positions.get(source) ?? { line: 0, column: 0 };
      diagnostics.push({
        file: files.items,
        line: at.line,
        column: at.column,
        pointer: source,
        severity: f.severity,
        code: f.code,
        message,
      });
    } else {
      const line =
        bearer === undefined ? 0 : (bearerLine.get(bearer.replace(/~1/g, '/').replace(/~0/g, '~')) ?? 0);
      diagnostics.push({
        file: files.bearers,
        line,
        column: line ? 1 : 0,
        pointer: f.pointer,
        severity: f.severity,
        code: f.code,
        message,
      });
    }
  });
  const summary = count(
    {
      ...empty(),
      id: typeof benchmark.id === 'string' ? benchmark.id : null,
      items: (benchmark.items as unknown[]).length,
      analysts: Array.isArray(benchmark.analysts) ? benchmark.analysts.length : 0,
      pending_panel: pending,
      exclusivity_sequents: compiled.exclusivity.length,
    },
    diagnostics,
  );
  return { benchmark, diagnostics: finish(diagnostics), summary, compiled };
}

function finish(diagnostics: Diagnostic[]): Diagnostic[] {
  return diagnostics.sort((a, b) =>
    a.file === b.file ? a.line - b.line || a.column - b.column : a.file < b.file ? -1 : 1,
  );
}

function count(
  summary: BearersImportResult['summary'],
  diagnostics: Diagnostic[],
): BearersImportResult['summary'] {
  summary.errors = diagnostics.filter((d) => d.severity === 'error').length;
  summary.warnings = diagnostics.length - summary.errors;
  return summary;
}
