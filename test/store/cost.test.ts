// Cost in the store: an Inspect log's per-sample total_cost, a promptfoo output's per-result cost and an upstream
// HAL record's total_cost_usd reach `leaderboard --show cost` (text and JSON) through one reading of the records;
// each total is recomputed here from the source files. A result that states no cost shows "no cost", never 0.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { cli } from '../checks/cli-inproc.js';
import { paretoFront } from '../../src/store/costs.js';
import { reference, skipWithoutReference } from '../helpers/shared.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-cost-store-'));
after(() => rmSync(temp, { recursive: true, force: true }));

const close = (actual: number, expected: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= 1e-12 * Math.max(1, expected), `${what}: ${actual} ≠ ${expected}`);

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(suffix))
    .map((e) => join(e.parentPath ?? (e as any).path, e.name));
}

async function boards(db: string, extra: string[] = []): Promise<any[]> {
  const r = await cli(['leaderboard', '--db', db, '--show', 'cost', '--format', 'json', ...extra]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout).leaderboards;
}

const INSPECT =
  'peers-wild/inspect_ai/camtice-fork-two-reducers/2025-03-07T14-27-31+00-00_gsm8k_4p4gD7xv3EzhZFerNBYnmE.json';

test(
  "an Inspect log's samples' total_cost: each row's metadata.cost, and the leaderboard's total and per sample",
  { skip: skipWithoutReference(INSPECT) },
  async () => {
    // The real log, with a total_cost per sample and model as newer Inspect versions write it (derived from its
    // own token counts, so each sample's differs).
    const log = JSON.parse(readFileSync(reference(INSPECT)!, 'utf8'));
    let expected = 0;
    for (const sample of log.samples)
      for (const usage of Object.values<any>(sample.model_usage)) {
        usage.total_cost = (usage.input_tokens * 0.5 + usage.output_tokens * 1.5) / 1e6;
        expected += usage.total_cost;
      }
    const folder = join(temp, 'inspect');
    mkdirSync(folder);
    writeFileSync(join(folder, 'log.json'), JSON.stringify(log));
    const db = join(temp, 'inspect.duckdb');
    const ingested = await cli(['ingest', '--db', db, '--no-progress', folder]);
    assert.ok(ingested.code === 0, ingested.stderr);
    const all = await boards(db);
    assert.ok(all.length > 0);
    for (const board of all) {
      const row = board.rows[0];
      assert.equal(row.cost.from, 'rows');
      assert.equal(row.cost.priced_samples, log.samples.length, board.metric);
      close(row.cost.total_usd, expected, board.metric);
      close(row.cost.per_sample_usd, expected / log.samples.length, board.metric);
    }
    // The text table says it too.
    const text = await cli(['leaderboard', '--db', db, '--show', 'cost']);
    assert.match(text.stdout, /cost\/sample/);
    assert.match(text.stdout, new RegExp(`\\$${Number(expected.toPrecision(4))}`.replace('.', '\\.')));
  },
);

const PROMPTFOO = 'peers-wild/promptfoo/hknyosu-simple-test-v2/output.json';

test(
  "a promptfoo output's cost: each test's row carries its result's cost, and the leaderboard sums the chosen record's",
  { skip: skipWithoutReference(PROMPTFOO) },
  async () => {
    const source = JSON.parse(readFileSync(reference(PROMPTFOO)!, 'utf8'));
    const sourceCosts: number[] = source.results.results.map((r: any) => r.cost);
    const out = join(temp, 'pf');
    const converted = await cli(['convert', '--from', 'promptfoo', reference(PROMPTFOO)!, '-o', out]);
    assert.equal(converted.code, 0, converted.stderr);
    // Every source result's cost is on its test's rows, under metadata.cost.
    const rowsByRecord = new Map<string, any[]>();
    for (const f of filesUnder(out, '_samples.jsonl')) {
      const rows = readFileSync(f, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      rowsByRecord.set(rows[0].evaluation_id, rows);
    }
    const passRows = [...rowsByRecord.values()]
      .flat()
      .filter((r) => r.evaluation_result_id.endsWith('test_pass_rate'));
    assert.deepEqual(passRows.map((r) => Number(r.metadata.cost)).sort(), [...sourceCosts].sort());
    const db = join(temp, 'pf.duckdb');
    assert.equal((await cli(['ingest', '--db', db, '--no-progress', out])).code, 0);
    const all = await boards(db);
    const pass = all.find((b) => b.metric === 'test pass rate');
    const row = pass.rows[0];
    const chosen = rowsByRecord
      .get(row.evaluation_id)!
      .filter((r) => r.evaluation_result_id.endsWith('test_pass_rate'));
    close(
      row.cost.total_usd,
      chosen.reduce((n, r) => n + Number(r.metadata.cost), 0),
      'pass total',
    );
    assert.equal(row.cost.priced_samples, chosen.length);
    // The assertion rows of one test each carry the test's cost: one call, counted once.
    const assertions = all.find((b) => b.metric === 'assertion pass rate').rows[0];
    assert.equal(assertions.evaluation_id, row.evaluation_id);
    close(assertions.cost.total_usd, row.cost.total_usd, 'assertion total');
    // The Parquet lake answers with the same costs through the same functions.
    const lake = join(temp, 'pf-lake');
    assert.equal((await cli(['ingest', '--lake', lake, '--no-progress', out])).code, 0);
    const fromLake = await cli(['leaderboard', '--lake', lake, '--show', 'cost', '--format', 'json']);
    assert.equal(fromLake.code, 0, fromLake.stderr);
    const costs = (boards: any[]) => boards.map((b) => [b.metric, b.rows.map((r: any) => r.cost)]);
    assert.deepEqual(costs(JSON.parse(fromLake.stdout).leaderboards), costs(all));
    // A result without rows states no cost: null, not 0.
    assert.equal(all.find((b) => b.metric === 'mean test score').rows[0].cost, null);
  },
);

const HAL = 'eee/records/data/hal-gaia';

test(
  "an upstream HAL record's total_cost_usd is the result's cost; a result without any cost says so, never 0",
  { skip: skipWithoutReference(HAL) },
  async () => {
    const db = join(temp, 'hal.duckdb');
    const ingested = await cli(['ingest', '--db', db, '--no-progress', reference(HAL)!]);
    assert.ok(ingested.code === 0 || ingested.code === 1, ingested.stderr);
    const records = new Map(
      filesUnder(reference(HAL)!, '.json').map((f) => {
        const r = JSON.parse(readFileSync(f, 'utf8'));
        return [r.evaluation_id, r];
      }),
    );
    let checked = 0;
    for (const board of await boards(db))
      for (const row of board.rows) {
        const rec = records.get(row.evaluation_id);
        if (rec === undefined) continue;
        const result = rec.evaluation_results.find((r: any) => r.evaluation_name === board.benchmark);
        const declared = result?.generation_config?.additional_details?.total_cost_usd;
        if (declared === undefined) assert.equal(row.cost, null);
        else {
          assert.equal(row.cost.from, 'record');
          assert.equal(row.cost.total_usd, Number(declared));
          checked++;
        }
      }
    assert.ok(checked > 0, 'no HAL result with a cost was ranked');

    // A store whose results state no cost: null in JSON, "no cost" in the table.
    const plain = join(temp, 'plain.duckdb');
    const eee = reference('eee/records/fixtures');
    if (eee === undefined) return;
    await cli(['ingest', '--db', plain, '--no-progress', eee]);
    const shown = await boards(plain);
    assert.ok(shown.length > 0);
    for (const b of shown) for (const r of b.rows) assert.equal(r.cost, null);
    const text = await cli(['leaderboard', '--db', plain, '--show', 'cost']);
    assert.match(text.stdout, /no cost/);
    assert.doesNotMatch(text.stdout, /\$0\b/);
    const bad = await cli(['leaderboard', '--db', plain, '--show', 'price']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /usage\.bad-option.*unknown column "price"/);
  },
);

test('the Pareto front: no point on it is beaten on both cost and score; a point without cost is never on it', () => {
  const points = [
    { cost: 1, score: 0.5 },
    { cost: 2, score: 0.7 },
    { cost: 3, score: 0.6 }, // beaten by (2, 0.7)
    { cost: 0.5, score: 0.2 },
    { cost: null, score: 0.99 },
    { cost: 4, score: 0.9 },
    { cost: 4, score: 0.8 }, // beaten by (4, 0.9)
    { cost: 5, score: 0.9 }, // same score at a higher cost
  ];
  assert.deepEqual(paretoFront(points), [3, 0, 1, 5]);
  // Lower is better: the cheapest lowest scores.
  assert.deepEqual(paretoFront(points, true), [3]);
  // Brute force: a point is on the front exactly when no other point dominates it.
  const dominated = (i: number) =>
    points.some(
      (q, j) =>
        j !== i &&
        q.cost !== null &&
        q.cost <= points[i].cost! &&
        q.score >= points[i].score &&
        (q.cost < points[i].cost! || q.score > points[i].score),
    );
  const brute = points.flatMap((p, i) => (p.cost !== null && !dominated(i) ? [i] : []));
  assert.deepEqual([...paretoFront(points)].sort(), brute.sort());
});
