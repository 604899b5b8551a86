import { href } from '../route.js';
import { fmt, Show, Table, useApi } from '../ui.js';
import type { Overview } from '../../shared/types.js';

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
              <Table
                rows={o.benchmarks}
                columns={[
                  {
                    key: 'benchmark',
                    label: 'Benchmark',
                    cell: (b) => (
                      <a
                        href={href('leaderboard', {
                          benchmark: b.evaluation_name,
                          metric: b.metric_name ?? undefined,
                        })}
                      >
                        {b.evaluation_name}
                      </a>
                    ),
                  },
                  { key: 'metric', label: 'Metric', cell: (b) => b.metric_name ?? '—' },
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
