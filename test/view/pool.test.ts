// The viewer's read pool (src/view/pool.ts) closes its connections only once the work on them has ended: closing a
// DuckDB connection while a statement runs on it deadlocks the thread running it (the process then never exits).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openStore } from '../../src/store/db.js';
import { openReadPool, ServerBusy } from '../../src/view/pool.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-pool-'));
after(() => rmSync(temp, { recursive: true, force: true }));

test('close waits for the work running on every connection, and refuses the requests still waiting', async () => {
  const store = await openStore(join(temp, 'pool.duckdb'), { readOnly: false });
  try {
    const pool = await openReadPool(store, { size: 2 });
    const events: string[] = [];
    const gates = [0, 1].map(() => {
      let open!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      return { open, opened };
    });
    const running = gates.map((gate, i) =>
      pool.run(async (s) => {
        await gate.opened;
        const [row] = await s.all<{ n: number }>('SELECT 41 + 1 AS n');
        events.push(`run ${i} ended`);
        return row!.n;
      }),
    );
    const waiting = pool.run(async () => 'never');
    const closed = pool.close().then(() => events.push('closed'));
    await assert.rejects(waiting, ServerBusy);
    for (const gate of gates) gate.open();
    assert.deepEqual(await Promise.all(running), [42, 42], 'a query ran on a connection already closed');
    await closed;
    assert.equal(events.at(-1), 'closed', `closed before the work ended: ${events.join(', ')}`);
  } finally {
    store.close();
  }
});
