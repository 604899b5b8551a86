/**
 * The viewer's read queries over the store (the statistics come from `store/leaderboard.ts` and
 * `store/compare.ts`, never from here): overview counts, a model's results, a record with its diagnostics,
 * paged samples of a result and one sample, an infereval η's agreement, retrieval per-query metrics.
 *
 * Every function takes an open store and returns plain JSON-able objects; numbers from DuckDB BIGINT columns are
 * cast in SQL so that they come back as numbers.
 */
import { DataError, UsageError } from '../errors.js';
import type { Store } from '../store/db.js';
import { evaluationMetrics } from '../metrics/infereval/evaluation-metrics.js';
import { buildReportModel } from '../report/model.js';
import type { Evaluation } from '../formats/infereval/types.js';
import { scoreResults, type ResultRow } from '../metrics/retrieval/score.js';
import {
  pageRequest,
  PREVIEW_CHARS,
  type PageRequest,
  type Params,
  type SampleListRow,
  type SamplePage,
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
  r.standard_error, r.ci_lower, r.ci_upper, r.num_samples::DOUBLE AS num_samples`;

/** How many instance rows of a record belong to a result: by evaluation_result_id, else by evaluation_name. */
const RESULT_SAMPLES = `(SELECT count(*) FROM samples s WHERE s.record_key = r.record_key AND
  (CASE WHEN r.evaluation_result_id IS NOT NULL THEN s.evaluation_result_id = r.evaluation_result_id
        ELSE s.evaluation_name = r.evaluation_name END))::DOUBLE AS samples`;

export async function modelResults(store: Store, modelId: string): Promise<ModelResults> {
  const [model] = await store.all<ModelResults['model']>(
    `SELECT model_id, model_name, developer, deployment_type, model_availability, records::INTEGER AS records
     FROM models WHERE model_id = $1`,
    [modelId],
  );
  if (!model) throw new UsageError('view.unknown-model', `no model ${JSON.stringify(modelId)} in the store`);
  const results = await store.all<ModelResults['results'][number]>(
    `SELECT ${RESULT_COLUMNS}, ${RESULT_SAMPLES}, rec.evaluation_id, rec.source_organization_name,
            coalesce(rec.evaluation_timestamp, rec.retrieved_timestamp) AS date
     FROM results r JOIN records rec USING (record_key)
     WHERE rec.model_id = $1 ORDER BY r.evaluation_name, r.metric_name, rec.evaluation_id, r.result_index`,
    [modelId],
  );
  return { model, results };
}

// ---------------------------------------------------------------------------------------------------- record

export async function recordDetail(store: Store, recordKey: string): Promise<RecordDetail> {
  const [row] = await store.all<Row>(
    `SELECT * EXCLUDE (raw, diagnostics, ingested_at, sample_count), ingested_at::VARCHAR AS ingested_at,
            sample_count::DOUBLE AS sample_count,
            raw, diagnostics
     FROM records WHERE record_key = $1`,
    [recordKey],
  );
  if (!row)
    throw new UsageError('view.unknown-record', `no record ${JSON.stringify(recordKey)} in the store`);
  const { raw, diagnostics, ...record } = row;
  const results = await store.all<ResultSummary>(
    `SELECT ${RESULT_COLUMNS}, ${RESULT_SAMPLES} FROM results r WHERE r.record_key = $1 ORDER BY r.result_index`,
    [recordKey],
  );
  const documents = await store.all<{ kind: string }>(
    `SELECT kind FROM documents WHERE record_key = $1 ORDER BY kind`,
    [recordKey],
  );
  const parsedDiagnostics = parseJson(diagnostics);
  return {
    record: record as RecordDetail['record'],
    raw: parseJson(raw) as RecordDetail['raw'],
    diagnostics: Array.isArray(parsedDiagnostics) ? parsedDiagnostics : [],
    results,
    documents: documents.map((d) => d.kind),
  };
}

// ---------------------------------------------------------------------------------------------------- samples

/** The WHERE clause selecting a result's rows ($1 record_key, $2 result_index). */
const RESULT_ROWS = `s.record_key = $1 AND (CASE
  WHEN r.evaluation_result_id IS NOT NULL THEN s.evaluation_result_id = r.evaluation_result_id
  ELSE s.evaluation_name = r.evaluation_name END)`;

async function requireResult(store: Store, recordKey: string, resultIndex: number): Promise<void> {
  const [found] = await store.all(`SELECT 1 FROM results WHERE record_key = $1 AND result_index = $2`, [
    recordKey,
    resultIndex,
  ]);
  if (!found) {
    throw new UsageError(
      'view.unknown-result',
      `no result ${resultIndex} in record ${JSON.stringify(recordKey)} of the store`,
    );
  }
}

function resultIndexParam(value: string | undefined): number {
  const n = Number(value);
  if (value === undefined || !/^\d+$/.test(value) || !Number.isSafeInteger(n)) {
    throw new UsageError('view.bad-parameter', `result must be a result index (0, 1, ...), got ${value}`);
  }
  return n;
}

/**
 * One page of a result's instance rows: filtered (correct / incorrect), searched (case-insensitive substring of
 * sample id, input, reference or output), sorted (row, score ascending or descending; missing scores last), with
 * the total count of matching rows. Texts are cut to PREVIEW_CHARS in SQL, so a page stays small.
 */
export async function samplePage(
  store: Store,
  params: Params,
): Promise<SamplePage & { result: ResultSummary }> {
  const recordKey = params.record ?? '';
  const resultIndex = resultIndexParam(params.result);
  await requireResult(store, recordKey, resultIndex);
  return {
    ...(await querySamples(store, recordKey, resultIndex, pageRequest(params))),
    result: await result(store, recordKey, resultIndex),
  };
}

async function result(store: Store, recordKey: string, resultIndex: number): Promise<ResultSummary> {
  const [row] = await store.all<ResultSummary>(
    `SELECT ${RESULT_COLUMNS}, ${RESULT_SAMPLES} FROM results r WHERE r.record_key = $1 AND r.result_index = $2`,
    [recordKey, resultIndex],
  );
  return row!;
}

const cut = (column: string) =>
  `CASE WHEN length(${column}) > ${PREVIEW_CHARS} THEN left(${column}, ${PREVIEW_CHARS}) || '…' ELSE ${column} END`;

export async function querySamples(
  store: Store,
  recordKey: string,
  resultIndex: number,
  page: PageRequest,
): Promise<SamplePage> {
  const where = [RESULT_ROWS];
  const params: (string | number)[] = [recordKey, resultIndex];
  if (page.filter !== 'all') where.push(`coalesce(s.is_correct, s.score > 0) = ${page.filter === 'correct'}`);
  if (page.q !== '') {
    params.push(page.q);
    const p = `$${params.length}`;
    where.push(
      `(contains(lower(s.sample_id), ${p}) OR contains(lower(coalesce(s.input_text, '')), ${p}) OR
        contains(lower(coalesce(s.reference_text, '')), ${p}) OR contains(lower(coalesce(s.output_text, '')), ${p}))`,
    );
  }
  const order =
    page.sort === 'row'
      ? 's.row_index'
      : `s.score ${page.sort === 'score' ? 'ASC' : 'DESC'} NULLS LAST, s.row_index`;
  const from = `FROM samples s JOIN results r ON r.record_key = s.record_key AND r.result_index = $2
    WHERE ${where.join(' AND ')}`;
  const [{ total }] = (await store.all<{ total: number }>(
    `SELECT count(*)::DOUBLE AS total ${from}`,
    params,
  )) as [{ total: number }];
  const rows = await store.all<SampleListRow>(
    `SELECT s.row_index::DOUBLE AS row_index, s.sample_id, ${cut('s.input_text')} AS input,
            ${cut('s.reference_text')} AS reference, ${cut('s.output_text')} AS output, s.score, s.is_correct
     ${from} ORDER BY ${order} LIMIT ${page.limit} OFFSET ${page.offset}`,
    params,
  );
  return { total, offset: page.offset, limit: page.limit, rows };
}

/** Every row of a result with its full texts lower-cased for search (a static export pages these itself). */
export async function allSamples(
  store: Store,
  recordKey: string,
  resultIndex: number,
): Promise<(SampleListRow & { search: string })[]> {
  const rows = await store.all<SampleListRow & { search: string }>(
    `SELECT s.row_index::DOUBLE AS row_index, s.sample_id, ${cut('s.input_text')} AS input,
            ${cut('s.reference_text')} AS reference, ${cut('s.output_text')} AS output, s.score, s.is_correct,
            lower(concat_ws(chr(1), s.sample_id, s.input_text, s.reference_text, s.output_text)) AS search
     FROM samples s JOIN results r ON r.record_key = s.record_key AND r.result_index = $2
     WHERE ${RESULT_ROWS} ORDER BY s.row_index`,
    [recordKey, resultIndex],
  );
  return rows;
}

export async function sampleDetail(store: Store, params: Params): Promise<SampleDetail> {
  const rowIndex = Number(params.row);
  if (!params.row || !/^\d+$/.test(params.row)) {
    throw new UsageError('view.bad-parameter', `row must be a row index, got ${params.row}`);
  }
  const [row] = await store.all<SampleDetail>(
    `SELECT s.record_key, s.row_index::DOUBLE AS row_index, s.sample_id, s.sample_hash, s.evaluation_name,
            s.interaction_type, s.input_text, s.reference_text, s.output_text, s.score, s.is_correct,
            rec.model_id, s.raw
     FROM sample_rows s JOIN records rec USING (record_key) WHERE s.record_key = $1 AND s.row_index = $2`,
    [params.record ?? '', rowIndex],
  );
  if (!row) throw new UsageError('view.unknown-sample', `no sample row ${rowIndex} in that record`);
  return { ...row, raw: parseJson(row.raw) as SampleDetail['raw'] };
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
