/**
 * The run engine's worker pool, shared by `evaluate`'s runner and `run`'s task engine: N workers take units from one
 * source until it is empty, the first failure (a unit that throws, or one the caller reports with `fail`) or an abort
 * stops them all, and journal syncs are tracked so that a worker never waits for the disk before its next request
 * yet never runs more than `maxPending` syncs ahead of it (backpressure). `run` resolves when every unit is done and
 * every tracked sync has settled, and throws the failure or the abort's reason.
 */
export class WorkerPool {
  private failed: { error: unknown } | undefined;
  private readonly pending = new Set<Promise<void>>();
  private readonly waiting: (() => void)[] = [];
  private readonly maxPending: number;

  constructor(
    private readonly concurrency: number,
    private readonly signal: AbortSignal,
  ) {
    this.concurrency = Math.max(1, concurrency);
    this.maxPending = 4 * this.concurrency;
  }

  /** True once a failure was reported (the workers stop taking units). */
  get stopped(): boolean {
    return this.failed !== undefined;
  }

  /** Stops the run with this error (the first one reported wins). */
  fail(error: unknown): void {
    this.failed ??= { error };
  }

  /** Keeps a journal sync (or any durability promise) the run must wait for; a rejection fails the run. */
  track(durable: Promise<void>): void {
    this.pending.add(durable);
    const settle = (): void => {
      this.pending.delete(durable);
      this.waiting.shift()?.();
    };
    durable.then(settle, (error) => {
      this.fail(error);
      settle();
    });
  }

  async run<T>(source: Iterator<T>, work: (unit: T) => Promise<void>): Promise<void> {
    const worker = async (): Promise<void> => {
      for (;;) {
        // Backpressure: when the disk falls behind, wait for it rather than pile up unsynced samples.
        while (this.pending.size >= this.maxPending)
          await new Promise<void>((resolve) => this.waiting.push(resolve));
        if (this.failed !== undefined || this.signal.aborted) return;
        try {
          const next = source.next();
          if (next.done) return;
          await work(next.value);
        } catch (error) {
          this.fail(error);
          return;
        }
      }
    };
    await Promise.all(Array.from({ length: this.concurrency }, worker));
    await Promise.allSettled([...this.pending]);
    if (this.failed === undefined && this.signal.aborted) this.fail(this.signal.reason);
    if (this.failed !== undefined) throw this.failed.error;
  }
}
