// Small building blocks shared by the EEE schemas. Each returns a TypeBox value (which is a JSON Schema object), so
// the emitted schema, the runtime validator and the static type all come from the same definition.
import { Type, type TNull, type TSchema, type TUnion } from 'typebox';

export const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

export const Str = (description: string) => Type.String({ description });
export const Num = (description: string) => Type.Number({ description });
export const Int = (description: string, extra: { minimum?: number } = {}) =>
  Type.Integer({ description, ...extra });
export const Bool = (description: string) => Type.Boolean({ description });
export const StrList = (description: string) => Type.Array(Type.String(), { description });

/** A string restricted to a list of values, written as upstream writes it: `{ type: "string", enum: [...] }`. */
export function StrEnum<const V extends readonly string[]>(values: V, description: string) {
  return Type.Unsafe<V[number]>({ type: 'string', enum: [...values], description });
}

/** An `enum` without a `type` (0.3.0's deployment axes are written this way). */
export function BareEnum<const V extends readonly string[]>(values: V, description: string) {
  return Type.Unsafe<V[number]>({ enum: [...values], description });
}

/** A JSON type union written as `type: [...]` (the upstream style), e.g. ["string", "null"]. */
type JsonTypeName = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'array' | 'object';
type TypeOf<N> = N extends 'string'
  ? string
  : N extends 'number' | 'integer'
    ? number
    : N extends 'boolean'
      ? boolean
      : N extends 'null'
        ? null
        : N extends 'array'
          ? unknown[]
          : Record<string, unknown>;
export function Types<const N extends readonly JsonTypeName[]>(
  types: N,
  description: string,
  extra: Record<string, unknown> = {},
) {
  return Type.Unsafe<TypeOf<N[number]>>({ type: [...types], description, ...extra });
}

/** `{ type: [array, null], items: { type: string } }`. */
export const NullableStrList = (description: string) =>
  Type.Unsafe<string[] | null>({ type: ['array', 'null'], description, items: { type: 'string' } });

/** A map whose values must be strings (0.2.1+ `additional_details`). */
export const StringMap = (description: string) =>
  Type.Unsafe<Record<string, string>>({
    type: 'object',
    description,
    additionalProperties: { type: 'string' },
  });

// The helpers below return plain JSON Schema shapes (as upstream writes them) but declare the TypeBox type with the
// same meaning, so that `Static<>` is computed where a version is concrete (never inside a generic builder).

/** `oneOf` over the given schemas; the static type is the union. */
export function OneOf<const T extends TSchema[]>(schemas: [...T], description?: string): TUnion<T> {
  return (description === undefined
    ? { oneOf: schemas }
    : { oneOf: schemas, description }) as unknown as TUnion<T>;
}

/** The schema with "null" added to its `type` (upstream's `type: ["object", "null"]` style). */
export function OrNull<S extends TSchema>(schema: S): TUnion<[S, TNull]> {
  const type = (schema as { type?: unknown }).type;
  return { ...schema, type: [type, 'null'] } as unknown as TUnion<[S, TNull]>;
}

/** The schema without its `type` keyword (0.2.0 quirk: a value of another JSON type then passes). */
export function Untyped<S extends TSchema>(schema: S): S {
  const { type: _type, ...rest } = schema as S & { type?: unknown };
  return rest as S;
}

/** A `$ref` into the root `$defs` (upstream keeps `$defs` although the dialect is draft-07; Ajv resolves it as a pointer). */
export function DefRef<T extends TSchema>(name: string, _target: T): T {
  return { $ref: `#/$defs/${name}` } as unknown as T;
}

/** Adds the upstream root keywords: `$schema` and the unknown `version` first, `$defs` (when given) last. */
export function Root<S extends TSchema>(version: string, body: S, $defs?: Record<string, TSchema>): S {
  return { $schema: DRAFT_07, version, ...body, ...($defs ? { $defs } : {}) } as S;
}

// Version flags. The flag is named by key (`when(c, 'v021', …)`) rather than passed as `c.v021`: TypeScript widens
// `c.v021` to `boolean` inside a generic builder, but keeps `C['v021']` exact, so each version's static type is exact.

/** Properties present only when a version flag is on. */
export function when<C, K extends keyof C, P extends object>(
  c: C,
  flag: K,
  properties: () => P,
): When<C[K], P> {
  return (c[flag] === true ? properties() : {}) as When<C[K], P>;
}
/** Properties present only when a version flag is off. */
export function unless<C, K extends keyof C, P extends object>(
  c: C,
  flag: K,
  properties: () => P,
): When<Not<C[K]>, P> {
  return (c[flag] === true ? {} : properties()) as When<Not<C[K]>, P>;
}
/** One of two schemas, chosen by a version flag. */
export function choose<C, K extends keyof C, A, B>(
  c: C,
  flag: K,
  ifOn: () => A,
  ifOff: () => B,
): C[K] extends true ? A : B {
  return (c[flag] === true ? ifOn() : ifOff()) as C[K] extends true ? A : B;
}
export type When<F, P> = F extends true ? P : {};
export type Not<F> = F extends true ? false : true;

/** The properties of `source_metadata` every version has (0.1.0 on): where the numbers come from. */
export function sourceMetadataProps() {
  const Opt = Type.Optional;
  return {
    source_name: Opt(Str('Name of the source, e.g. the leaderboard title or the evaluation platform.')),
    source_type: StrEnum(
      ['documentation', 'evaluation_run'],
      'Whether the numbers were measured in a run or taken from documentation.',
    ),
    source_organization_name: Str('Organization that published the data.'),
    source_organization_url: Opt(Str('Web address of that organization.')),
    source_organization_logo_url: Opt(Str("Address of that organization's logo.")),
    evaluator_relationship: StrEnum(
      ['first_party', 'third_party', 'collaborative', 'other'],
      'How the evaluator relates to the model developer.',
    ),
  };
}
