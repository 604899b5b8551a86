// Issue 30, defect 4: partial and failed runs ranked beside finished ones. An Inspect log with status "error" tied
// at rank 1 with a CI of [0, 0]. The leaderboard now ranks finished runs only (and says how many it left out);
// --include-partial ranks the others too, marked with their status, and a zero-width CI of such a run is not shown
// as a measurement; compare names each side's run status. Real logs from ../shared/reference/peers-wild-2 plus
// generated ones.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { reference, skipWithoutReference } from '../helpers/shared.js';
import { CANCELLED, ERRORED, inspectLog } from './partial-runs-fixture.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-partial-'));
after(() => rmSync(temp, { recursive: true, force: true }));

async function board(
  db: string,
  extra: string[] = [],
): Promise<{ rows: any[]; stderr: string; unranked?: number }> {
  const r = await cli(['leaderboard', '--db', db, '--benchmark', 'popularity', '--format', 'json', ...extra]);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  return { rows: out.leaderboards[0]?.rows ?? [], stderr: r.stderr, unranked: out.unranked_partial_runs };
}

async function ingest(name: string, paths: string[]): Promise<string> {
  const db = join(temp, `${name}.duckdb`);
  const r = await cli(['ingest', '--db', db, '--no-progress', ...paths]);
  assert.equal(r.code, 0, r.stderr);
  return db;
}

test(
  'real: the errored and the cancelled popularity runs are not ranked beside a finished one unless asked, then marked',
  { skip: skipWithoutReference(ERRORED) || skipWithoutReference(CANCELLED) },
  async () => {
    const dir = join(temp, 'real');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'done.json'),
      JSON.stringify(inspectLog('openai/gpt-4o', 'success', [1, 0, 1, 1], 4, 0.25)),
    );
    const db = await ingest('real', [reference(ERRORED)!, reference(CANCELLED)!, dir]);
    const ranked = await board(db);
    assert.deepEqual(
      ranked.rows.map((r) => [r.model_id, r.run_status]),
      [['openai/gpt-4o', 'complete']],
    );
    assert.equal(ranked.unranked, 2);
    const text = await cli(['leaderboard', '--db', db, '--benchmark', 'popularity']);
    assert.match(text.stderr, /note: 2 unfinished run\(s\) .* not ranked; --include-partial/);

    const all = await board(db, ['--include-partial']);
    const status = new Map(all.rows.map((r) => [r.run_status, r]));
    assert.deepEqual([...status.keys()].sort(), ['cancelled', 'complete', 'error']);
    // The errored run scored nothing: its interval is no measurement.
    const errored = status.get('error');
    assert.equal(errored.ci, null);
    assert.equal(errored.ci_method, null);
    const marked = await cli(['leaderboard', '--db', db, '--benchmark', 'popularity', '--include-partial']);
    assert.match(marked.stdout, /\[run error\]/);
    assert.match(marked.stdout, /\[run cancelled\]/);
  },
);

test('generated: a run that errored at 20 of 30 samples, and compare names each side’s status', async () => {
  const dir = join(temp, 'generated');
  mkdirSync(dir);
  const ones = (n: number, of: number) => Array.from({ length: of }, (_, i) => (i < n ? 1 : 0));
  writeFileSync(
    join(dir, 'done.json'),
    JSON.stringify(inspectLog('openai/gpt-4o', 'success', ones(24, 30), 30, 0.08)),
  );
  // Every scored sample right and a stderr of 0: a zero-width interval, from a run that errored.
  writeFileSync(
    join(dir, 'errored.json'),
    JSON.stringify(inspectLog('anthropic/claude-x', 'error', ones(20, 20), 30, 0)),
  );
  const db = await ingest('generated', [dir]);
  const ranked = await board(db);
  assert.deepEqual(
    ranked.rows.map((r) => r.model_id),
    ['openai/gpt-4o'],
  );
  const all = await board(db, ['--include-partial']);
  assert.deepEqual(
    all.rows.map((r) => [r.model_id, r.rank, r.run_status]),
    [
      ['anthropic/claude-x', 1, 'error'],
      ['openai/gpt-4o', 2, 'complete'],
    ],
  );
  const r = await cli(['compare', '--db', db, 'anthropic/claude-x', 'openai/gpt-4o', '--format', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const [c] = JSON.parse(r.stdout).comparisons;
  assert.deepEqual([c.run_status_a, c.run_status_b], ['error', 'complete']);
  const text = await cli(['compare', '--db', db, 'anthropic/claude-x', 'openai/gpt-4o']);
  assert.match(text.stdout, /note: A's run did not finish \(run error\)/);
});
