import type { Route } from '../route.js';
import { href, update } from '../route.js';
import { fmt, fmtCi, Fields, Select, Show, Table, TextBlock, useApi } from '../ui.js';
import type { InferevalDetail, InferevalItem, InferevalListEntry } from '../../shared/types.js';

export function InferevalPage(props: { route: Route }) {
  const key = props.route.params.key;
  const list = useApi<{ evaluations: InferevalListEntry[] }>('infereval');
  return (
    <>
      <h1>infereval agreement</h1>
      <Show loaded={list}>
        {({ evaluations }) =>
          evaluations.length === 0 ? (
            <p class="muted">No infereval evaluation (η) in this store.</p>
          ) : (
            <Table<InferevalListEntry>
              rows={evaluations}
              rowClass={(e) => (e.record_key === key ? 'selected' : '')}
              columns={[
                {
                  key: 'id',
                  label: 'Evaluation',
                  cell: (e) => <a href={href('infereval', { key: e.record_key })}>{e.id}</a>,
                },
                { key: 'benchmark', label: 'Benchmark', cell: (e) => e.benchmark_id ?? '—' },
                { key: 'model', label: 'Model', cell: (e) => e.model_id ?? '—' },
                { key: 'items', label: 'Items', cell: (e) => fmt(e.items), numeric: true },
              ]}
            />
          )
        }
      </Show>
      {key ? <Detail route={props.route} recordKey={key} /> : null}
    </>
  );
}

function Confusion(props: { verdicts: string[]; matrix: number[][] }) {
  const max = Math.max(1, ...props.matrix.flat());
  const cell = 56;
  const left = 120;
  const top = 46;
  const n = props.verdicts.length;
  return (
    <svg
      class="chart confusion"
      width={left + n * cell + 10}
      height={top + n * cell + 10}
      role="img"
      aria-label="confusion matrix"
    >
      <text class="axis-label" x={left + (n * cell) / 2} y={14} text-anchor="middle">
        consensus of the analysts
      </text>
      {props.verdicts.map((v, j) => (
        <text class="axis-label" x={left + j * cell + cell / 2} y={top - 8} text-anchor="middle">
          {v}
        </text>
      ))}
      {props.verdicts.map((v, i) => (
        <text class="axis-label" x={left - 8} y={top + i * cell + cell / 2 + 4} text-anchor="end">
          model: {v}
        </text>
      ))}
      {props.matrix.map((row, i) =>
        row.map((count, j) => (
          <g>
            <rect
              class={`confusion-cell${i === j ? ' diagonal' : ''}`}
              x={left + j * cell}
              y={top + i * cell}
              width={cell - 2}
              height={cell - 2}
              fill-opacity={0.12 + 0.88 * (count / max)}
            />
            <text
              class="cell-label"
              x={left + j * cell + cell / 2 - 1}
              y={top + i * cell + cell / 2 + 4}
              text-anchor="middle"
            >
              {count}
            </text>
          </g>
        )),
      )}
    </svg>
  );
}

function Detail(props: { route: Route; recordKey: string }) {
  const loaded = useApi<InferevalDetail>('infereval', { key: props.recordKey });
  const { params } = props.route;
  return (
    <Show loaded={loaded}>
      {(d) => {
        const show = params.items ?? 'all';
        const items = d.items.filter((it) =>
          show === 'disagree'
            ? it.model_verdict !== it.consensus
            : show === 'agree'
              ? it.model_verdict === it.consensus
              : true,
        );
        return (
          <section data-testid="infereval-detail">
            <h2>
              <span class="mono">{d.evaluation.id}</span>
            </h2>
            <ul class="cards">
              <li class="card" data-testid="kappa-c">
                <span class="card-value">{fmt(d.kappa_c.estimate)}</span>
                <span class="card-label">
                  Cohen's κ_C vs {d.kappa_c.reference}, 95% CI {fmtCi(d.kappa_c.ci)}
                </span>
              </li>
              <li class="card" data-testid="kappa-f">
                <span class="card-value">{fmt(d.kappa_f.estimate)}</span>
                <span class="card-label">Fleiss' κ_F (analysts + model), 95% CI {fmtCi(d.kappa_f.ci)}</span>
              </li>
            </ul>
            <p class="muted note">Intervals: {d.ci_method}.</p>
            <div class="columns">
              <Fields
                rows={[['Benchmark', d.evaluation.benchmark_id], ['Model', d.evaluation.model], ...d.summary]}
              />
              <div>
                <h3>Model verdict against the analysts' consensus</h3>
                <Confusion verdicts={d.verdicts} matrix={d.confusion} />
              </div>
            </div>
            {d.notes.length > 0 ? (
              <ul class="notes">
                {d.notes.map((n) => (
                  <li>{n}</li>
                ))}
              </ul>
            ) : null}
            <h3>Items</h3>
            <form class="filters" onSubmit={(e) => e.preventDefault()}>
              <Select
                name="items"
                label="Show"
                value={show}
                options={[
                  ['all', `all items (${d.items.length})`],
                  ['disagree', 'model ≠ consensus'],
                  ['agree', 'model = consensus'],
                ]}
                onChange={(v) => update(props.route, { items: v === 'all' ? undefined : v })}
              />
            </form>
            <Table<InferevalItem>
              rows={items}
              rowClass={(it) => (it.model_verdict !== it.consensus ? 'wrong' : '')}
              columns={[
                { key: 'id', label: 'Item', cell: (it) => <span class="mono">{it.id}</span> },
                { key: 'tags', label: 'Tags', cell: (it) => it.tags.join(', ') || '—' },
                { key: 'analysts', label: 'Analysts', cell: (it) => it.analyst_verdicts.join(' · ') },
                { key: 'consensus', label: 'Consensus', cell: (it) => it.consensus },
                { key: 'model', label: 'Model', cell: (it) => it.model_verdict },
                {
                  key: 'votes',
                  label: 'Sample votes good/bad/abstain',
                  cell: (it) => `${it.counts.good} / ${it.counts.bad} / ${it.counts.abstain}`,
                },
                {
                  key: 'samples',
                  label: 'Samples',
                  cell: (it) => (
                    <details>
                      <summary>{it.samples.length} responses</summary>
                      {it.samples.map((s, i) => (
                        <div class="sample-response">
                          <span class="muted">
                            #{i} → {s.verdict ?? 'unparsed'}
                          </span>
                          <TextBlock text={s.response} />
                        </div>
                      ))}
                      {it.rationales.map((r) => (
                        <p class="rationale">Analyst: {r}</p>
                      ))}
                    </details>
                  ),
                },
              ]}
            />
          </section>
        );
      }}
    </Show>
  );
}
