// Score versus cost, one chart per benchmark and metric: each model a point (its cost on the x axis, its score on
// the y axis), the Pareto front — the models no other beats on both — joined by a line and marked. The numbers are
// the `cost` endpoint's (`evalkit leaderboard --show cost`); a model whose result states no cost is listed under
// the chart, never drawn at 0.
import type { Route } from '../route.js';
import { href, update } from '../route.js';
import { domainOf, fmt, Select, Show, Table, useApi } from '../ui.js';
import type { CostBoard, CostBoards, CostPoint, Overview } from '../../shared/types.js';

const WIDTH = 560;
const HEIGHT = 300;
const PAD = { left: 56, right: 16, top: 12, bottom: 40 };

/** US dollars as the chart labels them: 3 significant digits. */
export function usd(x: number | null): string {
  if (x === null) return 'no cost';
  if (x === 0) return '$0';
  return x < 1 ? `$${Number(x.toPrecision(3))}` : `$${x.toFixed(2)}`;
}

export function CostPage(props: { route: Route }) {
  const { params } = props.route;
  const overview = useApi<Overview>('overview');
  const data = useApi<CostBoards>('cost', { benchmark: params.benchmark, metric: params.metric });
  const benchmarks =
    overview.state === 'ok' ? [...new Set(overview.data.benchmarks.map((b) => b.evaluation_name))] : [];
  return (
    <>
      <h1>Score versus cost</h1>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <Select
          name="benchmark"
          label="Benchmark"
          any="all benchmarks"
          value={params.benchmark}
          options={benchmarks}
          onChange={(v) => update(props.route, { benchmark: v, metric: undefined })}
        />
      </form>
      <p class="muted note">
        Each model's cost in US dollars (per sample when every model on the board has it per sample, else in
        total), from its instance rows' <span class="mono">metadata.cost</span> or its record's{' '}
        <span class="mono">total_cost_usd</span>. The Pareto front joins the models that no other model beats
        on both cost and score.
      </p>
      <Show loaded={data}>
        {(d) => {
          const shown = d.boards.filter((b) => b.points.some((p) => p.cost_usd !== null));
          return (
            <>
              {shown.length === 0 ? (
                <p class="muted" data-testid="no-cost">
                  No result here states a cost: run with <span class="mono">evalkit run --prices FILE</span>,
                  or ingest records that carry one.
                </p>
              ) : null}
              {shown.map((b) => (
                <CostChart board={b} />
              ))}
            </>
          );
        }}
      </Show>
    </>
  );
}

/** A linear scale, or a logarithmic one when the costs span more than 20×. */
function costScale(costs: number[]): { at: (v: number) => number; ticks: number[]; log: boolean } {
  const lo = Math.min(...costs);
  const hi = Math.max(...costs);
  const log = lo > 0 && hi / lo > 20;
  const inner = WIDTH - PAD.left - PAD.right;
  if (log) {
    const [a, b] = [Math.log10(lo) - 0.1, Math.log10(hi) + 0.1];
    const ticks: number[] = [];
    for (let e = Math.ceil(a); e <= Math.floor(b); e++) ticks.push(10 ** e);
    return { at: (v) => PAD.left + ((Math.log10(v) - a) / (b - a)) * inner, ticks, log };
  }
  const top = hi === 0 ? 1 : hi * 1.08;
  return {
    at: (v) => PAD.left + (v / top) * inner,
    ticks: [0, top / 4, top / 2, (3 * top) / 4],
    log,
  };
}

function CostChart(props: { board: CostBoard }) {
  const { board } = props;
  const costed = board.points.filter((p) => p.cost_usd !== null);
  const x = costScale(costed.map((p) => p.cost_usd!));
  const [lo, hi] = domainOf(costed.map((p) => p.score));
  const y = (v: number) => PAD.top + (1 - (v - lo) / (hi - lo || 1)) * (HEIGHT - PAD.top - PAD.bottom);
  const front = costed.filter((p) => p.pareto).sort((a, b) => a.cost_usd! - b.cost_usd!);
  const axisLabel = `${board.axis === 'per_sample' ? 'cost per sample' : 'total cost'} (USD${x.log ? ', log scale' : ''})`;
  return (
    <section
      class="board"
      data-testid="cost-board"
      data-benchmark={board.benchmark}
      data-metric={board.metric}
    >
      <h2>
        {board.benchmark} <span class="muted">— {board.metric}</span>{' '}
        <span class="badge">{board.lower_is_better ? 'lower is better' : 'higher is better'}</span>
      </h2>
      <svg
        class="cost-chart"
        width={WIDTH}
        height={HEIGHT}
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={`${board.metric} against ${axisLabel}`}
      >
        <line
          class="axis"
          x1={PAD.left}
          x2={WIDTH - PAD.right}
          y1={HEIGHT - PAD.bottom}
          y2={HEIGHT - PAD.bottom}
        />
        <line class="axis" x1={PAD.left} x2={PAD.left} y1={PAD.top} y2={HEIGHT - PAD.bottom} />
        {x.ticks.map((t) => (
          <text x={x.at(t)} y={HEIGHT - PAD.bottom + 14} text-anchor="middle">
            {usd(t)}
          </text>
        ))}
        {[lo, (lo + hi) / 2, hi].map((t) => (
          <text x={PAD.left - 6} y={y(t) + 4} text-anchor="end">
            {fmt(t, 3)}
          </text>
        ))}
        <text class="axis-label" x={(PAD.left + WIDTH - PAD.right) / 2} y={HEIGHT - 6} text-anchor="middle">
          {axisLabel}
        </text>
        {front.length > 1 ? (
          <polyline
            class="pareto-front"
            data-testid="pareto-front"
            points={front.map((p) => `${x.at(p.cost_usd!)},${y(p.score)}`).join(' ')}
          />
        ) : null}
        {costed.map((p) => (
          <circle
            class={p.pareto ? 'cost-point pareto' : 'cost-point'}
            data-testid="cost-point"
            data-model={p.model_id}
            data-pareto={p.pareto ? '1' : '0'}
            cx={x.at(p.cost_usd!)}
            cy={y(p.score)}
            r={p.pareto ? 5.5 : 4}
          >
            <title>
              {p.model_id}: {fmt(p.score, 4)} at {usd(p.cost_usd)}
              {p.pareto ? ' (Pareto front)' : ''}
            </title>
          </circle>
        ))}
      </svg>
      <Table<CostPoint>
        rows={board.points}
        testId="cost-table"
        columns={[
          {
            key: 'model',
            label: 'Model',
            cell: (p) => <a href={href('model', { id: p.model_id })}>{p.model_id}</a>,
          },
          { key: 'score', label: 'Score', cell: (p) => fmt(p.score, 4), numeric: true },
          { key: 'total', label: 'Total cost', cell: (p) => usd(p.total_usd), numeric: true },
          { key: 'per-sample', label: 'Cost per sample', cell: (p) => usd(p.per_sample_usd), numeric: true },
          {
            key: 'pareto',
            label: 'Pareto front',
            cell: (p) => (p.pareto ? 'yes' : p.cost_usd === null ? '—' : 'no'),
          },
        ]}
      />
    </section>
  );
}
