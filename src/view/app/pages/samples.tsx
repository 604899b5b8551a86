import { useEffect, useState } from 'preact/hooks';
import { promptLine } from '../messages.js';
import type { Route } from '../route.js';
import { href, update } from '../route.js';
import { fmt, Pager, Select, Show, Table, useApi } from '../ui.js';
import type { ResultSummary } from '../../shared/types.js';
import type { SampleListRow, SamplePage } from '../../shared/query.js';

export function SamplesPage(props: { route: Route }) {
  const { params } = props.route;
  const set = (changes: Record<string, string | undefined>) => update(props.route, changes);
  const query = {
    record: params.record,
    result: params.result,
    filter: params.filter,
    q: params.q,
    sort: params.sort,
    offset: params.offset,
    limit: params.limit,
  };
  const loaded = useApi<SamplePage & { result: ResultSummary }>('samples', query);
  const [search, setSearch] = useState(params.q ?? '');
  useEffect(() => setSearch(params.q ?? ''), [params.q]);
  return (
    <>
      <h1>Samples</h1>
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          set({ q: search.trim() || undefined, offset: undefined });
        }}
      >
        <label class="control grow">
          <span>Search input, reference, output, id</span>
          <input
            type="search"
            name="q"
            value={search}
            placeholder="text to find…"
            onInput={(e) => setSearch((e.currentTarget as HTMLInputElement).value)}
          />
        </label>
        <button type="submit">Search</button>
        <Select
          name="filter"
          label="Show"
          value={params.filter ?? 'all'}
          options={[
            ['all', 'all rows'],
            ['correct', 'correct'],
            ['incorrect', 'incorrect'],
          ]}
          onChange={(v) => set({ filter: v === 'all' ? undefined : v, offset: undefined })}
        />
        <Select
          name="sort"
          label="Order"
          value={params.sort ?? 'row'}
          options={[
            ['row', 'row order'],
            ['score', 'score, lowest first'],
            ['-score', 'score, highest first'],
          ]}
          onChange={(v) => set({ sort: v === 'row' ? undefined : v, offset: undefined })}
        />
      </form>
      <Show loaded={loaded}>
        {(page) => (
          <>
            <p class="result-head">
              <a href={href('record', { key: page.result.record_key })}>record</a> ·{' '}
              {page.result.evaluation_name} · {page.result.metric_name ?? ''} · score{' '}
              {fmt(page.result.score, 4)} · {fmt(page.result.samples)} rows
            </p>
            <Pager
              total={page.total}
              offset={page.offset}
              limit={page.limit}
              onOffset={(o) => set({ offset: o ? String(o) : undefined })}
            />
            <Table<SampleListRow>
              testId="samples"
              rows={page.rows}
              rowClass={(r) => (r.is_correct === false ? 'wrong' : r.is_correct ? 'right' : '')}
              columns={[
                {
                  key: 'row',
                  label: 'Row',
                  cell: (r) => (
                    <a href={href('sample', { record: params.record, row: String(r.row_index) })}>
                      {fmt(r.row_index)}
                    </a>
                  ),
                  numeric: true,
                },
                { key: 'id', label: 'Sample', cell: (r) => <span class="mono">{r.sample_id}</span> },
                {
                  key: 'input',
                  label: 'Input',
                  cell: (r) => <span class="cell-text">{promptLine(r.input) ?? '—'}</span>,
                },
                {
                  key: 'reference',
                  label: 'Reference',
                  cell: (r) => <span class="cell-text">{r.reference ?? '—'}</span>,
                },
                {
                  key: 'output',
                  label: 'Output',
                  cell: (r) => <span class="cell-text">{r.output ?? '—'}</span>,
                },
                { key: 'score', label: 'Score', cell: (r) => fmt(r.score), numeric: true },
                {
                  key: 'correct',
                  label: 'Correct',
                  cell: (r) => (r.is_correct === null ? '—' : r.is_correct ? '✓ yes' : '✗ no'),
                },
              ]}
            />
            <Pager
              total={page.total}
              offset={page.offset}
              limit={page.limit}
              onOffset={(o) => set({ offset: o ? String(o) : undefined })}
            />
          </>
        )}
      </Show>
    </>
  );
}
