/**
 * Ajv's raw errors → one message per mistake. With `allErrors`, Ajv reports every failing keyword, including each
 * failing branch of a oneOf/anyOf and the wrapper errors of if/then; a user wants the mistake, once:
 * - failed alternatives (oneOf/anyOf) keep only the branch that came closest, and say so;
 * - wrapper errors (`if`, `not` around nothing, the oneOf itself when a branch is kept) are dropped;
 * - missing fields of one object are listed together; unexpected fields of one object too;
 * - identical messages at one place are kept once.
 */
import type { ErrorObject } from 'ajv';
import type { Severity } from '../diagnostics.js';
import type { FormatVersion } from '../formats/types.js';

export interface SchemaIssue {
  pointer: string;
  code: string;
  message: string;
  severity: Severity;
}

function kebab(s: string): string {
  return s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

function show(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 60 ? `${s.slice(0, 57)}…` : s;
}

function childPointer(parent: string, key: string): string {
  return `${parent}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

function depth(pointer: string): number {
  let n = 0;
  for (let i = 0; i < pointer.length; i++) if (pointer.charCodeAt(i) === 0x2f) n++;
  return n;
}

interface Branch {
  index: number;
  errors: ErrorObject[];
}

/** Keeps, for each failed oneOf/anyOf, only the errors of the closest branch (outermost alternatives first). */
function pruneAlternatives(errors: ErrorObject[]): { kept: ErrorObject[]; notes: Map<ErrorObject, string> } {
  const notes = new Map<ErrorObject, string>();
  let current = errors;
  const composites = errors
    .filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf')
    .sort((a, b) => a.schemaPath.length - b.schemaPath.length);
  const removed = new Set<ErrorObject>();
  for (const c of composites) {
    if (removed.has(c)) continue;
    const prefix = `${c.schemaPath}/`;
    const inside = current.filter(
      (e) =>
        e !== c &&
        !removed.has(e) &&
        e.schemaPath.startsWith(prefix) &&
        e.instancePath.startsWith(c.instancePath),
    );
    const passing = (c.params as { passingSchemas?: number[] | null }).passingSchemas;
    if (inside.length === 0) {
      if (c.keyword === 'oneOf' && Array.isArray(passing)) {
        notes.set(
          c,
          `matches more than one alternative (#${passing.map((p) => p + 1).join(' and #')}); exactly one is allowed`,
        );
      }
      continue;
    }
    const branches = new Map<number, Branch>();
    for (const e of inside) {
      const index = Number(e.schemaPath.slice(prefix.length).split('/')[0]);
      const b = branches.get(index) ?? { index, errors: [] };
      b.errors.push(e);
      branches.set(index, b);
    }
    const score = (b: Branch): number => {
      // A branch rejected at its root by type/const/enum (its discriminator) is far away; then fewer errors win,
      // then errors deeper in the document (the branch got further).
      const rootMismatch = b.errors.some(
        (e) =>
          e.instancePath === c.instancePath &&
          (e.keyword === 'type' || e.keyword === 'const' || e.keyword === 'enum'),
      );
      const discriminator = b.errors.some(
        (e) =>
          (e.keyword === 'const' || e.keyword === 'enum') &&
          depth(e.instancePath) === depth(c.instancePath) + 1,
      );
      const deepest = Math.max(...b.errors.map((e) => depth(e.instancePath)));
      return (
        (rootMismatch ? 1e6 : 0) + (discriminator ? 1e4 : 0) + b.errors.length * 10 - Math.min(deepest, 9)
      );
    };
    const ordered = [...branches.values()].sort((a, b) => score(a) - score(b) || a.index - b.index);
    const best = ordered[0];
    const total = countAlternatives(c);
    for (const b of ordered.slice(1)) for (const e of b.errors) removed.add(e);
    removed.add(c);
    const where = `closest of ${total > 0 ? total : branches.size} alternatives: #${best.index + 1}`;
    for (const e of best.errors) if (!notes.has(e)) notes.set(e, where);
  }
  current = current.filter((e) => !removed.has(e));
  return { kept: current, notes };
}

function countAlternatives(e: ErrorObject): number {
  const s = (e as ErrorObject & { schema?: unknown }).schema;
  return Array.isArray(s) ? s.length : 0;
}

function defaultMessage(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'type':
      return `must be ${String(p.type).split(',').join(' or ')}, found ${typeName(e.data)}`;
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map(show).join(', ')}, found ${show(e.data)}`;
    case 'const':
      return `must be ${show(p.allowedValue)}, found ${show(e.data)}`;
    case 'pattern':
      return `must match the pattern ${p.pattern}, found ${show(e.data)}`;
    case 'format':
      return `must be a valid ${String(p.format)}`;
    case 'if':
      return `must match the "${String(p.failingKeyword)}" schema`;
    default:
      return e.message ?? `fails ${e.keyword}`;
  }
}

function typeName(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Converts Ajv errors of one document into grouped, de-duplicated issues. Needs Ajv errors with `data` (verbose). */
export function explainSchemaErrors(errors: ErrorObject[], version?: FormatVersion): SchemaIssue[] {
  const { kept, notes } = pruneAlternatives(errors);
  const issues: SchemaIssue[] = [];
  const missing = new Map<string, { fields: string[]; note?: string; explained?: string; pointer: string }>();
  const extra = new Map<string, { fields: string[]; note?: string; explained?: string }>();
  const order: { kind: 'missing' | 'extra' | 'issue'; key: string; issue?: SchemaIssue }[] = [];

  for (const e of kept) {
    // A failed `if` only wraps the errors of its then/else branch, which are reported themselves.
    if (
      e.keyword === 'if' &&
      kept.some((o) => o !== e && o.schemaPath.startsWith(e.schemaPath.replace(/\/if$/, '/')))
    ) {
      continue;
    }
    // `not` restating another error at the same place (e.g. {"type": "object", "not": {"type": "null"}}).
    if (
      e.keyword === 'not' &&
      kept.some((o) => o !== e && o.instancePath === e.instancePath && o.keyword !== 'not')
    ) {
      continue;
    }
    const note = notes.get(e);
    const explained = version?.explainSchemaError?.({
      instancePath: e.instancePath,
      schemaPath: e.schemaPath,
      keyword: e.keyword,
      params: e.params,
    });
    if (e.keyword === 'required') {
      const field = String((e.params as { missingProperty: string }).missingProperty);
      // Fields missing from one object are one message; an explained error keeps its own message.
      const key = explained === undefined ? e.instancePath : `${e.instancePath}\u0000${explained}`;
      const group = missing.get(key);
      if (group) {
        if (!group.fields.includes(field)) group.fields.push(field);
      } else {
        missing.set(key, { fields: [field], note, explained, pointer: e.instancePath });
        order.push({ kind: 'missing', key });
      }
      continue;
    }
    if (e.keyword === 'additionalProperties' || e.keyword === 'unevaluatedProperties') {
      const p = e.params as { additionalProperty?: string; unevaluatedProperty?: string };
      const field = String(p.additionalProperty ?? p.unevaluatedProperty);
      const group = extra.get(e.instancePath);
      if (group) {
        if (!group.fields.includes(field)) group.fields.push(field);
      } else {
        extra.set(e.instancePath, { fields: [field], note, explained });
        order.push({ kind: 'extra', key: e.instancePath });
      }
      continue;
    }
    let message = explained ?? defaultMessage(e);
    if (e.keyword === 'oneOf' && notes.has(e)) message = notes.get(e)!;
    else if (note) message += ` (${note})`;
    order.push({
      kind: 'issue',
      key: explained === undefined ? '' : 'explained',
      issue: { pointer: e.instancePath, code: `schema.${kebab(e.keyword)}`, message, severity: 'error' },
    });
  }

  const seen = new Set<string>();
  for (const o of order) {
    let issue: SchemaIssue;
    if (o.kind === 'missing') {
      const g = missing.get(o.key)!;
      const names = g.fields.map((f) => `"${f}"`).join(', ');
      const base = g.explained ?? `missing required field${g.fields.length > 1 ? 's' : ''} ${names}`;
      issue = {
        pointer: g.pointer,
        code: 'schema.required',
        message: g.note ? `${base} (${g.note})` : base,
        severity: 'error',
      };
    } else if (o.kind === 'extra') {
      const g = extra.get(o.key)!;
      const names = g.fields.map((f) => `"${f}"`).join(', ');
      const base =
        g.explained ?? `unexpected field${g.fields.length > 1 ? 's' : ''} ${names} (not allowed here)`;
      issue = {
        pointer: g.fields.length === 1 ? childPointer(o.key, g.fields[0]) : o.key,
        code: 'schema.additional-properties',
        message: g.note ? `${base} (${g.note})` : base,
        severity: 'error',
      };
    } else issue = o.issue!;
    // The same message at the same place is one mistake, whichever keywords reported it; so is a format's own
    // explanation repeated at a place and inside it (a conditional branch failing in several ways).
    const explainedHere =
      o.kind === 'issue'
        ? o.key === 'explained'
        : (o.kind === 'missing' ? missing : extra).get(o.key)?.explained;
    const key = `${issue.pointer}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    if (
      explainedHere &&
      issues.some(
        (p) =>
          p.message === issue.message &&
          (issue.pointer.startsWith(`${p.pointer}/`) || p.pointer.startsWith(`${issue.pointer}/`)),
      )
    ) {
      continue;
    }
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}
