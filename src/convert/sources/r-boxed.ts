/**
 * Inspect logs written by R (the rinspect / vitals packages through jsonlite without `auto_unbox`) box every scalar
 * in a one-element array: `"status": ["success"]`, `"task": ["An R Eval"]`, `"value": ["I"]`. Such a log is
 * recognised by its top-level `version` being a one-element array (Python's Inspect writes a number there) and read
 * with every one-element array of a scalar unboxed, except under the keys Inspect always writes as lists (a list of
 * one sample id or one choice stays a list).
 */
import { isObj, type Obj } from '../source-json.js';

/** Keys whose values are lists in Inspect's schema even when they hold one scalar. */
const LIST_KEYS = new Set(['sample_ids', 'choices', 'stop_seqs', 'tags', 'epochs_reducer', 'tool_call_id']);

/** Whether a parsed log was written with boxed scalars (its `version` is `[n]`). */
export function isRBoxed(doc: unknown): doc is Obj {
  return (
    isObj(doc) && Array.isArray(doc.version) && doc.version.length === 1 && typeof doc.version[0] === 'number'
  );
}

const isScalar = (v: unknown): boolean => v === null || typeof v !== 'object';

/** The value with every one-element array of a scalar replaced by the scalar (LIST_KEYS excepted); a new value. */
export function unboxRScalars(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) {
    if (value.length === 1 && isScalar(value[0]) && !(key !== undefined && LIST_KEYS.has(key)))
      return value[0];
    return value.map((v) => unboxRScalars(v));
  }
  if (isObj(value)) {
    const out: Obj = {};
    for (const [k, v] of Object.entries(value)) out[k] = unboxRScalars(v, k);
    return out;
  }
  return value;
}
