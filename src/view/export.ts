/**
 * `evalkit view --export DIR`: the same app as a static site. Every request the pages can make is answered now,
 * by the same `answer()` the server uses, and written to `data/<endpoint>/<key>.json` (key: see shared/query.ts);
 * the list endpoints (samples, disagreements) are written whole and paged in the browser with the server's rules.
 *
 * What is exported: the overview; the leaderboard unfiltered, per benchmark and metric (each also with unfinished
 * runs ranked, partial=1, when it leaves some out), with each single filter value and the composite; every model,
 * record, infereval η and retrieval result; the first `maxRowsPerResult` rows of each result with their details;
 * every ordered pair of models that share a benchmark (up to `maxComparedModels` models) with the first
 * `maxDisagreements` disagreements of each paired comparison.
 */
import type { Store } from '../store/db.js';
import { EvalkitError } from '../errors.js';
import { beginSite } from './export-target.js';
import { answer, type AnswerMemo } from './api.js';
import { appAssets, indexHtml } from './assets.js';
import { allSamples, sampleDetails } from './data.js';
import { canonicalQuery, exportKey, MAX_PAGE_SIZE, type Endpoint, type Params } from './shared/query.js';
import type { CompareResult, Leaderboards, Overview, RecordDetail } from './shared/types.js';

/** Sample rows whose details are read from the store in one go (the same answer as one `sample` request each). */
const SAMPLE_BATCH = 500;

export interface ExportOptions {
  maxRowsPerResult?: number;
  maxComparedModels?: number;
  maxDisagreements?: number;
  /** Called after each file with the count so far (a progress bar). */
  onFile?: (files: number) => void;
}

export interface ExportSummary {
  dir: string;
  files: number;
  bytes: number;
  /** Views that could not be exported (e.g. no statistics in this build), with the reason. */
  skipped: { endpoint: string; params: Params; reason: string }[];
  truncated: { record: string; result: number; rows: number; exported: number }[];
}

export async function exportStaticSite(
  store: Store,
  dir: string,
  options: ExportOptions = {},
): Promise<ExportSummary> {
  const maxRows = options.maxRowsPerResult ?? 10_000;
  const maxModels = options.maxComparedModels ?? 40;
  const maxDisagreements = options.maxDisagreements ?? MAX_PAGE_SIZE;
  const site = await beginSite(dir);
  try {
    const summary = await writeSite(store, dir, site.write, {
      ...options,
      maxRows,
      maxModels,
      maxDisagreements,
    });
    await site.commit();
    return summary;
  } catch (error) {
    await site.abort();
    throw error;
  }
}

async function writeSite(
  store: Store,
  dir: string,
  writeFile: (relative: string, text: string) => Promise<void>,
  options: ExportOptions & { maxRows: number; maxModels: number; maxDisagreements: number },
): Promise<ExportSummary> {
  const { maxRows, maxModels, maxDisagreements } = options;
  const summary: ExportSummary = { dir, files: 0, bytes: 0, skipped: [], truncated: [] };
  const memo: AnswerMemo = {};

  const write = async (relative: string, text: string) => {
    await writeFile(relative, text);
    summary.files++;
    summary.bytes += Buffer.byteLength(text);
    options.onFile?.(summary.files);
  };
  const fileOf = (endpoint: Endpoint, params: Params) =>
    `data/${endpoint}/${exportKey(canonicalQuery(params))}.json`;
  /** Writes the answer to a request (computed by `compute` when the file holds more than one page). */
  const put = async (
    endpoint: Endpoint,
    params: Params,
    compute?: () => Promise<unknown>,
  ): Promise<unknown> => {
    try {
      const data = compute ? await compute() : await answer(store, endpoint, params, memo);
      await write(fileOf(endpoint, params), JSON.stringify(data));
      return data;
    } catch (error) {
      if (!(error instanceof EvalkitError)) throw error;
      summary.skipped.push({ endpoint, params, reason: error.message });
      return undefined;
    }
  };

  const assets = await appAssets();
  await write('index.html', indexHtml('static'));
  await write('app.js', assets.js);
  await write('app.css', assets.css);

  const overview = (await put('overview', {})) as Overview;

  // Leaderboards: unfiltered, composite, per benchmark (and metric), and each single filter value; those that
  // leave unfinished runs out also with them ranked (partial=1).
  const board = async (params: Params) => {
    const found = (await put('leaderboard', params)) as Leaderboards | undefined;
    if (found?.unranked_partial_runs) await put('leaderboard', { ...params, partial: '1' });
  };
  await board({});
  await put('leaderboard', { composite: '1' });
  await put('cost', {});
  for (const name of new Set(overview.benchmarks.map((b) => b.evaluation_name))) {
    await board({ benchmark: name });
    await put('cost', { benchmark: name });
  }
  for (const b of overview.benchmarks) {
    if (b.metric_name) await board({ benchmark: b.evaluation_name, metric: b.metric_name });
  }
  for (const [filter, values] of Object.entries(overview.filters)) {
    for (const value of values) await put('leaderboard', { [filter]: value });
  }

  for (const m of overview.models) await put('model', { id: m.model_id });

  const records = await store.all<{ record_key: string }>(
    `SELECT record_key FROM records ORDER BY record_key`,
  );
  for (const { record_key } of records) {
    const detail = (await put('record', { key: record_key })) as RecordDetail | undefined;
    for (const result of detail?.results ?? []) {
      if (result.samples === 0) continue;
      const rows = await allSamples(store, record_key, result.result_index);
      const kept = rows.slice(0, maxRows);
      if (kept.length < rows.length) {
        summary.truncated.push({
          record: record_key,
          result: result.result_index,
          rows: rows.length,
          exported: kept.length,
        });
      }
      await put('samples', { record: record_key, result: String(result.result_index) }, async () => ({
        result,
        rows: kept,
      }));
      for (let i = 0; i < kept.length; i += SAMPLE_BATCH) {
        const batch = kept.slice(i, i + SAMPLE_BATCH);
        const details = await sampleDetails(
          store,
          record_key,
          batch.map((row) => row.row_index),
        );
        for (const row of batch) {
          const detail = details.get(row.row_index);
          await put(
            'sample',
            { record: record_key, row: String(row.row_index) },
            detail && (async () => detail),
          );
        }
      }
    }
  }

  // Every ordered pair of models that share a benchmark and metric.
  const shared = await store.all<{ a: string; b: string }>(
    `WITH m AS (SELECT DISTINCT model_id, evaluation_name, metric_name FROM result_rows),
          chosen AS (SELECT model_id FROM (SELECT DISTINCT model_id FROM m) ORDER BY model_id LIMIT ${maxModels})
     SELECT DISTINCT x.model_id AS a, y.model_id AS b FROM m x JOIN m y
       ON x.evaluation_name = y.evaluation_name AND x.metric_name IS NOT DISTINCT FROM y.metric_name
      AND x.model_id <> y.model_id
     WHERE x.model_id IN (SELECT model_id FROM chosen) AND y.model_id IN (SELECT model_id FROM chosen)
     ORDER BY a, b`,
  );
  for (const { a, b } of shared) {
    const compared = (await put('compare', { a, b })) as CompareResult | undefined;
    for (const c of compared?.comparisons ?? []) {
      if (!c.paired) continue;
      const params = { a, b, benchmark: c.benchmark, metric: c.metric };
      await put('disagreements', params, () =>
        answer(store, 'disagreements', { ...params, limit: String(maxDisagreements) }),
      );
    }
  }

  const inferevals = (await put('infereval', {})) as { evaluations: { record_key: string }[] };
  for (const e of inferevals.evaluations) await put('infereval', { key: e.record_key });
  const retrievals = (await put('retrieval', {})) as { results: { record_key: string }[] };
  for (const r of retrievals.results) await put('retrieval', { key: r.record_key });
  const retrievalStore = (await put('retrieval-store', {})) as { gold: { id: string }[] } | undefined;
  for (const g of retrievalStore?.gold ?? []) await put('retrieval-query', { id: g.id });

  await write(
    'data/manifest.json',
    JSON.stringify(
      { generator: 'evalkit view --export', skipped: summary.skipped, truncated: summary.truncated },
      null,
      2,
    ),
  );
  return summary;
}
