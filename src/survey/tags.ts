import { createHash } from 'node:crypto';

const SAFE_TAG = /^[A-Za-z0-9_]{1,80}$/;

/**
 * The column tag of an item, as the reference derives it: the id itself when it is 1–80 letters, digits and
 * underscores, else `item_` + the first 8 hex digits of sha256(id) (`wasHashed`). Used when no mapping sidecar
 * says otherwise.
 */
export function exportTag(itemId: string): { tag: string; wasHashed: boolean } {
  if (SAFE_TAG.test(itemId)) return { tag: itemId, wasHashed: false };
  return {
    tag: `item_${createHash('sha256').update(itemId, 'utf8').digest('hex').slice(0, 8)}`,
    wasHashed: true,
  };
}
