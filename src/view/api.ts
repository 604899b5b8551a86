/**
 * One function answers every API request, for the server and for the static export alike: an endpoint name and
 * its parameters in, a JSON-able value out. Leaderboards and comparisons come from the store's statistics
 * functions, the same ones `evalkit leaderboard` and `evalkit compare` print, called with the same defaults.
 */
import { UsageError } from '../errors.js';
import type { Store } from '../store/db.js';
import { benchmarkGroups, compareModels, disagreements, leaderboards, withIntervals } from './stats.js';
import {
  inferevalDetail,
  inferevalList,
  modelResults,
  overview,
  recordDetail,
  retrievalDetail,
  retrievalList,
  sampleDetail,
  samplePage,
  textPiece,
} from './data.js';
import { retrievalQuery, retrievalStoreOverview } from './retrieval-store.js';
import { costBoards } from './cost.js';
import { ENDPOINTS, pageRequest, type Endpoint, type Params } from './shared/query.js';

export function isEndpoint(name: string): name is Endpoint {
  return (ENDPOINTS as readonly string[]).includes(name);
}

function required(params: Params, name: string): string {
  const value = params[name];
  if (value === undefined || value === '') {
    throw new UsageError('view.missing-parameter', `the parameter "${name}" is required`);
  }
  return value;
}

/** The leaderboard filters the page passes through, named as `leaderboards()` takes them. */
export const LEADERBOARD_FILTERS = [
  'benchmark',
  'metric',
  'developer',
  'deploymentType',
  'availability',
  'sourceOrganization',
  'collection',
] as const;

/**
 * Answers that several requests compute alike, kept for the life of one store state by a caller that makes many
 * requests (the static export): the unfiltered leaderboards, which every model page ranks the model on.
 */
export interface AnswerMemo {
  boards?: ReturnType<typeof leaderboards>;
}

export async function answer(
  store: Store,
  endpoint: Endpoint,
  params: Params,
  memo: AnswerMemo = {},
): Promise<unknown> {
  const allBoards = () => (memo.boards ??= leaderboards(store, {}));
  switch (endpoint) {
    case 'overview':
      return { ...(await overview(store)), benchmark_groups: await benchmarkGroups(store) };
    case 'leaderboard': {
      const options: Record<(typeof LEADERBOARD_FILTERS)[number], string | undefined> & {
        composite?: boolean;
        includePartial?: boolean;
      } = {
        benchmark: undefined,
        metric: undefined,
        developer: undefined,
        deploymentType: undefined,
        availability: undefined,
        sourceOrganization: undefined,
        collection: undefined,
      };
      for (const name of LEADERBOARD_FILTERS) if (params[name]) options[name] = params[name];
      if (params.composite === '1') options.composite = true;
      // `partial=1`: unfinished runs ranked too, as `evalkit leaderboard --include-partial` ranks them.
      if (params.partial === '1') options.includePartial = true;
      const unfiltered = Object.values(options).every((v) => v === undefined);
      return unfiltered ? allBoards() : leaderboards(store, options);
    }
    case 'model': {
      // The model's standing on each board, as `evalkit leaderboard` ranks it (its CI from the instance rows).
      const id = required(params, 'id');
      const found = await modelResults(store, id);
      const results = { ...found, results: await withIntervals(store, found.results) };
      const boards = await allBoards();
      const standings = boards.leaderboards.flatMap((b) =>
        b.rows
          .filter((r) => r.model_id === id)
          .map((r) => ({
            benchmark: b.benchmark,
            metric: b.metric,
            models: b.rows.length,
            direction_assumed: b.direction_assumed,
            ...r,
          })),
      );
      return { ...results, standings };
    }
    case 'record': {
      const detail = await recordDetail(store, required(params, 'key'));
      return { ...detail, results: await withIntervals(store, detail.results) };
    }
    case 'samples':
      return samplePage(store, { ...params, record: required(params, 'record') });
    case 'sample':
      return sampleDetail(store, { ...params, record: required(params, 'record') });
    case 'compare': {
      return compareModels(store, required(params, 'a'), required(params, 'b'), {
        benchmark: params.benchmark || undefined,
        metric: params.metric || undefined,
      });
    }
    case 'disagreements': {
      const page = pageRequest(params);
      return disagreements(
        store,
        required(params, 'a'),
        required(params, 'b'),
        required(params, 'benchmark'),
        required(params, 'metric'),
        { offset: page.offset, limit: page.limit },
      );
    }
    case 'infereval':
      return params.key ? inferevalDetail(store, params.key) : { evaluations: await inferevalList(store) };
    case 'retrieval':
      return params.key ? retrievalDetail(store, params.key) : { results: await retrievalList(store) };
    case 'retrieval-store':
      return retrievalStoreOverview(store);
    case 'retrieval-query':
      return retrievalQuery(store, required(params, 'id'));
    case 'text':
      return textPiece(store, params);
    case 'cost':
      // Each board's models by score and cost, as `evalkit leaderboard --show cost` gives them.
      return costBoards(store, {
        benchmark: params.benchmark || undefined,
        metric: params.metric || undefined,
      });
  }
}
