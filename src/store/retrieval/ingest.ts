/**
 * Ingesting retrieval files (gold rows, result rows, events; JSONL) into the store's retrieval tables. Rows are
 * checked against their 0.1 schema; an invalid row is reported (file, line, pointer, code) and not stored. Result
 * rows without ranking metrics are scored on ingest against their gold row (the same library code as
 * `retrieval score`); rows that carry metrics keep them, and a recomputation that disagrees is a warning.
 * Every row is keyed by its content, so ingesting a file twice adds nothing.
 */
import { createHash } from 'node:crypto';
import type { Diagnostic } from '../../diagnostics.js';
import { DataError } from '../../errors.js';
import { findType } from '../../formats/registry.js';
import { canonicalJson } from '../../io/canonical.js';
import { readJsonlFile } from '../../io/jsonl.js';
import { parseStrictJson } from '../../io/strict-json.js';
import { scoreResults, type Located, type ResultRow } from '../../metrics/retrieval/score.js';
import { createAjv } from '../../validate/ajv.js';
import type { Store } from '../db.js';
import { eventProblem, EVENT_COLUMNS, eventValues, storeTimestamp } from './events.js';
import {
  GOLD_COLUMNS,
  insertIgnoringDuplicates,
  RESULT_COLUMNS,
  RETRIEVAL_DDL,
  sqlStrings,
  type Column,
} from './tables.js';
import type { JsonObject } from '../../io/json-value.js';

export type RetrievalKind = 'gold' | 'result' | 'event';

export async function ensureRetrievalTables(store: Store): Promise<void> {
  for (const ddl of RETRIEVAL_DDL) await store.connection.run(ddl);
}

/** Whether the store has the retrieval tables (a store never given retrieval data has none). */
export async function hasRetrievalTables(store: Store): Promise<boolean> {
  const rows = await store.all<{ n: number }>(
    `SELECT count(*)::INTEGER AS n FROM information_schema.tables WHERE table_name = 'retrieval_results'`,
  );
  return rows[0].n > 0;
}

/** The retrieval kind of a parsed JSONL row, or undefined. */
export function retrievalKindOf(doc: unknown): RetrievalKind | undefined {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return undefined;
  for (const [kind, id] of [
    ['event', 'retrieval.event'],
    ['result', 'retrieval.result'],
    ['gold', 'retrieval.gold'],
  ] as const)
    if (findType(id)?.looksLike(doc as JsonObject)) return kind;
  return undefined;
}

/** The retrieval kind of a JSONL file, judged by its first non-blank line; undefined when it is not one. */
export async function retrievalFileKind(path: string): Promise<RetrievalKind | undefined> {
  if (!path.endsWith('.jsonl')) return undefined;
  for await (const batch of readJsonlFile(path, { end: 4 * 1024 * 1024 })) {
    for (const { bytes } of batch) {
      const parsed = parseStrictJson(bytes);
      if (parsed.issues.length > 0) return undefined;
      return retrievalKindOf(parsed.value);
    }
  }
  return undefined;
}

const TYPE_IDS: Record<RetrievalKind, string> = {
  gold: 'retrieval.gold',
  result: 'retrieval.result',
  event: 'retrieval.event',
};

const validators = new Map<RetrievalKind, ReturnType<ReturnType<typeof createAjv>['compile']>>();
function validatorOf(kind: RetrievalKind) {
  let v = validators.get(kind);
  if (!v) {
    const version = findType(TYPE_IDS[kind])!.versions.find((x) => x.version === '0.1')!;
    v = createAjv(version.dialect).compile(version.schema);
    validators.set(kind, v);
  }
  return v;
}

const rowKey = (value: unknown): string => createHash('sha256').update(canonicalJson(value)).digest('hex');
const jsonOrNull = (v: unknown): string | null => (v === undefined ? null : JSON.stringify(v));
const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** A metric's value as a number column: numbers as they are, booleans as 1/0. */
function metricNumber(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return null;
}

const SAFE_COLUMN = /^[a-z][a-z0-9_]{0,62}$/;
/** Metric names that get a DOUBLE column of their own. */
export function metricColumn(name: string): boolean {
  return SAFE_COLUMN.test(name) && !RESULT_COLUMNS.some((c) => c.name === name);
}

const RANKING = /^(p_at_\d+|recall_at_\d+|ndcg_\d+|mrr_\d+)$/;
const TOLERANCE = 1e-9;

export interface RetrievalIngestOutcome {
  kind: RetrievalKind;
  rows: number;
  added: number;
  skipped: number;
  rejected: number;
  scored: number;
  diagnostics: Diagnostic[];
}

/** Reads every row of a JSONL file with its line; a malformed line is a DataError with its position. */
async function readRows(path: string, shown: string): Promise<Located<unknown>[]> {
  const rows: Located<unknown>[] = [];
  for await (const batch of readJsonlFile(path)) {
    for (const { line, bytes, tooLong } of batch) {
      if (tooLong) throw new DataError('json.line-too-long', `${shown}:${line}:1 line too long`);
      const parsed = parseStrictJson(bytes);
      const issue = parsed.issues[0];
      if (issue) throw new DataError(issue.code, `${shown}:${line}:${issue.column} ${issue.message}`);
      rows.push({ value: parsed.value, line });
    }
  }
  return rows;
}

/** The gold rows the store holds for these ids (the latest stored row of each id). */
async function storedGold(store: Store, ids: string[]): Promise<Map<string, JsonObject>> {
  const found = new Map<string, JsonObject>();
  if (ids.length === 0) return found;
  const rows = await store.all<{ id: string; raw: string }>(
    `SELECT id, raw::VARCHAR AS raw FROM retrieval_gold WHERE id IN (${sqlStrings(ids)}) ORDER BY ingested_at, row_key`,
  );
  for (const row of rows) found.set(row.id, JSON.parse(row.raw) as JsonObject);
  return found;
}

/** Ingests one retrieval file; one transaction for the file. */
export async function ingestRetrievalFile(
  store: Store,
  path: string,
  shown: string,
  kind: RetrievalKind,
  ingestId: string,
  now = Date.now(),
): Promise<RetrievalIngestOutcome> {
  await ensureRetrievalTables(store);
  const outcome: RetrievalIngestOutcome = {
    kind,
    rows: 0,
    added: 0,
    skipped: 0,
    rejected: 0,
    scored: 0,
    diagnostics: [],
  };
  const valid: Located<JsonObject>[] = [];
  const validate = validatorOf(kind);
  for (const row of await readRows(path, shown)) {
    outcome.rows++;
    const problem =
      kind === 'event'
        ? eventProblem(row.value, { maxFutureSkewMs: Number.POSITIVE_INFINITY })
        : validate(row.value)
          ? undefined
          : {
              code: `schema.${validate.errors?.[0]?.keyword ?? 'invalid'}`,
              message:
                `not a valid ${TYPE_IDS[kind]} 0.1 row: ${validate.errors?.[0]?.instancePath || '/'} ${validate.errors?.[0]?.message ?? ''}`.trim(),
              pointer: validate.errors?.[0]?.instancePath ?? '',
            };
    if (problem) {
      outcome.rejected++;
      outcome.diagnostics.push({
        file: shown,
        line: row.line,
        column: 1,
        pointer: 'pointer' in problem ? String(problem.pointer) : '',
        severity: 'error',
        code: problem.code,
        message: problem.message,
      });
    } else valid.push(row as Located<JsonObject>);
  }

  const table =
    kind === 'gold' ? 'retrieval_gold' : kind === 'result' ? 'retrieval_results' : 'retrieval_events';
  const counted = async (): Promise<number> =>
    (await store.all<{ n: number }>(`SELECT count(*)::BIGINT AS n FROM ${table}`))[0].n;
  const c = store.connection;
  await c.run('BEGIN TRANSACTION');
  try {
    const before = await counted();
    const ingestedAt = storeTimestamp(now);
    if (kind === 'gold') {
      const rows = valid.map(({ value: g }) => [
        rowKey(g),
        String(g.id),
        String(g.query),
        JSON.stringify(g.expected_ids),
        jsonOrNull(g.entities),
        JSON.stringify(g.layers),
        jsonOrNull(g.tags),
        shown,
        ingestId,
        ingestedAt,
        JSON.stringify(g),
      ]);
      await insertIgnoringDuplicates(c, 'retrieval_gold', GOLD_COLUMNS, rows);
    } else if (kind === 'event') {
      const rows = valid.map(({ value }) => eventValues(value, 'ingest', now, shown));
      await insertIgnoringDuplicates(c, 'retrieval_events', EVENT_COLUMNS, rows);
    } else {
      const scored = await scoreOnIngest(store, valid, shown, outcome);
      const metricNames = [
        ...new Set(scored.flatMap(({ row }) => Object.keys(row.metrics ?? {}).filter(metricColumn))),
      ].sort();
      for (const name of metricNames)
        await c.run(`ALTER TABLE retrieval_results ADD COLUMN IF NOT EXISTS "${name}" DOUBLE`);
      const columns: Column[] = [
        ...RESULT_COLUMNS,
        ...metricNames.map((name) => ({ name, type: 'DOUBLE' as const })),
      ];
      const rows = scored.map(({ row, computed }) => [
        rowKey(row),
        String(row.id),
        String(row.request_id),
        text(row.model_id),
        text(row.tool_id),
        text(row.layer),
        text(row.agent_id),
        text(row.user_id),
        text(row.ts),
        jsonOrNull(row.retrieved_ids),
        JSON.stringify(row.metrics ?? {}),
        jsonOrNull(row.verdicts),
        computed,
        shown,
        ingestId,
        ingestedAt,
        JSON.stringify(row),
        ...metricNames.map((m) => metricNumber(row.metrics?.[m])),
      ]);
      await insertIgnoringDuplicates(c, 'retrieval_results', columns, rows);
    }
    outcome.added = (await counted()) - before;
    outcome.skipped = valid.length - outcome.added;
    await c.run('COMMIT');
  } catch (error) {
    await c.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
  return outcome;
}

/**
 * Result rows with their metrics: rows without ranking metrics are scored against their gold row; rows that
 * carry them keep them, with a warning where the gold row gives another value.
 */
async function scoreOnIngest(
  store: Store,
  rows: Located<JsonObject>[],
  shown: string,
  outcome: RetrievalIngestOutcome,
): Promise<{ row: ResultRow; computed: boolean }[]> {
  const gold = await storedGold(store, [...new Set(rows.map((r) => String(r.value.id)))]);
  return rows.map(({ value, line }) => {
    const row = value as unknown as ResultRow;
    const goldRow = gold.get(row.id);
    const carried = Object.keys(row.metrics ?? {}).some((m) => RANKING.test(m));
    if (!goldRow || !Array.isArray(row.retrieved_ids)) {
      if (!carried)
        outcome.diagnostics.push({
          file: shown,
          line,
          column: 1,
          pointer: '/metrics',
          severity: 'warning',
          code: 'retrieval.unscored',
          message: goldRow
            ? 'the row has no ranking metrics and no retrieved_ids to score: stored without them'
            : `the row has no ranking metrics and the store holds no gold row "${row.id}" to score it against (ingest the gold file first or with it)`,
        });
      return { row, computed: false };
    }
    const recomputed = scoreResults([{ value: goldRow, line: 1 }], [{ value: { ...row, metrics: {} }, line }])
      .rows[0];
    if (!carried) {
      outcome.scored++;
      return { row: { ...row, metrics: { ...recomputed.metrics, ...row.metrics } }, computed: true };
    }
    for (const [name, value] of Object.entries(recomputed.metrics)) {
      const given = row.metrics[name];
      if (!RANKING.test(name) && name !== 'cov_entities') continue;
      if (typeof given !== 'number' || typeof value !== 'number') continue;
      if (Math.abs(given - value) > TOLERANCE)
        outcome.diagnostics.push({
          file: shown,
          line,
          column: 1,
          pointer: `/metrics/${name}`,
          severity: 'warning',
          code: 'retrieval.metric-mismatch',
          message: `${name} is ${given} in the row but ${value} recomputed from gold row "${row.id}"`,
        });
    }
    return { row, computed: false };
  });
}
