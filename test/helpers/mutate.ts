// A seeded, deterministic generator of mutated variants of a JSON document, for conformance tests that compare
// two validators' verdicts. Each variant is a structured clone of the input with one (or a few) small changes:
// a dropped key, a value of the wrong type, an extra key, an out-of-enum (or other-enum) string, a null, an empty
// array/object, a dropped array item. Same doc + same seed → same variants, in the same order.
import { createRng } from '../../src/metrics/stats/rng.js';

export type MutationKind =
  'drop-key' | 'wrong-type' | 'extra-key' | 'out-of-enum' | 'other-enum' | 'null' | 'empty' | 'drop-item';

export interface MutationOptions {
  seed: number;
  count: number;
  /** A JSON Schema whose `enum` / `const` values feed the enum mutations (any dialect; walked structurally). */
  schema?: unknown;
  /** Which kinds to draw from (default: all). */
  kinds?: readonly MutationKind[];
  /** Up to this many mutations are stacked on one variant (default 1). */
  maxStack?: number;
  /**
   * Pick a depth uniformly first, then a site at that depth (default false: every node equally likely). Large
   * documents then still see their top-level and shallow keys mutated, not only their long arrays.
   */
  byDepth?: boolean;
}

export interface Mutation {
  /** e.g. "drop-key /evaluation_results/0/metric_config/score_type". Stacked mutations are joined with " + ". */
  label: string;
  doc: unknown;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = (string | number)[];

interface Site {
  path: Path;
  value: Json;
  parent: 'root' | 'object' | 'array';
}

export const MUTATION_KINDS: readonly MutationKind[] = [
  'drop-key',
  'wrong-type',
  'extra-key',
  'out-of-enum',
  'other-enum',
  'null',
  'empty',
  'drop-item',
];

function isObject(v: unknown): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function pointer(path: Path): string {
  return path.length === 0
    ? ''
    : '/' + path.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
}

/** Every node of the document with its path and the kind of its parent (root included). */
function allPaths(doc: Json): Site[] {
  const out: Site[] = [];
  const walk = (value: Json, path: Path, parent: Site['parent']) => {
    out.push({ path, value, parent });
    if (Array.isArray(value)) value.forEach((item, i) => walk(item, [...path, i], 'array'));
    else if (isObject(value))
      for (const key of Object.keys(value)) walk(value[key], [...path, key], 'object');
  };
  walk(doc, [], 'root');
  return out;
}

/** The enum value lists found anywhere in a schema (`enum` arrays and, grouped per parent, `const` strings). */
export function enumsOf(schema: unknown): string[][] {
  const lists: string[][] = [];
  const seen = new Set<unknown>();
  const walk = (node: unknown) => {
    if (typeof node !== 'object' || node === null || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) {
      // A oneOf/anyOf of const branches is an enum in disguise.
      const consts = node
        .filter(isObject)
        .map((n) => n['const'])
        .filter((c): c is string => typeof c === 'string');
      if (consts.length > 1) lists.push(consts);
      node.forEach(walk);
      return;
    }
    const obj = node as Record<string, unknown>;
    if (Array.isArray(obj['enum'])) {
      const strings = obj['enum'].filter((v): v is string => typeof v === 'string');
      if (strings.length > 0) lists.push(strings);
    }
    if (typeof obj['const'] === 'string') lists.push([obj['const']]);
    for (const value of Object.values(obj)) walk(value);
  };
  walk(schema);
  return lists;
}

function getParent(doc: Json, path: Path): Json | undefined {
  let node: Json = doc;
  for (const step of path.slice(0, -1)) {
    if (Array.isArray(node) && typeof step === 'number') node = node[step];
    else if (isObject(node)) node = node[String(step)];
    else return undefined;
  }
  return node;
}

/** Sets (or, with `remove`, deletes) the value at a non-empty path; returns the new root for the root path. */
function setAt(doc: Json, path: Path, value: Json | typeof REMOVE): Json {
  if (path.length === 0) return value === REMOVE ? {} : value;
  const parent = getParent(doc, path);
  const last = path[path.length - 1];
  if (Array.isArray(parent) && typeof last === 'number') {
    if (value === REMOVE) parent.splice(last, 1);
    else parent[last] = value;
  } else if (isObject(parent)) {
    if (value === REMOVE) delete parent[String(last)];
    else parent[String(last)] = value;
  }
  return doc;
}
const REMOVE = Symbol('remove');

function typeName(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** A value of another JSON type, derived from the original where that makes a plausible mistake. */
function wrongTypeValues(v: Json): Json[] {
  const candidates: Json[] = [];
  switch (typeName(v)) {
    case 'string': {
      const n = Number(v);
      candidates.push(Number.isFinite(n) && String(v).trim() !== '' ? n : 1, [v], { value: v }, true);
      break;
    }
    case 'integer':
      candidates.push(String(v), (v as number) + 0.5, [v], { value: v }, false);
      break;
    case 'number':
      candidates.push(String(v), Math.round(v as number), [v], { value: v }, true);
      break;
    case 'boolean':
      candidates.push(String(v), v ? 1 : 0, [v], {});
      break;
    case 'array': {
      const arr = v as Json[];
      candidates.push(
        arr.length > 0 ? arr[0] : 'x',
        JSON.stringify(arr).slice(0, 40),
        { 0: arr[0] ?? null },
        1,
      );
      break;
    }
    case 'object':
      candidates.push([v], JSON.stringify(v).slice(0, 40), 0, false);
      break;
    default: // null
      candidates.push('null', 0, false, [], {});
  }
  return candidates;
}

function applyOne(
  doc: Json,
  kind: MutationKind,
  rand: () => number,
  enums: string[][],
  byDepth: boolean,
): { doc: Json; label: string } | undefined {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const pickSite = <T extends { path: Path } | { site: { path: Path } }>(xs: readonly T[]): T => {
    if (!byDepth || xs.length === 0) return pick(xs);
    const depth = (x: T) => ('site' in x ? x.site.path.length : x.path.length);
    const depths = [...new Set(xs.map(depth))].sort((a, b) => a - b);
    const chosen = pick(depths);
    return pick(xs.filter((x) => depth(x) === chosen));
  };
  const sites: Site[] = allPaths(doc);
  const keyed = sites.filter((s) => s.parent === 'object');
  const label = (what: string, path: Path) => `${what} ${pointer(path) || '(root)'}`;
  switch (kind) {
    case 'drop-key': {
      if (keyed.length === 0) return undefined;
      const site = pickSite(keyed);
      return { doc: setAt(doc, site.path, REMOVE), label: label('drop-key', site.path) };
    }
    case 'drop-item': {
      const items = sites.filter((s) => s.parent === 'array');
      if (items.length === 0) return undefined;
      const site = pickSite(items);
      return { doc: setAt(doc, site.path, REMOVE), label: label('drop-item', site.path) };
    }
    case 'wrong-type': {
      const site = pickSite(sites.filter((s) => s.path.length > 0));
      if (!site) return undefined;
      const replacement = pick(wrongTypeValues(site.value));
      return {
        doc: setAt(doc, site.path, replacement),
        label: label(`wrong-type(${typeName(site.value)}→${typeName(replacement)})`, site.path),
      };
    }
    case 'extra-key': {
      const objects = sites.filter((s) => isObject(s.value));
      if (objects.length === 0) return undefined;
      const site = pickSite(objects);
      const value = pick<Json>(['extra', 1, true, null, [], {}]);
      const key = pick(['x_extra', 'unexpected_field', 'notes']);
      (site.value as Record<string, Json>)[key] = value;
      return { doc, label: label(`extra-key(${key}=${JSON.stringify(value)})`, site.path) };
    }
    case 'out-of-enum':
    case 'other-enum': {
      const strings = sites.filter((s) => typeof s.value === 'string' && s.path.length > 0);
      const enumSites = strings.filter((s) => enums.some((list) => list.includes(s.value as string)));
      if (kind === 'other-enum') {
        const options = enumSites.flatMap((s) =>
          enums
            .filter((list) => list.includes(s.value as string))
            .flat()
            .filter((other) => other !== s.value)
            .map((other) => ({ site: s, other })),
        );
        if (options.length === 0) return undefined;
        const { site, other } = pickSite(options);
        return { doc: setAt(doc, site.path, other), label: label(`other-enum(${other})`, site.path) };
      }
      const pool = enumSites.length > 0 ? enumSites : strings;
      if (pool.length === 0) return undefined;
      const site = pickSite(pool);
      const value = pick([`${site.value as string}_x`, String(site.value).toUpperCase() + '!', '']);
      return {
        doc: setAt(doc, site.path, value),
        label: label(`out-of-enum(${JSON.stringify(value)})`, site.path),
      };
    }
    case 'null': {
      const site = pickSite(sites.filter((s) => s.path.length > 0 && s.value !== null));
      if (!site) return undefined;
      return { doc: setAt(doc, site.path, null), label: label('null', site.path) };
    }
    case 'empty': {
      const containers = sites.filter(
        (s) =>
          (Array.isArray(s.value) && s.value.length > 0) ||
          (isObject(s.value) && Object.keys(s.value).length > 0),
      );
      if (containers.length === 0) return undefined;
      const site = pickSite(containers);
      const empty: Json = Array.isArray(site.value) ? [] : {};
      return { doc: setAt(doc, site.path, empty), label: label('empty', site.path) };
    }
  }
}

/**
 * Yields `count` mutated variants of `doc` (fewer only when the document offers no site for any chosen kind).
 * Kinds are drawn in round-robin order so every kind is represented; sites and values are drawn from the seed.
 */
export function* mutations(doc: unknown, options: MutationOptions): Generator<Mutation> {
  const rand = createRng(options.seed);
  const kinds = options.kinds ?? MUTATION_KINDS;
  const enums = options.schema === undefined ? [] : enumsOf(options.schema);
  const maxStack = Math.max(1, options.maxStack ?? 1);
  let produced = 0;
  let misses = 0;
  for (let i = 0; produced < options.count && misses < kinds.length * 4; i++) {
    const stack = 1 + Math.floor(rand() * maxStack);
    let current = structuredClone(doc) as Json;
    const labels: string[] = [];
    for (let s = 0; s < stack; s++) {
      const kind = kinds[(i + s) % kinds.length];
      const result = applyOne(current, kind, rand, enums, options.byDepth ?? false);
      if (!result) continue;
      current = result.doc;
      labels.push(result.label);
    }
    if (labels.length === 0) {
      misses++;
      continue;
    }
    misses = 0;
    produced++;
    yield { label: labels.join(' + '), doc: current };
  }
}
