// Small building blocks of the pages. Every text from the store is passed to Preact as a child (a text node), never
// as HTML, and never used as a link target.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import type { Endpoint, Params } from '../shared/query.js';
import { fmt } from '../shared/format.js';

export { fmt, fmtCi, fmtP } from '../shared/format.js';

export type Loaded<T> = { state: 'loading' } | { state: 'error'; message: string } | { state: 'ok'; data: T };

/** Fetches an endpoint whenever the parameters change (later answers replace earlier ones only if still wanted). */
export function useApi<T>(endpoint: Endpoint | null, params: Params = {}): Loaded<T> {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const key = `${endpoint}?${JSON.stringify(params)}`;
  useEffect(() => {
    if (!endpoint) return;
    let wanted = true;
    setLoaded({ state: 'loading' });
    api<T>(endpoint, params).then(
      (data) => wanted && setLoaded({ state: 'ok', data }),
      (error: Error) => wanted && setLoaded({ state: 'error', message: error.message }),
    );
    return () => {
      wanted = false;
    };
  }, [key]);
  return loaded;
}

export function Show<T>(props: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }) {
  const { loaded } = props;
  if (loaded.state === 'loading') return <p class="muted loading">Loading…</p>;
  if (loaded.state === 'error')
    return (
      <p class="error" role="alert">
        {loaded.message}
      </p>
    );
  return <>{props.children(loaded.data)}</>;
}

/** A horizontal interval on a shared scale: a line from lo to hi, a dot at the estimate, optionally a zero line. */
export function CiBar(props: {
  estimate: number | null;
  ci: readonly [number, number] | null;
  domain: [number, number];
  zero?: boolean;
  width?: number;
}) {
  const width = props.width ?? 160;
  const height = 16;
  const [lo, hi] = props.domain;
  const span = hi - lo || 1;
  const x = (v: number) => 4 + ((Math.min(hi, Math.max(lo, v)) - lo) / span) * (width - 8);
  return (
    <svg class="ci-bar" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img">
      <line class="axis" x1={4} x2={width - 4} y1={height / 2} y2={height / 2} />
      {props.zero && lo < 0 && hi > 0 ? (
        <line class="zero" x1={x(0)} x2={x(0)} y1={1} y2={height - 1} />
      ) : null}
      {props.ci ? (
        <line class="interval" x1={x(props.ci[0])} x2={x(props.ci[1])} y1={height / 2} y2={height / 2} />
      ) : null}
      {props.estimate !== null ? (
        <circle class="estimate" cx={x(props.estimate)} cy={height / 2} r={3.5} />
      ) : null}
    </svg>
  );
}

/** The range covering every interval and estimate given (padded a little), for CiBar's shared scale. */
export function domainOf(
  values: (number | null | undefined)[],
  fallback: [number, number] = [0, 1],
): [number, number] {
  const finite = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  if (finite.length === 0) return fallback;
  let lo = Math.min(...finite);
  let hi = Math.max(...finite);
  if (lo === hi) {
    lo -= 0.5;
    hi += 0.5;
  }
  const pad = (hi - lo) * 0.05;
  return [lo - pad, hi + pad];
}

export interface Column<T> {
  key: string;
  label: string;
  cell: (row: T) => ComponentChildren;
  /** A value to sort by; columns without one cannot be sorted. */
  sort?: (row: T) => number | string | null;
  numeric?: boolean;
}

/**
 * A table whose sort is a URL parameter (`sort` = column key, `-key` for descending). The rows' order otherwise
 * stays as given (e.g. by rank).
 */
export function Table<T>(props: {
  rows: T[];
  columns: Column<T>[];
  sort?: string;
  onSort?: (sort: string) => void;
  rowClass?: (row: T) => string;
  caption?: string;
  testId?: string;
}) {
  const desc = props.sort?.startsWith('-') ?? false;
  const sortKey = props.sort?.replace(/^-/, '');
  const column = props.columns.find((c) => c.key === sortKey && c.sort);
  let rows = props.rows;
  if (column) {
    const value = column.sort!;
    rows = [...rows].sort((a, b) => {
      const va = value(a);
      const vb = value(b);
      if (va === vb) return 0;
      if (va === null) return 1;
      if (vb === null) return -1;
      return (va < vb ? -1 : 1) * (desc ? -1 : 1);
    });
  }
  return (
    <div class="table-wrap">
      <table data-testid={props.testId}>
        {props.caption ? <caption>{props.caption}</caption> : null}
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th
                class={c.numeric ? 'num' : ''}
                scope="col"
                aria-sort={c === column ? (desc ? 'descending' : 'ascending') : undefined}
              >
                {c.sort && props.onSort ? (
                  <button
                    type="button"
                    class="sort"
                    onClick={() => props.onSort!(c === column && !desc ? `-${c.key}` : c.key)}
                  >
                    {c.label}
                    {c === column ? (desc ? ' ▼' : ' ▲') : ''}
                  </button>
                ) : (
                  c.label
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr class={props.rowClass?.(row)}>
              {props.columns.map((c) => (
                <td class={c.numeric ? 'num' : ''} data-col={c.key}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Label / value pairs. */
export function Fields(props: { rows: [string, ComponentChildren][] }) {
  return (
    <dl class="fields">
      {props.rows.map(([k, v]) => (
        <>
          <dt>{k}</dt>
          <dd>{v ?? '—'}</dd>
        </>
      ))}
    </dl>
  );
}

/** A block of untrusted text, shown as it is (whitespace kept). */
export function TextBlock(props: { text: string | null | undefined; label?: string }) {
  return (
    <pre class="text-block" aria-label={props.label}>
      {props.text === null || props.text === undefined ? '—' : props.text}
    </pre>
  );
}

export function Json(props: { value: unknown }) {
  return <pre class="json">{JSON.stringify(props.value, null, 2)}</pre>;
}

export function Select(props: {
  label: string;
  value: string | undefined;
  options: (string | [string, string])[];
  onChange: (value: string) => void;
  any?: string;
  name: string;
}) {
  return (
    <label class="control">
      <span>{props.label}</span>
      <select
        name={props.name}
        value={props.value ?? ''}
        onChange={(e) => props.onChange((e.currentTarget as HTMLSelectElement).value)}
      >
        {props.any !== undefined ? <option value="">{props.any}</option> : null}
        {props.options.map((o) => {
          const [value, text] = typeof o === 'string' ? [o, o] : o;
          return <option value={value}>{text}</option>;
        })}
      </select>
    </label>
  );
}

export function Pager(props: {
  total: number;
  offset: number;
  limit: number;
  onOffset: (offset: number) => void;
}) {
  const { total, offset, limit } = props;
  const first = total === 0 ? 0 : offset + 1;
  const last = Math.min(total, offset + limit);
  return (
    <nav class="pager" aria-label="pages">
      <button
        type="button"
        disabled={offset === 0}
        onClick={() => props.onOffset(Math.max(0, offset - limit))}
      >
        ← Previous
      </button>
      <span class="pager-status">
        {fmt(first)}–{fmt(last)} of {fmt(total)}
      </span>
      <button type="button" disabled={last >= total} onClick={() => props.onOffset(offset + limit)}>
        Next →
      </button>
    </nav>
  );
}
