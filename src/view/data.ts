/**
 * The viewer's read queries over the store (the statistics come from `store/leaderboard.ts` and
 * `store/compare.ts`, never from here): overview counts, a model's results, a record with its diagnostics,
 * paged samples of a result and one sample, an infereval η's agreement, retrieval per-query metrics.
 *
 * Every function takes an open store and returns plain JSON-able objects; numbers from DuckDB BIGINT columns are
 * cast in SQL so that they come back as numbers.
 */
import { DataError, UsageError } from '../errors.js';
import { markCut, TEXT_CAP, type Truncation } from './cap.js';
import type { Store } from '../store/db.js';
import { RUN_STATUS_SQL } from '../store/selection.js';
import { evaluationMetrics } from '../metrics/infereval/evaluation-metrics.js';
import { buildReportModel } from '../report/model.js';
import type { Evaluation } from '../formats/infereval/types.js';
import { scoreResults, type ResultRow } from '../metrics/retrieval/score.js';
import {
  canonicalQuery,
  pageRequest,
  PREVIEW_CHARS,
  type PageRequest,
  type Params,
  type SampleListRow,
  type SamplePage,
  type TextPiece,
} from './shared/query.js';
import type {
  InferevalDetail,
  InferevalListEntry,
  ModelResults,
  Overview,
  RecordDetail,
  ResultSummary,
  RetrievalDetail,
  RetrievalListEntry,
  SampleDetail,
} from './shared/types.js';

type Row = Record<string, unknown>;

const parseJson = (text: unknown): unknown => (typeof text === 'string' ? JSON.parse(text) : (text ?? null));

// ---------------------------------------------------------------------------------------------------- overview

export async function overview(store: Store): Promise<Overview> {
  const [counts] = await store.all<Overview['counts']>(
    `SELECT (SELECT count(DISTINCT collection) FROM records)::INTEGER AS collections,
            (SELECT count(*) FROM (SELECT DISTINCT evaluation_name, metric_name FROM results))::INTEGER AS benchmarks,
            (SELECT count(DISTINCT model_id) FROM records)::INTEGER AS models,
            (SELECT count(*) FROM records)::INTEGER AS records,
            (SELECT count(*) FROM results)::INTEGER AS results,
            (SELECT coalesce(sum(sample_count), 0) FROM records)::DOUBLE AS samples,
            (SELECT count(*) FROM documents)::INTEGER AS documents`,
  );
  const distinct = async (column: string) =>
    (
      await store.all<{ v: string }>(
        `SELECT DISTINCT ${column} AS v FROM records WHERE ${column} IS NOT NULL ORDER BY v`,
      )
    ).map((r) => r.v);
  return {
    counts: counts!,
    collections: await store.all(
      `SELECT collection, count(*)::INTEGER AS records, count(DISTINCT model_id)::INTEGER AS models
       FROM records GROUP BY collection ORDER BY collection NULLS LAST`,
    ),
    benchmarks: await store.all(
      `SELECT evaluation_name, metric_name, models::INTEGER AS models, results::INTEGER AS results
       FROM benchmarks ORDER BY evaluation_name, metric_name NULLS FIRST`,
    ),
    models: await store.all(
      `SELECT model_id, developer, records::INTEGER AS records FROM models ORDER BY model_id`,
    ),
    ingests: (
      await store.all<Row>(
        `SELECT ingest_id, started_at::VARCHAR AS started_at, finished_at::VARCHAR AS finished_at, paths,
                records_added, rows_added::DOUBLE AS rows_added, skipped, rejected
         FROM ingests ORDER BY started_at DESC LIMIT 10`,
      )
    ).map((r) => ({ ...r, paths: parseJson(r.paths) })) as Overview['ingests'],
    recent_records: await store.all(
      `SELECT record_key, evaluation_id, model_id, ingested_at::VARCHAR AS ingested_at
       FROM records ORDER BY ingested_at DESC, record_key LIMIT 10`,
    ),
    families: await store.all(
      `SELECT kind, count(*)::INTEGER AS documents FROM documents GROUP BY kind ORDER BY kind`,
    ),
    filters: {
      developer: await distinct('developer'),
      deploymentType: await distinct('deployment_type'),
      availability: await distinct('model_availability'),
      sourceOrganization: await distinct('source_organization_name'),
      collection: await distinct('collection'),
    },
  };
}

// ---------------------------------------------------------------------------------------------------- results

/** The columns a result is listed with (model page, record page). */
const RESULT_COLUMNS = `r.record_key, r.result_index, r.evaluation_result_id, r.evaluation_name, r.dataset_name,
  r.metric_name, r.metric_unit, r.score_type, r.lower_is_better, r.min_score, r.max_score, r.score,
  r.standard_error, r.ci_lower, r.ci_upper, r.num_samples::DOUBLE AS num_samples,
  r.raw -> 'score_details' -> 'details' ->> 'evalkit_reconciliation' AS reconciliation,
  r.raw -> 'score_details' -> 'details' ->> 'evalkit_reconciliation_note' AS reconciliation_note`;

/**
 * How many instance rows each result has (by evaluation_result_id, else by evaluation_name), counted for the
 * records in `keysSql` (a subquery of record keys) in one grouped pass over their rows.
 */
const RESULT_SAMPLES = (keysSql: string) => `LEFT JOIN (
    SELECT record_key, evaluation_result_id, evaluation_name, count(*) AS n FROM samples
    WHERE record_key IN (${keysSql}) GROUP BY ALL
  ) c ON c.record_key = r.record_key AND (CASE WHEN r.evaluation_result_id IS NOT NULL
    THEN c.evaluation_result_id = r.evaluation_result_id ELSE c.evaluation_name = r.evaluation_name END)`;
const SAMPLES_COUNT = `coalesce(sum(c.n), 0)::DOUBLE AS samples`;

export async function modelResults(store: Store, modelId: string): Promise<ModelResults> {
  const [model] = await store.all<ModelResults['model']>(
    `SELECT model_id, model_name, developer, deployment_type, model_availability, records::INTEGER AS records
     FROM models WHERE model_id = $1`,
    [modelId],
  );
  if (!model) throw new UsageError('view.unknown-model', `no model ${JSON.stringify(modelId)} in the store`);
  const results = await store.all<ModelResults['results'][number]>(
    `SELECT ${RESULT_COLUMNS}, ${SAMPLES_COUNT}, rec.evaluation_id, rec.source_organization_name,
            coalesce(rec.evaluation_timestamp, rec.retrieved_timestamp) AS date
     FROM results r JOIN records rec ON rec.record_key = r.record_key
     ${RESULT_SAMPLES('SELECT record_key FROM records WHERE model_id = $1')}
     WHERE rec.model_id = $1 GROUP BY ALL
     ORDER BY r.evaluation_name, r.metric_name, rec.evaluation_id, r.result_index`,
    [modelId],
  );
  return { model, results };
}

// ---------------------------------------------------------------------------------------------------- record

export async function recordDetail(store: Store, recordKey: string): Promise<RecordDetail> {
  const [row] = await store.all<Row>(
    `SELECT * EXCLUDE (raw, diagnostics, ingested_at, sample_count), ingested_at::VARCHAR AS ingested_at,
            sample_count::DOUBLE AS sample_count,
            raw, diagnostics, ${RUN_STATUS_SQL} AS run_status
     FROM records rec WHERE record_key = $1`,
    [recordKey],
  );
  if (!row)
    throw new UsageError('view.unknown-record', `no record ${JSON.stringify(recordKey)} in the store`);
  const { raw, diagnostics, run_status, ...record } = row;
  const results = await store.all<ResultSummary>(
    `SELECT ${RESULT_COLUMNS}, ${SAMPLES_COUNT} FROM results r ${RESULT_SAMPLES('$1')}
     WHERE r.record_key = $1 GROUP BY ALL ORDER BY r.result_index`,
    [recordKey],
  );
  const documents = await store.all<{ kind: string }>(
    `SELECT kind FROM documents WHERE record_key = $1 ORDER BY kind`,
    [recordKey],
  );
  const parsedDiagnostics = parseJson(diagnostics);
  return {
    record: record as RecordDetail['record'],
    run_status: String(run_status),
    raw: parseJson(raw) as RecordDetail['raw'],
    diagnostics: Array.isArray(parsedDiagnostics) ? parsedDiagnostics : [],
    results,
    documents: documents.map((d) => d.kind),
  };
}

// ---------------------------------------------------------------------------------------------------- samples

/** Which of a record's rows belong to a result: by evaluation_result_id, else by evaluation_name. */
interface RowsOf {
  recordKey: string;
  resultIndex: number;
  column: 'evaluation_result_id' | 'evaluation_name';
  value: string;
}

function resultIndexParam(value: string | undefined): number {
  const n = Number(value);
  if (value === undefined || !/^\d+$/.test(value) || !Number.isSafeInteger(n)) {
    throw new UsageError('view.bad-parameter', `result must be a result index (0, 1, ...), got ${value}`);
  }
  return n;
}

async function rowsOf(store: Store, recordKey: string, resultIndex: number): Promise<RowsOf> {
  const [found] = await store.all<{ evaluation_result_id: string | null; evaluation_name: string }>(
    `SELECT evaluation_result_id, evaluation_name FROM results WHERE record_key = $1 AND result_index = $2`,
    [recordKey, resultIndex],
  );
  if (!found) {
    throw new UsageError(
      'view.unknown-result',
      `no result ${resultIndex} in record ${JSON.stringify(recordKey)} of the store`,
    );
  }
  return found.evaluation_result_id !== null
    ? { recordKey, resultIndex, column: 'evaluation_result_id', value: found.evaluation_result_id }
    : { recordKey, resultIndex, column: 'evaluation_name', value: found.evaluation_name };
}

/**
 * One page of a result's instance rows: filtered (correct / incorrect), searched (case-insensitive substring of
 * sample id, input, reference or output), sorted (row, score ascending or descending; missing scores last), with
 * the total count of matching rows.
 */
export async function samplePage(
  store: Store,
  params: Params,
): Promise<SamplePage & { result: ResultSummary }> {
  const rows = await rowsOf(store, params.record ?? '', resultIndexParam(params.result));
  const page = await pageOf(store, rows, pageRequest(params));
  return { ...page, result: await result(store, rows.recordKey, rows.resultIndex) };
}

/**
 * Makes a result's search table ahead of its first search (the server calls it after answering an unsearched page,
 * while the reader looks at the page), so that the first search is as quick as the later ones.
 */
export async function prepareSearch(store: Store, params: Params): Promise<void> {
  if ((params.q ?? '').trim() !== '') return;
  await searchTable(store, await rowsOf(store, params.record ?? '', resultIndexParam(params.result)));
}

export async function querySamples(
  store: Store,
  recordKey: string,
  resultIndex: number,
  page: PageRequest,
): Promise<SamplePage> {
  return pageOf(store, await rowsOf(store, recordKey, resultIndex), page);
}

async function result(store: Store, recordKey: string, resultIndex: number): Promise<ResultSummary> {
  const [row] = await store.all<ResultSummary>(
    `SELECT ${RESULT_COLUMNS}, ${SAMPLES_COUNT} FROM results r ${RESULT_SAMPLES('$1')}
     WHERE r.record_key = $1 AND r.result_index = $2 GROUP BY ALL`,
    [recordKey, resultIndex],
  );
  return row!;
}

const cut = (column: string) =>
  `CASE WHEN length(${column}) > ${PREVIEW_CHARS} THEN left(${column}, ${PREVIEW_CHARS}) || '…' ELSE ${column} END`;

/** The listed columns of a sample row, texts cut to PREVIEW_CHARS. */
const LIST_COLUMNS = `s.row_index::DOUBLE AS row_index, s.sample_id, ${cut('s.input_text')} AS input,
  ${cut('s.reference_text')} AS reference, ${cut('s.output_text')} AS output, s.score, s.is_correct`;

/** The searched text of a row: its sample id, input, reference and output, lower-cased, joined by U+0001. */
const SEARCH_TEXT = `lower(concat_ws(chr(1), s.sample_id, s.input_text, s.reference_text, s.output_text))`;

/** Results whose rows are searched often keep their lower-cased texts in a temporary table (at most this many per connection). */
const SEARCH_TABLES = 2;
const searchTables = new WeakMap<Store['connection'], { byResult: Map<string, string>; made: number }>();

/**
 * The temporary table (row_index, score, is_correct, text) of a result's rows, made on its first search: lower-casing
 * every text is most of a search's cost, so it is paid once and later searches only scan. Temporary tables live in
 * memory beside a read-only store; the least recently used one is dropped beyond SEARCH_TABLES.
 */
async function searchTable(store: Store, rows: RowsOf): Promise<string> {
  // Temporary tables belong to a connection: the cache is the connection's.
  let cache = searchTables.get(store.connection);
  if (!cache) searchTables.set(store.connection, (cache = { byResult: new Map(), made: 0 }));
  const key = `${rows.recordKey}\u0000${rows.resultIndex}`;
  const found = cache.byResult.get(key);
  if (found) {
    cache.byResult.delete(key);
    cache.byResult.set(key, found);
    return found;
  }
  const name = `evalkit_view_search_${cache.made++}`;
  await store.all(
    `CREATE TEMP TABLE ${name} AS SELECT s.row_index, s.score, s.is_correct, ${SEARCH_TEXT} AS text
     FROM samples s WHERE s.record_key = $1 AND s.${rows.column} = $2`,
    [rows.recordKey, rows.value],
  );
  cache.byResult.set(key, name);
  if (cache.byResult.size > SEARCH_TABLES) {
    const [oldestKey, oldest] = cache.byResult.entries().next().value as [string, string];
    cache.byResult.delete(oldestKey);
    await store.all(`DROP TABLE IF EXISTS ${oldest}`);
  }
  return name;
}

/**
 * In two steps, so that a page costs the same wherever it is: the row numbers of the page are found first (the
 * filter, search and sort read only the columns they need), then only those rows' texts are read.
 */
async function pageOf(store: Store, rows: RowsOf, page: PageRequest): Promise<SamplePage> {
  let from: string;
  const where: string[] = [];
  const params: string[] = [];
  if (page.q === '') {
    from = 'samples s';
    where.push(`s.record_key = $1`, `s.${rows.column} = $2`);
    params.push(rows.recordKey, rows.value);
  } else {
    from = `${await searchTable(store, rows)} s`;
    where.push(`contains(s.text, $1)`);
    params.push(page.q);
  }
  if (page.filter !== 'all') where.push(`coalesce(s.is_correct, s.score > 0) = ${page.filter === 'correct'}`);
  const order =
    page.sort === 'row'
      ? 's.row_index'
      : `s.score ${page.sort === 'score' ? 'ASC' : 'DESC'} NULLS LAST, s.row_index`;
  const pageSql = (extra: string) =>
    `SELECT s.row_index::DOUBLE AS row_index${extra} FROM ${from}
     WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${page.limit} OFFSET ${page.offset}`;
  const countSql = `SELECT count(*)::DOUBLE AS n FROM ${from} WHERE ${where.join(' AND ')}`;
  let found: { row_index: number; total?: number }[];
  let total: number | undefined;
  if (page.q === '') {
    // Without a search the count is cheap (column filters only) and the page a top-N on two columns.
    total = (await store.all<{ n: number }>(countSql, params))[0]!.n;
    found = page.offset >= total ? [] : await store.all(pageSql(''), params);
  } else {
    // With one, the page's row numbers and the count of matches come from one pass (the search runs once).
    found = await store.all(pageSql(', count(*) OVER ()::DOUBLE AS total'), params);
    total = found[0]?.total ?? (await store.all<{ n: number }>(countSql, params))[0]!.n;
  }
  if (found.length === 0) return { total, offset: page.offset, limit: page.limit, rows: [] };
  const listed = await store.all<SampleListRow>(
    `SELECT ${LIST_COLUMNS} FROM samples s
     WHERE s.record_key = $1 AND s.row_index IN (${found.map((f) => f.row_index).join(', ')})`,
    [rows.recordKey],
  );
  const byIndex = new Map(listed.map((r) => [r.row_index, r]));
  return {
    total,
    offset: page.offset,
    limit: page.limit,
    rows: found.map((f) => byIndex.get(f.row_index)!),
  };
}

/** Every row of a result with its full texts lower-cased for search (a static export pages these itself). */
export async function allSamples(
  store: Store,
  recordKey: string,
  resultIndex: number,
): Promise<(SampleListRow & { search: string })[]> {
  const rows = await rowsOf(store, recordKey, resultIndex);
  return store.all<SampleListRow & { search: string }>(
    `SELECT ${LIST_COLUMNS},
            ${SEARCH_TEXT} AS search
     FROM samples s WHERE s.record_key = $1 AND s.${rows.column} = $2 ORDER BY s.row_index`,
    [rows.recordKey, rows.value],
  );
}

const TEXT_COLUMNS = ['input_text', 'reference_text', 'output_text'] as const;
/** Characters (code points) of a sample's text column sent inline: at most TEXT_CAP UTF-16 units. */
const SQL_TEXT_HEAD = Math.floor(TEXT_CAP / 2) - 1024;

/**
 * An instance row's whole JSON is sent (its long strings then cut, see cap.ts) when its stored parts (texts and the
 * rest of the row) add up to at most this many characters.
 */
export const RAW_INLINE_MAX = 4_000_000;

/** A row index parameter: a non-negative safe integer. */
function rowParam(value: string | undefined): number {
  const n = Number(value);
  if (!value || !/^\d+$/.test(value) || !Number.isSafeInteger(n)) {
    throw new UsageError('view.bad-parameter', `row must be a row index, got ${value}`);
  }
  return n;
}

export async function sampleDetail(store: Store, params: Params): Promise<SampleDetail> {
  const rowIndex = rowParam(params.row);
  const detail = (await sampleDetails(store, params.record ?? '', [rowIndex])).get(rowIndex);
  if (!detail) throw new UsageError('view.unknown-sample', `no sample row ${rowIndex} in that record`);
  return detail;
}

function integerSql(n: number): string {
  if (!Number.isSafeInteger(n)) throw new Error(`not an integer: ${n}`);
  return String(n);
}

/** Rows' whole JSON fetched at once by sampleDetails: at most this many characters together. */
const RAW_BATCH_CHARS = 8_000_000;

/**
 * The details of several instance rows of one record (as `sampleDetail` gives each), by row index, in a few
 * queries over the rows' index range; indexes with no row are absent. Long texts come from DuckDB already cut (a
 * row of 10 MB texts never crosses into JavaScript whole), marked the way cap.ts marks what it cuts, with where the
 * rest is.
 */
export async function sampleDetails(
  store: Store,
  record: string,
  rowIndexes: readonly number[],
): Promise<Map<number, SampleDetail>> {
  const wanted = new Set(rowIndexes);
  const out = new Map<number, SampleDetail>();
  if (wanted.size === 0) return out;
  const range = [Math.min(...wanted), Math.max(...wanted)];
  const rows = (
    await store.all<Record<string, unknown>>(
      `SELECT s.record_key, s.row_index::DOUBLE AS row_index, s.sample_id, s.sample_hash, s.evaluation_name,
            s.interaction_type, ${TEXT_COLUMNS.map((c) => `left(s.${c}, ${SQL_TEXT_HEAD}) AS ${c}, length(s.${c})::DOUBLE AS ${c}_chars`).join(', ')},
            s.score, s.is_correct, rec.model_id,
            (length(s.raw) + ${TEXT_COLUMNS.map((c) => `coalesce(length(s.${c}), 0)`).join(' + ')})::DOUBLE AS raw_chars
     FROM samples s JOIN records rec USING (record_key)
     WHERE s.record_key = $1 AND s.row_index BETWEEN $2 AND $3 ORDER BY s.row_index`,
      [record, ...range],
    )
  ).filter((row) => wanted.has(row.row_index as number));

  const inline: { rowIndex: number; sample: Omit<SampleDetail, 'raw'>; chars: number }[] = [];
  for (const row of rows) {
    const rowIndex = row.row_index as number;
    const at = { record: String(row.record_key), row: String(rowIndex) };
    const truncated: Truncation[] = [];
    for (const column of TEXT_COLUMNS) {
      const chars = row[`${column}_chars`] as number | null;
      delete row[`${column}_chars`];
      if (chars === null || chars <= SQL_TEXT_HEAD) continue;
      const rest = `/api/text?${canonicalQuery({ ...at, field: column, offset: String(SQL_TEXT_HEAD) })}`;
      row[column] = markCut(row[column] as string, SQL_TEXT_HEAD, chars, rest);
      truncated.push({ pointer: `/${column}`, chars, shown: SQL_TEXT_HEAD, rest });
    }
    const result = row as unknown as SampleDetail & { raw_chars: number; truncated_texts?: Truncation[] };
    if (truncated.length > 0) result.truncated_texts = truncated;
    const { raw_chars, ...sample } = result;
    // The row's whole JSON (rebuilt from its columns by the sample_rows view) only when it is small enough: a row
    // of huge texts is never rebuilt whole for a page.
    if (raw_chars > RAW_INLINE_MAX) {
      const rest = `/api/text?${canonicalQuery({ ...at, field: 'raw', offset: '0' })}`;
      out.set(rowIndex, {
        ...sample,
        raw: {
          '…': `[this row's JSON is ${raw_chars.toLocaleString('en-US')} characters, more than evalkit view sends whole (${RAW_INLINE_MAX.toLocaleString('en-US')}); in pieces: ${rest}]`,
        },
      });
    } else {
      inline.push({ rowIndex, sample, chars: raw_chars });
    }
  }

  // The rows' whole JSON, a batch of at most RAW_BATCH_CHARS characters (or one row) at a time.
  for (let i = 0; i < inline.length;) {
    let j = i + 1;
    let chars = inline[i]!.chars;
    while (j < inline.length && chars + inline[j]!.chars <= RAW_BATCH_CHARS) {
      chars += inline[j]!.chars;
      j += 1;
    }
    const batch = inline.slice(i, j);
    // Row indexes are integers read back from the store (or checked by rowParam): safe to write into the SQL.
    const wholes = await store.all<{ row_index: number; raw: string }>(
      `SELECT row_index::DOUBLE AS row_index, raw FROM sample_rows
       WHERE record_key = $1 AND row_index IN (${batch.map((b) => integerSql(b.rowIndex)).join(', ')})`,
      [record],
    );
    const byIndex = new Map(wholes.map((w) => [w.row_index, w.raw]));
    for (const { rowIndex, sample } of batch) {
      out.set(rowIndex, { ...sample, raw: parseJson(byIndex.get(rowIndex)) as SampleDetail['raw'] });
    }
    i = j;
  }
  return out;
}

/** The longest piece of text one `text` request returns (characters). */
export const TEXT_PIECE_MAX = 1_000_000;

/**
 * A piece of one long text: a text column of an instance row (`field` input_text, reference_text, output_text), or
 * a string inside the row's JSON (`field=raw`, `pointer` a JSON pointer; an empty pointer is the whole JSON as
 * text), or inside a record's JSON (no `row`). Offsets and lengths count characters (code points).
 */
export async function textPiece(store: Store, params: Params): Promise<TextPiece> {
  const record = params.record ?? '';
  if (record === '') throw new UsageError('view.missing-parameter', 'the parameter "record" is required');
  const field = params.field ?? '';
  const offset = params.offset === undefined ? 0 : Number(params.offset);
  const limit = params.limit === undefined ? TEXT_PIECE_MAX : Number(params.limit);
  if (!Number.isSafeInteger(offset) || offset < 0 || !/^\d*$/.test(params.offset ?? ''))
    throw new UsageError(
      'view.bad-parameter',
      `offset must be a character offset (0, 1, ...), got ${params.offset}`,
    );
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > TEXT_PIECE_MAX)
    throw new UsageError('view.bad-parameter', `limit must be 1 to ${TEXT_PIECE_MAX}, got ${params.limit}`);
  const pointer = params.pointer ?? '';
  if (pointer !== '' && !pointer.startsWith('/'))
    throw new UsageError('view.bad-parameter', `pointer must be a JSON pointer (/a/0/b), got ${pointer}`);
  let source: string;
  const args: (string | number)[] = [record];
  if (params.row !== undefined) {
    args.push(rowParam(params.row));
    const where = `FROM sample_rows WHERE record_key = $1 AND row_index = $2`;
    if (field === 'input_text' || field === 'reference_text' || field === 'output_text')
      source = `SELECT ${field} AS t ${where}`;
    else if (field === 'raw')
      source =
        pointer === ''
          ? `SELECT raw::VARCHAR AS t ${where}`
          : `SELECT json_extract_string(raw, $3) AS t ${where}`;
    else
      throw new UsageError(
        'view.bad-parameter',
        `field must be input_text, reference_text, output_text or raw, got ${field}`,
      );
  } else if (field === 'raw') {
    const where = `FROM records WHERE record_key = $1`;
    source =
      pointer === ''
        ? `SELECT raw::VARCHAR AS t ${where}`
        : `SELECT json_extract_string(raw, $3) AS t ${where}`;
  } else {
    throw new UsageError('view.bad-parameter', `a record's text is field=raw, got ${field}`);
  }
  if (field === 'raw' && pointer !== '') args.push(pointer);
  const n = args.length;
  const rows = await store.all<{ text: string | null; total: number | null }>(
    `SELECT substr(t, $${n + 1}, $${n + 2}) AS text, length(t)::DOUBLE AS total FROM (${source})`,
    [...args, offset + 1, limit],
  );
  if (rows.length === 0)
    throw new UsageError(
      'view.unknown-sample',
      `no such ${params.row !== undefined ? 'sample row' : 'record'}`,
    );
  const { text, total } = rows[0]!;
  if (text === null || total === null)
    throw new UsageError('view.unknown-text', `no text at ${field}${pointer}`);
  const end = offset + Math.min(limit, Math.max(0, total - offset));
  return {
    text,
    offset,
    total,
    ...(end < total ? { next: `/api/text?${canonicalQuery({ ...params, offset: String(end) })}` } : {}),
  };
}

// ---------------------------------------------------------------------------------------------------- infereval

/** Seed of the subsampling CIs on the page, so a reload shows the same interval (`evalkit metrics --ci --seed 0`). */
export const INFEREVAL_CI_SEED = 0;

export async function inferevalList(store: Store): Promise<InferevalListEntry[]> {
  const rows = await store.all<{ record_key: string; raw: string }>(
    `SELECT record_key, raw FROM documents WHERE kind = 'infereval.evaluation' ORDER BY record_key`,
  );
  return rows.map(({ record_key, raw }) => {
    const eta = JSON.parse(raw) as Partial<Evaluation>;
    return {
      record_key,
      id: String(eta.id ?? record_key),
      benchmark_id: eta.benchmark_id ?? null,
      model_id: eta.model?.model_id ?? null,
      items: Array.isArray(eta.items) ? eta.items.length : 0,
    };
  });
}

/** An η's agreement with its analysts, from the same metrics `evalkit metrics` and `evalkit report` compute. */
export async function inferevalDetail(store: Store, recordKey: string): Promise<InferevalDetail> {
  const [doc] = await store.all<{ raw: string }>(
    `SELECT raw FROM documents WHERE record_key = $1 AND kind = 'infereval.evaluation'`,
    [recordKey],
  );
  if (!doc) throw new UsageError('view.unknown-evaluation', `no infereval evaluation in record ${recordKey}`);
  const [bench] = await store.all<{ raw: string }>(
    `SELECT raw FROM documents WHERE record_key = $1 AND kind = 'infereval.benchmark'`,
    [recordKey],
  );
  const eta = JSON.parse(doc.raw) as Evaluation;
  const benchmark = bench ? JSON.parse(bench.raw) : undefined;
  let metrics;
  try {
    metrics = evaluationMetrics(eta, { benchmark, ci: { seed: INFEREVAL_CI_SEED } });
  } catch (error) {
    if (!benchmark) throw error;
    // A benchmark that does not fit the η (another version): the agreement without it.
    metrics = evaluationMetrics(eta, { ci: { seed: INFEREVAL_CI_SEED } });
  }
  const model = buildReportModel({ evaluation: eta, metrics, benchmark });
  const kc = metrics[`cohens_kappa[${metrics.reference.label}]_ci`];
  const kcCi = kc && typeof kc === 'object' ? kc : null;
  const kf = metrics.fleiss_kappa_ci ?? null;
  const samplesById = new Map(eta.items.map((it) => [it.id, it.samples ?? []]));
  return {
    record_key: recordKey,
    evaluation: {
      id: eta.id,
      benchmark_id: eta.benchmark_id,
      model: `${eta.model?.provider ?? '?'} / ${eta.model?.model_id ?? '?'}`,
      samples_per_item: eta.endorsement_config?.n_samples ?? null,
    },
    kappa_c: {
      estimate: metrics.cohens_kappa,
      ci: kcCi ? [kcCi.lo, kcCi.hi] : null,
      reference: metrics.reference.label,
    },
    kappa_f: { estimate: metrics.fleiss_kappa, ci: kf ? [kf.lo, kf.hi] : null },
    ci_method: kcCi
      ? `Politis–Romano subsampling, ${kcCi.iterations} subsamples of ${kcCi.subsample_size}, seed ${kcCi.seed}`
      : 'not computed (too few items)',
    summary: model.summary,
    verdicts: ['good', 'bad', 'abstain'],
    confusion: model.confusion,
    items: model.items.map(({ response: _first, ...item }) => ({
      ...item,
      samples: (samplesById.get(item.id) ?? []).map((s) => ({
        verdict: s.parsed_verdict ?? null,
        response: s.raw_response ?? '',
      })),
    })),
    notes: model.negative_findings,
  };
}

// ---------------------------------------------------------------------------------------------------- retrieval

interface RetrievalDocument {
  gold?: unknown[];
  results: unknown[];
}

/** A `retrieval.result` document: an array of result rows, or `{results, gold?}`. */
function retrievalDocument(raw: string, recordKey: string): RetrievalDocument {
  const doc = JSON.parse(raw) as unknown;
  if (Array.isArray(doc)) return { results: doc };
  if (doc && typeof doc === 'object' && Array.isArray((doc as RetrievalDocument).results)) {
    return doc as RetrievalDocument;
  }
  throw new DataError('view.bad-document', `the retrieval document of ${recordKey} holds no result rows`);
}

export async function retrievalList(store: Store): Promise<RetrievalListEntry[]> {
  const rows = await store.all<{ record_key: string; model_id: string; raw: string }>(
    `SELECT d.record_key, rec.model_id, d.raw FROM documents d JOIN records rec USING (record_key)
     WHERE d.kind = 'retrieval.result' ORDER BY rec.model_id, d.record_key`,
  );
  return rows.map((r) => ({
    record_key: r.record_key,
    model_id: r.model_id,
    queries: retrievalDocument(r.raw, r.record_key).results.length,
  }));
}

/**
 * Per-query metrics and verdicts of a scored retrieval result. With gold rows in the document the metrics are
 * recomputed by the same scorer as `evalkit retrieval score`; otherwise the rows' own metrics are shown.
 */
export async function retrievalDetail(store: Store, recordKey: string): Promise<RetrievalDetail> {
  const [row] = await store.all<{ model_id: string; raw: string }>(
    `SELECT rec.model_id, d.raw FROM documents d JOIN records rec USING (record_key)
     WHERE d.record_key = $1 AND d.kind = 'retrieval.result'`,
    [recordKey],
  );
  if (!row) throw new UsageError('view.unknown-retrieval', `no retrieval result in record ${recordKey}`);
  const doc = retrievalDocument(row.raw, recordKey);
  const located = (rows: unknown[]) => rows.map((value, i) => ({ value, line: i + 1 }));
  const goldById = new Map<string, { query?: string; expected_ids?: string[] }>();
  for (const g of doc.gold ?? []) {
    const gold = g as { id?: unknown; query?: string; expected_ids?: string[] };
    if (typeof gold.id === 'string') goldById.set(gold.id, gold);
  }
  let rows = doc.results as ResultRow[];
  let metricNames: string[] = [];
  let scored = 0;
  if (doc.gold) {
    const outcome = scoreResults(located(doc.gold), located(doc.results));
    rows = outcome.rows;
    metricNames = outcome.metricNames;
    scored = outcome.scored;
  } else {
    metricNames = [...new Set(rows.flatMap((r) => Object.keys(r?.metrics ?? {})))];
  }
  return {
    record_key: recordKey,
    model_id: row.model_id,
    metric_names: metricNames,
    scored,
    queries: rows.map((r) => ({
      id: String(r?.id ?? ''),
      query: goldById.get(String(r?.id))?.query ?? null,
      retrieved_ids: Array.isArray(r?.retrieved_ids) ? r.retrieved_ids : [],
      expected_ids: goldById.get(String(r?.id))?.expected_ids ?? null,
      metrics: r?.metrics ?? {},
      verdicts: Array.isArray(r?.verdicts) ? r.verdicts : [],
    })),
  };
}
