// Test oracle for `stats --in-place`: puts back, in the new text of an aggregate, every value `stats` may write
// (score_details.uncertainty, the details keys, details when it was missing or empty) as the old text had it, or
// cuts it out when the old text had none. The result must be the old text byte for byte when nothing else changed.
// Positions come from src/io/strict-json.ts (`locatePointers`), not from the module under test.
import { isDeepStrictEqual } from 'node:util';
import { isJsonObject, type JsonObject } from '../../src/io/json-value.js';
import { locatePointers, type TextPosition } from '../../src/io/strict-json.js';

/** Offset of a 1-based line:column whose column counts code points. */
function offsetOf(text: string, { line, column }: TextPosition): number {
  let at = 0;
  for (let l = 1; l < line; l++) at = text.indexOf('\n', at) + 1;
  for (let c = 1; c < column; c++) at += text.codePointAt(at)! > 0xffff ? 2 : 1;
  return at;
}

/** Offset just after the JSON value that starts at `start`. */
function valueEnd(text: string, start: number): number {
  let depth = 0;
  let k = start;
  do {
    const c = text[k];
    if (c === '"') {
      k++;
      while (text[k] !== '"') k += text[k] === '\\' ? 2 : 1;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    else if (depth === 0) {
      while (k < text.length && !/[,\]}\s]/.test(text[k])) k++;
      return k;
    }
    k++;
  } while (depth > 0);
  return k;
}

/** Pointers of the values `stats` wrote, each with whether the old text had a value there. */
function writtenPointers(before: JsonObject, after: JsonObject): [string, boolean][] {
  const written: [string, boolean][] = [];
  const oldResults = before.evaluation_results as unknown[];
  (after.evaluation_results as unknown[]).forEach((r, i) => {
    const details = isJsonObject(r) ? r.score_details : undefined;
    if (!isJsonObject(details)) return;
    const old = oldResults[i] as JsonObject;
    const oldDetails: JsonObject = isJsonObject(old.score_details) ? old.score_details : {};
    const base = `/evaluation_results/${i}/score_details`;
    if (!isDeepStrictEqual(oldDetails.uncertainty, details.uncertainty))
      written.push([`${base}/uncertainty`, 'uncertainty' in oldDetails]);
    const was = oldDetails.details;
    const now = details.details;
    if (isJsonObject(was) && Object.keys(was).length > 0 && isJsonObject(now)) {
      for (const k of Object.keys(now))
        if (!isDeepStrictEqual(was[k], now[k])) written.push([`${base}/details/${k}`, k in was]);
    } else if (!isDeepStrictEqual(was, now)) written.push([`${base}/details`, 'details' in oldDetails]);
  });
  return written;
}

/** The new text with the written values put back as they were; also how many values were put back. */
export function undoStatsWrites(oldText: string, newText: string): { text: string; undone: number } {
  const written = writtenPointers(JSON.parse(oldText) as JsonObject, JSON.parse(newText) as JsonObject);
  const inNew = locatePointers(
    newText,
    written.map(([p]) => p),
  );
  const inOld = locatePointers(
    oldText,
    written.filter(([, existed]) => existed).map(([p]) => p),
  );
  const swaps: { start: number; end: number; text: string }[] = [];
  for (const [pointer, existed] of written) {
    const start = offsetOf(newText, inNew.get(pointer)!);
    const end = valueEnd(newText, start);
    if (existed) {
      const oldStart = offsetOf(oldText, inOld.get(pointer)!);
      swaps.push({ start, end, text: oldText.slice(oldStart, valueEnd(oldText, oldStart)) });
      continue;
    }
    // A new member: cut `, "key": value` (its key must be the pointer's last segment).
    const key = pointer.slice(pointer.lastIndexOf('/') + 1);
    const from = Math.max(0, start - key.length - 200);
    const m = new RegExp(`,\\s*"${key}"\\s*:\\s*$`).exec(newText.slice(from, start));
    if (!m) throw new Error(`no ', "${key}":' before ${pointer}`);
    swaps.push({ start: from + m.index, end, text: '' });
  }
  swaps.sort((a, b) => b.start - a.start);
  let text = newText;
  for (const s of swaps) text = text.slice(0, s.start) + s.text + text.slice(s.end);
  return { text, undone: swaps.length };
}
