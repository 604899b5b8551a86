/**
 * EEE's flat (content-addressed) datastore layout, beside the tree `data/<collection>/<developer>/<model>/`:
 *
 *   flat/objects/<uuid[0..2]>/<uuid[2..4]>/<uuid>.json            an aggregate record, byte for byte as in the tree
 *   flat/objects/<uuid[0..2]>/<uuid[2..4]>/<uuid>_samples.jsonl   its instance rows, when it has them
 *   flat/indexes/by_collection/<collection>.jsonl                 one row per aggregate object
 *
 * An index row (keys sorted, compact JSON, one per line, as upstream writes them): `benchmark` (the collection),
 * `eval_schema_version`, `legacy_path` (the object's path in the tree layout), `object_path`, `object_uuid`,
 * `record_type` ("aggregate"), `sha256` and `size_bytes` of the object, and for a record with instance rows
 * `instance_object_path`, `instance_sha256`, `instance_size_bytes`. Upstream's converter tests also spell the
 * instance reference `instance_level_available` / `instance_level_path` / `instance_level_size_bytes` /
 * `instance_sha`; both spellings are read.
 */

export const FLAT_DIR = 'flat';
export const FLAT_OBJECTS = 'flat/objects';
export const FLAT_INDEXES = 'flat/indexes/by_collection';

export interface FlatIndexRow {
  benchmark: string;
  eval_schema_version: string;
  legacy_path: string;
  object_path: string;
  object_uuid: string;
  record_type: string;
  sha256: string;
  size_bytes: number;
  instance_object_path?: string;
  instance_sha256?: string;
  instance_size_bytes?: number;
}

/** The instance reference of a row in either spelling, or undefined when it names none. */
export function instanceReference(
  row: Record<string, unknown>,
): { path: unknown; sha256: unknown; size: unknown; pointer: string } | undefined {
  if (row.instance_object_path !== undefined || row.instance_sha256 !== undefined)
    return {
      path: row.instance_object_path,
      sha256: row.instance_sha256,
      size: row.instance_size_bytes,
      pointer: '/instance_object_path',
    };
  if (row.instance_level_available === true || row.instance_level_path !== undefined)
    return {
      path: row.instance_level_path,
      sha256: row.instance_sha,
      size: row.instance_level_size_bytes,
      pointer: '/instance_level_path',
    };
  return undefined;
}

/** The object path of an aggregate uuid (`flat/objects/ab/cd/<uuid>.json`). */
export function flatObjectPath(uuid: string): string {
  return `${FLAT_OBJECTS}/${uuid.slice(0, 2)}/${uuid.slice(2, 4)}/${uuid}.json`;
}

/** The object path of an aggregate's instance rows (`flat/objects/ab/cd/<uuid>_samples.jsonl`). */
export function flatInstancePath(uuid: string): string {
  return `${FLAT_OBJECTS}/${uuid.slice(0, 2)}/${uuid.slice(2, 4)}/${uuid}_samples.jsonl`;
}

/** The index file of a collection. */
export function flatIndexPath(collection: string): string {
  return `${FLAT_INDEXES}/${collection}.jsonl`;
}

/** One index row as upstream writes it: keys sorted, compact, one line (with its newline). */
export function serializeIndexRow(row: FlatIndexRow): string {
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(row).sort()) {
    const value = (row as unknown as Record<string, unknown>)[key];
    if (value !== undefined) sorted[key] = value;
  }
  return `${JSON.stringify(sorted)}\n`;
}

/** Whether a relative path from an index stays inside the datastore (no absolute path, no `..`, no backslash). */
export function isSafeRelativePath(path: string): boolean {
  if (path === '' || path.startsWith('/') || path.includes('\\') || /^[A-Za-z]:/.test(path)) return false;
  return path.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}

/**
 * Where a record's aggregate lies in the tree layout, from what the record says: `data/<collection>/<developer>/
 * <model>/<uuid>.json`, developer and model from `model_info.id` ("developer/model"; without a slash,
 * `model_info.developer` and the id).
 */
export function treeFolderParts(modelInfo: unknown): { developer: string; model: string } | undefined {
  if (typeof modelInfo !== 'object' || modelInfo === null) return undefined;
  const info = modelInfo as Record<string, unknown>;
  const id = typeof info.id === 'string' ? info.id : undefined;
  if (!id) return undefined;
  const slash = id.indexOf('/');
  if (slash > 0) return { developer: id.slice(0, slash), model: id.slice(slash + 1) };
  return typeof info.developer === 'string' ? { developer: info.developer, model: id } : undefined;
}
