/**
 * One provider call with our retry policy: transient failures (429, 5xx, 529, timeouts, dropped connections,
 * empty or malformed bodies) are retried with exponential backoff and full jitter, honouring Retry-After;
 * any other failure is returned at once.
 */
import { ProviderError } from './call-error.js';

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Per-attempt timeout; 0 means none. */
  timeoutMs: number;
  /** The longest wait a server's Retry-After is honoured for; a longer one is cut to this (and logged). */
  maxRetryAfterMs?: number;
}

export interface RetryHooks {
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
  onRetry?: (info: RetryInfo) => void;
}

export interface RetryInfo {
  attempt: number;
  delayMs: number;
  error: ProviderError;
  /** The wait the server asked for (Retry-After), when it asked, and whether `delayMs` is shorter (capped). */
  retryAfterMs?: number;
  retryAfterCapped?: boolean;
}

export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;

export const DEFAULT_RETRY: Required<RetryPolicy> = {
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  timeoutMs: 120_000,
  maxRetryAfterMs: DEFAULT_MAX_RETRY_AFTER_MS,
};

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The delay before retry number `attempt` (1 = after the first failure). */
export function backoffDelay(
  attempt: number,
  policy: RetryPolicy,
  error: ProviderError,
  random: () => number,
): number {
  if (error.retryAfterMs !== undefined)
    return Math.min(error.retryAfterMs, policy.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling * (0.5 + 0.5 * random()));
}

export interface AttemptResult<T> {
  value?: T;
  error?: ProviderError;
  attempts: number;
  /** Wall time of the last attempt, in milliseconds. */
  lastAttemptMs: number;
}

const TIMEOUT = Symbol('timeout');

export async function withRetry<T>(
  call: (signal: AbortSignal) => Promise<T>,
  policy: RetryPolicy,
  outer: AbortSignal,
  hooks: RetryHooks = {},
): Promise<AttemptResult<T>> {
  const wait = hooks.sleep ?? sleep;
  const random = hooks.random ?? Math.random;
  for (let attempt = 1; ; attempt++) {
    const controller = new AbortController();
    const onOuterAbort = (): void => controller.abort(outer.reason);
    outer.addEventListener('abort', onOuterAbort, { once: true });
    const timer =
      policy.timeoutMs > 0 ? setTimeout(() => controller.abort(TIMEOUT), policy.timeoutMs) : undefined;
    const started = performance.now();
    let error: ProviderError;
    try {
      const value = await call(controller.signal);
      return { value, attempts: attempt, lastAttemptMs: performance.now() - started };
    } catch (thrown) {
      if (outer.aborted) throw outer.reason;
      error =
        controller.signal.aborted && controller.signal.reason === TIMEOUT
          ? new ProviderError('timeout', `no response within ${policy.timeoutMs} ms`, { transient: true })
          : thrown instanceof ProviderError
            ? thrown
            : new ProviderError('error', (thrown as Error)?.message ?? String(thrown), { transient: false });
    } finally {
      clearTimeout(timer);
      outer.removeEventListener('abort', onOuterAbort);
    }
    const lastAttemptMs = performance.now() - started;
    if (!error.transient || attempt >= policy.maxAttempts) return { error, attempts: attempt, lastAttemptMs };
    const delayMs = backoffDelay(attempt, policy, error, random);
    const info: RetryInfo = { attempt, delayMs, error };
    if (error.retryAfterMs !== undefined) {
      info.retryAfterMs = error.retryAfterMs;
      info.retryAfterCapped = error.retryAfterMs > delayMs;
    }
    hooks.onRetry?.(info);
    await wait(delayMs, outer);
  }
}
