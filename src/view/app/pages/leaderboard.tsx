import type { Route } from '../route.js';
import { href, update } from '../route.js';
import { CiBar, domainOf, fmt, fmtCi, Select, Show, Table, useApi } from '../ui.js';
import type { Leaderboards, LeaderboardRow, Overview } from '../../shared/types.js';
import { CI_METHOD_HELP, ciMethodLabel, DIRECTION_ASSUMED, RUN_UNFINISHED } from '../intervals.js';
import { fmtDate } from '../dates.js';

/** The filters `leaderboards()` takes, in the order the page shows them. */
const FILTERS: [keyof Overview['filters'], string][] = [
  ['developer', 'Developer'],
  ['deploymentType', 'Deployment'],
  ['availability', 'Availability'],
  ['sourceOrganization', 'Source'],
  ['collection', 'Collection'],
];

const QUERY_KEYS = ['benchmark', 'metric', ...FILTERS.map(([k]) => k), 'composite', 'partial'];

export function LeaderboardPage(props: { route: Route }) {
  const { params } = props.route;
  const overview = useApi<Overview>('overview');
  const query: Record<string, string | undefined> = {};
  for (const k of QUERY_KEYS) query[k] = params[k];
  const boards = useApi<Leaderboards>('leaderboard', query);
  const set = (changes: Record<string, string | undefined>) => update(props.route, changes);
  const benchmarks =
    overview.state === 'ok' ? [...new Set(overview.data.benchmarks.map((b) => b.evaluation_name))] : [];
  const metrics =
    overview.state === 'ok'
      ? [
          ...new Set(
            overview.data.benchmarks
              .filter((b) => !params.benchmark || b.evaluation_name === params.benchmark)
              .map((b) => b.metric_name ?? '')
              .filter((m) => m !== ''),
          ),
        ]
      : [];
  return (
    <>
      <h1>Leaderboard</h1>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <Select
          name="benchmark"
          label="Benchmark"
          any="all benchmarks"
          value={params.benchmark}
          options={benchmarks}
          onChange={(v) => set({ benchmark: v, metric: undefined })}
        />
        <Select
          name="metric"
          label="Metric"
          any="all metrics"
          value={params.metric}
          options={metrics}
          onChange={(v) => set({ metric: v })}
        />
        {overview.state === 'ok'
          ? FILTERS.map(([key, label]) => (
              <Select
                name={key}
                label={label}
                any="any"
                value={params[key]}
                options={overview.data.filters[key]}
                onChange={(v) => set({ [key]: v })}
              />
            ))
          : null}
        {(
          [
            ['composite', 'Composite (mean win rate)'],
            ['partial', 'Include partial runs'],
          ] as const
        ).map(([name, label]) => (
          <label class="control checkbox">
            <input
              type="checkbox"
              name={name}
              checked={params[name] === '1'}
              onChange={(e) =>
                set({ [name]: (e.currentTarget as HTMLInputElement).checked ? '1' : undefined })
              }
            />
            <span>{label}</span>
          </label>
        ))}
      </form>
      <p class="muted note">
        Tiers: a model shares the tier of the model ranked above it when their paired difference is not
        significant (Holm-corrected). Bars show the 95% CI on a scale shared by the board.
      </p>
      <Show loaded={boards}>
        {(data) => (
          <>
            {data.composite ? (
              <section class="board" data-testid="composite">
                <h2>Composite: mean win rate across benchmarks</h2>
                {data.composite.length === 0 ? (
                  <p class="muted">No benchmark here ranks two models or more: there is nothing to win.</p>
                ) : null}
                <Table
                  rows={data.composite}
                  columns={[
                    { key: 'rank', label: 'Rank', cell: (r) => fmt(r.rank), numeric: true },
                    {
                      key: 'model',
                      label: 'Model',
                      cell: (r) => <a href={href('model', { id: r.model_id })}>{r.model_id}</a>,
                    },
                    { key: 'win', label: 'Mean win rate', cell: (r) => fmt(r.mean_win_rate), numeric: true },
                    { key: 'benchmarks', label: 'Benchmarks', cell: (r) => fmt(r.benchmarks), numeric: true },
                  ]}
                />
              </section>
            ) : null}
            {data.unranked_partial_runs ? (
              <p class="muted note" data-testid="unranked-partial">
                {data.unranked_partial_runs} unfinished run{data.unranked_partial_runs === 1 ? '' : 's'}{' '}
                (error, cancelled, started) not ranked; "Include partial runs" ranks{' '}
                {data.unranked_partial_runs === 1 ? 'it' : 'them'}, marked with the run's status.
              </p>
            ) : null}
            {data.leaderboards.length === 0 ? <p class="muted">No result matches these filters.</p> : null}
            {data.leaderboards.map((board) => (
              <Board board={board} sort={params.sort} onSort={(sort) => set({ sort })} />
            ))}
          </>
        )}
      </Show>
    </>
  );
}

function Board(props: {
  board: Leaderboards['leaderboards'][number];
  sort?: string;
  onSort: (s: string) => void;
}) {
  const { board } = props;
  const domain = domainOf(board.rows.flatMap((r) => [r.score, r.ci?.[0], r.ci?.[1]]));
  return (
    <section class="board" data-testid="board" data-benchmark={board.benchmark} data-metric={board.metric}>
      <h2>
        {board.benchmark} <span class="muted">— {board.metric}</span>{' '}
        <span class="badge">{board.lower_is_better ? 'lower is better' : 'higher is better'}</span>
        {board.direction_assumed ? (
          <>
            {' '}
            <span class="badge warn" data-testid="direction-assumed" title={DIRECTION_ASSUMED}>
              direction assumed
            </span>
          </>
        ) : null}
      </h2>
      <Table<LeaderboardRow>
        rows={board.rows}
        sort={props.sort}
        onSort={props.onSort}
        rowClass={(r) => `tier-${r.tier % 2 === 0 ? 'even' : 'odd'}`}
        columns={[
          { key: 'rank', label: 'Rank', cell: (r) => fmt(r.rank), sort: (r) => r.rank, numeric: true },
          { key: 'tier', label: 'Tier', cell: (r) => fmt(r.tier), sort: (r) => r.tier, numeric: true },
          {
            key: 'model',
            label: 'Model',
            cell: (r) => (
              <>
                <a href={href('model', { id: r.model_id })}>{r.model_id}</a>
                {r.run_status !== undefined && r.run_status !== 'complete' ? (
                  <span class="muted" title={RUN_UNFINISHED} data-testid="run-status">
                    {' '}
                    [run {r.run_status}]
                  </span>
                ) : null}
              </>
            ),
            sort: (r) => r.model_id,
          },
          { key: 'developer', label: 'Developer', cell: (r) => r.developer ?? '—', sort: (r) => r.developer },
          { key: 'score', label: 'Score', cell: (r) => fmt(r.score, 4), sort: (r) => r.score, numeric: true },
          {
            key: 'bar',
            label: '95% CI',
            cell: (r) => <CiBar estimate={r.score} ci={r.ci} domain={domain} />,
          },
          { key: 'ci', label: 'CI', cell: (r) => fmtCi(r.ci, 4), numeric: true },
          {
            key: 'method',
            label: 'CI method',
            cell: (r) => (
              <span title={CI_METHOD_HELP}>{ciMethodLabel(r.ci_method, r.ci_clipped) || '—'}</span>
            ),
          },
          {
            key: 'n',
            label: 'n',
            cell: (r) =>
              r.disagreement ? (
                <span class="status warn" title={r.disagreement}>
                  {fmt(r.n)} !
                </span>
              ) : (
                fmt(r.n)
              ),
            sort: (r) => r.n,
            numeric: true,
          },
          { key: 'source', label: 'Source', cell: (r) => r.source ?? '—', sort: (r) => r.source },
          {
            key: 'date',
            label: 'Date',
            cell: (r) => fmtDate(r.date, true),
            sort: (r) => r.date ?? null,
          },
          {
            key: 'record',
            label: 'Record',
            cell: (r) =>
              r.record_key ? (
                <a href={href('record', { key: r.record_key })}>{r.evaluation_id}</a>
              ) : (
                r.evaluation_id
              ),
          },
        ]}
      />
      {board.rows
        .filter((r) => r.disagreement)
        .map((r) => (
          <p class="status warn note" data-testid="disagreement">
            ! {r.model_id}: {r.disagreement}
          </p>
        ))}
    </section>
  );
}
