// Our own formats through the converter: an infereval η converts to the very pair `evaluate --eee-out` wrote (one
// mapping, same bytes), and benchmark output v1 documents convert with their metrics as results.
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { projectRoot } from '../helpers/shared.js';
import { assertUpstreamValid, assertValidTree, convertInto, load, tempRoot, treeBytes } from './helpers.js';

const bench = join(projectRoot, 'examples/run/birds.benchmark.json');
const fixture = join(projectRoot, 'examples/run/birds.fixture.jsonl');

test('an η converts to the same bytes as evaluate --eee-out wrote; without its benchmark, ids stand in for prompts', async (t) => {
  const dir = tempRoot();
  const eta = join(dir, 'birds.eta.json');
  const r = await cli([
    'evaluate',
    bench,
    '--provider',
    'replay',
    '--replay-from',
    fixture,
    '--model',
    'demo-model',
    '-o',
    eta,
    '--eee-out',
    join(dir, 'eee'),
    '--run-id',
    'conv-run',
    '--format',
    'json',
  ]);
  assert.equal(r.code, 0, r.stderr);
  const fromEvaluate = treeBytes(join(dir, 'eee'));
  assert.equal(fromEvaluate.size, 2);

  // The benchmark beside the η: the converter rebuilds the prompts exactly as the run did.
  copyFileSync(bench, join(dir, 'birds.benchmark.json'));
  const converted = await convertInto([eta]);
  assert.deepEqual(converted.failures, []);
  const fromConvert = treeBytes(converted.root);
  assert.deepEqual([...fromConvert.keys()], [...fromEvaluate.keys()]);
  for (const [p, bytes] of fromEvaluate) assert.ok(bytes.equals(fromConvert.get(p)!), `${p} differs`);
  // Into the store evaluate wrote: the same record, unchanged.
  const again = await convertInto([eta], { root: join(dir, 'eee') });
  assert.equal(again.written[0].outcome.status, 'unchanged');

  const { aggregate, rows } = load(converted.root, converted.written[0].record);
  const etaDoc = JSON.parse(readFileSync(eta, 'utf8'));
  const samples = etaDoc.items.reduce((n: number, it: any) => n + it.samples.length, 0);
  assert.equal(rows.length, samples);
  assert.equal(aggregate.evaluation_results[0].evaluation_name, etaDoc.benchmark_id);
  assert.equal(
    aggregate.evaluation_results.at(-1).metric_config.metric_id,
    'infereval.sample_consensus_agreement',
  );
  await assertUpstreamValid(t, aggregate, rows);
  await assertValidTree(converted.root);

  // Without the benchmark: still converts (same id), and says what is missing.
  const alone = tempRoot();
  copyFileSync(eta, join(alone, 'birds.eta.json'));
  const bare = await convertInto([join(alone, 'birds.eta.json')]);
  assert.equal(bare.written[0].record.aggregatePath, converted.written[0].record.aggregatePath);
  assert.ok(bare.written[0].record.notes.some((n) => /benchmark was not found/.test(n)));
  await assertValidTree(bare.root);
});

test('benchmark output v1 documents: metrics as results, counts as details, a failed run with a note', async (t) => {
  const { root, written, failures } = await convertInto([join(projectRoot, 'examples/bench-output/outputs')]);
  assert.deepEqual(failures, []);
  assert.equal(written.length, 3);
  const mmlu = written.find((w) => w.record.sourcePath.endsWith('2026-02-10T08-00-00Z_001.json'))!;
  const { aggregate } = load(root, mmlu.record);
  const doc = JSON.parse(readFileSync(mmlu.record.sourcePath, 'utf8'));
  const byMetric = new Map<string, any>(
    aggregate.evaluation_results.map((r: any) => [r.metric_config.metric_id, r]),
  );
  for (const [k, v] of Object.entries(doc.results.metrics)) {
    if (k.startsWith('n_')) {
      assert.equal(byMetric.has(k), false);
      assert.equal(byMetric.get('accuracy').score_details.details[k], String(v));
    } else assert.equal(byMetric.get(k).score_details.score, v);
  }
  assert.equal(byMetric.get('latency_ms_p95').metric_config.lower_is_better, true);
  assert.equal(byMetric.get('accuracy').generation_config.generation_args.max_tokens, 16);
  assert.equal(aggregate.model_info.additional_details.deployment_type, 'externally_managed');
  assert.equal(aggregate.retrieved_timestamp, String(Date.parse('2026-02-10T08:41:12Z') / 1000));
  const crashed = written.find((w) => w.record.sourcePath.endsWith('_crashed.json'))!;
  assert.ok(crashed.record.notes.some((n) => /run failed/.test(n)));
  for (const w of written) await assertUpstreamValid(t, load(root, w.record).aggregate, []);
  await assertValidTree(root);
});

test('a truncated benchmark output document fails with file, line and column; nothing is written', async () => {
  const dir = tempRoot();
  const file = join(dir, 'run.json');
  const text = readFileSync(
    join(projectRoot, 'examples/bench-output/outputs/mmlu/2026-02-10T08-00-00Z_001.json'),
    'utf8',
  );
  writeFileSync(file, text.slice(0, 700));
  const { root, written, failures } = await convertInto([file], { from: 'bench', root: join(dir, 'out') });
  assert.equal(written.length, 0);
  assert.match(failures[0].error.message, /run\.json:\d+:\d+: /);
  assert.deepEqual([...treeBytes(dir).keys()], ['run.json']);
  void root;
});
