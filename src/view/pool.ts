/**
 * The viewer's read connections: a few connections to the one open (read-only) store, so that requests are answered
 * at the same time, each on its own connection. A request waits for a free connection (at most `maxWaiting` wait;
 * more are refused at once); a request whose client has gone is dropped while it waits and interrupted while it
 * runs (DuckDB's interrupt on its connection: the running query stops, and no further query of it starts).
 *
 * A request may name an affinity key (e.g. the result whose rows it searches): it gets the connection that served
 * that key last when that one is free, so that the key's temporary tables (which live in a connection) are reused.
 */
import { EvalkitError } from '../errors.js';
import type { Store } from '../store/db.js';

export class RequestAbandoned extends EvalkitError {
  constructor() {
    super('view.abandoned', 'the client closed the connection before the answer was ready');
  }
}

export class ServerBusy extends EvalkitError {
  constructor(waiting: number) {
    super('view.busy', `the viewer is busy (${waiting} requests waiting): try again in a moment`);
  }
}

export interface ReadPool {
  readonly size: number;
  /** Runs `use` on a free connection; rejects with `RequestAbandoned` once `signal` is aborted. */
  run<T>(
    use: (store: Store) => Promise<T>,
    options?: { signal?: AbortSignal; affinity?: string },
  ): Promise<T>;
  /**
   * Runs background work (e.g. preparing a search) on a connection nobody needs now; skipped when none is free, and
   * interrupted when a request needs that connection.
   */
  runIdle(use: (store: Store) => Promise<unknown>, options?: { affinity?: string }): Promise<void>;
  /** Requests waiting for a connection now. */
  waiting(): number;
  /**
   * Closes the extra connections (not the store's own) once the work on every connection has ended: background work
   * is interrupted, requests still waiting are refused (closing a connection while DuckDB runs a statement on it
   * deadlocks the thread running it, and the process then never exits).
   */
  close(): Promise<void>;
}

interface Slot {
  store: Store;
  busy: boolean;
  /** Set while the slot runs background work, which yields (is interrupted) when a request needs the slot. */
  background?: AbortController;
}

/** The store a request sees: its connection's, refusing any query once the request is abandoned. */
function guarded(store: Store, signal: AbortSignal | undefined): Store {
  if (!signal) return store;
  return {
    ...store,
    all: (sql, params) => {
      if (signal.aborted) return Promise.reject(new RequestAbandoned());
      return store.all(sql, params);
    },
  };
}

/** How often an abandoned query's connection is interrupted again until the work on it has ended. */
const INTERRUPT_EVERY_MS = 5;

/**
 * Interrupts the connection's running query once `signal` is aborted, and again every few milliseconds until the
 * returned `stop` is called (when the work on the connection has ended). Once is not enough: DuckDB clears a
 * connection's interrupt when a query begins executing, so an interrupt that arrives while the query is still being
 * prepared or handed to DuckDB's threads is lost and the query would run to its end. `stop` must be called before
 * the connection is given to other work or closed, so that no interrupt reaches another query (`active` holds the
 * `stop` of every interrupter still running, for the pool's `close`).
 */
function interruptOnAbort(
  store: Store,
  signal: AbortSignal | undefined,
  active: Set<() => void>,
): () => void {
  if (!signal) return () => {};
  let timer: NodeJS.Timeout | undefined;
  const interrupt = () => {
    store.connection.interrupt();
    timer ??= setInterval(() => store.connection.interrupt(), INTERRUPT_EVERY_MS).unref();
  };
  if (signal.aborted) interrupt();
  else signal.addEventListener('abort', interrupt, { once: true });
  const stop = () => {
    signal.removeEventListener('abort', interrupt);
    clearInterval(timer);
    active.delete(stop);
  };
  active.add(stop);
  return stop;
}

export async function openReadPool(
  store: Store,
  options: { size?: number; maxWaiting?: number } = {},
): Promise<ReadPool> {
  const size = Math.max(1, options.size ?? 4);
  const maxWaiting = options.maxWaiting ?? 1000;
  const slots: Slot[] = [{ store, busy: false }];
  for (let i = 1; i < size; i++) slots.push({ store: await store.connect(), busy: false });
  const lastFor = new Map<string, Slot>();
  const queue: { take: (slot: Slot) => void; reject: (error: Error) => void; affinity?: string }[] = [];
  const interrupters = new Set<() => void>();

  /** Called when the last busy slot is freed, while the pool closes. */
  let onIdle: (() => void) | undefined;
  const free = (slot: Slot) => {
    const next = queue.shift();
    if (next) next.take(slot);
    else slot.busy = false;
    if (onIdle && slots.every((s) => !s.busy)) onIdle();
  };

  const acquire = (affinity: string | undefined, signal: AbortSignal | undefined): Promise<Slot> => {
    const preferred = affinity !== undefined ? lastFor.get(affinity) : undefined;
    const slot = preferred && !preferred.busy ? preferred : slots.find((s) => !s.busy);
    if (slot) {
      slot.busy = true;
      return Promise.resolve(slot);
    }
    if (queue.length >= maxWaiting) return Promise.reject(new ServerBusy(queue.length));
    // Background work gives its connection up to a request.
    slots.find((s) => s.background && !s.background.signal.aborted)?.background!.abort();
    return new Promise<Slot>((resolve, reject) => {
      const entry = {
        affinity,
        take: (s: Slot) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(s);
        },
        reject: (error: Error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      const onAbort = () => {
        const at = queue.indexOf(entry);
        if (at >= 0) queue.splice(at, 1);
        reject(new RequestAbandoned());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(entry);
    });
  };

  return {
    size,
    waiting: () => queue.length,
    async run(use, { signal, affinity } = {}) {
      if (signal?.aborted) throw new RequestAbandoned();
      const slot = await acquire(affinity, signal);
      if (affinity !== undefined) lastFor.set(affinity, slot);
      const stop = interruptOnAbort(slot.store, signal, interrupters);
      try {
        return await use(guarded(slot.store, signal));
      } catch (error) {
        throw signal?.aborted ? new RequestAbandoned() : error;
      } finally {
        stop();
        free(slot);
      }
    },
    async runIdle(use, { affinity } = {}) {
      const preferred = affinity !== undefined ? lastFor.get(affinity) : undefined;
      const slot = preferred && !preferred.busy ? preferred : slots.find((s) => !s.busy);
      if (!slot || queue.length > 0) return;
      slot.busy = true;
      const yieldTo = new AbortController();
      slot.background = yieldTo;
      const stop = interruptOnAbort(slot.store, yieldTo.signal, interrupters);
      try {
        await use(guarded(slot.store, yieldTo.signal));
      } catch {
        // Background work that fails or yields is simply not done.
      } finally {
        stop();
        slot.background = undefined;
        free(slot);
      }
    },
    async close() {
      for (const entry of queue.splice(0)) entry.reject(new ServerBusy(0));
      for (const slot of slots) slot.background?.abort();
      if (slots.some((s) => s.busy)) await new Promise<void>((resolve) => (onIdle = resolve));
      for (const stop of interrupters) stop();
      for (const slot of slots.slice(1)) slot.store.close();
    },
  };
}
