import type { Route } from '../route.js';
import { href } from '../route.js';
import { fmt, fmtCi, Fields, Json, Show, Table, useApi } from '../ui.js';
import { CI_METHOD_HELP, ciMethodLabel, RUN_UNFINISHED } from '../intervals.js';
import { fmtDate } from '../dates.js';
import type { RecordDetail, ResultSummary } from '../../shared/types.js';

/** The record's sections in the order EEE writes them; anything else follows. */
const SECTIONS: [string, string][] = [
  ['source_metadata', 'Source'],
  ['model_info', 'Model'],
  ['eval_library', 'Evaluation library'],
  ['detailed_evaluation_results', 'Instance rows'],
];

export function RecordPage(props: { route: Route }) {
  const key = props.route.params.key ?? '';
  const loaded = useApi<RecordDetail>('record', { key });
  return (
    <Show loaded={loaded}>
      {(d) => {
        const r = d.record;
        const warnings = d.diagnostics.filter((x) => x.severity !== 'info');
        const finished = d.run_status === 'complete';
        // The source's own words for why the run stopped (Inspect's error message), when the record keeps them.
        const sourceDetails = (d.raw.source_metadata as { additional_details?: Record<string, unknown> })
          ?.additional_details;
        const runError = typeof sourceDetails?.error === 'string' ? sourceDetails.error : undefined;
        const known = new Set([
          'evaluation_results',
          'schema_version',
          'evaluation_id',
          'retrieved_timestamp',
          'evaluation_timestamp',
          ...SECTIONS.map(([k]) => k),
        ]);
        const scalars = Object.entries(d.raw).filter(
          ([k, v]) => !known.has(k) && (v === null || typeof v !== 'object'),
        );
        const others = Object.entries(d.raw).filter(
          ([k, v]) => !known.has(k) && v !== null && typeof v === 'object',
        );
        return (
          <>
            <h1>
              Record <span class="mono">{String(r.evaluation_id)}</span>
            </h1>
            <p
              class={warnings.length === 0 && finished ? 'status ok' : 'status warn'}
              data-testid="validation"
            >
              {warnings.length === 0
                ? `Valid: schema ${String(r.schema_version)}, no warnings.`
                : `Valid with ${warnings.length} warning${warnings.length === 1 ? '' : 's'}: schema ${String(r.schema_version)}.`}
            </p>
            {finished ? null : (
              <p class="status warn" data-testid="run-status" title={RUN_UNFINISHED}>
                Run {d.run_status}: the run did not finish{runError ? ` (${runError})` : ''}, so its results
                cover only the samples it got through; leaderboards rank it only with "Include partial runs".
              </p>
            )}
            {warnings.length > 0 ? (
              <ul class="diagnostics">
                {d.diagnostics.map((x) => (
                  <li class={`diagnostic ${x.severity ?? ''}`}>
                    <span class="mono">
                      {[x.file, x.line, x.column].filter((p) => p !== undefined).join(':')}
                    </span>{' '}
                    <strong>{x.severity}</strong> <span class="mono">{x.code}</span> {x.message}
                    {x.pointer ? <span class="muted"> (at {x.pointer})</span> : null}
                  </li>
                ))}
              </ul>
            ) : null}
            <Fields
              rows={[
                ['Model', <a href={href('model', { id: String(r.model_id) })}>{String(r.model_id)}</a>],
                ['Developer', r.developer as string | null],
                ['Collection', r.collection as string | null],
                ['Source organisation', r.source_organization_name as string | null],
                ['Source URL', r.source_organization_url as string | null],
                [
                  'Evaluation library',
                  [r.eval_library_name, r.eval_library_version].filter(Boolean).join(' ') || null,
                ],
                ['Evaluated', fmtDate(r.evaluation_timestamp as string | null)],
                ['Retrieved', fmtDate(r.retrieved_timestamp as string | null)],
                ['Origin', `${String(r.origin_kind)}: ${String(r.origin_path)}`],
                ['Ingested', `${String(r.ingested_at)} (ingest ${String(r.ingest_id)})`],
                ['Instance rows', fmt(r.sample_count as number)],
                ['Record key', <span class="mono">{String(r.record_key)}</span>],
                ...scalars.map(([k, v]) => [k, String(v)] as [string, string]),
              ]}
            />
            <h2>Results</h2>
            <Table<ResultSummary>
              rows={d.results}
              columns={[
                { key: 'i', label: '#', cell: (x) => fmt(x.result_index), numeric: true },
                { key: 'name', label: 'Evaluation', cell: (x) => x.evaluation_name },
                { key: 'metric', label: 'Metric', cell: (x) => x.metric_name ?? '—' },
                { key: 'type', label: 'Score type', cell: (x) => x.score_type ?? '—' },
                { key: 'score', label: 'Score', cell: (x) => fmt(x.score, 4), numeric: true },
                {
                  key: 'ci',
                  label: '95% CI',
                  cell: (x) => fmtCi(x.interval?.ci ?? null, 4),
                  numeric: true,
                },
                {
                  key: 'method',
                  label: 'CI method',
                  cell: (x) =>
                    x.interval?.withheld ? (
                      <span class="muted" title={RUN_UNFINISHED} data-testid="ci-withheld">
                        none: zero width, run {x.run_status}
                      </span>
                    ) : (
                      <span title={CI_METHOD_HELP}>
                        {ciMethodLabel(x.interval?.method, x.interval?.clipped) || '—'}
                      </span>
                    ),
                },
                {
                  key: 'n',
                  label: 'n',
                  cell: (x) => fmt(x.interval?.n ?? x.num_samples),
                  numeric: true,
                },
                {
                  key: 'source-check',
                  label: 'Against the source',
                  cell: (x) => <Reconciliation outcome={x.reconciliation} note={x.reconciliation_note} />,
                },
                {
                  key: 'samples',
                  label: 'Samples',
                  cell: (x) =>
                    x.samples > 0 ? (
                      <a href={href('samples', { record: x.record_key, result: String(x.result_index) })}>
                        {fmt(x.samples)} rows
                      </a>
                    ) : (
                      '—'
                    ),
                  numeric: true,
                },
              ]}
            />
            {d.documents.length > 0 ? (
              <p>
                Kept beside this record:{' '}
                {d.documents.map((kind) =>
                  kind === 'infereval.evaluation' ? (
                    <a href={href('infereval', { key: String(r.record_key) })}>
                      infereval evaluation (agreement)
                    </a>
                  ) : kind === 'retrieval.result' ? (
                    <a href={href('retrieval', { key: String(r.record_key) })}>
                      retrieval results (per query)
                    </a>
                  ) : (
                    <span class="mono">{kind} </span>
                  ),
                )}
              </p>
            ) : null}
            {SECTIONS.filter(([k]) => d.raw[k] !== undefined).map(([k, title]) => (
              <details open={k !== 'detailed_evaluation_results'}>
                <summary>
                  {title} <span class="mono muted">{k}</span>
                </summary>
                <Json value={d.raw[k]} />
              </details>
            ))}
            {((d.raw.evaluation_results as unknown[]) ?? []).map((result, i) => (
              <details>
                <summary>
                  Result {i}: generation config, metric and score details{' '}
                  <span class="mono muted">evaluation_results[{i}]</span>
                </summary>
                <Json value={result} />
              </details>
            ))}
            {others.map(([k, v]) => (
              <details>
                <summary class="mono">{k}</summary>
                <Json value={v} />
              </details>
            ))}
          </>
        );
      }}
    </Show>
  );
}

/** A result's reconciliation outcome: a disagreement in words, else the outcome with its note on hover. */
function Reconciliation(props: { outcome?: string | null; note?: string | null }) {
  const { outcome, note } = props;
  if (!outcome) return <span class="muted">—</span>;
  if (DISAGREEMENTS.has(outcome))
    return (
      <span class="status warn" data-testid="disagreement" title={outcome}>
        rows disagree with the source: {note}
      </span>
    );
  return (
    <span class="muted" title={note ?? undefined} data-testid="reconciliation">
      {outcome.replace('_', ' ')}
    </span>
  );
}

const DISAGREEMENTS = new Set(['count_mismatch', 'headline_mismatch', 'key_collision']);
