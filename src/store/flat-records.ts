/**
 * Ingesting an EEE flat datastore: its objects are read like any aggregate and samples file, and this says, per
 * aggregate object, the collection its index names and the errors of the flat checks that keep it out (a record
 * whose row fails — wrong hash or size, a path leaving the datastore, a link, two collections — or that no valid
 * row names is not stored). The reading is the one `validate` and `migrate` use (checks/eee-flat.ts).
 */
import { readFlatStore, flatRootsOf, type FlatObjectVerdict } from '../checks/eee-flat.js';

export type FlatRecord = FlatObjectVerdict;

/** The flat datastore records among the given absolute paths, by the aggregate object's absolute path. */
export async function flatRecords(paths: string[]): Promise<Map<string, FlatRecord>> {
  const records = new Map<string, FlatRecord>();
  for (const root of flatRootsOf(paths))
    for (const [abs, verdict] of (await readFlatStore(root)).objects) records.set(abs, verdict);
  return records;
}
