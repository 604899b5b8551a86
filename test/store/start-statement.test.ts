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
import { ensureBenchData } from '../../bench/_store-data.js';
import { openStore } from '../../src/store/db.js';
import { ingestPaths } from '../../src/store/ingest.js';
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

/** Bytes this process has read so far (Linux: /proc/self/io), or undefined elsewhere. */
function bytesRead(): number | undefined {
  if (!existsSync('/proc/self/io')) return undefined;
  const m = /^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'));
  return m ? Number(m[1]) : undefined;
}

// The ingest itself. Before the fix this was a race (the validator's asynchronous open could give the statement its
// turns, or not: in process with warm modules it mostly did, from the CLI it mostly did not), so this test guards the
// ingest's use of startStatement; the tests above are the ones that fail without it.
test('ingest: DuckDB reads a 0.3.0 samples file while the validator is still at its first megabyte', async (t) => {
  if (bytesRead() === undefined) return t.skip('needs /proc/self/io (Linux)');
  const data = ensureBenchData({ models: 1, questions: 6000, reasoningWords: 90, dir: join(temp, 'data') });
  const samplesBytes = statSync(data.samples[0]!).size;
  const store = await openStore(join(temp, 'ingest.duckdb'), { readOnly: false });
  try {
    // Everything this process reads from here: the validator's bytes so far, DuckDB's, and a few small files.
    const start = bytesRead()!;
    let readBeside: boolean | undefined;
    const result = await ingestPaths(store, [data.aggregates[0]!], {
      onProgress: (p) => {
        if (readBeside !== undefined) return;
        // The validator's first batch: this thread stops here, without yielding, until the process has read the
        // samples file once more than the validator has (DuckDB's insert), or the bound passes.
        const until = Date.now() + 30_000;
        readBeside = false;
        while (Date.now() < until && !readBeside)
          readBeside = bytesRead()! - start >= samplesBytes + p.bytesDone;
      },
    });
    assert.equal(result.summary.records, 1, JSON.stringify(result.diagnostics.slice(0, 3)));
    assert.equal(readBeside, true, 'DuckDB did not read the samples file beside the validator');
  } finally {
    store.close();
  }
});
