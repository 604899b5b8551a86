import type { Route } from '../route.js';
import { href, update } from '../route.js';
import { CiBar, domainOf, fmt, fmtCi, fmtP, Pager, Select, Show, Table, TextBlock, useApi } from '../ui.js';
import type { CompareResult, Comparison, Disagreements, Overview } from '../../shared/types.js';

export function ComparePage(props: { route: Route }) {
  const { params } = props.route;
  const set = (changes: Record<string, string | undefined>) => update(props.route, changes);
  const overview = useApi<Overview>('overview');
  const ready = Boolean(params.a && params.b);
  const compared = useApi<CompareResult>(ready ? 'compare' : null, {
    a: params.a,
    b: params.b,
    benchmark: params.benchmark,
    metric: params.metric,
  });
  const models = overview.state === 'ok' ? overview.data.models.map((m) => m.model_id) : [];
  const benchmarks =
    overview.state === 'ok' ? [...new Set(overview.data.benchmarks.map((b) => b.evaluation_name))] : [];
  return (
    <>
      <h1>Compare two models</h1>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <Select
          name="a"
          label="Model A"
          any="choose…"
          value={params.a}
          options={models}
          onChange={(v) => set({ a: v, dbench: undefined, dmetric: undefined, offset: undefined })}
        />
        <Select
          name="b"
          label="Model B"
          any="choose…"
          value={params.b}
          options={models}
          onChange={(v) => set({ b: v, dbench: undefined, dmetric: undefined, offset: undefined })}
        />
        <Select
          name="benchmark"
          label="Benchmark"
          any="every shared benchmark"
          value={params.benchmark}
          options={benchmarks}
          onChange={(v) => set({ benchmark: v, dbench: undefined, dmetric: undefined, offset: undefined })}
        />
      </form>
      {!ready ? <p class="muted">Choose two models to compare them on the questions both answered.</p> : null}
      {ready ? (
        <Show loaded={compared}>{(result) => <Comparisons result={result} route={props.route} />}</Show>
      ) : null}
    </>
  );
}

function Comparisons(props: { result: CompareResult; route: Route }) {
  const { result, route } = props;
  const { params } = route;
  const domain = domainOf(result.comparisons.flatMap((c) => [c.difference, c.ci?.[0], c.ci?.[1], 0]));
  const selected = result.comparisons.find(
    (c) => c.benchmark === params.dbench && c.metric === params.dmetric,
  );
  return (
    <>
      <p class="muted note">
        Difference = A − B on the paired questions (same sample), 95% CI from Student's t on the paired
        differences; p adjusted by Holm over the {result.comparisons.length} comparison
        {result.comparisons.length === 1 ? '' : 's'}; McNemar's exact test on binary scores (A only right / B
        only right).
      </p>
      {result.comparisons.length === 0 ? (
        <p class="muted">The two models share no benchmark and metric.</p>
      ) : null}
      <Table<Comparison>
        testId="comparisons"
        rows={result.comparisons}
        sort={params.sort}
        onSort={(sort) => update(route, { sort })}
        rowClass={(c) => (c === selected ? 'selected' : '')}
        columns={[
          { key: 'benchmark', label: 'Benchmark', cell: (c) => c.benchmark, sort: (c) => c.benchmark },
          { key: 'metric', label: 'Metric', cell: (c) => c.metric, sort: (c) => c.metric },
          {
            key: 'paired',
            label: 'Pairs',
            cell: (c) => (c.paired ? fmt(c.n_paired) : `unpaired: ${c.reason ?? ''}`),
            sort: (c) => c.n_paired,
            numeric: true,
          },
          {
            key: 'mean_a',
            label: 'Mean A',
            cell: (c) => fmt(c.mean_a, 4),
            sort: (c) => c.mean_a,
            numeric: true,
          },
          {
            key: 'mean_b',
            label: 'Mean B',
            cell: (c) => fmt(c.mean_b, 4),
            sort: (c) => c.mean_b,
            numeric: true,
          },
          {
            key: 'difference',
            label: 'A − B',
            cell: (c) => fmt(c.difference, 4),
            sort: (c) => c.difference,
            numeric: true,
          },
          {
            key: 'bar',
            label: '95% CI',
            cell: (c) => <CiBar estimate={c.difference} ci={c.ci} domain={domain} zero />,
          },
          { key: 'ci', label: 'CI', cell: (c) => fmtCi(c.ci, 4), numeric: true },
          { key: 'p', label: 'p', cell: (c) => fmtP(c.p_value), sort: (c) => c.p_value, numeric: true },
          {
            key: 'p_holm',
            label: 'p (Holm)',
            cell: (c) => fmtP(c.p_holm),
            sort: (c) => c.p_holm,
            numeric: true,
          },
          {
            key: 'mcnemar',
            label: 'McNemar A/B only, p',
            cell: (c) =>
              c.mcnemar
                ? `${fmt(c.mcnemar.a_only)} / ${fmt(c.mcnemar.b_only)}, ${fmtP(c.mcnemar.p_value)}`
                : '—',
          },
          { key: 'r', label: 'r', cell: (c) => fmt(c.correlation, 3), numeric: true },
          { key: 'mde', label: 'MDE', cell: (c) => fmt(c.mde, 4), numeric: true },
          {
            key: 'show',
            label: 'Disagreements',
            cell: (c) =>
              c.paired ? (
                <a
                  href={href('compare', {
                    ...params,
                    dbench: c.benchmark,
                    dmetric: c.metric,
                    offset: undefined,
                  })}
                >
                  show
                </a>
              ) : (
                '—'
              ),
          },
        ]}
      />
      {selected ? <DisagreementPane route={route} comparison={selected} /> : null}
    </>
  );
}

function DisagreementPane(props: { route: Route; comparison: Comparison }) {
  const { params } = props.route;
  const loaded = useApi<Disagreements>('disagreements', {
    a: params.a,
    b: params.b,
    benchmark: props.comparison.benchmark,
    metric: props.comparison.metric,
    offset: params.offset,
    limit: '20',
  });
  return (
    <section data-testid="disagreements">
      <h2>
        Where they disagree: {props.comparison.benchmark}{' '}
        <span class="muted">— {props.comparison.metric}</span>
      </h2>
      <Show loaded={loaded}>
        {(page) => (
          <>
            <Pager
              total={page.total}
              offset={page.offset}
              limit={page.limit}
              onOffset={(o) => update(props.route, { offset: o ? String(o) : undefined })}
            />
            {page.total > page.rows.length + page.offset && page.rows.length === 0 ? (
              <p class="muted">Not part of this export.</p>
            ) : null}
            <div class="disagreement-head">
              <span>Question and reference</span>
              <span>
                A <span class="mono">{params.a}</span>
              </span>
              <span>
                B <span class="mono">{params.b}</span>
              </span>
            </div>
            {page.rows.map((item) => (
              <article class="disagreement">
                <div class="question">
                  <span class="mono muted">{item.sample_id}</span>
                  <TextBlock text={item.input} />
                  <span class="muted">reference</span>
                  <TextBlock text={item.reference} />
                </div>
                <div data-side="a" class={item.score_a > item.score_b ? 'better' : 'worse'}>
                  <span class="muted">score {fmt(item.score_a)}</span>
                  <TextBlock text={item.output_a} />
                </div>
                <div data-side="b" class={item.score_b > item.score_a ? 'better' : 'worse'}>
                  <span class="muted">score {fmt(item.score_b)}</span>
                  <TextBlock text={item.output_b} />
                </div>
              </article>
            ))}
          </>
        )}
      </Show>
    </section>
  );
}
