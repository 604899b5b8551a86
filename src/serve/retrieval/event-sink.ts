/**
 * The server's writer of events. Posted events are appended with DuckDB's Appender straight into
 * `retrieval_events` (an INSERT … ON CONFLICT costs about ten times more per batch), so the server itself makes
 * sure no stored key is appended again: it keeps a set of 52-bit fingerprints of the stored keys (8 bytes a key,
 * loaded at start), and checks the store exactly only for a key whose fingerprint it has seen (a re-sent event,
 * or rarely another key with the same fingerprint).
 */
import type { DuckDBAppender, DuckDBValue } from '@duckdb/node-api';
import { loadDuckDb, type Store } from '../../store/db.js';
import { EVENT_COLUMNS, eventValues, type EventOrigin } from '../../store/retrieval/events.js';
import { sqlStrings } from '../../store/retrieval/tables.js';
import type { JsonObject } from '../../io/json-value.js';

/**
 * An event made ready to store: its row (the key first) computed when it was admitted, so that nothing about one
 * event can fail later, inside a transaction it shares with other requests' events.
 */
export interface StagedEvent {
  row: DuckDBValue[];
  receivedAt: number;
}

/** Stages one event; throws only for an event no row can be made of. */
export function stageEvent(event: JsonObject, origin: EventOrigin, receivedAt: number): StagedEvent {
  return { row: eventValues(event, origin, receivedAt), receivedAt };
}

/** An open-addressing set of non-negative integers below 2^52, in a Float64Array (0 marks an empty slot). */
export class FingerprintSet {
  private slots = new Float64Array(1 << 16);
  private count = 0;

  static of(key: string): number {
    return parseInt(key.slice(0, 13), 16);
  }

  has(fp: number): boolean {
    const mask = this.slots.length - 1;
    const v = fp + 1;
    for (let i = fp % this.slots.length; ; i = (i + 1) & mask) {
      const s = this.slots[i];
      if (s === 0) return false;
      if (s === v) return true;
    }
  }

  add(fp: number): void {
    if ((this.count + 1) * 2 > this.slots.length) this.grow();
    if (this.insert(this.slots, fp + 1)) this.count++;
  }

  get size(): number {
    return this.count;
  }

  private insert(slots: Float64Array, v: number): boolean {
    const mask = slots.length - 1;
    for (let i = (v - 1) % slots.length; ; i = (i + 1) & mask) {
      if (slots[i] === v) return false;
      if (slots[i] === 0) {
        slots[i] = v;
        return true;
      }
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Float64Array(old.length * 2);
    for (const v of old) if (v !== 0) this.insert(this.slots, v);
  }
}

const STAGE = 'retrieval_events_incoming';

export class EventSink {
  private constructor(
    private readonly store: Store,
    private readonly seen: FingerprintSet,
    private readonly timestamp: (ms: number) => unknown,
  ) {}

  static async open(store: Store): Promise<EventSink> {
    const seen = new FingerprintSet();
    const result = await store.connection.stream(`SELECT event_key FROM retrieval_events`);
    for (
      let chunk = await result.fetchChunk();
      chunk && chunk.rowCount > 0;
      chunk = await result.fetchChunk()
    )
      for (const key of chunk.getColumnValues(0)) seen.add(FingerprintSet.of(String(key)));
    await store.connection.run(
      `CREATE OR REPLACE TEMP TABLE ${STAGE} AS SELECT * FROM retrieval_events WITH NO DATA`,
    );
    const { DuckDBTimestampValue } = await loadDuckDb();
    return new EventSink(store, seen, (ms) => new DuckDBTimestampValue(BigInt(Math.round(ms)) * 1000n));
  }

  /** Stores the events not stored yet, in one transaction; resolves once it is committed. */
  async write(events: readonly StagedEvent[]): Promise<void> {
    const fresh = new Map<string, StagedEvent>();
    const suspects: string[] = [];
    for (const staged of events) {
      const key = staged.row[0] as string;
      if (fresh.has(key)) continue;
      fresh.set(key, staged);
      if (this.seen.has(FingerprintSet.of(key))) suspects.push(key);
    }
    if (suspects.length > 0) {
      const stored = await this.store.all<{ event_key: string }>(
        `SELECT event_key FROM retrieval_events WHERE event_key IN (${sqlStrings(suspects)})`,
      );
      for (const { event_key } of stored) fresh.delete(event_key);
    }
    if (fresh.size === 0) return;
    const c = this.store.connection;
    await c.run('BEGIN TRANSACTION');
    try {
      // Appended to an unindexed staging table (a quick synchronous flush), then moved by one INSERT that runs
      // off the event loop; the keys are known to be new, so no conflict check is needed.
      const appender = await c.createAppender(STAGE, 'main', 'temp');
      try {
        for (const { row, receivedAt } of fresh.values()) this.append(appender, row, receivedAt);
        appender.flushSync();
      } finally {
        appender.closeSync();
      }
      await c.run(`INSERT INTO retrieval_events SELECT * FROM temp.main.${STAGE}`);
      await c.run(`DELETE FROM temp.main.${STAGE}`);
      await c.run('COMMIT');
    } catch (error) {
      await c.run('ROLLBACK').catch(() => undefined);
      throw error;
    }
    for (const key of fresh.keys()) this.seen.add(FingerprintSet.of(key));
  }

  private append(appender: DuckDBAppender, row: unknown[], receivedAt: number): void {
    EVENT_COLUMNS.forEach((column, i) => {
      const v = row[i];
      if (column.name === 'received_at') appender.appendTimestamp(this.timestamp(receivedAt) as never);
      else if (v === null || v === undefined) appender.appendNull();
      else if (column.type === 'DOUBLE') appender.appendDouble(v as number);
      else if (column.type === 'BOOLEAN') appender.appendBoolean(v as boolean);
      else appender.appendVarchar(String(v));
    });
    appender.endRow();
  }
}
