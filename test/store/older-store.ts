// A store as an older evalkit left it, beside the same records stored now: for the tests that an older store reads
// the same and that its next ingest brings it up to date.
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '../../src/store/db.js';
import { projectRoot } from '../helpers/shared.js';
import { evalkit } from './inproc.js';

/**
 * `examples/compare` ingested into `dir`/fresh.duckdb, and a copy (`older`) changed by `sql` into what an older
 * evalkit wrote; `next` is another input to ingest into both.
 */
export async function freshAndOlderStores(
  dir: string,
  sql: string,
): Promise<{ fresh: string; older: string; next: string }> {
  const [first, next] = ['examples/compare', 'examples/eee/data'].map((p) => join(projectRoot, p));
  const fresh = join(dir, 'fresh.duckdb');
  const older = join(dir, 'older.duckdb');
  assert.equal((await evalkit(['ingest', first!, '--db', fresh, '--no-progress'])).code, 0);
  copyFileSync(fresh, older);
  const store = await openStore(older, { readOnly: false });
  try {
    await store.connection.run(`${sql}; CHECKPOINT`);
  } finally {
    store.close();
  }
  return { fresh, older, next: next! };
}
