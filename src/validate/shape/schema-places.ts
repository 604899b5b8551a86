/**
 * What a JSON Schema asks of one place in a document, for the row-shape fast path (row-shape.ts): the schemas that
 * can apply there (every subschema reachable through any keyword, combinators included: a superset of what Ajv
 * evaluates), and from them whether a leaf's value may change without changing any keyword's verdict.
 *
 * Only the keywords listed here are understood; a schema with any other (e.g. `$ref`, `propertyNames`,
 * `unevaluatedProperties`) gets no fast path at all, so an unknown keyword can never make it say "valid" wrongly.
 */

type Schema = boolean | Record<string, unknown>;

/** Keywords that never affect a verdict (Ajv runs with `strict: false`, so EEE's top-level `version` is ignored). */
const ANNOTATIONS = new Set([
  '$schema',
  '$id',
  '$comment',
  'title',
  'description',
  'default',
  'examples',
  'readOnly',
  'writeOnly',
  'deprecated',
  'version',
]);
/** Keywords whose verdict depends only on the value's kind, its keys or its length, and its children's verdicts. */
const STRUCTURAL = new Set([
  'type',
  'required',
  'properties',
  'patternProperties',
  'additionalProperties',
  'items',
  'additionalItems',
  'contains',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'dependencies',
  'dependentRequired',
  'dependentSchemas',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
]);
/** Keywords on a number's value: checked row by row against the verdict they gave the learned row. */
export const NUMBER_BOUNDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'] as const;
export type NumberBound = (typeof NUMBER_BOUNDS)[number];
/** Keywords on a value that the fast path does not evaluate: a leaf under any of them must equal the learned row's. */
const VALUE_KEYWORDS = new Set([
  'enum',
  'const',
  'pattern',
  'format',
  'minLength',
  'maxLength',
  'multipleOf',
  'uniqueItems',
  'contentEncoding',
  'contentMediaType',
  ...NUMBER_BOUNDS,
]);
/** Of those, the ones that also look at an object's or an array's members: such a value is pinned whole. */
const DEEP_VALUE_KEYWORDS = new Set(['enum', 'const', 'uniqueItems']);

/** Thrown when a schema uses a keyword outside the lists above: no fast path for it. */
export class UnsupportedSchema extends Error {}

function isSchema(x: unknown): x is Schema {
  return typeof x === 'boolean' || (typeof x === 'object' && x !== null && !Array.isArray(x));
}

/** A place: the schemas that can apply to it (closed over combinators). */
export class Place {
  readonly schemas: readonly Schema[];
  constructor(
    schemas: readonly Schema[],
    /** Set inside a value that an `enum`/`const`/`uniqueItems` looks at whole: every leaf must be equal. */
    readonly pinned = false,
  ) {
    const all: Schema[] = [];
    const seen = new Set<Schema>();
    const add = (s: unknown): void => {
      if (!isSchema(s)) throw new UnsupportedSchema('a subschema is not a schema');
      if (seen.has(s)) return;
      seen.add(s);
      all.push(s);
      if (typeof s === 'boolean') return;
      for (const key of Object.keys(s)) {
        if (!ANNOTATIONS.has(key) && !STRUCTURAL.has(key) && !VALUE_KEYWORDS.has(key))
          throw new UnsupportedSchema(`keyword "${key}"`);
      }
      for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
        const list = s[key];
        if (list === undefined) continue;
        if (!Array.isArray(list)) throw new UnsupportedSchema(key);
        list.forEach(add);
      }
      for (const key of ['not', 'if', 'then', 'else'] as const) if (s[key] !== undefined) add(s[key]);
      for (const key of ['dependencies', 'dependentSchemas'] as const) {
        const deps = s[key];
        if (deps === undefined) continue;
        if (!isSchema(deps) || typeof deps === 'boolean') throw new UnsupportedSchema(key);
        for (const d of Object.values(deps)) if (!Array.isArray(d)) add(d);
      }
    };
    schemas.forEach(add);
    this.schemas = all;
  }

  private has(keywords: ReadonlySet<string>): boolean {
    return this.schemas.some((s) => typeof s !== 'boolean' && Object.keys(s).some((k) => keywords.has(k)));
  }

  /** Places already derived from this one (a shape is learned many times over the same schema). */
  private readonly members = new Map<string, Place>();
  private readonly elements = new Map<number, Place>();

  /** The place of an object's member `key`. */
  member(key: string): Place {
    return memo(this.members, key, (k) => this.memberPlace(k));
  }

  /** The place of an array's element `index`. */
  element(index: number): Place {
    return memo(this.elements, index, (i) => this.elementPlace(i));
  }

  private memberPlace(key: string): Place {
    const out: Schema[] = [];
    for (const s of this.schemas) {
      if (typeof s === 'boolean') continue;
      const props = s.properties as Record<string, unknown> | undefined;
      let matched = false;
      if (props !== undefined) {
        if (!isSchema(props) || typeof props === 'boolean') throw new UnsupportedSchema('properties');
        if (Object.hasOwn(props, key)) {
          out.push(props[key] as Schema);
          matched = true;
        }
      }
      const patterns = s.patternProperties as Record<string, unknown> | undefined;
      if (patterns !== undefined) {
        if (!isSchema(patterns) || typeof patterns === 'boolean')
          throw new UnsupportedSchema('patternProperties');
        for (const [pattern, sub] of Object.entries(patterns)) {
          if (patternMatches(pattern, key)) {
            out.push(sub as Schema);
            matched = true;
          }
        }
      }
      if (!matched && s.additionalProperties !== undefined) out.push(s.additionalProperties as Schema);
    }
    return new Place(out, this.pinnedInside());
  }

  private elementPlace(index: number): Place {
    const out: Schema[] = [];
    for (const s of this.schemas) {
      if (typeof s === 'boolean') continue;
      if (Array.isArray(s.items)) {
        if (index < s.items.length) out.push(s.items[index] as Schema);
        else if (s.additionalItems !== undefined) out.push(s.additionalItems as Schema);
      } else if (s.items !== undefined) out.push(s.items as Schema);
      if (s.contains !== undefined) out.push(s.contains as Schema);
    }
    return new Place(out, this.pinnedInside());
  }

  /** True when an object or array here is looked at whole by a value keyword. */
  private pinnedInside(): boolean {
    return this.pinned || this.has(DEEP_VALUE_KEYWORDS);
  }

  /** What a leaf here (a string, number, boolean or null) may be in other rows. */
  leaf(kind: 'string' | 'integer' | 'fraction' | 'boolean' | 'null'): LeafRule {
    if (this.pinned || kind === 'null') return { free: false };
    const bounds: { keyword: NumberBound; limit: number }[] = [];
    let integerOnly = false;
    for (const s of this.schemas) {
      if (typeof s === 'boolean') continue;
      for (const key of Object.keys(s)) {
        if (!VALUE_KEYWORDS.has(key)) continue;
        const limit = s[key];
        if (
          (kind === 'integer' || kind === 'fraction') &&
          (NUMBER_BOUNDS as readonly string[]).includes(key)
        ) {
          if (typeof limit !== 'number') throw new UnsupportedSchema(key);
          bounds.push({ keyword: key as NumberBound, limit });
        } else return { free: false };
      }
      const types = s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];
      if (types.includes('integer') && !types.includes('number')) integerOnly = true;
    }
    // A fraction under an "integer" type: 3.0 passes and 3.5 fails, so the learned value is kept exactly.
    if (kind === 'fraction' && integerOnly) return { free: false };
    return { free: true, integerOnly, bounds };
  }
}

function memo<K>(cache: Map<K, Place>, key: K, make: (key: K) => Place): Place {
  let place = cache.get(key);
  if (place === undefined) {
    place = make(key);
    cache.set(key, place);
  }
  return place;
}

/** Whether a key matches a `patternProperties` pattern, as Ajv tests it (a Unicode regular expression). */
function patternMatches(pattern: string, key: string): boolean {
  let re: RegExp;
  try {
    re = new RegExp(pattern, 'u');
  } catch {
    throw new UnsupportedSchema(`pattern ${pattern}`);
  }
  return re.test(key);
}

export type LeafRule =
  { free: false } | { free: true; integerOnly: boolean; bounds: { keyword: NumberBound; limit: number }[] };

/** Whether a number meets a bound keyword (as Ajv checks it). */
export function meetsBound(value: number, keyword: NumberBound, limit: number): boolean {
  switch (keyword) {
    case 'minimum':
      return value >= limit;
    case 'maximum':
      return value <= limit;
    case 'exclusiveMinimum':
      return value > limit;
    case 'exclusiveMaximum':
      return value < limit;
  }
}
