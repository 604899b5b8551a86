/**
 * Ingesting an EEE flat datastore: its objects are read like any aggregate and samples file, and this says, per
 * aggregate object, the collection its index names and the flat checks' errors about its index row (a record whose
 * row fails — wrong hash or size, wrong legacy path — is not stored).
 */
import { resolve } from 'node:path';
import { checkEeeFlat, flatRootsOf, readFlatIndexes } from '../checks/eee-flat.js';
import type { Diagnostic } from '../diagnostics.js';

export interface FlatRecord {
  collection: string;
  /** Errors of the flat checks about this object's index row. */
  errors: Diagnostic[];
}

/** The flat datastore records among the given absolute paths, by the aggregate object's absolute path. */
export async function flatRecords(paths: string[]): Promise<Map<string, FlatRecord>> {
  const records = new Map<string, FlatRecord>();
  for (const root of flatRootsOf(paths)) {
    const errors = (await checkEeeFlat([root])).filter((d) => d.severity === 'error');
    for (const entry of await readFlatIndexes(root)) {
      const row = entry.row as { object_path?: unknown } | undefined;
      if (typeof row?.object_path !== 'string') continue;
      records.set(resolve(root, row.object_path), {
        collection: entry.collection,
        errors: errors.filter((d) => resolve(d.file) === entry.indexFile && d.line === entry.line),
      });
    }
  }
  return records;
}
