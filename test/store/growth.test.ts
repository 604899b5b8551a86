// The store as it grows: records ingested one at a time each add their own rows and nothing else. A checkpoint must
// not rewrite rows stored by earlier ingests (DuckDB's row-group vacuum merged each record's partly filled last row
// group with the next one's, so every other ingest rewrote rows and left the freed blocks in the file), and a
// writer's memory is bounded.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ensureBenchData } from '../../bench/_store-data.js';
import { openStore } from '../../src/store/db.js';
import { ingestPaths } from '../../src/store/ingest.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-store-growth-'));
after(() => rmSync(temp, { recursive: true, force: true }));

interface DatabaseSize {
  total_blocks: number;
  used_blocks: number;
  free_blocks: number;
}

test('records ingested one at a time: the file holds their rows and few freed blocks', async () => {
  const data = ensureBenchData({ models: 4, questions: 8000, dir: join(temp, 'data') });
  const db = join(temp, 'growing.duckdb');
  let size: DatabaseSize | undefined;
  for (let k = 0; k < data.aggregates.length; k++) {
    const store = await openStore(db, { readOnly: false });
    try {
      const result = await ingestPaths(store, [data.aggregates[k]!]);
      assert.equal(result.summary.records, 1, JSON.stringify(result.diagnostics.slice(0, 3)));
      await store.connection.run('CHECKPOINT');
      size = (await store.all<DatabaseSize>('PRAGMA database_size'))[0]!;
    } finally {
      store.close();
    }
  }
  // Appending to a table's partly filled last row group rewrites that group, so some blocks are freed (and reused by
  // the next checkpoint); with the vacuum, earlier records' rows were rewritten too and the file grew by a third more.
  assert.ok(size!.total_blocks <= 1.3 * size!.used_blocks, `blocks: ${JSON.stringify(size)}`);
  assert.ok(statSync(db).size <= 1.3 * size!.used_blocks * 262144 + (1 << 20));
});

test("a writer's DuckDB runs with a bounded memory limit and without the row-group vacuum", async () => {
  const store = await openStore(join(temp, 'settings.duckdb'), { readOnly: false });
  try {
    const [row] = await store.all<{ vacuum: string; limit: string }>(
      `SELECT current_setting('max_vacuum_tasks')::VARCHAR AS vacuum, current_setting('memory_limit') AS limit`,
    );
    assert.equal(row!.vacuum, '0');
    assert.match(row!.limit, /^(4\d\d|5\d\d)\.\d+ MiB$|^512/);
  } finally {
    store.close();
  }
});
