import { href } from '../route.js';
import { fmt, Show, Table, useApi } from '../ui.js';
import type { Overview } from '../../shared/types.js';

/** A benchmark with its metrics, and (for a task group) the benchmarks of the group. */
interface BenchmarkNode {
  name: string;
  metrics: { metric_name: string | null; models: number; results: number }[];
  /** Most models on one of its metrics (of the whole group for a group). */
  models: number;
  /** Results of its metrics (of the whole group for a group). */
  results: number;
  subtasks: BenchmarkNode[];
}

/**
 * One row per benchmark (its metrics inside), subtasks of a task group under the group (nested groups too), in
 * name order.
 */
export function benchmarkTree(o: Overview): BenchmarkNode[] {
  const nodes = new Map<string, BenchmarkNode>();
  const node = (name: string): BenchmarkNode => {
    let n = nodes.get(name);
    if (!n) nodes.set(name, (n = { name, metrics: [], models: 0, results: 0, subtasks: [] }));
    return n;
  };
  for (const b of o.benchmarks) node(b.evaluation_name).metrics.push(b);
  const groups = o.benchmark_groups ?? {};
  const parentOf = (name: string): string | undefined => {
    // A group chain that loops back is cut where it would.
    const seen = new Set([name]);
    let p = groups[name];
    for (let q = p; q !== undefined; q = groups[q]) {
      if (seen.has(q)) return undefined;
      seen.add(q);
    }
    return p;
  };
  for (const name of [...nodes.keys()]) {
    const parent = parentOf(name);
    if (parent !== undefined) node(parent).subtasks.push(nodes.get(name)!);
  }
  const total = (n: BenchmarkNode): void => {
    n.subtasks.sort((x, y) => x.name.localeCompare(y.name));
    n.subtasks.forEach(total);
    n.models = Math.max(0, ...n.metrics.map((m) => m.models), ...n.subtasks.map((t) => t.models));
    n.results = n.metrics.reduce((a, m) => a + m.results, 0) + n.subtasks.reduce((a, t) => a + t.results, 0);
  };
  const roots = [...nodes.values()]
    .filter((n) => parentOf(n.name) === undefined)
    .sort((x, y) => x.name.localeCompare(y.name));
  roots.forEach(total);
  return roots;
}

function MetricLinks(props: { node: BenchmarkNode }) {
  const { node } = props;
  if (node.metrics.length === 0) return <span class="muted">—</span>;
  return (
    <span class="metric-links">
      {node.metrics.map((m) => (
        <a href={href('leaderboard', { benchmark: node.name, metric: m.metric_name ?? undefined })}>
          {m.metric_name ?? '(score)'}
        </a>
      ))}
    </span>
  );
}

function BenchmarkCell(props: { node: BenchmarkNode }) {
  const { node } = props;
  const count = (n: BenchmarkNode): number => n.subtasks.reduce((a, t) => a + 1 + count(t), 0);
  return (
    <>
      <a href={href('leaderboard', { benchmark: node.name })}>{node.name}</a>
      {node.subtasks.length > 0 ? (
        <details class="subtasks" data-testid="subtasks">
          <summary>
            group of {fmt(count(node))} task{count(node) === 1 ? '' : 's'}
          </summary>
          <ul>
            {node.subtasks.map((t) => (
              <li>
                <BenchmarkCell node={t} /> <MetricLinks node={t} />
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </>
  );
}

export function OverviewPage() {
  const loaded = useApi<Overview>('overview');
  return (
    <Show loaded={loaded}>
      {(o) => (
        <>
          <h1>Overview</h1>
          <ul class="cards" data-testid="counts">
            {(
              [
                ['Collections', o.counts.collections],
                ['Benchmarks', o.counts.benchmarks],
                ['Models', o.counts.models],
                ['Records', o.counts.records],
                ['Results', o.counts.results],
                ['Samples', o.counts.samples],
              ] as [string, number][]
            ).map(([label, n]) => (
              <li class="card">
                <span class="card-value">{fmt(n)}</span>
                <span class="card-label">{label}</span>
              </li>
            ))}
          </ul>
          <div class="columns">
            <section>
              <h2>Benchmarks</h2>
              <Table<BenchmarkNode>
                testId="benchmarks"
                rows={benchmarkTree(o)}
                columns={[
                  {
                    key: 'benchmark',
                    label: 'Benchmark',
                    cell: (b) => <BenchmarkCell node={b} />,
                  },
                  {
                    key: 'metric',
                    label: 'Metrics',
                    cell: (b) => <MetricLinks node={b} />,
                  },
                  { key: 'models', label: 'Models', cell: (b) => fmt(b.models), numeric: true },
                  { key: 'results', label: 'Results', cell: (b) => fmt(b.results), numeric: true },
                ]}
              />
            </section>
            <section>
              <h2>Models</h2>
              <Table
                rows={o.models}
                columns={[
                  {
                    key: 'model',
                    label: 'Model',
                    cell: (m) => <a href={href('model', { id: m.model_id })}>{m.model_id}</a>,
                  },
                  { key: 'developer', label: 'Developer', cell: (m) => m.developer ?? '—' },
                  { key: 'records', label: 'Records', cell: (m) => fmt(m.records), numeric: true },
                ]}
              />
            </section>
          </div>
          <div class="columns">
            <section>
              <h2>Collections</h2>
              <Table
                rows={o.collections}
                columns={[
                  { key: 'collection', label: 'Collection', cell: (c) => c.collection ?? '(none)' },
                  { key: 'records', label: 'Records', cell: (c) => fmt(c.records), numeric: true },
                  { key: 'models', label: 'Models', cell: (c) => fmt(c.models), numeric: true },
                ]}
              />
              {o.families.length > 0 ? (
                <>
                  <h2>Other documents</h2>
                  <ul>
                    {o.families.map((f) => (
                      <li>
                        {f.kind.startsWith('infereval') ? (
                          <a href={href('infereval')}>{f.kind}</a>
                        ) : f.kind.startsWith('retrieval') ? (
                          <a href={href('retrieval')}>{f.kind}</a>
                        ) : (
                          f.kind
                        )}
                        : {fmt(f.documents)}
                      </li>
                    ))}
                  </ul>
                </>
              ) : null}
            </section>
            <section>
              <h2>Recent ingests</h2>
              {o.ingests.length === 0 ? <p class="muted">No ingest recorded.</p> : null}
              <Table
                rows={o.ingests}
                columns={[
                  { key: 'started', label: 'Started', cell: (i) => i.started_at.slice(0, 19) },
                  { key: 'paths', label: 'Paths', cell: (i) => i.paths.join(', ') },
                  { key: 'records', label: 'Records', cell: (i) => fmt(i.records_added), numeric: true },
                  { key: 'rows', label: 'Rows', cell: (i) => fmt(i.rows_added), numeric: true },
                  { key: 'skipped', label: 'Skipped', cell: (i) => fmt(i.skipped), numeric: true },
                  { key: 'rejected', label: 'Rejected', cell: (i) => fmt(i.rejected), numeric: true },
                ]}
              />
              <h2>Recently added records</h2>
              <Table
                rows={o.recent_records}
                columns={[
                  {
                    key: 'record',
                    label: 'Evaluation',
                    cell: (r) => <a href={href('record', { key: r.record_key })}>{r.evaluation_id}</a>,
                  },
                  { key: 'model', label: 'Model', cell: (r) => r.model_id },
                  { key: 'at', label: 'Ingested', cell: (r) => r.ingested_at.slice(0, 19) },
                ]}
              />
            </section>
          </div>
        </>
      )}
    </Show>
  );
}
