// One run, one record: two Inspect logs of one eval id (one finished with 32 samples, one in-progress copy with 7)
// are stored as the finished one, whatever the order of the arguments or of separate ingests; a stored partial
// copy is superseded in one transaction and reported; a complete copy is never replaced by a partial one.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openStore } from '../../src/store/db.js';
import { cli } from '../checks/cli-inproc.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-runs-'));
after(() => rmSync(temp, { recursive: true, force: true }));
let n = 0;
const fresh = (): string => join(temp, `s${n++}.duckdb`);

const EVAL_ID = 'bLd8QkZKq4ZQm3Cw2GhR7T';

/** An Inspect log (format 2, .json) of the run: finished with `samples` samples, or `started` with them so far. */
function inspectLog(samples: number, status: 'success' | 'started'): string {
  const list = Array.from({ length: samples }, (_, i) => ({
    id: i + 1,
    epoch: 1,
    input: `What is ${i} + ${i}?`,
    target: String(2 * i),
    messages: [
      { role: 'user', content: `What is ${i} + ${i}?`, source: 'input' },
      { role: 'assistant', content: String(i % 4 === 0 ? 2 * i + 1 : 2 * i), source: 'generate' },
    ],
    output: {
      model: 'gpt-4o-mini-2024-07-18',
      choices: [{ message: { role: 'assistant', content: String(2 * i) }, stop_reason: 'stop' }],
      usage: { input_tokens: 12, output_tokens: 2, total_tokens: 14 },
    },
    scores: { match: { value: i % 4 === 0 ? 'I' : 'C', answer: String(2 * i) } },
    metadata: {},
  }));
  const correct = list.filter((s) => s.scores.match.value === 'C').length;
  const log: Record<string, unknown> = {
    version: 2,
    status,
    eval: {
      eval_id: EVAL_ID,
      run_id: 'Qx3pN8sWc2Vb6Lm9Kd4Ft1',
      created: '2025-04-02T09:14:55+00:00',
      task: 'arith',
      task_id: 'Zr7YtH2mP9wK4cN6xB1sQe',
      task_version: 0,
      dataset: { name: 'arith', samples: 32 },
      model: 'openai/gpt-4o-mini',
      model_args: {},
      config: {},
      packages: { inspect_ai: '0.3.72' },
      scorers: [{ name: 'match', options: {}, metrics: [{ name: 'inspect_ai/accuracy', options: {} }] }],
    },
    plan: { name: 'plan', steps: [{ solver: 'generate', params: {} }], config: {} },
    stats: {
      started_at: '2025-04-02T09:14:55+00:00',
      completed_at: status === 'success' ? '2025-04-02T09:16:02+00:00' : '',
      model_usage: {},
    },
    samples: list,
  };
  if (status === 'success')
    log.results = {
      total_samples: samples,
      completed_samples: samples,
      scores: [
        {
          name: 'match',
          scorer: 'match',
          params: {},
          scored_samples: samples,
          unscored_samples: 0,
          metrics: {
            accuracy: { name: 'accuracy', value: correct / samples, params: {} },
            stderr: { name: 'stderr', value: 0.078, params: {} },
          },
        },
      ],
    };
  return JSON.stringify(log, null, 2);
}

function logs(): { finished: string; running: string } {
  const dir = join(temp, `logs${n++}`);
  mkdirSync(dir);
  const finished = join(dir, '2025-04-02T09-14-55+00-00_arith_finished.json');
  const running = join(dir, '2025-04-02T09-14-55+00-00_arith_running.json');
  writeFileSync(finished, inspectLog(32, 'success'));
  writeFileSync(running, inspectLog(7, 'started'));
  return { finished, running };
}

async function stored(
  db: string,
): Promise<{ evaluation_id: string; sample_count: number; status: string }[]> {
  const store = await openStore(db, { readOnly: true });
  try {
    return await store.all(
      `SELECT evaluation_id, sample_count::INTEGER AS sample_count,
         json_extract_string(raw, '$.eval_library.additional_details.run_status') AS status
       FROM records ORDER BY evaluation_id`,
    );
  } finally {
    store.close();
  }
}

async function ingest(db: string, paths: string[]): Promise<{ code: number; json: any }> {
  const { code, stdout, stderr } = await cli([
    'ingest',
    '--db',
    db,
    '--format',
    'json',
    '--no-progress',
    ...paths,
  ]);
  assert.ok(code === 0, stderr + stdout.slice(0, 1000));
  return { code, json: JSON.parse(stdout) };
}

test('the converter states the run identity: eval id, complete or partial, scored samples', async () => {
  const { finished, running } = logs();
  const { code, stdout } = await cli([
    'convert',
    '-o',
    join(temp, `out${n++}`),
    '--format',
    'json',
    finished,
    running,
  ]);
  assert.equal(code, 0, stdout);
  const report = JSON.parse(stdout);
  assert.equal(report.records.length, 2, 'an in-progress copy is a record of its own, not "the same record"');
  const { readFileSync } = await import('node:fs');
  const details = report.records
    .map(
      (r: any) =>
        JSON.parse(readFileSync(join(report.root, r.aggregatePath), 'utf8')).eval_library.additional_details,
    )
    .map((d: any) => [d.source_run_id, d.run_status, d.scored_samples]);
  assert.deepEqual(details.sort(), [
    [EVAL_ID, 'complete', '32'],
    [EVAL_ID, 'partial', '7'],
  ]);
});

test('both argument orders in one ingest: the finished copy is stored, once', async () => {
  for (const order of ['finished-first', 'running-first']) {
    const { finished, running } = logs();
    const db = fresh();
    const { json } = await ingest(db, order === 'finished-first' ? [finished, running] : [running, finished]);
    const rows = await stored(db);
    assert.equal(rows.length, 1, order);
    assert.equal(rows[0].status, 'complete', order);
    assert.equal(rows[0].sample_count, 32, order);
    assert.equal(json.summary.records, 1, order);
    if (order === 'finished-first') {
      assert.equal(json.summary.superseded, 1);
      assert.ok(
        json.items.some((i: any) => i.status === 'superseded' && i.kept_copy === rows[0].evaluation_id),
      );
    } else {
      assert.equal(json.summary.replaced, 1);
      assert.ok(json.items.some((i: any) => i.status === 'added' && i.supersedes?.length === 1));
      assert.ok(json.diagnostics.some((d: any) => d.code === 'store.run-superseded'));
    }
  }
});

test('two separate ingests, in both orders: the finished copy wins, a partial never replaces it; text says so', async () => {
  {
    const { finished, running } = logs();
    const db = fresh();
    await ingest(db, [running]);
    assert.equal((await stored(db))[0].status, 'partial');
    const text = await cli(['ingest', '--db', db, '--no-progress', finished]);
    assert.equal(text.code, 0, text.stdout);
    assert.match(text.stdout, /replaces the less complete copy .* of the same run/);
    assert.match(text.stdout, /1 replaced by a more complete copy/);
    const rows = await stored(db);
    assert.deepEqual(
      rows.map((r) => [r.status, r.sample_count]),
      [['complete', 32]],
    );
    // Re-ingesting both adds nothing.
    const again = await ingest(db, [running, finished]);
    assert.equal(again.json.summary.records, 0);
    assert.equal((await stored(db)).length, 1);
  }
  {
    const { finished, running } = logs();
    const db = fresh();
    await ingest(db, [finished]);
    const text = await cli(['ingest', '--db', db, '--no-progress', running]);
    assert.equal(text.code, 0);
    assert.match(text.stdout, /not stored: a copy of the same run at least as complete is stored/);
    const rows = await stored(db);
    assert.deepEqual(
      rows.map((r) => [r.status, r.sample_count]),
      [['complete', 32]],
    );
  }
});

test('the samples and items of a superseded copy go with it (one transaction): no row is left without its record', async () => {
  const { finished, running } = logs();
  const db = fresh();
  await ingest(db, [running]);
  await ingest(db, [finished]);
  const store = await openStore(db, { readOnly: true });
  try {
    const orphans = await store.all<{ n: number }>(
      `SELECT count(*)::INTEGER AS n FROM samples s WHERE NOT EXISTS (SELECT 1 FROM records r WHERE r.record_key = s.record_key)`,
    );
    assert.equal(orphans[0].n, 0);
    const results = await store.all<{ n: number }>(
      `SELECT count(*)::INTEGER AS n FROM results x WHERE NOT EXISTS (SELECT 1 FROM records r WHERE r.record_key = x.record_key)`,
    );
    assert.equal(results[0].n, 0);
    for (const table of ['result_items', 'result_item_sets']) {
      const [left] = await store.all<{ n: number }>(
        `SELECT count(*)::INTEGER AS n FROM ${table} x WHERE NOT EXISTS (SELECT 1 FROM records r WHERE r.record_key = x.record_key)`,
      );
      assert.equal(left.n, 0, `${table} keeps rows of the replaced copy`);
    }
    const [sets] = await store.all<{ n: number }>(
      `SELECT count(*)::INTEGER AS n FROM result_item_sets JOIN results USING (record_key, result_index)`,
    );
    assert.ok(sets.n > 0, 'the finished copy has its item sets');
    const samples = await store.all<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM samples`);
    assert.equal(samples[0].n, 32);
  } finally {
    store.close();
  }
});
