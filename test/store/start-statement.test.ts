// A statement that runs beside synchronous work on this thread (ingest: DuckDB inserts a samples file while the
// validator reads it with synchronous reads) must be executing before that work starts: `connection.run` needs
// three turns of this thread's event loop before DuckDB starts the statement, so it waited for the validator and
// the two ran one after the other (issue 41). Each test blocks this thread, without yielding, until the statement's
// output file is there (bounded, so that a statement that never started fails the test instead of hanging it).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openStore } from '../../src/store/db.js';
import { startStatement } from '../../src/store/write.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-start-statement-'));
after(() => rmSync(temp, { recursive: true, force: true }));

/** Blocks this thread (no event-loop turn) until `path` holds `bytes` or more, or `bound` ms have passed. */
function blockUntilWritten(path: string, bytes: number, bound = 30_000): boolean {
  const until = Date.now() + bound;
  while (Date.now() < until) if (existsSync(path) && statSync(path).size >= bytes) return true;
  return false;
}

test('a started statement runs while this thread does synchronous work', async () => {
  const store = await openStore(join(temp, 'a.duckdb'), { readOnly: false });
  try {
    const out = join(temp, 'answer.csv');
    const { result } = await startStatement(
      store.connection,
      `COPY (SELECT $1::INTEGER AS x) TO '${out}'`,
      [42],
    );
    assert.ok(
      blockUntilWritten(out, 'x\n42\n'.length),
      'DuckDB did not run the statement beside this thread',
    );
    await result;
    assert.equal(readFileSync(out, 'utf8'), 'x\n42\n');
  } finally {
    store.close();
  }
});

test('a started statement that reads a JSONL file runs while this thread reads it too', async () => {
  const store = await openStore(join(temp, 'b.duckdb'), { readOnly: false });
  try {
    const rows = join(temp, 'rows.jsonl');
    writeFileSync(
      rows,
      Array.from({ length: 5000 }, (_, i) => JSON.stringify({ i, s: `row ${i}` })).join('\n'),
    );
    const out = join(temp, 'sum.csv');
    const { result } = await startStatement(
      store.connection,
      `COPY (SELECT count(*) AS n, sum(i) AS total FROM read_json($1, format = 'newline_delimited')) TO '${out}'`,
      [rows],
    );
    // As the validator does: synchronous reads of the same file while the statement runs.
    readFileSync(rows);
    assert.ok(
      blockUntilWritten(out, 'n,total\n'.length + 1),
      'DuckDB did not run the statement beside this thread',
    );
    await result;
    assert.equal(readFileSync(out, 'utf8'), `n,total\n5000,${(4999 * 5000) / 2}\n`);
  } finally {
    store.close();
  }
});

test('a statement that cannot be prepared fails before it starts', async () => {
  const store = await openStore(join(temp, 'c.duckdb'), { readOnly: false });
  try {
    await assert.rejects(startStatement(store.connection, 'SELECT * FROM no_such_table WHERE x = $1', [1]));
  } finally {
    store.close();
  }
});
