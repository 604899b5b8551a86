/**
 * The Every Eval Ever datastore layout, as writers build it: `data/<collection>/<developer>/<model>/<uuid4>.json`
 * and its `<uuid4>_samples.jsonl`, with ids derived from content (the same input always lands at the same place).
 */
import { createHash } from 'node:crypto';

/** A UUID4-shaped id derived from a seed string (version and variant bits set). */
export function derivedUuid4(seed: string): string {
  const b = createHash('sha256').update(seed).digest().subarray(0, 16);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A path segment safe in every datastore (no separators, reserved characters, dots at the end). */
export function datastoreSegment(text: string): string {
  const s = text.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+|[.\s-]+$/g, '');
  const safe = s === '' ? 'unknown' : s;
  // Windows reserved device names (compared before the first dot) get a suffix.
  return /^(con|prn|aux|nul|com[1-9]|lpt[1-9])$/i.test(safe.split('.')[0]) ? `${safe}_` : safe;
}

export interface DatastorePaths {
  /** `data/<collection>/<developer>/<model>`, relative to the datastore root. */
  dir: string;
  aggregate: string;
  samples: string;
}

/** The relative paths of a record in the datastore layout (segments made safe). */
export function datastorePaths(
  collection: string,
  developer: string,
  model: string,
  uuid: string,
): DatastorePaths {
  const dir = `data/${datastoreSegment(collection)}/${datastoreSegment(developer)}/${datastoreSegment(model)}`;
  return { dir, aggregate: `${dir}/${uuid}.json`, samples: `${dir}/${uuid}_samples.jsonl` };
}
