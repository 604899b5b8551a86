/**
 * The one encoding rule for text read from other tools (converter sources: JSON, JSONL, archive members; survey
 * CSV): UTF-8, with a byte order mark at the start of the file dropped; bytes that are not UTF-8 are a DataError
 * naming the file, line and column, never replaced by U+FFFD. (The validator applies its own, stricter verdict to
 * EEE documents: a BOM there is a finding, see strict-json.ts.)
 */
import { constants, isUtf8 } from 'node:buffer';
import { DataError } from '../errors.js';
import { firstInvalidUtf8 } from './strict-json.js';

export const INVALID_UTF8 = 'encoding.invalid-utf8';

/** True when `bytes` starts with the UTF-8 byte order mark EF BB BF. */
export function startsWithBom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

/** Where the first byte that is not UTF-8 sits: line and column (in characters) from `firstLine`, and the byte. */
export function invalidUtf8At(
  bytes: Uint8Array,
  firstLine = 1,
): { offset: number; line: number; column: number; byte: number } | undefined {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isUtf8(view)) return undefined;
  const offset = firstInvalidUtf8(view);
  if (offset < 0) return undefined;
  let line = firstLine;
  let lineStart = 0;
  for (let i = view.indexOf(0x0a); i !== -1 && i < offset; i = view.indexOf(0x0a, i + 1)) {
    line++;
    lineStart = i + 1;
  }
  const column = [...view.subarray(lineStart, offset).toString('utf8')].length + 1;
  return { offset, line, column, byte: view[offset] };
}

/** The message for bytes that are not UTF-8 (without the file:line:column prefix). */
export function invalidUtf8Message(byte: number): string {
  return `invalid UTF-8 byte 0x${byte.toString(16).padStart(2, '0')}: the file is not UTF-8 text (save it as UTF-8)`;
}

/**
 * Decodes a whole file's bytes (or an archive member's) as text by the rule above. `where` names the file (or
 * `file: member name`); errors read `where:line:column: invalid UTF-8 byte 0x…`.
 */
export function decodeUtf8(bytes: Uint8Array, where: string, code = INVALID_UTF8): string {
  const bad = invalidUtf8At(bytes);
  if (bad) throw new DataError(code, `${where}:${bad.line}:${bad.column}: ${invalidUtf8Message(bad.byte)}`);
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    return (startsWithBom(view) ? view.subarray(3) : view).toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_STRING_TOO_LONG') throw error;
    throw new DataError(
      'input.too-large',
      `${where}: ${view.length} bytes of text is more than can be read as one document (at most ${constants.MAX_STRING_LENGTH} characters)`,
    );
  }
}
