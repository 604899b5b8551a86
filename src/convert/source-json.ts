/**
 * Reading the JSON other tools write, for converter sources: Python's `json.dumps` writes bare `NaN`, `Infinity`
 * and `-Infinity` (lm-eval for an error metric over a bad prediction, Inspect for a stderr over one sample), which
 * `JSON.parse` rejects; here they read as the JavaScript numbers NaN, Infinity and -Infinity, so that a converter
 * can tell a non-finite value from an absent one (it is never written as a score: see ResultsBuilder). Anything
 * else that is not JSON is a DataError naming the file, the member when the text came out of an archive, and the
 * line and column. Our own formats (EEE records, `validate`) stay strict: they never come through here.
 */
import { DataError } from '../errors.js';
import { readRegularFile } from '../io/regular-file.js';
import { parseStrictJson } from '../io/strict-json.js';
import { decodeUtf8 } from '../io/utf8.js';
import type { JsonObject } from '../io/json-value.js';

/** `where`: the file, or `file: member name` for an archive member. */
export function parseSourceJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // fall through: Python's non-finite numbers, or a real syntax error
  }
  const replaced = replacePythonNonFinite(text);
  if (replaced !== text) {
    try {
      return JSON.parse(replaced, revivePythonNonFinite);
    } catch {
      // a real syntax error: report it below
    }
  }
  const issue = parseStrictJson(replaced).issues.find((i) => i.code !== 'json.duplicate-key');
  const at = issue ? `line ${issue.line} column ${issue.column}: ${issue.message}` : 'not valid JSON';
  throw new DataError('convert.bad-json', `${where}: ${at}`);
}

/** Reads and parses a JSON file (see `parseSourceJson`). */
export async function readSourceJson(path: string): Promise<{ value: unknown; text: string }> {
  const text = decodeUtf8(await readRegularFile(path), path);
  return { value: parseSourceJson(text, path), text };
}

/**
 * What a bare NaN / Infinity / -Infinity becomes in the text handed to a JSON parser: a string no real document
 * holds (it starts with a NUL character), turned back into the number by `revivePythonNonFinite`.
 */
const SENTINEL: Record<string, string> = {
  NaN: '"\\u0000py:NaN"',
  Infinity: '"\\u0000py:Infinity"',
  '-Infinity': '"\\u0000py:-Infinity"',
};
const REVIVED = new Map<unknown, number>([
  ['\u0000py:NaN', NaN],
  ['\u0000py:Infinity', Infinity],
  ['\u0000py:-Infinity', -Infinity],
]);

/** A JSON.parse reviver: the sentinels of `replacePythonNonFinite` back into NaN / Infinity / -Infinity. */
export function revivePythonNonFinite(_key: string, value: unknown): unknown {
  if (typeof value === 'string' && value.charCodeAt(0) === 0) return REVIVED.get(value) ?? value;
  return value;
}

/** The same, over a value already parsed (by the strict parser, which takes no reviver). */
export function revivePythonNonFiniteIn(value: unknown): unknown {
  if (typeof value === 'string') return revivePythonNonFinite('', value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = revivePythonNonFiniteIn(value[i]);
  } else if (typeof value === 'object' && value !== null) {
    const o = value as Record<string, unknown>;
    for (const k of Object.keys(o)) o[k] = revivePythonNonFiniteIn(o[k]);
  }
  return value;
}

/** JSON text that may hold Python's bare non-finite numbers, parsed; undefined when it is not JSON even so. */
export function parsePythonJson(text: string): unknown {
  const replaced = replacePythonNonFinite(text);
  if (replaced === text) return undefined;
  try {
    return JSON.parse(replaced, revivePythonNonFinite);
  } catch {
    return undefined;
  }
}

/**
 * Bare NaN / Infinity / -Infinity outside strings become sentinel strings (see revivePythonNonFinite); strings
 * are left alone.
 */
export function replacePythonNonFinite(text: string): string {
  if (!/NaN|Infinity/.test(text)) return text;
  let out = '';
  let last = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) {
      inString = true;
      continue;
    }
    let token = '';
    if (text.startsWith('NaN', i)) token = 'NaN';
    else if (text.startsWith('Infinity', i)) token = 'Infinity';
    else if (text.startsWith('-Infinity', i)) token = '-Infinity';
    if (token) {
      out += text.slice(last, i) + SENTINEL[token];
      i += token.length - 1;
      last = i + 1;
    }
  }
  return out + text.slice(last);
}

export { isJsonObject as isObj, type JsonObject as Obj } from '../io/json-value.js';

export const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** A count as EEE writes it (token numbers, sample sizes): a non-negative safe integer. */
export const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/** A source's token counts, each a count or anything else (then absent). */
export interface TokenCounts {
  input: unknown;
  output: unknown;
  total?: unknown;
  cacheRead?: unknown;
  reasoning?: unknown;
}

/**
 * EEE `token_usage` from a source's counts: undefined when neither the input nor the output is a count; the total is
 * the source's own, else input + output; cache reads and reasoning tokens only where the source counts them.
 */
export function tokenUsage(c: TokenCounts): JsonObject | undefined {
  if (!isCount(c.input) && !isCount(c.output)) return undefined;
  const input = isCount(c.input) ? c.input : 0;
  const output = isCount(c.output) ? c.output : 0;
  const out: JsonObject = {
    input_tokens: input,
    output_tokens: output,
    total_tokens: isCount(c.total) ? c.total : input + output,
  };
  if (isCount(c.cacheRead)) out.input_tokens_cache_read = c.cacheRead;
  if (isCount(c.reasoning)) out.reasoning_tokens = c.reasoning;
  return out;
}
