// Issue 43: `compare` pairs two agents sample by sample on every scorer, trajectory scorers included. Two agent
// "models" (two rule sets of the local tool-calling server) run the same agent task; both records are ingested into
// a real DuckDB store, and `evalkit compare --format json` must pair them on each trajectory scorer (tool_used,
// tool_sequence, tool_args_match, step_count, tool_call_f1) with the paired statistics the test recomputes from the
// two records' rows.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { startProviderServer, type ProviderServer, type Script } from '../helpers/provider-server.js';
import { openaiRun, recordsUnder, writeTask, type WrittenRecord } from './helpers.js';
import { TOOLS } from './agent-helpers.js';
import { pairedTTest } from '../../src/metrics/stats/paired.js';
import type { Comparison } from '../../src/store/compare.js';

let server: ProviderServer;
let dir: string;
before(async () => {
  server = await startProviderServer();
  dir = mkdtempSync(join(tmpdir(), 'evalkit-compare-agents-'));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const TEMPS: Record<string, number> = { Paris: 18, Oslo: 4, Rome: 22, Lima: 15 };
const PAIRS: [string, string][] = [
  ['Paris', 'Oslo'],
  ['Rome', 'Lima'],
  ['Rome', 'Oslo'],
  ['Lima', 'Oslo'],
  ['Paris', 'Lima'],
  ['Rome', 'Paris'],
  ['Oslo', 'Lima'],
  ['Paris', 'Rome'],
  ['Lima', 'Rome'],
];
const ROWS = PAIRS.map(([a, b], i) => ({
  id: `q${i}`,
  input: `How much warmer is ${a} than ${b}?`,
  target: String(TEMPS[a]! - TEMPS[b]!),
  expected_tools: ['weather', 'weather', 'calculator', 'submit'],
  expected_args: { city: a },
}));

/** Trajectory metrics of the task, as the scorers below name them. */
const TRAJECTORY = [
  'tool_used',
  'used_calculator',
  'tool_sequence',
  'seq_any',
  'tool_args_match',
  'step_count',
  'tool_call_f1',
];

const TASK = `name: trips
dataset: {path: trips.jsonl}
${TOOLS}limits: {max_turns: 8}
scorers:
  - numeric
  - {tool_used: {name: weather}}
  - {tool_used: {name: calculator, metric: used_calculator}}
  - {tool_sequence: {mode: in_order}}
  - {tool_sequence: {names: [submit, weather], mode: any_order, name: seq_any}}
  - {tool_args_match: {name: weather}}
  - {step_count: {max: 3}}
  - tool_call_f1
`;

/**
 * Two agents by rule. `careful` looks both cities up at once, subtracts, submits (one sample with the cities the
 * wrong way round); `hasty` answers some samples without a tool, looks only one city up in others, and takes a
 * turn per call in the rest.
 */
const agents: Script = (ctx) => {
  const messages: any[] = ctx.body.messages ?? [];
  const turn = messages.filter((m) => m.role === 'assistant').length;
  const i = Number(/^q(\d+)$/.exec(ctx.sampleId.split(':')[1]!)![1]);
  const [a, b] = PAIRS[i]!;
  const call = (name: string, args: object) => ({ name, arguments: JSON.stringify(args) });
  const plan: { name: string; arguments: string }[][] =
    ctx.body.model === 'careful'
      ? [
          i === 5
            ? [call('weather', { city: b }), call('weather', { city: a })]
            : [call('weather', { city: a }), call('weather', { city: b })],
          [call('calculator', { expression: `${TEMPS[a]} - ${TEMPS[b]}` })],
          [call('submit', { answer: String(TEMPS[a]! - TEMPS[b]!) })],
        ]
      : i % 3 === 0
        ? []
        : i % 3 === 1
          ? [[call('weather', { city: b })], [call('submit', { answer: String(TEMPS[b]) })]]
          : [
              [call('weather', { city: a })],
              [call('weather', { city: b })],
              [call('calculator', { expression: `${TEMPS[a]} - ${TEMPS[b]}` })],
              [call('submit', { answer: String(TEMPS[a]! - TEMPS[b]!) })],
            ];
  if (turn < plan.length) return { toolCalls: plan[turn]! };
  return { text: String(TEMPS[a]! - TEMPS[b]! + (ctx.body.model === 'careful' ? 0 : 1)) };
};

/** A record's value of a metric for each sample (the row's score, by the sample it was drawn from). */
function valuesOf(rec: WrittenRecord, metric: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const row of rec.rows)
    if (row.evaluation_result_id === `trips.${metric}`) out.set(row.metadata.sample, row.evaluation.score);
  return out;
}

const choose = (n: number, k: number): number => {
  let c = 1;
  for (let j = 1; j <= k; j++) c = (c * (n - k + j)) / j;
  return c;
};

/** McNemar's exact test on the discordant pairs: two-sided binomial(b + c, 1/2) at min(b, c). */
function mcnemar(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  let tail = 0;
  for (let k = 0; k <= Math.min(b, c); k++) tail += choose(n, k);
  return Math.min(1, (2 * tail) / 2 ** n);
}

const close = (actual: number | null, expected: number, what: string) =>
  assert.ok(actual !== null && Math.abs(actual - expected) < 1e-9, `${what}: ${actual} ≠ ${expected}`);

test('compare pairs two agents sample by sample on every trajectory scorer, with the statistics of their rows', async () => {
  const task = writeTask(join(dir, 'task'), 'trips', TASK, ROWS, {
    'weather.jsonl': Object.entries(TEMPS)
      .map(([city, t]) => JSON.stringify({ arguments: { city }, result: { temp_c: t } }))
      .join('\n'),
  });
  server.setScript(agents);
  const out = join(dir, 'out');
  const run = await cli(openaiRun(task, server.openaiBaseUrl, out, [], ['careful', 'hasty']));
  assert.equal(run.code, 0, run.stderr);
  const records = [...recordsUnder(out).values()];
  assert.equal(records.length, 2);
  const [careful, hasty] = ['careful', 'hasty'].map((m) =>
    records.find((r) => r.aggregate.model_info.id.endsWith(`/${m}`))!,
  ) as [WrittenRecord, WrittenRecord];

  const db = join(dir, 'store.duckdb');
  const ingest = await cli(['ingest', '--db', db, '--no-progress', out]);
  assert.equal(ingest.code, 0, ingest.stdout + ingest.stderr);
  const compared = await cli([
    'compare',
    '--db',
    db,
    careful.aggregate.model_info.id,
    hasty.aggregate.model_info.id,
    '--format',
    'json',
  ]);
  assert.equal(compared.code, 0, compared.stderr);
  const comparisons: Comparison[] = JSON.parse(compared.stdout).comparisons;
  assert.deepEqual(
    comparisons.map((c) => c.metric).sort(),
    ['numeric', ...TRAJECTORY].sort(),
    'one comparison per scorer',
  );

  let differing = 0;
  for (const metric of TRAJECTORY) {
    const c = comparisons.find((x) => x.metric === metric)!;
    assert.equal(c.benchmark, 'trips');
    const a = valuesOf(careful, metric);
    const b = valuesOf(hasty, metric);
    assert.equal(a.size, ROWS.length, `${metric}: a row per sample in A`);
    assert.equal(b.size, ROWS.length, `${metric}: a row per sample in B`);
    const ids = [...a.keys()].sort();
    const va = ids.map((id) => a.get(id)!);
    const vb = ids.map((id) => b.get(id)!);
    const d = va.map((x, k) => x - vb[k]!);
    const n = ids.length;
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const md = mean(d);
    const sd = Math.sqrt(d.reduce((s, x) => s + (x - md) ** 2, 0) / (n - 1));

    assert.equal(c.paired, true, `${metric}: paired (${c.reason})`);
    assert.equal(c.n_paired, n, metric);
    assert.equal(c.n_unpaired_a, 0, metric);
    assert.equal(c.n_unpaired_b, 0, metric);
    close(c.mean_a, mean(va), `${metric} mean A`);
    close(c.mean_b, mean(vb), `${metric} mean B`);
    close(c.difference, md, `${metric} difference`);
    close(c.se, sd / Math.sqrt(n), `${metric} SE`);
    const binary = [...va, ...vb].every((v) => v === 0 || v === 1);
    if (binary) {
      const aOnly = ids.filter((_, k) => va[k] === 1 && vb[k] === 0).length;
      const bOnly = ids.filter((_, k) => va[k] === 0 && vb[k] === 1).length;
      assert.equal(c.mcnemar?.a_only, aOnly, `${metric} McNemar A only`);
      assert.equal(c.mcnemar?.b_only, bOnly, `${metric} McNemar B only`);
      close(c.mcnemar!.p_value, mcnemar(aOnly, bOnly), `${metric} McNemar p`);
    } else {
      assert.equal(c.mcnemar, null, `${metric}: no McNemar on values other than 0/1`);
    }
    if (sd > 0) {
      differing++;
      assert.equal(c.test, 't', metric);
      close(c.p_value, pairedTTest(va, vb).p_value!, `${metric} p`);
    }
  }
  assert.ok(differing >= 4, `the agents differ on most trajectory scorers (${differing})`);
});
