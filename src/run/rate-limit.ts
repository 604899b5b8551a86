/** Spaces request starts to at most `rps` per second (a single-slot token bucket). */
import { sleep } from '../io/net/retry.js';

export interface RateLimiter {
  acquire(signal: AbortSignal): Promise<void>;
}

export function createRateLimiter(
  rps: number | undefined,
  now: () => number = () => performance.now(),
): RateLimiter {
  if (rps === undefined || !(rps > 0) || !Number.isFinite(rps)) return { acquire: async () => {} };
  const interval = 1000 / rps;
  let next = 0;
  return {
    async acquire(signal) {
      const t = now();
      const slot = Math.max(t, next);
      next = slot + interval;
      if (slot > t) await sleep(slot - t, signal);
    },
  };
}
