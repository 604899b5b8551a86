/**
 * How an EEE instance row is kept in `samples`: the fields queries need are columns, and `raw` keeps only the rest
 * of the row. A field is *moved* to its column (and left out of `raw`) when it is there with the column's type
 * (`input.reference` and `output.raw` only when they hold exactly one string); anything else stays in `raw`, so no
 * value is ever lost or guessed. Rebuilding puts a moved field back where `raw` lacks it: a non-NULL column whose
 * key is missing from `raw` (and whose parent object is there) was moved. `sampleRow()` here and the SQL view
 * `sample_rows` do the same; the row they give equals the original as a JSON value (key order is not kept).
 *
 * Derived columns (`reference_text`, `output_text` when joined from several strings or taken from `messages`,
 * `epoch`) are filled even when the field itself stays in `raw`.
 */

import { isJsonObject, type JsonObject } from '../io/json-value.js';

/** The values of one row's samples columns (besides record_key and row_index). */
export interface SampleColumns {
  schema_version: string | null;
  evaluation_id: string | null;
  model_id: string | null;
  evaluation_name: string;
  evaluation_result_id: string | null;
  sample_id: string;
  sample_hash: string | null;
  interaction_type: string | null;
  input_text: string | null;
  reference_text: string | null;
  output_text: string | null;
  score: number | null;
  is_correct: boolean | null;
  epoch: number | null;
  /** The rest of the row, as JSON text. */
  raw: string;
}

type Kind = 'string' | 'number' | 'boolean' | 'one-string';

/** A field that moves to a column: its column, its parent object (undefined: the row itself) and key. */
interface MovedField {
  column: keyof SampleColumns;
  parent?: string;
  key: string;
  kind: Kind;
}

/** Every field that may move out of `raw`, in the order the rebuild puts them back. */
export const MOVED_FIELDS: readonly MovedField[] = [
  { column: 'schema_version', key: 'schema_version', kind: 'string' },
  { column: 'evaluation_id', key: 'evaluation_id', kind: 'string' },
  { column: 'model_id', key: 'model_id', kind: 'string' },
  { column: 'evaluation_name', key: 'evaluation_name', kind: 'string' },
  { column: 'evaluation_result_id', key: 'evaluation_result_id', kind: 'string' },
  { column: 'sample_id', key: 'sample_id', kind: 'string' },
  { column: 'sample_hash', key: 'sample_hash', kind: 'string' },
  { column: 'interaction_type', key: 'interaction_type', kind: 'string' },
  { column: 'input_text', parent: 'input', key: 'raw', kind: 'string' },
  { column: 'reference_text', parent: 'input', key: 'reference', kind: 'one-string' },
  { column: 'output_text', parent: 'output', key: 'raw', kind: 'one-string' },
  { column: 'score', parent: 'evaluation', key: 'score', kind: 'number' },
  { column: 'is_correct', parent: 'evaluation', key: 'is_correct', kind: 'boolean' },
];

function movable(value: unknown, kind: Kind): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'one-string':
      return Array.isArray(value) && value.length === 1 && typeof value[0] === 'string';
  }
}

const stringsJoined = (v: unknown): string | null =>
  Array.isArray(v) && v.every((s) => typeof s === 'string') ? v.join('\n') : null;

/**
 * The answer of a row without `output` (a multi-turn or agentic row: EEE 0.3.0 wants `output: null` there): the
 * final answer `evalkit run` states in `metadata.final_answer` (e.g. what `submit` was given), else the last
 * assistant message with text (a turn that only called tools has none).
 */
function conversationAnswer(row: JsonObject): string | null {
  if (isJsonObject(row.metadata) && typeof row.metadata.final_answer === 'string')
    return row.metadata.final_answer;
  const messages = row.messages;
  if (!Array.isArray(messages)) return null;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as JsonObject;
    if (isJsonObject(m) && m.role === 'assistant' && typeof m.content === 'string' && m.content !== '')
      return m.content;
  }
  return null;
}

function epochOf(metadata: unknown): number | null {
  if (!isJsonObject(metadata)) return null;
  const e = metadata.epoch;
  const n = typeof e === 'string' && /^\d{1,9}$/.test(e) ? Number(e) : typeof e === 'number' ? e : NaN;
  return Number.isSafeInteger(n) && n >= 0 && n <= 2 ** 31 - 1 ? n : null;
}

/** Splits one instance row into its columns and the rest (`raw`). The row is not modified. */
export function splitSampleRow(row: JsonObject): SampleColumns {
  const rest: JsonObject = { ...row };
  const input = isJsonObject(row.input) ? { ...row.input } : undefined;
  const output = isJsonObject(row.output) ? { ...row.output } : undefined;
  const evaluation = isJsonObject(row.evaluation) ? { ...row.evaluation } : undefined;
  if (input) rest.input = input;
  if (output) rest.output = output;
  if (evaluation) rest.evaluation = evaluation;
  const parents: Record<string, JsonObject | undefined> = { input, output, evaluation };
  const columns: Record<string, unknown> = {};
  // A row that says its value is missing (`evalkit run`'s row of a failed request or an unscored answer carries
  // `metadata.score_missing: "true"` beside the placeholder score 0 EEE requires) keeps its evaluation in `raw`:
  // its score column stays NULL, so it is no scored row to `leaderboard`, `compare` or `reconcile`, as it is none
  // to the record's own figures.
  const unscored = isJsonObject(row.metadata) && row.metadata.score_missing === 'true';
  for (const f of MOVED_FIELDS) {
    if (unscored && f.parent === 'evaluation') continue;
    const holder = f.parent === undefined ? rest : parents[f.parent];
    const value = holder?.[f.key];
    if (holder && movable(value, f.kind)) {
      columns[f.column] = f.kind === 'one-string' ? (value as string[])[0] : value;
      delete holder[f.key];
    }
  }
  // Derived columns, filled even when the field stays in the rest.
  if (columns.reference_text === undefined) columns.reference_text = stringsJoined(input?.reference);
  if (columns.output_text === undefined)
    columns.output_text = stringsJoined(output?.raw) ?? (output ? null : conversationAnswer(row));
  return {
    schema_version: (columns.schema_version as string) ?? null,
    evaluation_id: (columns.evaluation_id as string) ?? null,
    model_id: (columns.model_id as string) ?? null,
    evaluation_name:
      (columns.evaluation_name as string) ??
      (typeof row.evaluation_name === 'string' ? row.evaluation_name : ''),
    evaluation_result_id: (columns.evaluation_result_id as string) ?? null,
    sample_id: (columns.sample_id as string) ?? (typeof row.sample_id === 'string' ? row.sample_id : ''),
    sample_hash: (columns.sample_hash as string) ?? null,
    interaction_type: (columns.interaction_type as string) ?? null,
    input_text: (columns.input_text as string) ?? null,
    reference_text: (columns.reference_text as string | null) ?? null,
    output_text: (columns.output_text as string | null) ?? null,
    score: (columns.score as number) ?? null,
    is_correct: (columns.is_correct as boolean) ?? null,
    epoch: epochOf(row.metadata),
    raw: JSON.stringify(rest),
  };
}

/**
 * Rebuilds the whole instance row from a samples row (its columns and `raw`, as read from the store: `raw` as text
 * or already parsed). Equal to the row that was ingested, as a JSON value.
 */
export function sampleRow(stored: Partial<Record<keyof SampleColumns, unknown>>): JsonObject {
  const raw = typeof stored.raw === 'string' ? JSON.parse(stored.raw) : structuredClone(stored.raw);
  const row = raw as JsonObject;
  for (const f of MOVED_FIELDS) {
    const value = stored[f.column];
    if (value === null || value === undefined) continue;
    const holder = f.parent === undefined ? row : row[f.parent];
    if (!isJsonObject(holder) || f.key in holder) continue;
    holder[f.key] = f.kind === 'one-string' ? [value] : value;
  }
  return row;
}

const sqlString = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/**
 * The same rebuild as a DuckDB SQL expression over a `samples` row (used by the view `sample_rows`): one JSON merge
 * patch per moved field, applied only when its column is set and `raw` lacks the key under an existing parent.
 */
function sampleRowSql(): string {
  let expr = 'raw';
  for (const f of MOVED_FIELDS) {
    const path = f.parent === undefined ? `$.${f.key}` : `$.${f.parent}.${f.key}`;
    const value = f.kind === 'one-string' ? `json_array(${f.column})` : f.column;
    const inner = `json_object(${sqlString(f.key)}, ${value})`;
    const patch = f.parent === undefined ? inner : `json_object(${sqlString(f.parent)}, ${inner})`;
    const parentIsObject =
      f.parent === undefined ? 'true' : `json_type(raw, ${sqlString(`$.${f.parent}`)}) = 'OBJECT'`;
    expr =
      `json_merge_patch(${expr}, CASE WHEN ${f.column} IS NOT NULL AND ${parentIsObject} ` +
      `AND NOT json_exists(raw, ${sqlString(path)}) THEN ${patch} ELSE '{}'::JSON END)`;
  }
  return expr;
}

export const SAMPLE_ROW_SQL = sampleRowSql();

/**
 * The same split done by DuckDB over a JSONL file (`read_ndjson_objects ... WITH ORDINALITY`, one `json` per line):
 * an `INSERT INTO samples` with the record key as $1 and the file as $2. Each line is parsed three times in all:
 * once for the JSON type of every path a column looks at (one `json_type` with a list of paths), once for the
 * values of the scalar ones (one `json_extract_string` with a list of paths), and once more for the rest (a merge
 * patch deleting the moved fields). A one-string array is told by the types of its first two elements, so no
 * fragment is extracted and parsed again; the rare shapes (an array of several strings, a conversation's messages)
 * are extracted only on the rows that have them. Used for 0.3.0 samples files, so DuckDB reads and stores the rows
 * on its own threads while the validator reads the same file.
 */
function insertFromJsonlSql(): string {
  const typed: string[] = [];
  const scalar: string[] = [];
  const slot = (list: string[], p: string): number => {
    const i = list.indexOf(p);
    return (i < 0 ? list.push(p) - 1 : i) + 1;
  };
  /** The JSON type of the value at a path (NULL where there is none). */
  const type = (p: string): string => `t[${slot(typed, p)}]`;
  /** The value at a path as text: a string unescaped, a number or boolean as its JSON text. */
  const text = (p: string): string => `s[${slot(scalar, p)}]`;
  const path = (f: MovedField): string => (f.parent === undefined ? `$.${f.key}` : `$.${f.parent}.${f.key}`);
  const missing = '$.metadata.score_missing';
  const unscored = `coalesce(${type(missing)} = 'VARCHAR' AND ${text(missing)} = 'true', false)`;
  const movedWhen = (f: MovedField): string => {
    // A row that says its value is missing keeps its evaluation in the rest (as splitSampleRow does).
    if (f.parent === 'evaluation') return `(NOT ${unscored} AND ${movedAs(f)})`;
    return movedAs(f);
  };
  const movedAs = (f: MovedField): string => {
    const p = path(f);
    if (f.kind === 'string') return `${type(p)} = 'VARCHAR'`;
    if (f.kind === 'number') return `${type(p)} IN ('UBIGINT', 'BIGINT', 'DOUBLE')`;
    if (f.kind === 'boolean') return `${type(p)} = 'BOOLEAN'`;
    return `(${type(p)} = 'ARRAY' AND ${type(`${p}[0]`)} = 'VARCHAR' AND ${type(`${p}[1]`)} IS NULL)`;
  };
  const value = (f: MovedField): string => {
    const p = path(f);
    if (f.kind === 'string') return text(p);
    if (f.kind === 'number') return `TRY_CAST(${text(p)} AS DOUBLE)`;
    if (f.kind === 'boolean') return `TRY_CAST(${text(p)} AS BOOLEAN)`;
    return text(`${p}[0]`);
  };
  const field = (column: string): MovedField => MOVED_FIELDS.find((f) => f.column === column)!;
  const moved = (column: string): string =>
    `CASE WHEN ${movedWhen(field(column))} THEN ${value(field(column))} END`;
  const joined = (p: string): string =>
    `CASE WHEN ${type(p)} = 'ARRAY' AND list_bool_and(list_transform(json_extract(json, ${sqlString(`${p}[*]`)}), x -> json_type(x) = 'VARCHAR')) IS NOT false ` +
    `THEN array_to_string(json_extract_string(json, ${sqlString(`${p}[*]`)}), chr(10)) END`;
  const lastAssistant = `list_filter(json_extract(json, '$.messages[*]'), m -> json_type(m) = 'OBJECT' AND json_extract_string(m, '$.role') = 'assistant' AND json_type(m, '$.content') = 'VARCHAR' AND json_extract_string(m, '$.content') <> '')`;
  const finalAnswer = '$.metadata.final_answer';
  const outputText =
    `CASE WHEN ${movedWhen(field('output_text'))} THEN ${value(field('output_text'))} ` +
    `WHEN ${type('$.output')} = 'OBJECT' THEN ${joined('$.output.raw')} ` +
    `WHEN ${type(finalAnswer)} = 'VARCHAR' THEN ${text(finalAnswer)} ` +
    `WHEN ${type('$.messages')} = 'ARRAY' THEN json_extract_string(${lastAssistant}[-1], '$.content') END`;
  const referenceText = `CASE WHEN ${movedWhen(field('reference_text'))} THEN ${value(field('reference_text'))} ELSE ${joined('$.input.reference')} END`;
  const e = '$.metadata.epoch';
  const number = `TRY_CAST(${text(e)} AS DOUBLE)`;
  const epoch =
    `CASE WHEN ${type(e)} = 'VARCHAR' AND regexp_full_match(${text(e)}, '[0-9]{1,9}') THEN TRY_CAST(${text(e)} AS INTEGER) ` +
    `WHEN ${type(e)} IN ('UBIGINT', 'BIGINT', 'DOUBLE') AND ${number} BETWEEN 0 AND 2147483647 AND ${number} = floor(${number}) ` +
    `THEN ${number}::INTEGER END`;
  // The rest: a merge patch deleting each moved field (a null deletes; an object merges into an object). A parent
  // is named in the patch only when one of its fields moved, so it is an object.
  const removal = (f: MovedField): string =>
    `CASE WHEN ${movedWhen(f)} THEN ${sqlString(`"${f.key}":null`)} END`;
  const parents = [...new Set(MOVED_FIELDS.flatMap((f) => (f.parent ? [f.parent] : [])))];
  const parentPatch = (p: string): string => {
    const inner = `concat_ws(',', ${MOVED_FIELDS.filter((f) => f.parent === p)
      .map(removal)
      .join(', ')})`;
    return `CASE WHEN ${inner} <> '' THEN '"${p}":{' || ${inner} || '}' END`;
  };
  const patch = `'{' || concat_ws(',', ${MOVED_FIELDS.filter((f) => f.parent === undefined)
    .map(removal)
    .join(', ')}, ${parents.map(parentPatch).join(', ')}) || '}'`;
  const columns: Record<string, string> = {
    record_key: '$1',
    row_index: '(ordinality - 1)::BIGINT',
    evaluation_result_id: moved('evaluation_result_id'),
    evaluation_name: `coalesce(${moved('evaluation_name')}, '')`,
    sample_id: `coalesce(${moved('sample_id')}, '')`,
    sample_hash: moved('sample_hash'),
    epoch: `CASE WHEN ${type('$.metadata')} = 'OBJECT' THEN ${epoch} END`,
    interaction_type: moved('interaction_type'),
    input_text: moved('input_text'),
    reference_text: referenceText,
    output_text: outputText,
    score: moved('score'),
    is_correct: moved('is_correct'),
    raw: `json_merge_patch(json, (${patch})::JSON)`,
    schema_version: moved('schema_version'),
    evaluation_id: moved('evaluation_id'),
    model_id: moved('model_id'),
  };
  const select = Object.entries(columns)
    .map(([name, expr]) => `${expr} AS ${name}`)
    .join(',\n  ');
  const list = (paths: string[]): string => `[${paths.map(sqlString).join(', ')}]`;
  return (
    `INSERT INTO samples BY NAME SELECT\n  ${select}\n` +
    `FROM (SELECT ordinality, json, json_type(json, ${list(typed)}) AS t, json_extract_string(json, ${list(scalar)}) AS s ` +
    `FROM read_ndjson_objects($2) WITH ORDINALITY)`
  );
}

/** `INSERT INTO samples` of every line of a 0.3.0 JSONL file ($2), under record key $1. */
export const INSERT_SAMPLES_FROM_JSONL_SQL = insertFromJsonlSql();
