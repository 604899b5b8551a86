/**
 * The online loop: gates evaluated on the rolling window, feedback actions issued by a policy when a gate fails,
 * listed while active, expired by their TTL, revoked on request. Everything is an event in the store, so the
 * state survives a restart and every change can be audited.
 */
import { randomUUID } from 'node:crypto';
import { DataError } from '../../errors.js';
import { FEEDBACK_ACTIONS } from '../../formats/retrieval/event.js';
import { canonicalJson } from '../../io/canonical.js';
import { GATE_METRICS } from '../../metrics/retrieval/gate.js';
import { operationalFigures } from '../../metrics/retrieval/operational.js';
import { meets, type ThresholdConfig } from '../../metrics/retrieval/thresholds.js';
import type { Store } from '../../store/db.js';
import type { EventOrigin } from '../../store/retrieval/events.js';
import { GROUP_FIELDS, windowFigures, type GroupField, type WindowGroup } from './window.js';
import type { JsonObject } from '../../io/json-value.js';

export interface PolicyRule {
  action: (typeof FEEDBACK_ACTIONS)[number];
  ttl_ms: number;
  scope_fields: GroupField[];
}
export type Policy = Record<string, PolicyRule>;

export const DEFAULT_SCOPE_FIELDS: GroupField[] = ['tool_id', 'layer', 'model_id'];

/** Reads a policy document: `{metric: {action, ttl_ms, scope_fields?}}`. */
export function parsePolicy(doc: unknown, file = 'policy'): Policy {
  const fail = (pointer: string, message: string): never => {
    throw new DataError('retrieval.bad-policy', `${file}: ${pointer} ${message}`);
  };
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    fail('/', 'must be an object keyed by metric name');
  const policy: Policy = {};
  for (const [metric, rule] of Object.entries(doc as JsonObject)) {
    const at = `/${metric}`;
    if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) fail(at, 'must be an object');
    const r = rule as JsonObject;
    if (!(FEEDBACK_ACTIONS as readonly unknown[]).includes(r.action))
      fail(`${at}/action`, `must be one of ${FEEDBACK_ACTIONS.join(', ')}`);
    if (typeof r.ttl_ms !== 'number' || !Number.isFinite(r.ttl_ms) || r.ttl_ms <= 0)
      fail(`${at}/ttl_ms`, 'must be a positive number of milliseconds');
    let scope = DEFAULT_SCOPE_FIELDS;
    if (r.scope_fields !== undefined) {
      if (
        !Array.isArray(r.scope_fields) ||
        r.scope_fields.length === 0 ||
        r.scope_fields.some((f) => !(GROUP_FIELDS as readonly unknown[]).includes(f))
      )
        fail(`${at}/scope_fields`, `must be a non-empty list of ${GROUP_FIELDS.join(', ')}`);
      scope = [...new Set(r.scope_fields as GroupField[])];
    }
    policy[metric] = {
      action: r.action as PolicyRule['action'],
      ttl_ms: r.ttl_ms as number,
      scope_fields: scope,
    };
  }
  return policy;
}

export interface ActiveAction {
  id: string;
  action: string;
  scope: Record<string, unknown>;
  ttl_ms: number | null;
  reason: string | null;
  ts: string;
  expires_at: string | null;
}

/** Feedback actions neither expired (by `now`) nor revoked, oldest first. */
export async function activeActions(store: Store, now = Date.now()): Promise<ActiveAction[]> {
  const rows = await store.all<{ raw: string; action_id: string; expires_ms: number | null }>(
    `SELECT raw::VARCHAR AS raw, action_id, expires_ms FROM retrieval_events
     WHERE type = 'feedback_action' AND action_id IS NOT NULL AND (expires_ms IS NULL OR expires_ms > $1)
       AND action_id NOT IN (SELECT action_id FROM retrieval_events
                             WHERE type = 'feedback_action_revoked' AND action_id IS NOT NULL)
     ORDER BY ts_ms, action_id`,
    [now],
  );
  const seen = new Set<string>();
  const actions: ActiveAction[] = [];
  for (const row of rows) {
    if (seen.has(row.action_id)) continue;
    seen.add(row.action_id);
    const event = JSON.parse(row.raw) as JsonObject;
    actions.push({
      id: row.action_id,
      action: String(event.action),
      scope: (event.scope as Record<string, unknown>) ?? {},
      ttl_ms: typeof event.ttl_ms === 'number' ? event.ttl_ms : null,
      reason: typeof event.reason === 'string' ? event.reason : null,
      ts: String(event.ts),
      expires_at: row.expires_ms === null ? null : new Date(row.expires_ms).toISOString(),
    });
  }
  return actions;
}

export interface GateTickOptions {
  thresholds: ThresholdConfig;
  policy?: Policy;
  windowMs: number;
  by: readonly GroupField[];
  now?: number;
}

export interface GateTick {
  results: JsonObject[];
  actions: JsonObject[];
}

const groupLabel = (g: WindowGroup['group']): string =>
  Object.entries(g)
    .map(([k, v]) => `${k}=${v ?? ''}`)
    .join(',');

/**
 * One evaluation of every gate on the window: the evaluation_result events to write (one per threshold and group
 * with data) and the feedback actions the policy issues for failures that have no active action of the same kind
 * and scope. Pure but for reading the store.
 */
export async function gateTick(store: Store, options: GateTickOptions): Promise<GateTick> {
  const now = options.now ?? Date.now();
  const ts = new Date(now).toISOString();
  const figures = await windowFigures(store, { windowMs: options.windowMs, by: options.by, now });
  const active = await activeActions(store, now);
  const activeKeys = new Set(active.map((a) => `${a.action}\n${canonicalJson(a.scope)}`));
  const results: JsonObject[] = [];
  const actions: JsonObject[] = [];
  for (const group of figures.groups) {
    const operational = operationalFigures(group.observation_rows, {
      softDeadlineMs: options.thresholds.softDeadlineMs,
    }) as unknown as Record<string, number | undefined>;
    const identity = Object.fromEntries(Object.entries(group.group).filter(([, v]) => v !== null));
    for (const t of options.thresholds.thresholds) {
      const value = (GATE_METRICS as readonly string[]).includes(t.metric)
        ? group.observations > 0
          ? operational[t.metric]
          : undefined
        : group.metrics[t.metric]?.mean;
      if (typeof value !== 'number' || !Number.isFinite(value)) continue;
      const pass = meets(value, t.threshold, t.direction);
      results.push({
        type: 'evaluation_result',
        request_id: `gate:${groupLabel(group.group)}`,
        metric: t.metric,
        value,
        threshold: t.threshold,
        pass,
        observation_ids: group.observation_rows.slice(0, 1000).map((o) => o.request_id),
        ts,
        ...identity,
        window_seconds: options.windowMs / 1000,
      });
      const rule = options.policy?.[t.metric];
      if (pass || !rule) continue;
      const scope = Object.fromEntries(rule.scope_fields.map((f) => [f, group.group[f] ?? null]));
      const key = `${rule.action}\n${canonicalJson(scope)}`;
      if (activeKeys.has(key)) continue;
      activeKeys.add(key);
      const id = randomUUID();
      actions.push({
        type: 'feedback_action',
        id,
        request_id: id,
        action: rule.action,
        scope,
        ttl_ms: rule.ttl_ms,
        reason: `${t.metric} = ${Number(value.toFixed(6))} fails its threshold ${t.threshold} (${t.direction} is better) over the last ${options.windowMs / 1000} s`,
        ts,
        metric: t.metric,
      });
    }
  }
  return { results, actions };
}

/** The events a tick writes, with their origins. */
export function tickEvents(tick: GateTick): { event: JsonObject; origin: EventOrigin }[] {
  return [
    ...tick.results.map((event) => ({ event, origin: 'gate' as const })),
    ...tick.actions.map((event) => ({ event, origin: 'policy' as const })),
  ];
}

/** The revocation row of an active action (written by the caller), or why there is none. */
export async function revocationOf(
  store: Store,
  id: string,
  by: string,
  reason: string,
  now = Date.now(),
): Promise<{ event: JsonObject } | { missing: 'unknown' | 'inactive' }> {
  const known = await store.all<{ n: number }>(
    `SELECT count(*)::INTEGER AS n FROM retrieval_events WHERE type = 'feedback_action' AND action_id = $1`,
    [id],
  );
  if (known[0].n === 0) return { missing: 'unknown' };
  if (!(await activeActions(store, now)).some((a) => a.id === id)) return { missing: 'inactive' };
  return {
    event: {
      type: 'feedback_action_revoked',
      action_id: id,
      revoked_by: by,
      reason,
      ts: new Date(now).toISOString(),
    },
  };
}
