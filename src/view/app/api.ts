// Fetching the data: from the server's JSON API, or, in a static export, from the JSON files written beside the
// page (the list endpoints' rows are exported whole and paged here with the server's rules).
import {
  canonicalQuery,
  exportKey,
  pageRequest,
  pageRows,
  type Endpoint,
  type Params,
  type SampleListRow,
} from '../shared/query.js';

export const staticMode = document.documentElement.dataset.mode === 'static';

export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { credentials: 'same-origin' });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(`${url}: ${response.status} ${text.slice(0, 200)}`, 'view.http');
  }
  if (!response.ok) {
    const error = (body as { error?: { code: string; message: string } }).error;
    throw new ApiError(error?.message ?? `${response.status}`, error?.code ?? 'view.http');
  }
  return body as T;
}

/** The file of a request in a static export (the exporter names it the same way). */
export function exportFile(endpoint: Endpoint, params: Params): string {
  return `./data/${endpoint}/${exportKey(canonicalQuery(params))}.json`;
}

const cache = new Map<string, Promise<unknown>>();

function staticJson<T>(file: string): Promise<T> {
  let found = cache.get(file);
  if (!found) {
    found = getJson<T>(file).catch((error: unknown) => {
      cache.delete(file);
      if (error instanceof ApiError && /404/.test(error.message)) {
        throw new ApiError('this view is not part of the static export', 'view.not-exported');
      }
      throw error;
    });
    cache.set(file, found);
  }
  return found as Promise<T>;
}

function only(params: Params, names: string[]): Params {
  const kept: Params = {};
  for (const n of names) if (params[n] !== undefined && params[n] !== '') kept[n] = params[n];
  return kept;
}

export async function api<T>(endpoint: Endpoint, params: Params = {}): Promise<T> {
  if (!staticMode) return getJson<T>(`./api/${endpoint}?${canonicalQuery(params)}`);
  if (endpoint === 'samples') {
    const all = await staticJson<{ result: unknown; rows: (SampleListRow & { search: string })[] }>(
      exportFile('samples', only(params, ['record', 'result'])),
    );
    return { ...pageRows(all.rows, pageRequest(params)), result: all.result } as T;
  }
  if (endpoint === 'disagreements') {
    // The export holds the first MAX_PAGE_SIZE disagreements (total counts them all).
    const all = await staticJson<{ total: number; items: unknown[] }>(
      exportFile('disagreements', only(params, ['a', 'b', 'benchmark', 'metric'])),
    );
    const page = pageRequest(params);
    return {
      ...all,
      offset: page.offset,
      limit: page.limit,
      items: all.items.slice(page.offset, page.offset + page.limit),
    } as T;
  }
  return staticJson<T>(exportFile(endpoint, params));
}
