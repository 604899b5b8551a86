import type { Route } from '../route.js';
import { href, update } from '../route.js';
import { fmt, fmtCi, Fields, Show, Table, useApi } from '../ui.js';
import type { ModelResults, Standing } from '../../shared/types.js';
import { CI_METHOD_HELP, ciMethodLabel, DIRECTION_ASSUMED } from '../intervals.js';

type Result = ModelResults['results'][number] & { standing?: Standing };

/** The leaderboard's row for this result (same record, benchmark and metric), when the result is on a board. */
function withStandings(data: ModelResults): Result[] {
  const byKey = new Map(
    (data.standings ?? []).map((s) => [`${s.record_key}\u0000${s.benchmark}\u0000${s.metric}`, s]),
  );
  return data.results.map((r) => ({
    ...r,
    standing: byKey.get(`${r.record_key}\u0000${r.evaluation_name}\u0000${r.metric_name ?? 'score'}`),
  }));
}

/** The result's one interval (the same function as `evalkit leaderboard` and the record page). */
function shownCi(r: Result): [number, number] | null {
  return r.interval?.ci ?? r.standing?.ci ?? null;
}

/** The scale a result is drawn on: its declared range when finite, else [0, 1] when it fits, else its own span. */
function scaleOf(r: Result): [number, number] {
  const ci = shownCi(r);
  const lo = Math.min(r.score, ci?.[0] ?? r.score);
  const hi = Math.max(r.score, ci?.[1] ?? r.score);
  if (
    r.min_score !== null &&
    r.max_score !== null &&
    Number.isFinite(r.min_score) &&
    Number.isFinite(r.max_score)
  )
    return [Math.min(r.min_score, lo), Math.max(r.max_score, hi)];
  if (lo >= 0 && hi <= 1) return [0, 1];
  return lo === hi ? [lo - 1, hi + 1] : [lo, hi];
}

function ResultsChart(props: { results: Result[] }) {
  const rowHeight = 26;
  const labelWidth = 300;
  const plotWidth = 420;
  const height = props.results.length * rowHeight + 24;
  return (
    <svg
      class="chart model-chart"
      width={labelWidth + plotWidth + 70}
      height={height}
      role="img"
      aria-label="scores with 95% intervals"
    >
      <text class="axis-label" x={labelWidth} y={12}>
        min
      </text>
      <text class="axis-label" x={labelWidth + plotWidth} y={12} text-anchor="end">
        max of each result's scale
      </text>
      {props.results.map((r, i) => {
        const [lo, hi] = scaleOf(r);
        const x = (v: number) => labelWidth + ((v - lo) / (hi - lo || 1)) * plotWidth;
        const y = 24 + i * rowHeight + rowHeight / 2;
        const ci = shownCi(r);
        const label = `${r.evaluation_name} · ${r.metric_name ?? ''}`;
        return (
          <g class="result-row">
            <text class="row-label" x={labelWidth - 8} y={y + 4} text-anchor="end">
              {label.length > 42 ? `${label.slice(0, 41)}…` : label}
            </text>
            <line class="axis" x1={labelWidth} x2={labelWidth + plotWidth} y1={y} y2={y} />
            {ci ? (
              <line class="interval" x1={x(Math.max(lo, ci[0]))} x2={x(Math.min(hi, ci[1]))} y1={y} y2={y} />
            ) : null}
            <circle class="estimate" cx={x(r.score)} cy={y} r={4} />
            <text class="value-label" x={labelWidth + plotWidth + 8} y={y + 4}>
              {fmt(r.score)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

export function ModelPage(props: { route: Route }) {
  const id = props.route.params.id ?? '';
  const loaded = useApi<ModelResults>('model', { id });
  return (
    <Show loaded={loaded}>
      {(data) => {
        const { model } = data;
        const results = withStandings(data);
        return (
          <>
            <h1>
              Model <span class="mono">{model.model_id}</span>
            </h1>
            <Fields
              rows={[
                ['Name', model.model_name],
                ['Developer', model.developer],
                ['Deployment', model.deployment_type],
                ['Availability', model.model_availability],
                ['Records', fmt(model.records)],
              ]}
            />
            <h2>Results ({fmt(results.length)})</h2>
            <p class="muted note">
              Scores as the records give them, each with its 95% interval as the leaderboard computes it (the
              CI method column says how; never beyond the metric's bounds). Each row is drawn on its result's
              own scale.
            </p>
            <ResultsChart results={results} />
            <Table<Result>
              rows={results}
              sort={props.route.params.sort}
              onSort={(sort) => update(props.route, { sort })}
              columns={[
                {
                  key: 'benchmark',
                  label: 'Benchmark',
                  cell: (r) => (
                    <a
                      href={href('leaderboard', {
                        benchmark: r.evaluation_name,
                        metric: r.metric_name ?? undefined,
                      })}
                    >
                      {r.evaluation_name}
                    </a>
                  ),
                  sort: (r) => r.evaluation_name,
                },
                {
                  key: 'metric',
                  label: 'Metric',
                  cell: (r) => r.metric_name ?? '—',
                  sort: (r) => r.metric_name,
                },
                {
                  key: 'score',
                  label: 'Score',
                  cell: (r) => fmt(r.score, 4),
                  sort: (r) => r.score,
                  numeric: true,
                },
                { key: 'ci', label: '95% CI', cell: (r) => fmtCi(shownCi(r), 4), numeric: true },
                {
                  key: 'method',
                  label: 'CI method',
                  cell: (r) => (
                    <span title={CI_METHOD_HELP}>
                      {ciMethodLabel(r.interval?.method, r.interval?.clipped) || '—'}
                    </span>
                  ),
                },
                {
                  key: 'rank',
                  label: 'Rank',
                  cell: (r) =>
                    r.standing ? (
                      <>
                        {`${fmt(r.standing.rank)} of ${fmt(r.standing.models)}`}
                        {r.standing.direction_assumed ? (
                          <span class="badge warn" data-testid="direction-assumed" title={DIRECTION_ASSUMED}>
                            direction assumed
                          </span>
                        ) : null}
                      </>
                    ) : (
                      '—'
                    ),
                  sort: (r) => r.standing?.rank ?? null,
                  numeric: true,
                },
                {
                  key: 'n',
                  label: 'n',
                  cell: (r) => fmt(r.interval?.n ?? r.num_samples),
                  sort: (r) => r.interval?.n ?? r.num_samples,
                  numeric: true,
                },
                {
                  key: 'samples',
                  label: 'Samples',
                  cell: (r) =>
                    r.samples > 0 ? (
                      <a href={href('samples', { record: r.record_key, result: String(r.result_index) })}>
                        {fmt(r.samples)}
                      </a>
                    ) : (
                      '—'
                    ),
                  sort: (r) => r.samples,
                  numeric: true,
                },
                {
                  key: 'source',
                  label: 'Source',
                  cell: (r) => r.source_organization_name ?? '—',
                  sort: (r) => r.source_organization_name,
                },
                {
                  key: 'record',
                  label: 'Record',
                  cell: (r) => <a href={href('record', { key: r.record_key })}>{r.evaluation_id}</a>,
                },
              ]}
            />
          </>
        );
      }}
    </Show>
  );
}
