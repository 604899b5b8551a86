// Building blocks shared by the infereval benchmark (β) and evaluation (η) schemas.
import { Type, type Static, type TSchema } from 'typebox';

/** `T | null`, as Pydantic writes an `Optional[...]` field. */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/**
 * A JSON object whose every value has one schema (Python `dict[str, T]`). Written with `additionalProperties`
 * rather than TypeBox's Record, whose `patternProperties: {"^.*$": …}` skips keys containing a line break.
 */
export function Dict<T extends TSchema>(value: T, options: object = {}) {
  return Type.Unsafe<Record<string, Static<T>>>({ ...options, type: 'object', additionalProperties: value });
}

/** Closed object: unknown keys are rejected, as Pydantic's `extra="forbid"`. */
export const closed = { additionalProperties: false } as const;

export const VerdictSchema = Type.Enum(['good', 'bad', 'abstain'], {
  title: 'Verdict',
  description: 'An endorsement verdict.',
});
export type Verdict = Static<typeof VerdictSchema>;
export const VERDICTS: readonly Verdict[] = ['good', 'bad', 'abstain'];

export const ReferenceSchema = Type.Object(
  {
    citation: Type.String(),
    doi: Type.Optional(Nullable(Type.String())),
    url: Type.Optional(Nullable(Type.String())),
    section: Type.Optional(Nullable(Type.String())),
    note: Type.Optional(Nullable(Type.String())),
  },
  {
    ...closed,
    title: 'Reference',
    description:
      'A provenance entry. The infereval loader also accepts a bare string, meaning {"citation": string}; the ' +
      'published schema does not.',
  },
);
export type ReferenceDocument = Static<typeof ReferenceSchema>;

export const ReferencesSchema = Type.Array(ReferenceSchema);
