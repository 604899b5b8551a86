/**
 * JSON read out of a model's answer or a judge's reply, bounded: nesting deeper than the project's JSON depth limit
 * (io/strict-json.ts) is a scorer error for the sample (code `run.json-depth`) instead of a stack overflow in
 * whatever walks the value next (JSON.stringify, a schema's deep-equality keywords); finding JSON values inside a text
 * is one linear pass; a user's JSON Schema matches `pattern` keywords with the bounded regex engine.
 */
import { DataError } from '../../errors.js';
import { boundedRegExpEngine } from '../../io/bounded-regex.js';
import { DEFAULT_MAX_DEPTH, parseStrictJson } from '../../io/strict-json.js';
import { createAjv } from '../../validate/ajv.js';

export const JSON_DEPTH_CODE = 'run.json-depth';

const tooDeep = (length: number): DataError =>
  new DataError(
    JSON_DEPTH_CODE,
    `the answer holds JSON nested deeper than ${DEFAULT_MAX_DEPTH} levels (${length} characters); no value for this sample`,
  );

/** A text parsed as one JSON value; `ok: false` when it is no JSON. Too deep a value throws (`run.json-depth`). */
export function parseAnswerJson(text: string): { ok: true; value: unknown } | { ok: false } {
  const parsed = parseStrictJson(text, { maxDepth: DEFAULT_MAX_DEPTH });
  if (parsed.ok) return { ok: true, value: parsed.value };
  if (parsed.issues.some((i) => i.code === 'json.nesting')) throw tooDeep(text.length);
  return { ok: false };
}

interface Span {
  open: number;
  close: number;
  /** Levels of nesting from this bracket down (1 for `[]`). */
  depth: number;
}

/**
 * The bracketed spans of a text (`{…}` and `[…]`), matched in one pass: brackets inside JSON strings do not count,
 * a string never spans a line (JSON forbids raw control characters in one), and a wrong closing bracket ends every
 * open span.
 */
function bracketSpans(text: string): Span[] {
  const spans: Span[] = [];
  const stack: { pos: number; close: string; inner: number }[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      else if (c < ' ') {
        // No open bracket can start a JSON value: its string holds a raw control character.
        stack.length = 0;
        inString = false;
      }
      continue;
    }
    if (c === '{' || c === '[') stack.push({ pos: i, close: c === '{' ? '}' : ']', inner: 0 });
    else if (stack.length === 0) continue;
    else if (c === '"') inString = true;
    else if (c === '}' || c === ']') {
      const top = stack.pop()!;
      if (top.close !== c) {
        stack.length = 0;
        continue;
      }
      const depth = top.inner + 1;
      spans.push({ open: top.pos, close: i, depth });
      const parent = stack.at(-1);
      if (parent !== undefined && parent.inner < depth) parent.inner = depth;
    }
  }
  return spans.sort((a, b) => a.open - b.open);
}

/**
 * Every JSON object or array inside a text, left to right, each the longest from where it starts (promptfoo's
 * contains-json looks for any). One value nested deeper than the limit throws (`run.json-depth`).
 */
export function jsonValuesIn(text: string): unknown[] {
  const found: unknown[] = [];
  let after = -1;
  for (const span of bracketSpans(text)) {
    if (span.open <= after) continue;
    if (span.depth > DEFAULT_MAX_DEPTH) throw tooDeep(text.length);
    try {
      found.push(JSON.parse(text.slice(span.open, span.close + 1)));
      after = span.close;
    } catch {
      // not JSON: a span inside it may be
    }
  }
  return found;
}

/** A user's JSON Schema (draft-07) as a check; its `pattern` keywords run with the regex time bound. */
export function compileUserSchema(schema: object): (value: unknown) => boolean {
  return createAjv('draft-07', {
    strict: false,
    code: { regExp: boundedRegExpEngine as never },
  }).compile(schema) as (value: unknown) => boolean;
}
