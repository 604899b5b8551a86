/** A parsed JSON object whose shape is not known yet (a document or a part of one, before it is checked). */
export type Json = Record<string, any>;

/** True for a JSON object: not null, not an array. */
export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
