import type { Route } from '../route.js';
import { href, update } from '../route.js';
import { fmt, Show, Table, useApi } from '../ui.js';
import type { RetrievalDetail, RetrievalListEntry, RetrievalStoreOverview } from '../../shared/types.js';
import { RetrievalStoreSection } from './retrieval-store.js';

type Query = RetrievalDetail['queries'][number];

export function RetrievalPage(props: { route: Route }) {
  const key = props.route.params.key;
  const list = useApi<{ results: RetrievalListEntry[] }>('retrieval');
  const tables = useApi<RetrievalStoreOverview>('retrieval-store');
  const inTables = tables.state === 'ok' && tables.data.present;
  return (
    <>
      <h1>Retrieval</h1>
      <Show loaded={tables}>
        {(data) => (data.present ? <RetrievalStoreSection route={props.route} data={data} /> : null)}
      </Show>
      <Show loaded={list}>
        {({ results }) =>
          results.length === 0 ? (
            inTables ? null : (
              <p class="muted">No retrieval results in this store.</p>
            )
          ) : (
            <>
              {inTables ? <h2>Retrieval documents in records</h2> : null}
              <Table<RetrievalListEntry>
                rows={results}
                rowClass={(r) => (r.record_key === key ? 'selected' : '')}
                columns={[
                  {
                    key: 'model',
                    label: 'Retriever',
                    cell: (r) => <a href={href('retrieval', { key: r.record_key })}>{r.model_id}</a>,
                  },
                  { key: 'queries', label: 'Queries', cell: (r) => fmt(r.queries), numeric: true },
                  {
                    key: 'record',
                    label: 'Record',
                    cell: (r) => (
                      <a href={href('record', { key: r.record_key })}>{r.record_key.slice(0, 12)}…</a>
                    ),
                  },
                ]}
              />
            </>
          )
        }
      </Show>
      {key ? <Detail route={props.route} recordKey={key} /> : null}
    </>
  );
}

const metricValue = (q: Query, name: string): number | null => {
  const v = q.metrics[name];
  return typeof v === 'number' ? v : typeof v === 'boolean' ? Number(v) : null;
};

function Detail(props: { route: Route; recordKey: string }) {
  const loaded = useApi<RetrievalDetail>('retrieval', { key: props.recordKey });
  return (
    <Show loaded={loaded}>
      {(d) => (
        <section data-testid="retrieval-detail">
          <h2>
            Per query: <span class="mono">{d.model_id}</span>
          </h2>
          <p class="muted note">
            {d.scored > 0
              ? `${d.scored} queries scored against their gold rows by the scorer of evalkit retrieval score.`
              : 'Metrics as the result rows give them.'}
          </p>
          <Table<Query>
            rows={d.queries}
            sort={props.route.params.sort}
            onSort={(sort) => update(props.route, { sort })}
            rowClass={(q) => (q.verdicts.some((v) => !v.pass) ? 'wrong' : '')}
            columns={[
              { key: 'id', label: 'Query', cell: (q) => <span class="mono">{q.id}</span>, sort: (q) => q.id },
              { key: 'text', label: 'Text', cell: (q) => <span class="cell-text">{q.query ?? '—'}</span> },
              {
                key: 'retrieved',
                label: 'Retrieved',
                cell: (q) => <span class="cell-text mono">{q.retrieved_ids.join(' ')}</span>,
              },
              ...d.metric_names.map((name) => ({
                key: name,
                label: name,
                cell: (q: Query) =>
                  typeof q.metrics[name] === 'boolean' ? String(q.metrics[name]) : fmt(metricValue(q, name)),
                sort: (q: Query) => metricValue(q, name),
                numeric: true,
              })),
              {
                key: 'verdicts',
                label: 'Verdicts',
                cell: (q) =>
                  q.verdicts.length === 0
                    ? '—'
                    : q.verdicts.map((v) => (
                        <span class={`verdict ${v.pass ? 'pass' : 'fail'}`}>
                          {v.metric} {fmt(v.value)} vs {fmt(v.threshold)} {v.pass ? 'pass' : 'fail'}{' '}
                        </span>
                      )),
              },
            ]}
          />
        </section>
      )}
    </Show>
  );
}
