/** A parsed JSON object whose shape is not known yet (a document or a part of one, before it is checked). */
export type Json = Record<string, any>;

/** A parsed JSON object whose members are read as `unknown`: the compiler asks for a check before each use. */
export type JsonObject = Record<string, unknown>;

/** True for a JSON object: not null, not an array. */
export function isObject(value: unknown): value is Json {
  return isJsonObject(value);
}

/** True for a JSON object (as isObject), narrowing to members of type `unknown`. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
