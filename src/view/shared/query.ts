/**
 * What the server, the static export and the browser app agree on: the API's endpoints and parameters, the key
 * a request is stored under in a static export, and the paging rules of the list endpoints (the server applies them
 * in SQL, a static export in the browser over the exported rows, with the same meaning).
 *
 * No Node and no DOM here: this file is compiled into both.
 */

/** The JSON endpoints, served under `/api/<endpoint>` and exported under `data/<endpoint>/<key>.json`. */
export const ENDPOINTS = [
  'overview',
  'leaderboard',
  'model',
  'record',
  'samples',
  'sample',
  'compare',
  'disagreements',
  'infereval',
  'retrieval',
  'retrieval-store',
  'retrieval-query',
  'text',
  'cost',
] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

export type Params = Record<string, string | undefined>;

/** Parameters of a request without the empty ones, sorted by name: `a=1&b=x`. */
export function canonicalQuery(params: Params): string {
  return Object.keys(params)
    .filter((k) => params[k] !== undefined && params[k] !== '')
    .sort()
    .map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(params[k]!)}`)
    .join('&');
}

/** 64-bit FNV-1a of a string's UTF-16 code units, as 16 hex digits: the file name of a request in an export. */
export function exportKey(query: string): string {
  let h = 0xcbf29ce484222325n;
  const prime = 0x100000001b3n;
  const mask = 0xffffffffffffffffn;
  for (let i = 0; i < query.length; i++) {
    h ^= BigInt(query.charCodeAt(i));
    h = (h * prime) & mask;
  }
  return h.toString(16).padStart(16, '0');
}

/** The list endpoints: a static export holds all of their rows, and the browser pages them itself. */
export const PAGING_PARAMS = ['offset', 'limit', 'filter', 'q', 'sort'] as const;

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

export type SampleFilter = 'all' | 'correct' | 'incorrect';
export type SampleSort = 'row' | 'score' | '-score';

export interface PageRequest {
  offset: number;
  limit: number;
  filter: SampleFilter;
  /** Lower-cased search text; '' for none. */
  q: string;
  sort: SampleSort;
}

/** Reads and bounds the paging parameters (unknown values fall back to the defaults). */
export function pageRequest(params: Params): PageRequest {
  const int = (v: string | undefined, d: number) => {
    const n = Number(v);
    return v !== undefined && /^\d+$/.test(v) && Number.isSafeInteger(n) ? n : d;
  };
  const filter = params.filter === 'correct' || params.filter === 'incorrect' ? params.filter : 'all';
  const sort = params.sort === 'score' || params.sort === '-score' ? params.sort : 'row';
  return {
    offset: int(params.offset, 0),
    limit: Math.max(1, Math.min(MAX_PAGE_SIZE, int(params.limit, DEFAULT_PAGE_SIZE))),
    filter,
    q: (params.q ?? '').trim().toLowerCase(),
    sort,
  };
}

/** A sample row as the samples table lists it (texts cut to PREVIEW_CHARS). */
export interface SampleListRow {
  row_index: number;
  sample_id: string;
  input: string | null;
  reference: string | null;
  output: string | null;
  score: number | null;
  is_correct: boolean | null;
}

/** A piece of a long text the server cut (see `/api/text`): characters from `offset`, of `total`. */
export interface TextPiece {
  text: string;
  offset: number;
  total: number;
  /** The request for the next piece, when there is more. */
  next?: string;
}

export interface SamplePage {
  total: number;
  offset: number;
  limit: number;
  rows: SampleListRow[];
}

export const PREVIEW_CHARS = 240;

export function preview(text: string | null): string | null {
  return text === null || text.length <= PREVIEW_CHARS ? text : `${text.slice(0, PREVIEW_CHARS)}…`;
}

/**
 * The samples rules over rows held in memory (a static export). The server's SQL means the same: correct is
 * `is_correct = true`, else `score > 0` when is_correct is absent; the search matches sample id, input, reference
 * or output, case-insensitively; sort by row, or by score with missing scores last and row order breaking ties.
 * Rows here carry their full texts in `search` (lower-cased, joined), previews in the row.
 */
export function pageRows(
  rows: readonly (SampleListRow & { search: string })[],
  request: PageRequest,
): SamplePage {
  let kept = rows.filter((r) => {
    if (request.filter !== 'all' && correctness(r) !== (request.filter === 'correct')) return false;
    return request.q === '' || r.search.includes(request.q);
  });
  if (request.sort !== 'row') {
    const sign = request.sort === 'score' ? 1 : -1;
    kept = [...kept].sort((a, b) => {
      if (a.score === null || b.score === null) {
        return a.score === b.score ? a.row_index - b.row_index : a.score === null ? 1 : -1;
      }
      return sign * (a.score - b.score) || a.row_index - b.row_index;
    });
  }
  return {
    total: kept.length,
    offset: request.offset,
    limit: request.limit,
    rows: kept.slice(request.offset, request.offset + request.limit).map(({ search: _s, ...row }) => row),
  };
}

/** true = correct, false = incorrect, null = neither known (no is_correct and no score). */
export function correctness(row: { is_correct: boolean | null; score: number | null }): boolean | null {
  if (row.is_correct !== null) return row.is_correct;
  return row.score === null ? null : row.score > 0;
}
