// Where a piece of fixture text lies, as a diagnostic reports it: 1-based line and column (columns count code points).
import assert from 'node:assert/strict';

/** Line and column of character index `index` of `text`. */
export function positionAt(text: string, index: number): { line: number; column: number } {
  const before = text.slice(0, index);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: [...before.slice(lineStart)].length + 1 };
}

/**
 * Line and column of the first character of the only occurrence of `needle` in `text`, plus `skip` characters
 * (e.g. the length of `"key": ` to land on the value).
 */
export function positionOf(text: string, needle: string, skip = 0): { line: number; column: number } {
  const index = text.indexOf(needle);
  assert.ok(index >= 0, `fixture lacks ${needle}`);
  assert.equal(text.indexOf(needle, index + 1), -1, `fixture holds ${needle} more than once`);
  return positionAt(text, index + skip);
}

/** The value of `"key": value` in `text`, which must occur once. */
export function valuePosition(text: string, keyAndValue: string): { line: number; column: number } {
  const colon = keyAndValue.indexOf(':');
  const skip =
    colon + 1 + (keyAndValue.slice(colon + 1).length - keyAndValue.slice(colon + 1).trimStart().length);
  return positionOf(text, keyAndValue, skip);
}
