/**
 * What the server sends is bounded: every string of an answer longer than `TEXT_CAP` UTF-16 units is cut there and
 * ends with a visible marker that says how much is shown and where the rest is (`/api/text?…&offset=N`, fetched in
 * pieces of at most `TEXT_PIECE_MAX` characters), and the answer lists what was cut under `truncated_texts`. An
 * answer still larger than `MAX_RESPONSE_BYTES` once cut is refused with a clear error rather than sent.
 */
import { UsageError } from '../errors.js';
import { isJsonObject } from '../io/json-value.js';
import { canonicalQuery, type Endpoint, type Params } from './shared/query.js';

/** Characters (UTF-16 units) of one string sent inline. */
export const TEXT_CAP = 64 * 1024;
/** The largest answer the server sends, in bytes of JSON. */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

export interface Truncation {
  /** JSON pointer of the string in the answer. */
  pointer: string;
  /** Its length in characters (code points), and how many are shown. */
  chars: number;
  shown: number;
  /** Where the rest is, from the first character not shown (absent when no endpoint serves it). */
  rest?: string;
}

const escapePointer = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');
const pointerOf = (path: string[]) => path.map((p) => `/${escapePointer(p)}`).join('');

/** Counts the code points of a string (what DuckDB's substr and length count). */
function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff || i + 1 >= s.length) n++;
    else {
      const d = s.charCodeAt(i + 1);
      n++;
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return n;
}

/** The `text` request that serves the string at `path` of an answer, when there is one. */
function textRequest(endpoint: Endpoint, params: Params, path: string[]): Params | undefined {
  const [first, ...inner] = path;
  if (endpoint === 'sample' && params.record && params.row) {
    const at = { record: params.record, row: params.row };
    if (first === 'input_text' || first === 'reference_text' || first === 'output_text')
      return inner.length === 0 ? { ...at, field: first } : undefined;
    if (first === 'raw') return { ...at, field: 'raw', pointer: pointerOf(inner) };
  }
  if (endpoint === 'record' && params.key && first === 'raw') {
    return { record: params.key, field: 'raw', pointer: pointerOf(inner) };
  }
  return undefined;
}

/** A text cut after `shown` of its `chars` characters, with the visible marker that says so and where the rest is. */
export function markCut(head: string, shown: number, chars: number, rest: string | undefined): string {
  return `${head}\n[… evalkit view cut this text: ${shown.toLocaleString('en-US')} of ${chars.toLocaleString('en-US')} characters shown; ${rest ? `the rest: ${rest}` : 'the whole text: evalkit query'}]`;
}

/** Cuts the answer's long strings in place (see the module comment) and returns it. */
export function capTexts(endpoint: Endpoint, params: Params, value: unknown): unknown {
  // The pieces of a cut text are bounded by their own limit (TEXT_PIECE_MAX).
  if (endpoint === 'text') return value;
  const given = (value as { truncated_texts?: unknown } | null)?.truncated_texts;
  const truncated: Truncation[] = Array.isArray(given) ? (given as Truncation[]) : [];
  const alreadyCut = new Set(truncated.map((t) => t.pointer));
  const path: string[] = [];
  const visit = (node: unknown): unknown => {
    if (typeof node === 'string') {
      if (node.length <= TEXT_CAP || alreadyCut.has(pointerOf(path))) return node;
      let cut = TEXT_CAP;
      const last = node.charCodeAt(cut - 1);
      if (last >= 0xd800 && last <= 0xdbff) cut--;
      const head = node.slice(0, cut);
      const shown = codePoints(head);
      const chars = codePoints(node);
      const request = textRequest(endpoint, params, path);
      const rest = request ? `/api/text?${canonicalQuery({ ...request, offset: String(shown) })}` : undefined;
      truncated.push({ pointer: pointerOf(path), chars, shown, ...(rest ? { rest } : {}) });
      return markCut(head, shown, chars, rest);
    }
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        path.push(String(i));
        node[i] = visit(node[i]);
        path.pop();
      }
      return node;
    }
    if (node !== null && typeof node === 'object') {
      const record = node as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        path.push(key);
        record[key] = visit(record[key]);
        path.pop();
      }
      return node;
    }
    return node;
  };
  const capped = visit(value);
  if (truncated.length > 0 && isJsonObject(capped)) capped.truncated_texts = truncated;
  return capped;
}

/** The answer as JSON, refused when larger than `MAX_RESPONSE_BYTES`. */
export function boundedJson(value: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(value));
  if (body.length > MAX_RESPONSE_BYTES) {
    throw new UsageError(
      'view.too-large',
      `the answer is ${(body.length / 1024 / 1024).toFixed(1)} MB, more than the viewer sends (${MAX_RESPONSE_BYTES / 1024 / 1024} MB): narrow it, or read the store with evalkit query`,
    );
  }
  return body;
}
