// `evalkit query`'s table output never cuts a value silently: a value longer than a cell is cut with …, and the
// footer says how many were cut and how to print them whole.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { freshStore } from './stats-fixture.js';
import { runInProcess } from '../metrics/inproc.js';

let path: string;
let done: () => void;
before(async () => {
  ({ path, done } = await freshStore());
});
after(() => done());

test('a cut value is said in the table footer; csv prints it whole', async () => {
  const long = 'x'.repeat(100);
  const sql = `SELECT '${long}' AS v, 'short' AS w UNION ALL SELECT '${long}y', 'short'`;
  const table = await runInProcess(['query', sql, '--db', path]);
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /x…/);
  assert.match(
    table.stdout,
    /\(2 values cut at 60 characters, ending in …; --format csv or --format json prints every value whole\)/,
  );
  const short = await runInProcess(['query', `SELECT 'short' AS w`, '--db', path]);
  assert.doesNotMatch(short.stdout, /cut at/);
  const csv = await runInProcess(['query', sql, '--db', path, '--format', 'csv']);
  assert.ok(csv.stdout.includes(long + 'y'));
});
