/**
 * The viewer's answers from the store's retrieval tables (`retrieval_gold`, `retrieval_results`,
 * `retrieval_events`): the systems with each metric's mean, CI and n as `retrievalLeaderboards` computes them, the
 * gold queries, one query's gold ids beside every system's ranked ids with the hits marked, and the events over
 * time with the latest gate results and the feedback actions. A store without these tables gives empty answers.
 */
import { UsageError } from '../errors.js';
import type { Store } from '../store/db.js';
import { hasRetrievalTables } from '../store/retrieval/ingest.js';
import { retrievalLeaderboards, systemLabel, SYSTEM_FIELDS } from '../store/retrieval/stats.js';
import type {
  RetrievalEventsOverTime,
  RetrievalFeedbackAction,
  RetrievalGateResult,
  RetrievalGoldEntry,
  RetrievalQueryDetail,
  RetrievalQueryRow,
  RetrievalStoreOverview,
  RetrievalStoreSystem,
} from './shared/types.js';
import { actionStatus } from './shared/retrieval.js';

/** The latest gate results an overview lists. */
export const GATE_RESULTS_SHOWN = 20;
/** At most this many time buckets (plus one for a partial bucket at the end). */
const MAX_BUCKETS = 24;
const BUCKET_SIZES_MS = [
  60_000,
  5 * 60_000,
  15 * 60_000,
  3_600_000,
  6 * 3_600_000,
  86_400_000,
  7 * 86_400_000,
  30 * 86_400_000,
  365 * 86_400_000,
];

const parseJson = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x) => typeof x === 'string') : []);

/** Systems × metrics from `retrievalLeaderboards` (the numbers `evalkit leaderboard --retrieval` prints). */
async function systemsTable(
  store: Store,
): Promise<{ metrics: string[]; lower: string[]; systems: RetrievalStoreSystem[] }> {
  const boards = await retrievalLeaderboards(store);
  const systems = new Map<string, RetrievalStoreSystem>();
  for (const board of boards)
    for (const row of board.rows) {
      let s = systems.get(row.system);
      if (!s) {
        s = {
          system: row.system,
          model_id: null,
          tool_id: null,
          layer: null,
          agent_id: null,
          n: 0,
          metrics: {},
        };
        for (const f of SYSTEM_FIELDS) s[f] = row[f];
        systems.set(row.system, s);
      }
      s.metrics[board.metric] = { rank: row.rank, tier: row.tier, score: row.score, ci: row.ci, n: row.n };
      s.n = Math.max(s.n, row.n);
    }
  return {
    metrics: boards.map((b) => b.metric),
    lower: boards.filter((b) => b.lower_is_better).map((b) => b.metric),
    systems: [...systems.values()].sort((a, b) => (a.system < b.system ? -1 : a.system > b.system ? 1 : 0)),
  };
}

async function goldList(store: Store): Promise<RetrievalGoldEntry[]> {
  return store.all<RetrievalGoldEntry>(
    `WITH g AS (SELECT DISTINCT ON (id) id, query, expected_ids FROM retrieval_gold
                ORDER BY id, ingested_at DESC, row_key)
     SELECT g.id, g.query, json_array_length(g.expected_ids)::INTEGER AS expected,
            (SELECT count(*) FROM retrieval_results r WHERE r.id = g.id)::INTEGER AS results
     FROM g ORDER BY g.id`,
  );
}

/** The smallest bucket size that cuts `span` into at most MAX_BUCKETS buckets (whole years past the largest). */
export function bucketSize(spanMs: number): number {
  const fits = BUCKET_SIZES_MS.find((b) => spanMs / b <= MAX_BUCKETS);
  if (fits !== undefined) return fits;
  const year = BUCKET_SIZES_MS[BUCKET_SIZES_MS.length - 1];
  return Math.ceil(spanMs / MAX_BUCKETS / year) * year;
}

function noEvents(): RetrievalEventsOverTime {
  return {
    total: 0,
    bucket_ms: BUCKET_SIZES_MS[0],
    types: [],
    buckets: [],
    gate: [],
    gate_total: 0,
    gate_failed: 0,
    actions: [],
  };
}

async function eventsOverTime(store: Store, now: number): Promise<RetrievalEventsOverTime> {
  const [range] = await store.all<{ total: number; lo: number | null; hi: number | null }>(
    `SELECT count(*)::INTEGER AS total, min(ts_ms) AS lo, max(ts_ms) AS hi FROM retrieval_events`,
  );
  if (range.total === 0 || range.lo === null || range.hi === null) return noEvents();
  const bucketMs = bucketSize(range.hi - range.lo);
  const counted = await store.all<{ bucket: number; type: string; n: number }>(
    `SELECT floor(ts_ms / $1)::BIGINT::DOUBLE AS bucket, type, count(*)::INTEGER AS n
     FROM retrieval_events GROUP BY ALL ORDER BY bucket, type`,
    [bucketMs],
  );
  const first = Math.floor(range.lo / bucketMs);
  const last = Math.floor(range.hi / bucketMs);
  const buckets = Array.from({ length: last - first + 1 }, (_, i) => ({
    start_ms: (first + i) * bucketMs,
    counts: {} as Record<string, number>,
  }));
  for (const c of counted) buckets[c.bucket - first].counts[c.type] = c.n;

  const gateRows = await store.all<{
    raw: string;
    origin: string;
    metric: string | null;
    value: number | null;
  }>(
    `SELECT raw::VARCHAR AS raw, origin, metric, value FROM retrieval_events WHERE type = 'evaluation_result'
     ORDER BY ts_ms DESC, event_key LIMIT $1`,
    [GATE_RESULTS_SHOWN],
  );
  const gate = gateRows.map((r): RetrievalGateResult => {
    const e = JSON.parse(r.raw) as Record<string, unknown>;
    return {
      ts: String(e.ts),
      request_id: typeof e.request_id === 'string' ? e.request_id : null,
      metric: r.metric,
      value: r.value,
      threshold: typeof e.threshold === 'number' ? e.threshold : null,
      pass: typeof e.pass === 'boolean' ? e.pass : null,
      origin: r.origin,
    };
  });
  const [gateCount] = await store.all<{ total: number; failed: number }>(
    `SELECT count(*)::INTEGER AS total, count(*) FILTER (WHERE pass = false)::INTEGER AS failed
     FROM retrieval_events WHERE type = 'evaluation_result'`,
  );

  const actionRows = await store.all<{
    id: string;
    action: string;
    ts: string;
    expires_ms: number | null;
    revoked: boolean;
  }>(
    `SELECT DISTINCT ON (coalesce(action_id, event_key)) coalesce(action_id, '') AS id,
            coalesce(action, '') AS action, ts, expires_ms,
            action_id IS NOT NULL AND action_id IN (SELECT action_id FROM retrieval_events
              WHERE type = 'feedback_action_revoked' AND action_id IS NOT NULL) AS revoked, ts_ms
     FROM retrieval_events WHERE type = 'feedback_action'
     ORDER BY coalesce(action_id, event_key), ts_ms`,
  );
  const actions = actionRows
    .map((r): RetrievalFeedbackAction => ({
      id: r.id,
      action: r.action,
      ts: r.ts,
      expires_ms: r.expires_ms,
      revoked: r.revoked,
      status: actionStatus(r, now),
    }))
    .sort((a, b) => Date.parse(b.ts) - Date.parse(a.ts) || (a.id < b.id ? -1 : 1));

  return {
    total: range.total,
    bucket_ms: bucketMs,
    types: [...new Set(counted.map((c) => c.type))].sort(),
    buckets,
    gate,
    gate_total: gateCount.total,
    gate_failed: gateCount.failed,
    actions,
  };
}

/** Everything the retrieval page shows before a query is picked. */
export async function retrievalStoreOverview(store: Store, now?: number): Promise<RetrievalStoreOverview> {
  if (!(await hasRetrievalTables(store)))
    return {
      present: false,
      as_of_ms: now ?? 0,
      metrics: [],
      lower_is_better: [],
      systems: [],
      gold: [],
      events: noEvents(),
    };
  // Action statuses are judged as of the store's latest event unless a time is given, so an answer (and a static
  // export) depends on the store alone; the page judges expiry again by the browser's clock.
  now ??= (await store.all<{ t: number | null }>(`SELECT max(ts_ms) AS t FROM retrieval_events`))[0].t ?? 0;
  const { metrics, lower, systems } = await systemsTable(store);
  const gold = await goldList(store);
  const events = await eventsOverTime(store, now);
  return {
    present: systems.length > 0 || gold.length > 0 || events.total > 0,
    as_of_ms: now,
    metrics,
    lower_is_better: lower,
    systems,
    gold,
    events,
  };
}

type Verdict = RetrievalQueryRow['verdicts'][number];
const isVerdict = (v: unknown): v is Verdict =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as Verdict).metric === 'string' &&
  typeof (v as Verdict).pass === 'boolean';

/** One gold query: its gold ids, and every result row of it with the ranked ids, hits marked, and its verdicts. */
export async function retrievalQuery(store: Store, id: string): Promise<RetrievalQueryDetail> {
  const gold = (await hasRetrievalTables(store))
    ? await store.all<{ query: string; expected_ids: string; entities: string | null; tags: string | null }>(
        `SELECT query, expected_ids::VARCHAR AS expected_ids, entities::VARCHAR AS entities, tags::VARCHAR AS tags
         FROM retrieval_gold WHERE id = $1 ORDER BY ingested_at DESC, row_key LIMIT 1`,
        [id],
      )
    : [];
  if (gold.length === 0)
    throw new UsageError('view.unknown-retrieval-query', `no gold query ${id} in the store`);
  const expected = strings(parseJson(gold[0].expected_ids));
  const relevant = new Set(expected);
  const rows = await store.all<{
    model_id: string | null;
    tool_id: string | null;
    layer: string | null;
    agent_id: string | null;
    request_id: string;
    ts: string | null;
    retrieved_ids: string | null;
    verdicts: string | null;
  }>(
    `SELECT model_id, tool_id, layer, agent_id, request_id, ts, retrieved_ids::VARCHAR AS retrieved_ids,
            verdicts::VARCHAR AS verdicts
     FROM retrieval_results WHERE id = $1`,
    [id],
  );
  const out = rows.map((r): RetrievalQueryRow => {
    const retrieved = strings(parseJson(r.retrieved_ids)).map((x) => ({ id: x, hit: relevant.has(x) }));
    const verdicts = parseJson<unknown[]>(r.verdicts);
    return {
      system: systemLabel(r),
      request_id: r.request_id,
      ts: r.ts,
      retrieved,
      hits: retrieved.filter((x) => x.hit).length,
      verdicts: Array.isArray(verdicts) ? verdicts.filter(isVerdict) : [],
    };
  });
  out.sort(
    (a, b) =>
      (a.system < b.system ? -1 : a.system > b.system ? 1 : 0) ||
      (a.ts ?? '').localeCompare(b.ts ?? '') ||
      a.request_id.localeCompare(b.request_id),
  );
  return {
    id,
    query: gold[0].query,
    expected_ids: expected,
    entities: gold[0].entities === null ? null : strings(parseJson(gold[0].entities)),
    tags: gold[0].tags === null ? null : strings(parseJson(gold[0].tags)),
    rows: out,
  };
}
