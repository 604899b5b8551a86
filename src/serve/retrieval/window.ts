/**
 * Rolling figures over the last `windowMs` of events, per group of identity fields: the count of observations,
 * the mean of every `evaluation_result` metric, latency p50/p95 (type-7 quantiles) and the error rate (the share of
 * observations whose outcome is not ok; client aborts are not counted as errors). Results take their group from
 * their own identity fields, else from the observation with the same request_id. The server's own gate results are
 * left out, so a gate never feeds on what it wrote.
 */
import { operationalFigures, type Observation } from '../../metrics/retrieval/operational.js';
import type { Store } from '../../store/db.js';

export const GROUP_FIELDS = ['layer', 'tool_id', 'model_id', 'agent_id', 'user_id'] as const;
export type GroupField = (typeof GROUP_FIELDS)[number];
export const DEFAULT_GROUP_BY: GroupField[] = ['layer', 'tool_id', 'model_id'];

export interface WindowGroup {
  group: Partial<Record<GroupField, string | null>>;
  observations: number;
  latency_p50_ms: number | null;
  latency_p95_ms: number | null;
  /** Share of observations (client aborts excluded) whose outcome is not ok; null without observations. */
  error_rate: number | null;
  /** Mean of each evaluation_result metric in the window, with its count. */
  metrics: Record<string, { mean: number; n: number }>;
  /** The group's observations as the gate functions take them. */
  observation_rows: Observation[];
}

export interface WindowFigures {
  window_seconds: number;
  from: string;
  to: string;
  by: GroupField[];
  groups: WindowGroup[];
}

export function parseGroupBy(text: string | undefined): GroupField[] {
  if (text === undefined || text.trim() === '') return [...DEFAULT_GROUP_BY];
  const fields = text.split(',').map((s) => s.trim());
  const bad = fields.filter((f) => !(GROUP_FIELDS as readonly string[]).includes(f));
  if (bad.length > 0)
    throw new RangeError(`unknown group field ${bad.join(', ')}: use ${GROUP_FIELDS.join(', ')}`);
  return [...new Set(fields)] as GroupField[];
}

const keyOf = (row: Record<string, unknown>, by: readonly GroupField[]): string =>
  JSON.stringify(by.map((f) => row[f] ?? null));

export async function windowFigures(
  store: Store,
  options: { windowMs: number; by: readonly GroupField[]; now?: number },
): Promise<WindowFigures> {
  const now = options.now ?? Date.now();
  const from = now - options.windowMs;
  const identity = GROUP_FIELDS.join(', ');
  const observations = await store.all<Record<string, unknown>>(
    `SELECT request_id, ${identity}, ts, latency_ms, outcome FROM retrieval_events
     WHERE type = 'evaluation_observation' AND ts_ms > $1 AND ts_ms <= $2 ORDER BY ts_ms, event_key`,
    [from, now],
  );
  const results = await store.all<Record<string, unknown>>(
    `WITH obs AS (
       SELECT request_id, ${GROUP_FIELDS.map((f) => `any_value(${f}) AS ${f}`).join(', ')}
       FROM retrieval_events WHERE type = 'evaluation_observation' GROUP BY request_id)
     SELECT r.metric, r.value, ${GROUP_FIELDS.map((f) => `coalesce(r.${f}, obs.${f}) AS ${f}`).join(', ')}
     FROM retrieval_events r LEFT JOIN obs USING (request_id)
     WHERE r.type = 'evaluation_result' AND r.origin <> 'gate' AND r.value IS NOT NULL
       AND r.ts_ms > $1 AND r.ts_ms <= $2`,
    [from, now],
  );
  const groups = new Map<string, WindowGroup>();
  const groupOf = (row: Record<string, unknown>): WindowGroup => {
    const key = keyOf(row, options.by);
    let g = groups.get(key);
    if (!g) {
      g = {
        group: Object.fromEntries(options.by.map((f) => [f, (row[f] as string | null) ?? null])),
        observations: 0,
        latency_p50_ms: null,
        latency_p95_ms: null,
        error_rate: null,
        metrics: {},
        observation_rows: [],
      };
      groups.set(key, g);
    }
    return g;
  };
  for (const row of observations) {
    const g = groupOf(row);
    g.observations++;
    g.observation_rows.push({
      type: 'evaluation_observation',
      request_id: String(row.request_id),
      ts: String(row.ts),
      ...(typeof row.latency_ms === 'number' ? { latency_ms: row.latency_ms } : {}),
      ...(typeof row.outcome === 'string' ? { outcome: row.outcome } : {}),
    });
  }
  const sums = new Map<WindowGroup, Map<string, { sum: number; n: number }>>();
  for (const row of results) {
    const g = groupOf(row);
    let m = sums.get(g);
    if (!m) sums.set(g, (m = new Map()));
    const s = m.get(String(row.metric)) ?? { sum: 0, n: 0 };
    s.sum += Number(row.value);
    s.n++;
    m.set(String(row.metric), s);
  }
  for (const g of groups.values()) {
    if (g.observation_rows.length > 0) {
      const figures = operationalFigures(g.observation_rows);
      g.latency_p50_ms = figures.p50_ms ?? null;
      g.latency_p95_ms = figures.p95_ms ?? null;
      const counted = figures.observations - figures.aborts;
      g.error_rate = counted > 0 ? figures.errors / counted : null;
    }
    const m = sums.get(g);
    if (m)
      for (const name of [...m.keys()].sort()) {
        const s = m.get(name)!;
        g.metrics[name] = { mean: s.sum / s.n, n: s.n };
      }
  }
  return {
    window_seconds: options.windowMs / 1000,
    from: new Date(from).toISOString(),
    to: new Date(now).toISOString(),
    by: [...options.by],
    groups: [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, g]) => g),
  };
}
