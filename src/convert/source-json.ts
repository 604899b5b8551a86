/**
 * Reading the JSON other tools write, for converter sources: Python's `json.dumps` writes bare `NaN` and
 * `Infinity` (Inspect does, for a stderr over one sample), which `JSON.parse` rejects; here they read as `null`
 * (the converters then treat such a number as absent and say so). Anything else that is not JSON is a DataError
 * naming the file, the member when the text came out of an archive, and the line and column.
 */
import { DataError } from '../errors.js';
import { readRegularFile } from '../io/regular-file.js';
import { parseStrictJson } from '../io/strict-json.js';
import { decodeUtf8 } from '../io/utf8.js';

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
      return JSON.parse(replaced);
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

/** Bare NaN / Infinity / -Infinity outside strings become null; strings are left alone. */
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
      out += text.slice(last, i) + 'null';
      i += token.length - 1;
      last = i + 1;
    }
  }
  return out + text.slice(last);
}

export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** A count as EEE writes it (token numbers, sample sizes): a non-negative safe integer. */
export const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
