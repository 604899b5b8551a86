/**
 * Retrieval events in the store: checking one event (the 0.1 schema, its time), turning it into a
 * `retrieval_events` row, and writing a batch of them in one transaction (durable once the call resolves).
 */
import { createHash } from 'node:crypto';
import type { DuckDBValue } from '@duckdb/node-api';
import { realTimeRule } from '../../formats/retrieval/date-time.js';
import { RETRIEVAL_EVENT_TYPES, RetrievalEventSchema } from '../../formats/retrieval/event.js';
import { canonicalJson } from '../../io/canonical.js';
import { createAjv } from '../../validate/ajv.js';
import type { Store } from '../db.js';
import { insertIgnoringDuplicates, type Column } from './tables.js';
import type { JsonObject } from '../../io/json-value.js';

/** Where an event came from: a file ingest, an HTTP client, or the server's own gates, policy and revocations. */
export type EventOrigin = 'ingest' | 'serve' | 'gate' | 'policy' | 'revoke';

/** An evalkit row for a revoked feedback action (not a 0.1 event type; kept beside the events for the audit). */
export interface ActionRevocation {
  type: 'feedback_action_revoked';
  action_id: string;
  revoked_by: string;
  reason: string;
  ts: string;
}

export interface EventProblem {
  code: string;
  message: string;
}

export interface EventCheckOptions {
  /** The clock to judge timestamps by (ms since the epoch). */
  now?: number;
  /** How far in the future an event's `ts` may be (clock skew); default 5 minutes. */
  maxFutureSkewMs?: number;
}

export const DEFAULT_MAX_FUTURE_SKEW_MS = 5 * 60_000;

let validator: ReturnType<ReturnType<typeof createAjv>['compile']> | undefined;

/** Why an event is refused, or undefined when it is a valid 0.1 event with a usable time. */
export function eventProblem(value: unknown, options: EventCheckOptions = {}): EventProblem | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { code: 'retrieval.event-not-object', message: 'an event is a JSON object' };
  const type = (value as JsonObject).type;
  if (typeof type !== 'string' || !(RETRIEVAL_EVENT_TYPES as readonly string[]).includes(type))
    return {
      code: 'retrieval.event-unknown-type',
      message: `unknown event type ${JSON.stringify(type)}: expected one of ${RETRIEVAL_EVENT_TYPES.join(', ')}`,
    };
  validator ??= createAjv('2020-12').compile(RetrievalEventSchema);
  if (!validator(value)) {
    const branchErrors = (validator.errors ?? []).filter(
      (e) => e.keyword !== 'oneOf' && e.keyword !== 'const',
    );
    const e =
      branchErrors.find((x) => x.instancePath !== '' || x.keyword === 'required') ?? validator.errors?.[0];
    return {
      code: `schema.${e?.keyword ?? 'invalid'}`,
      message: `not a valid ${type} event: ${e?.instancePath || '/'} ${e?.message ?? 'is invalid'}`,
    };
  }
  const [badTime] = realTimeRule.check(value);
  if (badTime) return { code: badTime.code, message: `/ts ${badTime.message}` };
  const ts = Date.parse((value as JsonObject).ts as string);
  const now = options.now ?? Date.now();
  const skew = options.maxFutureSkewMs ?? DEFAULT_MAX_FUTURE_SKEW_MS;
  if (ts - now > skew)
    return {
      code: 'retrieval.event-clock-skew',
      message: `/ts is ${Math.round((ts - now) / 1000)} s in the future (more than ${Math.round(skew / 1000)} s): check the sender's clock`,
    };
  return undefined;
}

/** The event's identity in the store: the sha256 of its canonical JSON. */
export function eventKey(event: unknown): string {
  return createHash('sha256').update(canonicalJson(event)).digest('hex');
}

export const EVENT_COLUMNS: readonly Column[] = (
  [
    ['event_key', 'VARCHAR'],
    ['type', 'VARCHAR'],
    ['request_id', 'VARCHAR'],
    ['agent_id', 'VARCHAR'],
    ['user_id', 'VARCHAR'],
    ['layer', 'VARCHAR'],
    ['model_id', 'VARCHAR'],
    ['tool_id', 'VARCHAR'],
    ['ts', 'VARCHAR'],
    ['ts_ms', 'DOUBLE'],
    ['latency_ms', 'DOUBLE'],
    ['outcome', 'VARCHAR'],
    ['metric', 'VARCHAR'],
    ['value', 'DOUBLE'],
    ['pass', 'BOOLEAN'],
    ['action', 'VARCHAR'],
    ['action_id', 'VARCHAR'],
    ['expires_ms', 'DOUBLE'],
    ['origin', 'VARCHAR'],
    ['origin_path', 'VARCHAR'],
    ['received_at', 'TIMESTAMP'],
    ['raw', 'JSON'],
  ] as const
).map(([name, type]) => ({ name, type }));

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const finite = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** A store timestamp (UTC, no zone suffix) for `now`. */
export function storeTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

/** The values of one `retrieval_events` row, in EVENT_COLUMNS order. */
export function eventValues(
  event: JsonObject,
  origin: EventOrigin,
  receivedAt: number,
  originPath: string | null = null,
): DuckDBValue[] {
  const tsMs = Date.parse(String(event.ts));
  const ttl = finite(event.ttl_ms);
  const actionId =
    event.type === 'feedback_action'
      ? (text(event.id) ?? text(event.request_id))
      : event.type === 'feedback_action_revoked'
        ? text(event.action_id)
        : null;
  return [
    eventKey(event),
    String(event.type),
    text(event.request_id),
    text(event.agent_id),
    text(event.user_id),
    text(event.layer),
    text(event.model_id),
    text(event.tool_id),
    String(event.ts),
    tsMs,
    finite(event.latency_ms),
    text(event.outcome),
    text(event.metric),
    finite(event.value),
    typeof event.pass === 'boolean' ? event.pass : null,
    text(event.action),
    actionId,
    event.type === 'feedback_action' && ttl !== null ? tsMs + ttl : null,
    origin,
    originPath,
    storeTimestamp(receivedAt),
    JSON.stringify(event),
  ];
}

/**
 * Writes events in one transaction; an event already stored (same canonical JSON) is left as it is. Resolves once
 * the transaction is committed.
 */
export async function storeEvents(
  store: Store,
  events: readonly { event: JsonObject; origin: EventOrigin; originPath?: string | null }[],
  receivedAt = Date.now(),
): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map((e) => eventValues(e.event, e.origin, receivedAt, e.originPath ?? null));
  const c = store.connection;
  await c.run('BEGIN TRANSACTION');
  try {
    await insertIgnoringDuplicates(c, 'retrieval_events', EVENT_COLUMNS, rows);
    await c.run('COMMIT');
  } catch (error) {
    await c.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
