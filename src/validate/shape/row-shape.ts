/**
 * The row-shape fast path of JSONL validation. A row that the exact path (strict JSON, detection, the schema, the
 * rules) found clean is learned as a shape: its bytes, cut into free values (leaves whose value may be any of its
 * kind without changing any schema keyword's verdict: see schema-places.ts) and the literal runs between them (the
 * punctuation, whitespace, keys and pinned values, to be matched byte for byte). A later row made of the same literal
 * runs with a well-formed value of the same kind in each free place — so the same keys in the same order, the same
 * array lengths, the same pinned values — is then valid without being decoded, parsed or checked: each check of the
 * exact path gives on it what it gave on the learned row.
 *
 * Why that holds, check by check:
 * - strict JSON: the line is valid UTF-8 (checked); a free value is one whole token (a string to its closing quote,
 *   a number not followed by a digit, '.', 'e' or 'E', true or false) and the literal runs are the learned row's
 *   bytes, so the row's tokens are the learned row's but for the free values; numbers have at most 15 integer digits
 *   and no exponent (finite); the keys are the learned row's distinct keys (no duplicate), the nesting is the
 *   learned row's (within the depth limit);
 * - detection reads the keys and only the top-level values listed in DETECTION_READS (a test watches every
 *   registered type's `looksLike`): those are pinned;
 * - the schema: every keyword's verdict depends on the value's kind, keys, length, the pinned values, the bounds
 *   re-checked here, and its children's verdicts, so by induction all of them are as on the learned row;
 * - rules: a version with cross-field rules gets no shape (unless the run is schema-only).
 * Anything else — a new key, another order, other whitespace, an escape in a key, an exponent, a longer array —
 * makes the row go the exact way (and perhaps be learned), so verdicts and diagnostics never change.
 */
import { isUtf8 } from 'node:buffer';
import type { FormatVersion } from '../../formats/types.js';
import { stageBytes, stagedStringEnd, stringEnd } from '../../io/string-scan.js';
import { publishedSchema } from '../schemas.js';
import { meetsBound, Place, UnsupportedSchema, type NumberBound } from './schema-places.js';

/**
 * The top-level members whose values detection reads (besides every key): their values are always pinned. (The
 * infereval benchmark's detection looks at the keys of `items[0]`, which the shape fixes anyway; it is pinned all
 * the same, so that the rule stays one simple list, watched by a test.)
 */
export const DETECTION_READS: readonly string[] = ['schema_version', 'type', 'items'];

const enum Free {
  /** Any JSON string. */
  String,
  /** Any JSON number without exponent (with at most 15 integer digits). */
  Number,
  /** As Number, without a fraction. */
  Integer,
  /** true or false. */
  Boolean,
}

interface Bound {
  keyword: NumberBound;
  limit: number;
  /** The verdict it gave on the learned row. */
  met: boolean;
}

/** A literal run of the learned row's bytes, then a free value (none after the last run). */
interface Step {
  literal: Uint8Array;
  free: Free | -1;
  /** For a number: the bounds to check. */
  bounds: Bound[];
}

/** A learned shape, checked against the bytes of a row. */
export class RowShape {
  constructor(
    private readonly steps: Step[],
    /** "type@version" of the rows of this shape. */
    readonly key: string,
  ) {}

  /**
   * True when `line` (one JSONL line, without its line break) is a row of this shape: then it is valid. Strings are
   * scanned by WebAssembly in `staged`, the line's copy (see io/string-scan.ts), when there is one (not null), else
   * in JavaScript. Past the end both read a byte no value accepts (the copy's 0x00 after the line, or undefined).
   */
  matches(line: Buffer, staged: Buffer | null = stageBytes(line)): boolean {
    const n = line.length;
    const b = staged ?? line;
    let i = 0;
    for (const step of this.steps) {
      const want = step.literal;
      const m = want.length;
      if (i + m > n) return false;
      for (let k = 0; k < m; k++) if (b[i + k] !== want[k]) return false;
      i += m;
      switch (step.free) {
        case Free.String:
          i = staged ? stagedStringEnd(b, i, n) : stringEnd(b, i, n);
          if (i < 0) return false;
          break;
        case Free.Number:
        case Free.Integer: {
          const end = numberEnd(b, i, step.free === Free.Integer);
          if (end < 0) return false;
          if (step.bounds.length > 0) {
            const value = numberValue(b, i, end);
            for (const bound of step.bounds)
              if (meetsBound(value, bound.keyword, bound.limit) !== bound.met) return false;
          }
          i = end;
          break;
        }
        case Free.Boolean:
          if (b[i] === 0x74 && b[i + 1] === 0x72 && b[i + 2] === 0x75 && b[i + 3] === 0x65) i += 4;
          else if (
            b[i] === 0x66 &&
            b[i + 1] === 0x61 &&
            b[i + 2] === 0x6c &&
            b[i + 3] === 0x73 &&
            b[i + 4] === 0x65
          )
            i += 5;
          else return false;
          break;
      }
    }
    return i === n && isUtf8(line);
  }
}

function skipWs(b: Uint8Array, i: number): number {
  for (;;) {
    const c = b[i];
    if (c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a) i++;
    else return i;
  }
}

/**
 * The offset after a number token at `i`: -?(0|[1-9][0-9]{0,14})(\.[0-9]+)? — no exponent and at most 15 integer
 * digits, so the value is finite — not followed by another digit, '.', 'e' or 'E'; -1 when there is none.
 */
export function numberEnd(b: Uint8Array, i: number, integerOnly: boolean): number {
  if (b[i] === 0x2d) i++;
  const first = b[i];
  if (first === 0x30) i++;
  else if (first >= 0x31 && first <= 0x39) {
    const start = i;
    while (b[i] >= 0x30 && b[i] <= 0x39) i++;
    if (i - start > 15) return -1;
  } else return -1;
  if (b[i] === 0x2e) {
    if (integerOnly) return -1;
    i++;
    if (!(b[i] >= 0x30 && b[i] <= 0x39)) return -1;
    while (b[i] >= 0x30 && b[i] <= 0x39) i++;
  }
  const next = b[i];
  if ((next >= 0x30 && next <= 0x39) || next === 0x2e || next === 0x65 || next === 0x45) return -1;
  return i;
}

/** The value of the number token [i, end) that numberEnd read: exact for an integer, as Number() reads a fraction. */
function numberValue(b: Buffer, i: number, end: number): number {
  const negative = b[i] === 0x2d;
  let value = 0;
  for (let k = negative ? i + 1 : i; k < end; k++) {
    const c = b[k];
    if (c === 0x2e) return Number(b.toString('latin1', i, end));
    value = value * 10 + (c - 0x30);
  }
  // At most 15 digits: every step above is exact. "-0" is -0, as Number("-0").
  return negative ? -value : value;
}

/** The end of the JSON number token at `i` in a valid JSON text (any form: exponent, many digits). */
function anyNumberEnd(b: Uint8Array, i: number): number {
  let k = i + 1;
  for (;;) {
    const c = b[k];
    if ((c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d) k++;
    else return k;
  }
}

/** The root place of each version's schema (null: a keyword the fast path does not understand), made once. */
const roots = new WeakMap<FormatVersion, Place | null>();

function rootPlace(version: FormatVersion): Place | null {
  let root = roots.get(version);
  if (root === undefined) {
    try {
      root = new Place([publishedSchema(version) as Record<string, unknown>]);
    } catch (error) {
      if (!(error instanceof UnsupportedSchema)) throw error;
      root = null;
    }
    roots.set(version, root);
  }
  return root;
}

function notJson(): never {
  throw new Error('row-shape: the learned row is not the JSON it was said to be');
}

/**
 * Learns the shape of a clean row of `version` (its bytes, which the exact path accepted without any diagnostic), or
 * returns undefined when the version's schema uses a keyword the fast path does not understand.
 */
export function learnShape(b: Uint8Array, version: FormatVersion, key: string): RowShape | undefined {
  const root = rootPlace(version);
  if (root === null) return undefined;
  const steps: Step[] = [];
  const text = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  /** Where the current literal run started. */
  let literal = 0;
  let i = skipWs(b, 0);
  const punct = (byte: number): void => {
    if (b[i] !== byte) notJson();
    i = skipWs(b, i + 1);
  };
  const free = (kind: Free, start: number, end: number, bounds: Bound[] = []): void => {
    steps.push({ literal: Uint8Array.prototype.slice.call(b, literal, start), free: kind, bounds });
    literal = end;
    i = skipWs(b, end);
  };
  const value = (place: Place, pinned: boolean): void => {
    const c = b[i];
    if (c === 0x7b) {
      punct(0x7b);
      let first = true;
      while (b[i] !== 0x7d) {
        if (!first) punct(0x2c);
        first = false;
        const keyEnd = stringEnd(b, i, b.length);
        if (keyEnd < 0) notJson();
        const name = JSON.parse(text.toString('utf8', i, keyEnd)) as string;
        i = skipWs(b, keyEnd);
        punct(0x3a);
        const top = place === root && DETECTION_READS.includes(name);
        value(place.member(name), pinned || top);
      }
      punct(0x7d);
      return;
    }
    if (c === 0x5b) {
      punct(0x5b);
      for (let index = 0; b[i] !== 0x5d; index++) {
        if (index > 0) punct(0x2c);
        value(place.element(index), pinned);
      }
      punct(0x5d);
      return;
    }
    const start = i;
    let end: number;
    let kind: 'string' | 'integer' | 'fraction' | 'boolean' | 'null';
    if (c === 0x22) {
      end = stringEnd(b, i, b.length);
      kind = 'string';
    } else if (c === 0x74 || c === 0x66) {
      end = i + (c === 0x74 ? 4 : 5);
      kind = 'boolean';
    } else if (c === 0x6e) {
      end = i + 4;
      kind = 'null';
    } else {
      end = numberEnd(b, i, false);
      kind = numberEnd(b, i, true) === end ? 'integer' : 'fraction';
      // An exponent or a long number: kept as it is, in the literal run.
      if (end < 0) return void (i = skipWs(b, anyNumberEnd(b, i)));
    }
    if (end < 0) notJson();
    const rule = pinned ? ({ free: false } as const) : place.leaf(kind);
    if (!rule.free) return void (i = skipWs(b, end));
    if (kind === 'string') return free(Free.String, start, end);
    if (kind === 'boolean') return free(Free.Boolean, start, end);
    const learned = Number(text.toString('latin1', start, end));
    const bounds = rule.bounds.map((bound) => ({
      ...bound,
      met: meetsBound(learned, bound.keyword, bound.limit),
    }));
    free(rule.integerOnly ? Free.Integer : Free.Number, start, end, bounds);
  };
  try {
    value(root, false);
  } catch (error) {
    if (!(error instanceof UnsupportedSchema)) throw error;
    roots.set(version, null);
    return undefined;
  }
  if (i !== b.length) notJson();
  steps.push({ literal: Uint8Array.prototype.slice.call(b, literal, b.length), free: -1, bounds: [] });
  return new RowShape(steps, key);
}
