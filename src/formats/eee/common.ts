// Small building blocks shared by the EEE schemas. Each returns a TypeBox value (which is a JSON Schema object), so
// the emitted schema, the runtime validator and the static type all come from the same definition.
import { Type, type Static, type TSchema } from 'typebox';

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

/** `oneOf` over the given schemas; the static type is the union. */
export function OneOf<const T extends TSchema[]>(schemas: T, description?: string) {
  return Type.Unsafe<Static<T[number]>>(
    description === undefined ? { oneOf: schemas } : { oneOf: schemas, description },
  );
}

/** A `$ref` into the root `$defs` (upstream keeps `$defs` although the dialect is draft-07; Ajv resolves it as a pointer). */
export function DefRef<T extends TSchema>(name: string, _target: T) {
  return Type.Unsafe<Static<T>>({ $ref: `#/$defs/${name}` });
}
