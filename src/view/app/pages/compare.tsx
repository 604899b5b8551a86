import type { Route } from '../route.js';
import { href, update } from '../route.js';
import {
  CiBar,
  domainOf,
  fmt,
  fmtCi,
  fmtP,
  Pager,
  Select,
  Show,
  Table,
  TextBlock,
  useApi,
  type Loaded,
} from '../ui.js';
import { PromptBlock } from '../messages.js';
import { fmtDate, parseTimestamp } from '../dates.js';
import { RUN_UNFINISHED } from '../intervals.js';
import type { CompareResult, Comparison, Disagreements, ModelResults, Overview } from '../../shared/types.js';

/** What `compare` gets for a side: the chosen run's evaluation id, else the model id. */
export function sideOf(params: Record<string, string | undefined>, side: 'a' | 'b'): string | undefined {
  return params[`${side}run`] || params[side];
}

/** The runs (evaluation ids) of a model, newest first, as [value, label] options. */
function runOptions(loaded: Loaded<ModelResults>): [string, string][] {
  if (loaded.state !== 'ok') return [];
  const runs = new Map<string, string | null>();
  for (const r of loaded.data.results) runs.set(r.evaluation_id, r.date);
  const time = (date: string | null) => parseTimestamp(date)?.getTime() ?? -Infinity;
  return [...runs]
    .sort((x, y) => time(y[1]) - time(x[1]) || x[0].localeCompare(y[0]))
    .map(([id, date]) => [id, `${id} (${fmtDate(date, true)})`]);
}

export function ComparePage(props: { route: Route }) {
  const { params } = props.route;
  const set = (changes: Record<string, string | undefined>) => update(props.route, changes);
  const overview = useApi<Overview>('overview');
  const a = sideOf(params, 'a');
  const b = sideOf(params, 'b');
  const ready = Boolean(a && b);
  const compared = useApi<CompareResult>(ready ? 'compare' : null, {
    a,
    b,
    benchmark: params.benchmark,
    metric: params.metric,
  });
  const runsA = useApi<ModelResults>(params.a ? 'model' : null, { id: params.a });
  const runsB = useApi<ModelResults>(params.b ? 'model' : null, { id: params.b });
  const reset = { dbench: undefined, dmetric: undefined, offset: undefined };
  const models = overview.state === 'ok' ? overview.data.models.map((m) => m.model_id) : [];
  const benchmarks =
    overview.state === 'ok' ? [...new Set(overview.data.benchmarks.map((b) => b.evaluation_name))] : [];
  return (
    <>
      <h1>Compare two models or runs</h1>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <Select
          name="a"
          label="Model A"
          any="choose…"
          value={params.a}
          options={models}
          onChange={(v) => set({ a: v, arun: undefined, ...reset })}
        />
        {params.a ? (
          <Select
            name="arun"
            label="Run of A"
            any="latest result per benchmark"
            value={params.arun}
            options={runOptions(runsA)}
            onChange={(v) => set({ arun: v, ...reset })}
          />
        ) : null}
        <Select
          name="b"
          label="Model B"
          any="choose…"
          value={params.b}
          options={models}
          onChange={(v) => set({ b: v, brun: undefined, ...reset })}
        />
        {params.b ? (
          <Select
            name="brun"
            label="Run of B"
            any="latest result per benchmark"
            value={params.brun}
            options={runOptions(runsB)}
            onChange={(v) => set({ brun: v, ...reset })}
          />
        ) : null}
        <Select
          name="benchmark"
          label="Benchmark"
          any="every shared benchmark"
          value={params.benchmark}
          options={benchmarks}
          onChange={(v) => set({ benchmark: v, dbench: undefined, dmetric: undefined, offset: undefined })}
        />
      </form>
      {!ready ? (
        <p class="muted">
          Choose two models (or two runs: the same model twice, with a run of each) to compare them on the
          questions both answered.
        </p>
      ) : null}
      {ready ? (
        <Show loaded={compared}>{(result) => <Comparisons result={result} route={props.route} />}</Show>
      ) : null}
    </>
  );
}

const TEST_NAMES: Record<string, string> = {
  'mcnemar-exact': 'exact McNemar',
  'sign-exact': 'exact sign test',
  z: 'unpaired z',
};

/** How a comparison's CI was obtained (store/compare.ts's ci_method). */
const CI_METHODS: Record<string, string> = {
  newcombe: 'Newcombe, paired 0/1',
  t: 'paired t',
  normal: 'normal, unpaired',
};

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
        Difference = A − B on the paired questions (same sample); 95% CI: Newcombe's hybrid score interval for
        paired 0/1 scores, else Student's t on the paired differences, kept inside the range a difference of
        the metric can take (marked clipped when an end was set to it) (r: correlation of A's and B's scores;
        MDE: the smallest difference detectable at 80% power); p adjusted by Holm over the{' '}
        {result.comparisons.length} comparison
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
          {
            key: 'benchmark',
            label: 'Benchmark · metric',
            cell: (c) => (
              <>
                {c.benchmark}
                <br />
                <span class="muted">{c.metric}</span>
              </>
            ),
            sort: (c) => `${c.benchmark}\u0000${c.metric}`,
          },
          {
            key: 'paired',
            label: 'Pairs',
            cell: (c) =>
              c.paired ? (
                fmt(c.n_paired)
              ) : (
                <span class="wrap" title={c.reason ?? undefined}>
                  unpaired: {c.reason ?? ''}
                </span>
              ),
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
            cell: (c) => <CiBar estimate={c.difference} ci={c.ci} domain={domain} zero width={110} />,
          },
          {
            key: 'ci',
            label: 'CI',
            cell: (c) => (
              <span data-testid="compare-ci">
                {fmtCi(c.ci, 4)}
                {c.ci && c.ci_method ? (
                  <>
                    <br />
                    <span class="muted" data-testid="compare-ci-method">
                      {CI_METHODS[c.ci_method]}
                      {c.ci_clipped ? ', clipped' : ''}
                    </span>
                  </>
                ) : null}
              </span>
            ),
            numeric: true,
          },
          {
            key: 'p',
            label: 'p',
            cell: (c) => (
              <span title={c.note ?? undefined}>
                {fmtP(c.p_value)}
                {c.test && c.test !== 't' ? (
                  <>
                    <br />
                    <span class="muted">{TEST_NAMES[c.test] ?? c.test}</span>
                  </>
                ) : null}
              </span>
            ),
            sort: (c) => c.p_value,
            numeric: true,
          },
          {
            key: 'p_holm',
            label: 'p (Holm)',
            cell: (c) => fmtP(c.p_holm),
            sort: (c) => c.p_holm,
            numeric: true,
          },
          {
            key: 'mcnemar',
            label: 'McNemar A only / B only, p',
            cell: (c) =>
              c.mcnemar
                ? `${fmt(c.mcnemar.a_only)} / ${fmt(c.mcnemar.b_only)}, ${fmtP(c.mcnemar.p_value)}`
                : '—',
          },
          {
            key: 'r',
            label: 'r · MDE',
            cell: (c) => (
              <>
                {fmt(c.correlation, 3)}
                <br />
                {fmt(c.mde, 4)}
              </>
            ),
            numeric: true,
          },
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
      {result.comparisons
        .filter((c) => c.paired && c.note)
        .map((c) => (
          <p class="muted note" data-testid="comparison-note">
            {c.benchmark} — {c.metric}: {c.note}
          </p>
        ))}
      <SideNotes
        comparisons={result.comparisons}
        testId="source-disagreement"
        note={(c, side) => (side === 'A' ? c.disagreement_a : c.disagreement_b)}
      />
      <SideNotes
        comparisons={result.comparisons}
        testId="run-status"
        title={RUN_UNFINISHED}
        note={(c, side) => {
          const status = side === 'A' ? c.run_status_a : c.run_status_b;
          return status === undefined || status === 'complete'
            ? null
            : `the run did not finish (run ${status}); its result covers only the samples it got through`;
        }}
      />
      {selected ? <DisagreementPane route={route} comparison={selected} /> : null}
    </>
  );
}

/** A warning for each side of each comparison that has one: "! benchmark — metric, A: note". */
function SideNotes(props: {
  comparisons: Comparison[];
  testId: string;
  title?: string;
  note: (c: Comparison, side: 'A' | 'B') => string | null | undefined;
}) {
  return (
    <>
      {props.comparisons.flatMap((c) =>
        (['A', 'B'] as const).flatMap((side) => {
          const note = props.note(c, side);
          return note
            ? [
                <p class="status warn note" data-testid={props.testId} title={props.title}>
                  ! {c.benchmark} — {c.metric}, {side}: {note}
                </p>,
              ]
            : [];
        }),
      )}
    </>
  );
}

function DisagreementPane(props: { route: Route; comparison: Comparison }) {
  const { params } = props.route;
  const loaded = useApi<Disagreements>('disagreements', {
    a: sideOf(params, 'a'),
    b: sideOf(params, 'b'),
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
            {page.total > page.items.length + page.offset && page.items.length === 0 ? (
              <p class="muted">Not part of this export.</p>
            ) : null}
            <div class="disagreement-head">
              <span>Question and reference</span>
              <span>
                A <span class="mono">{sideOf(params, 'a')}</span>
              </span>
              <span>
                B <span class="mono">{sideOf(params, 'b')}</span>
              </span>
            </div>
            {page.items.map((item) => (
              <article class="disagreement">
                <div class="question">
                  <span class="mono muted">{item.sample_id}</span>
                  <PromptBlock text={item.input_text} />
                  <span class="muted">reference</span>
                  <TextBlock text={item.reference_text} />
                </div>
                <div data-side="a" class={item.a.score > item.b.score ? 'better' : 'worse'}>
                  <span class="muted">score {fmt(item.a.score)}</span>
                  <TextBlock text={item.a.output_text} />
                </div>
                <div data-side="b" class={item.b.score > item.a.score ? 'better' : 'worse'}>
                  <span class="muted">score {fmt(item.b.score)}</span>
                  <TextBlock text={item.b.output_text} />
                </div>
              </article>
            ))}
          </>
        )}
      </Show>
    </section>
  );
}
