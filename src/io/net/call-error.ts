/**
 * A failed call to a remote service (a model provider, the SurveyMonkey API): its stable kind, whether it is worth
 * retrying, the status and the wait the server asked for. Shared by the model runs and the survey importers.
 */
/** A failed call.  `transient` failures are retried; the rest fail the sample at once. */
export class ProviderError extends Error {
  readonly transient: boolean;
  readonly retryAfterMs: number | undefined;
  readonly status: number | undefined;
  /** A short stable cause for summaries: http-429, http-503, timeout, connection, empty-body, bad-json, http-400… */
  readonly kind: string;
  constructor(
    kind: string,
    message: string,
    options: { transient: boolean; retryAfterMs?: number; status?: number },
  ) {
    super(message);
    this.name = 'ProviderError';
    this.kind = kind;
    this.transient = options.transient;
    this.retryAfterMs = options.retryAfterMs;
    this.status = options.status;
  }
}

const TRANSIENT_STATUS = new Set([408, 409, 425, 429, 500, 502, 503, 504, 529]);

export function isTransientStatus(status: number): boolean {
  return TRANSIENT_STATUS.has(status) || status >= 500;
}

/** Reads `retry-after-ms` or `retry-after` (seconds or an HTTP date) into milliseconds. */
export function retryAfterMs(
  headers: { get(name: string): string | null } | undefined,
  now = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  if (Number.isFinite(Number(value))) return Math.max(0, Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Maps an HTTP status to a ProviderError. */
export function httpError(
  status: number,
  message: string,
  headers?: { get(name: string): string | null },
): ProviderError {
  return new ProviderError(`http-${status}`, `HTTP ${status}: ${message}`, {
    transient: isTransientStatus(status),
    retryAfterMs: retryAfterMs(headers),
    status,
  });
}
