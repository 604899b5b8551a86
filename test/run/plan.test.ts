// The runs of `evaluate` are planned by the library, without the CLI: settings checked once (usage errors and
// warnings), one run per paraphrase variant in a cycle with its own η, journal and run id, and the dry run's prompts.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { UsageError } from '../../src/errors.js';
import { paraphraseVariantCount } from '../../src/formats/infereval/prompts.js';
import { defaultEtaPath, dryRunPrompts, planEvaluation, variantPath } from '../../src/run/plan.js';
import { runSettingsFrom, type RunOptions } from '../../src/run/settings.js';
import { loadBenchmarkForRun } from '../../src/run/setup.js';

const BENCHMARK = join('examples', 'run', 'birds.benchmark.json');

const options = (extra: Partial<RunOptions> = {}): RunOptions => ({
  provider: 'replay',
  replayFrom: 'fixture.jsonl',
  model: 'demo-model',
  nSamples: 3,
  temperature: 1,
  maxTokens: 1024,
  tieBreak: 'abstain',
  questionForm: 'support',
  paraphraseVariant: 0,
  concurrency: 8,
  maxAttempts: 3,
  timeoutMs: 1000,
  retryBaseMs: 10,
  maxRetryAfterMs: 1000,
  maxResponseBytes: 4096,
  maxConsecutiveFailures: 0,
  ...extra,
});

const context = (warnings: string[] = []) => ({
  env: {},
  cwd: '/work',
  warn: (m: string) => warnings.push(m),
});

test('a paraphrase cycle plans one run per variant, each with its own η, journal and run id', async () => {
  const loaded = await loadBenchmarkForRun(BENCHMARK);
  const settings = runSettingsFrom(options({ paraphraseCycle: true, runId: 'r1' }), context(), loaded);
  const runs = planEvaluation(settings, loaded.benchmark, '/out/birds.eta.json');
  const count = paraphraseVariantCount(loaded.benchmark);
  assert.ok(count > 1, 'the example benchmark has paraphrases');
  assert.deepEqual(
    runs.map((r) => [r.variant, r.outputPath, r.journalPath, r.runId, r.config.prompts.paraphraseVariant]),
    Array.from({ length: count }, (_, k) => [
      k,
      `/out/birds.eta.v${k}.json`,
      `/out/birds.eta.v${k}.json.journal.jsonl`,
      `r1-v${k}`,
      k,
    ]),
  );
  assert.equal(settings.providerSetup.replayFrom, '/work/fixture.jsonl');
});

test('without a cycle: one run at -o, the run id as given; the default η name comes from benchmark and model', async () => {
  const loaded = await loadBenchmarkForRun(BENCHMARK);
  const settings = runSettingsFrom(options({ paraphraseVariant: 1 }), context(), loaded);
  const runs = planEvaluation(settings, loaded.benchmark, '/out/x.json');
  assert.deepEqual(
    runs.map((r) => [r.variant, r.outputPath, r.runId]),
    [[1, '/out/x.json', undefined]],
  );
  assert.equal(defaultEtaPath('dir/birds.benchmark.json', 'org/model:7b'), 'birds.org_model_7b.eta.json');
  assert.equal(variantPath('a/b.eta', 2), 'a/b.eta.v2');
});

test('the dry run lists every prompt of every planned variant', async () => {
  const loaded = await loadBenchmarkForRun(BENCHMARK);
  const settings = runSettingsFrom(options({ paraphraseCycle: true }), context(), loaded);
  const prompts = dryRunPrompts(settings, loaded.benchmark);
  const count = paraphraseVariantCount(loaded.benchmark);
  assert.equal(prompts.length, count * loaded.benchmark.items.length);
  assert.deepEqual(
    prompts.slice(0, 1).map((p) => [p.paraphrase_variant, p.item, p.samples]),
    [[0, loaded.benchmark.items[0].id, 3]],
  );
  assert.match(prompts[0].user, /\S/);
});

test('settings are checked once: conflicts are usage errors, settings without effect are warnings', async () => {
  const loaded = await loadBenchmarkForRun(BENCHMARK);
  assert.throws(
    () => runSettingsFrom(options({ paraphraseCycle: true, paraphraseVariant: 1 }), context(), loaded),
    (e: unknown) => e instanceof UsageError && e.code === 'usage.conflict',
  );
  assert.throws(
    () => runSettingsFrom(options({ replayFrom: undefined }), context(), loaded),
    (e: unknown) => e instanceof UsageError && e.code === 'usage.missing-option',
  );
  assert.throws(
    () => runSettingsFrom(options({ provider: 'anthropic', xTitle: 't' }), context(), loaded),
    (e: unknown) => e instanceof UsageError && e.code === 'usage.conflict',
  );
  const warnings: string[] = [];
  runSettingsFrom(
    options({ provider: 'anthropic', seed: 3, coherenceFrame: 'thin-v1' }),
    context(warnings),
    loaded,
  );
  assert.equal(warnings.length, 2);
  assert.match(warnings[0], /does not accept a sampling seed/);
  assert.match(warnings[1], /only changes the prompt of --question-form coherence/);
});
