/**
 * Reading the input files of `report`, `retrieval` and `stats`: one JSON document, or JSONL rows with their line
 * numbers. Bad JSON is a DataError naming file:line:column and the stable issue code; a missing file is an IoError.
 */
import { DataError } from '../errors.js';
import { assertRegularFile, readRegularFile } from '../io/regular-file.js';
import { readJsonlFile } from '../io/jsonl.js';
import { parseStrictJson } from '../io/strict-json.js';
import { expectKind } from '../validate/expect-kind.js';

/** The document types a command reads (registry ids); another kind is refused by name (`input.wrong-kind`). */
export interface ExpectKind {
  expect?: readonly string[];
}

export interface Row {
  value: unknown;
  line: number;
}

/** Reads and strictly parses one JSON document (duplicate keys, NaN and the like are errors). */
export async function readJsonDocument(path: string, options: ExpectKind = {}): Promise<unknown> {
  return (await readJsonText(path, options)).value;
}

/** The same, with the text the value was parsed from (for positions, or edits that keep the file's bytes). */
export async function readJsonText(
  path: string,
  options: ExpectKind = {},
): Promise<{ value: unknown; text: string }> {
  const bytes = await readRegularFile(path);
  const parsed = parseStrictJson(bytes);
  if (options.expect)
    expectKind(parsed.ok ? parsed.value : undefined, options.expect, path, undefined, parsed.text);
  const issue = parsed.issues[0];
  if (issue) throw new DataError(issue.code, `${path}:${issue.line}:${issue.column} ${issue.message}`);
  return { value: parsed.value, text: parsed.text };
}

/** Reads every non-blank line of a JSONL file. The first malformed line is a DataError with its position. */
export async function readJsonlRows(path: string, options: ExpectKind = {}): Promise<Row[]> {
  await assertRegularFile(path);
  const rows: Row[] = [];
  for await (const batch of readJsonlFile(path)) {
    for (const { line, bytes, tooLong } of batch) {
      if (tooLong) throw new DataError('json.line-too-long', `${path}:${line}:1 line too long`);
      const parsed = parseStrictJson(bytes);
      const issue = parsed.issues[0];
      if (issue) throw new DataError(issue.code, `${path}:${line}:${issue.column} ${issue.message}`);
      const value = parsed.value;
      if (rows.length === 0 && options.expect) expectKind(value, options.expect, `${path}:${line}`);
      rows.push({ value, line });
    }
  }
  return rows;
}
