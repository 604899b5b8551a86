// Rules the server and the page share about the store's retrieval data.
import type { ActionStatus } from './types.js';

/** A feedback action's status at `now` (ms): revoked wins; else expired once its TTL has run out; else active. */
export function actionStatus(a: { revoked: boolean; expires_ms: number | null }, now: number): ActionStatus {
  if (a.revoked) return 'revoked';
  return a.expires_ms !== null && a.expires_ms <= now ? 'expired' : 'active';
}
