// The store's retrieval tables: systems and their metrics, one gold query's ids beside each system's ranked ids
// (hits marked), the gate's latest verdicts, feedback actions and the events over time. Every text is a text node.
import type { Route } from '../route.js';
import { href, update } from '../route.js';
import { fmtDate } from '../dates.js';
import { fmt, fmtCi, Select, Show, Table, useApi } from '../ui.js';
import { actionStatus } from '../../shared/retrieval.js';
import type {
  RetrievalFeedbackAction,
  RetrievalGateResult,
  RetrievalEventBucket,
  RetrievalQueryDetail,
  RetrievalQueryRow,
  RetrievalStoreOverview,
  RetrievalStoreSystem,
} from '../../shared/types.js';

/** The metric columns shown until the URL names others: the headline metrics the store has. */
const HEADLINE = ['p_at_5', 'recall_at_5', 'ndcg_10', 'mrr_10', 'cov_entities', 'p95_ms'];
const MAX_DEFAULT_COLUMNS = 6;

function shownMetrics(route: Route, all: string[]): string[] {
  const asked = route.params.metrics?.split(',').filter((m) => all.includes(m));
  if (asked && asked.length > 0) return asked;
  const headline = HEADLINE.filter((m) => all.includes(m));
  return headline.length > 0 ? headline : all.slice(0, MAX_DEFAULT_COLUMNS);
}

export function RetrievalStoreSection(props: { route: Route; data: RetrievalStoreOverview }) {
  const { route, data } = props;
  return (
    <section data-testid="retrieval-store">
      <Systems route={route} data={data} />
      <Queries route={route} data={data} />
      <Events data={data} />
    </section>
  );
}

function Systems(props: { route: Route; data: RetrievalStoreOverview }) {
  const { route, data } = props;
  const shown = shownMetrics(route, data.metrics);
  const toggle = (m: string) => {
    const next = shown.includes(m)
      ? shown.filter((x) => x !== m)
      : data.metrics.filter((x) => x === m || shown.includes(x));
    return href(route.page, { ...route.params, metrics: next.join(',') });
  };
  return (
    <>
      <h2>Systems</h2>
      <p class="muted note">
        A system is a distinct model_id, tool_id, layer and agent_id. Each cell: the mean over gold queries (a
        query asked twice counts once), with a 95% percentile-bootstrap CI, as{' '}
        <code>evalkit leaderboard --retrieval</code> prints it. Lower is better for{' '}
        {data.lower_is_better.join(', ') || 'no metric here'}.
      </p>
      <p class="metric-toggles" aria-label="metric columns">
        Columns:{' '}
        {data.metrics.map((m) => (
          <a
            href={toggle(m)}
            class={shown.includes(m) ? 'toggle on' : 'toggle'}
            aria-pressed={shown.includes(m)}
          >
            {m}
          </a>
        ))}
      </p>
      {data.systems.length === 0 ? (
        <p class="muted">No retrieval result rows in this store.</p>
      ) : (
        <Table<RetrievalStoreSystem>
          testId="retrieval-systems"
          rows={data.systems}
          sort={route.params.systems_sort}
          onSort={(sort) => update(route, { systems_sort: sort })}
          columns={[
            {
              key: 'system',
              label: 'System',
              cell: (s) => <span class="cell-text mono">{s.system}</span>,
              sort: (s) => s.system,
            },
            { key: 'n', label: 'n', cell: (s) => fmt(s.n), sort: (s) => s.n, numeric: true },
            ...shown.map((m) => ({
              key: m,
              label: m,
              numeric: true,
              sort: (s: RetrievalStoreSystem) => s.metrics[m]?.score ?? null,
              cell: (s: RetrievalStoreSystem) => {
                const v = s.metrics[m];
                if (!v) return '—';
                return (
                  <>
                    <span class="score">{fmt(v.score, 3)}</span>
                    <span class="ci-text muted">{fmtCi(v.ci, 3)}</span>
                    {v.n !== s.n ? <span class="ci-text muted">n={fmt(v.n)}</span> : null}
                  </>
                );
              },
            })),
          ]}
        />
      )}
    </>
  );
}

function Queries(props: { route: Route; data: RetrievalStoreOverview }) {
  const { route, data } = props;
  if (data.gold.length === 0)
    return (
      <>
        <h2>Queries</h2>
        <p class="muted">No gold queries in this store.</p>
      </>
    );
  const chosen = data.gold.some((g) => g.id === route.params.query) ? route.params.query! : data.gold[0].id;
  return (
    <>
      <h2>Queries</h2>
      <div class="filters">
        <Select
          label="Gold query"
          name="query"
          value={chosen}
          options={data.gold.map((g): [string, string] => [
            g.id,
            `${g.id} — ${g.query.length > 80 ? `${g.query.slice(0, 80)}…` : g.query} (${g.results} results)`,
          ])}
          onChange={(query) => update(route, { query })}
        />
      </div>
      <QueryDetail id={chosen} />
    </>
  );
}

function RankedIds(props: { row: RetrievalQueryRow }) {
  return (
    <ol class="ranked">
      {props.row.retrieved.map((r) => (
        <li class={r.hit ? 'hit' : 'miss'} data-hit={r.hit ? '1' : '0'}>
          <span class="mark" aria-label={r.hit ? 'hit' : 'miss'}>
            {r.hit ? '✓' : '·'}
          </span>{' '}
          <span class="mono">{r.id}</span>
        </li>
      ))}
    </ol>
  );
}

function QueryDetail(props: { id: string }) {
  const loaded = useApi<RetrievalQueryDetail>('retrieval-query', { id: props.id });
  return (
    <Show loaded={loaded}>
      {(q) => (
        <div data-testid="retrieval-query">
          <p class="query-text">{q.query}</p>
          <div class="gold-ids">
            <span class="muted">Gold ids ({fmt(q.expected_ids.length)}):</span>
            <ul>
              {q.expected_ids.map((id) => (
                <li class="mono">{id}</li>
              ))}
            </ul>
            {q.entities && q.entities.length > 0 ? (
              <span class="muted">entities: {q.entities.join(', ')}</span>
            ) : null}
          </div>
          {q.rows.length === 0 ? (
            <p class="muted">No system answered this query.</p>
          ) : (
            <Table<RetrievalQueryRow>
              testId="retrieval-query-rows"
              rows={q.rows}
              rowClass={(r) => (r.verdicts.some((v) => !v.pass) ? 'wrong' : '')}
              columns={[
                {
                  key: 'system',
                  label: 'System',
                  cell: (r) => <span class="cell-text mono">{r.system}</span>,
                },
                { key: 'request', label: 'Request', cell: (r) => <span class="mono">{r.request_id}</span> },
                { key: 'ranked', label: 'Ranked ids (✓ in gold)', cell: (r) => <RankedIds row={r} /> },
                {
                  key: 'hits',
                  label: 'Hits',
                  numeric: true,
                  cell: (r) => `${fmt(r.hits)} of ${fmt(q.expected_ids.length)}`,
                },
                {
                  key: 'verdicts',
                  label: 'Verdicts',
                  cell: (r) =>
                    r.verdicts.length === 0 ? (
                      '—'
                    ) : (
                      <ul class="verdicts">
                        {r.verdicts.map((v) => (
                          <li class={`verdict ${v.pass ? 'pass' : 'fail'}`}>
                            {v.metric} {fmt(v.value)} vs {fmt(v.threshold)} {v.pass ? 'pass' : 'fail'}
                          </li>
                        ))}
                      </ul>
                    ),
                },
              ]}
            />
          )}
        </div>
      )}
    </Show>
  );
}

const duration = (ms: number): string =>
  ms % 86_400_000 === 0
    ? `${ms / 86_400_000} d`
    : ms % 3_600_000 === 0
      ? `${ms / 3_600_000} h`
      : `${ms / 60_000} min`;

function Events(props: { data: RetrievalStoreOverview }) {
  const ev = props.data.events;
  const now = Date.now();
  const totals = ev.buckets.map((b) => Object.values(b.counts).reduce((x, y) => x + y, 0));
  const max = Math.max(1, ...totals);
  return (
    <>
      <h2>Gate verdicts</h2>
      {ev.gate_total === 0 ? (
        <p class="muted">No evaluation_result events in this store.</p>
      ) : (
        <>
          <p class="muted note">
            {fmt(ev.gate_total)} evaluation results, {fmt(ev.gate_failed)} failed; the latest{' '}
            {fmt(ev.gate.length)}:
          </p>
          <Table<RetrievalGateResult>
            testId="retrieval-gate"
            rows={ev.gate}
            rowClass={(g) => (g.pass === false ? 'wrong' : g.pass ? 'right' : '')}
            columns={[
              { key: 'date', label: 'Time', cell: (g) => fmtDate(g.ts) },
              {
                key: 'request',
                label: 'Request',
                cell: (g) => <span class="mono">{g.request_id ?? '—'}</span>,
              },
              { key: 'metric', label: 'Metric', cell: (g) => g.metric ?? '—' },
              { key: 'value', label: 'Value', cell: (g) => fmt(g.value), numeric: true },
              { key: 'threshold', label: 'Threshold', cell: (g) => fmt(g.threshold), numeric: true },
              {
                key: 'pass',
                label: 'Verdict',
                cell: (g) =>
                  g.pass === null ? (
                    '—'
                  ) : (
                    <span class={`verdict ${g.pass ? 'pass' : 'fail'}`}>{g.pass ? 'pass' : 'fail'}</span>
                  ),
              },
              { key: 'origin', label: 'From', cell: (g) => g.origin },
            ]}
          />
        </>
      )}
      <h2>Feedback actions</h2>
      {ev.actions.length === 0 ? (
        <p class="muted">No feedback actions in this store.</p>
      ) : (
        <Table<RetrievalFeedbackAction>
          testId="retrieval-actions"
          rows={ev.actions}
          columns={[
            { key: 'action', label: 'Action', cell: (a) => a.action },
            { key: 'id', label: 'Id', cell: (a) => <span class="mono">{a.id || '—'}</span> },
            { key: 'date', label: 'Time', cell: (a) => fmtDate(a.ts) },
            {
              key: 'expires',
              label: 'Expires',
              cell: (a) => (a.expires_ms === null ? 'never' : fmtDate(a.expires_ms)),
            },
            {
              key: 'status',
              label: 'Status',
              cell: (a) => {
                const status = actionStatus(a, now);
                return <span class={`action-status ${status}`}>{status}</span>;
              },
            },
          ]}
        />
      )}
      <h2>Events over time</h2>
      {ev.total === 0 ? (
        <p class="muted">No retrieval events in this store.</p>
      ) : (
        <>
          <p class="muted note">
            {fmt(ev.total)} events in {duration(ev.bucket_ms)} buckets (UTC).
          </p>
          <Table<RetrievalEventBucket & { total: number }>
            testId="retrieval-events"
            rows={ev.buckets.map((b, i) => ({ ...b, total: totals[i] }))}
            columns={[
              { key: 'date', label: 'From', cell: (b) => fmtDate(b.start_ms) },
              ...ev.types.map((t) => ({
                key: t,
                label: t,
                numeric: true,
                cell: (b: RetrievalEventBucket) => fmt(b.counts[t] ?? 0),
              })),
              { key: 'total', label: 'All', numeric: true, cell: (b) => fmt(b.total) },
              {
                key: 'bar',
                label: '',
                cell: (b) => (
                  <span
                    class="event-bar"
                    style={{ width: `${Math.round((b.total / max) * 160)}px` }}
                    aria-hidden="true"
                  />
                ),
              },
            ]}
          />
        </>
      )}
    </>
  );
}
