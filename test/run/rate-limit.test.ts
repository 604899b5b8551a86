// The rate limiter and the backoff schedule.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRateLimiter } from '../../src/run/rate-limit.js';
import { ProviderError } from '../../src/run/providers/provider.js';
import { backoffDelay, withRetry } from '../../src/io/net/retry.js';

test('at most rps request starts per second', async () => {
  const limiter = createRateLimiter(50);
  const signal = new AbortController().signal;
  const started = performance.now();
  const starts: number[] = [];
  await Promise.all(
    Array.from({ length: 6 }, async () => {
      await limiter.acquire(signal);
      starts.push(performance.now() - started);
    }),
  );
  starts.sort((a, b) => a - b);
  assert.ok(starts[5] >= 95, `6 starts at 50/s take ≥ 100 ms (took ${starts[5].toFixed(0)})`);
});

test('backoff doubles with jitter within [½, 1] of the ceiling, capped; Retry-After wins', () => {
  const policy = { maxAttempts: 6, baseDelayMs: 100, maxDelayMs: 1000, timeoutMs: 0 };
  const e = new ProviderError('http-503', 'x', { transient: true });
  assert.deepEqual(
    [1, 2, 3, 4, 5].map((a) => backoffDelay(a, policy, e, () => 1)),
    [100, 200, 400, 800, 1000],
  );
  assert.deepEqual(
    [1, 2, 3].map((a) => backoffDelay(a, policy, e, () => 0)),
    [50, 100, 200],
  );
  const withHeader = new ProviderError('http-429', 'x', { transient: true, retryAfterMs: 4321 });
  assert.equal(
    backoffDelay(1, policy, withHeader, () => 0),
    4321,
  );
});

test('withRetry sleeps through the injected delay function and stops at max attempts', async () => {
  const slept: number[] = [];
  let calls = 0;
  const r = await withRetry(
    async () => {
      calls++;
      throw new ProviderError('http-500', 'boom', { transient: true });
    },
    { maxAttempts: 4, baseDelayMs: 1000, maxDelayMs: 10_000, timeoutMs: 0 },
    new AbortController().signal,
    { sleep: async (ms) => void slept.push(ms), random: () => 1 },
  );
  assert.equal(calls, 4);
  assert.deepEqual(slept, [1000, 2000, 4000]);
  assert.equal(r.error?.kind, 'http-500');
});
