/**
 * One connection, one writer: every use of the store goes through `exclusive`, and events posted at the same time
 * are committed together (group commit): while one transaction commits, the next batch gathers, so many small
 * POSTs cost one transaction each round instead of one each. When a shared transaction fails, each request's
 * events are committed again alone, so that only the request at fault is refused.
 */
import type { StagedEvent } from './event-sink.js';

interface Pending {
  events: StagedEvent[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class CommitQueue {
  private chain: Promise<unknown> = Promise.resolve();
  private pending: Pending[] = [];
  private flushing = false;

  constructor(private readonly write: (events: StagedEvent[]) => Promise<void>) {}

  /** Runs fn alone on the store's connection (after everything queued before it). */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(fn, fn);
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** Resolves once the events are committed (durable); rejects when their transaction failed. */
  commit(events: StagedEvent[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.pending.push({ events, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  /** Resolves when nothing is waiting to be committed. */
  async drained(): Promise<void> {
    while (this.flushing || this.pending.length > 0) await this.exclusive(async () => undefined);
  }

  private async alone(p: Pending): Promise<void> {
    try {
      await this.exclusive(() => this.write(p.events));
      p.resolve();
    } catch (error) {
      p.reject(error);
    }
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.pending.length > 0) {
        const batch = this.pending;
        this.pending = [];
        try {
          await this.exclusive(() => this.write(batch.flatMap((p) => p.events)));
          for (const p of batch) p.resolve();
        } catch (error) {
          if (batch.length === 1) batch[0].reject(error);
          // One request's events must not fail the others': each is committed again on its own.
          else for (const p of batch) await this.alone(p);
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}
