// The view's state lives in the URL hash: `#/<page>?<params>`. Every filter, sort and selection is a parameter, so
// a view can be linked and reloaded.
import { useEffect, useState } from 'preact/hooks';
import { canonicalQuery, type Params } from '../shared/query.js';

export interface Route {
  page: string;
  params: Params;
}

export function parseHash(hash: string): Route {
  const text = hash.replace(/^#\/?/, '');
  const q = text.indexOf('?');
  const page = (q < 0 ? text : text.slice(0, q)) || 'overview';
  const params: Params = {};
  for (const [k, v] of new URLSearchParams(q < 0 ? '' : text.slice(q + 1))) params[k] = v;
  return { page, params };
}

/** The href of a view: `#/page?a=1&b=2` (empty parameters left out). */
export function href(page: string, params: Params = {}): string {
  const query = canonicalQuery(params);
  return `#/${page}${query ? `?${query}` : ''}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseHash(location.hash));
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

/** Changes some parameters of the current view (others kept; undefined or '' removes one). */
export function navigate(page: string, params: Params): void {
  location.hash = href(page, params);
}

/**
 * Changes some parameters of the view, from the URL as it is now (not from the view last drawn, which may not yet
 * show a change just made: two quick changes keep both).
 */
export function update(route: Route, changes: Params): void {
  const now = parseHash(location.hash);
  navigate(route.page, { ...(now.page === route.page ? now.params : route.params), ...changes });
}
