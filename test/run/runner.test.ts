// The runner end to end against the local provider server: outputs valid against both schemas, failures kept
// apart from abstentions, resume without a repeated request, config changes refused, record → replay.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkInfereval } from '../../src/validate/infereval.js';
import { journalPathFor } from '../../src/run/journal.js';
import { createProvider, loadBenchmarkForRun, type LoadedBenchmark } from '../../src/run/setup.js';
import { runEvaluation, type RunConfig, type RunOptions } from '../../src/run/runner.js';
import { createAjv } from '../../src/validate/ajv.js';
import { startProviderServer, hashedVerdicts, type ProviderServer } from '../helpers/provider-server.js';
import { projectRoot, reference, withReference } from '../helpers/shared.js';
import { stableEta } from './eta.js';

let server: ProviderServer;
let dir: string;
let loaded: LoadedBenchmark;
before(async () => {
  server = await startProviderServer();
  dir = mkdtempSync(join(tmpdir(), 'evalkit-run-'));
  loaded = await loadBenchmarkForRun(join(projectRoot, 'examples/run/birds.benchmark.json'));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const config = (over: Partial<RunConfig> = {}): RunConfig => ({
  providerName: 'openai',
  model: 'test-model',
  params: { temperature: 1, max_tokens: 256, stop: [] },
  nSamples: 5,
  tieBreak: 'abstain',
  prompts: { questionForm: 'support', coherenceFrameId: 'thin-v1', paraphraseVariant: 0, stripTex: true },
  ...over,
});

async function run(name: string, over: Partial<RunOptions> = {}, cfg: Partial<RunConfig> = {}) {
  const { provider } = await createProvider({
    provider: 'openai',
    baseUrl: server.openaiBaseUrl,
    env: { OPENAI_API_KEY: 'sk-never-written' },
  });
  const outputPath = join(dir, `${name}.json`);
  const summary = await runEvaluation({
    benchmark: loaded.benchmark,
    benchmarkHash: loaded.hash,
    config: config(cfg),
    provider,
    outputPath,
    journalPath: journalPathFor(outputPath),
    runId: `run-${name}`,
    concurrency: 4,
    retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5, timeoutMs: 2000 },
    ...over,
  });
  return { summary, outputPath, eta: JSON.parse(readFileSync(outputPath, 'utf8')) };
}

test('a run writes an η with every item, n samples each, valid against our schema and the upstream one', async (t) => {
  server.setScript(hashedVerdicts);
  const { eta, summary } = await run('basic');
  assert.equal(eta.items.length, 6);
  assert.equal(eta.benchmark_hash, loaded.hash);
  assert.equal(eta.id, 'run-basic');
  for (const it of eta.items) {
    assert.deepEqual(
      it.samples.map((s: any) => s.sample_index),
      [0, 1, 2, 3, 4],
    );
    const mv = it.majority_vote;
    assert.equal(mv.good + mv.bad + mv.abstain, 5);
    assert.equal(it.model_verdict, mv.verdict);
    for (const s of it.samples) {
      assert.equal(typeof s.wall_time_ms, 'number');
      assert.ok(s.usage.input_tokens > 0);
    }
  }
  assert.equal(summary.samples, 30);
  assert.deepEqual(
    checkInfereval(eta, 'evaluation').filter((i) => (i.severity ?? 'error') === 'error'),
    [],
  );
  const UPSTREAM = 'infereval/schemas/evaluation.schema.json';
  await withReference(t, UPSTREAM, 'the upstream evaluation schema accepts the η', () => {
    const validate = createAjv('2020-12').compile(JSON.parse(readFileSync(reference(UPSTREAM)!, 'utf8')));
    assert.equal(validate(eta), true, JSON.stringify(validate.errors));
  });
  assert.ok(!readFileSync(journalPathFor(join(dir, 'basic.json')), 'utf8').includes('sk-never-written'));
});

test('provider failures become sample_failed with provider_error and never count as abstentions', async () => {
  // Item "penguin" always fails with 503; "wing" answers BAD twice and fails thrice (400, not retried).
  server.setScript((ctx) => {
    if (ctx.user.includes('penguin')) return { status: 503 };
    if (ctx.user.includes('broken wing'))
      return /sample-[01]$/.test(ctx.sampleId) ? { text: 'BAD' } : { status: 400 };
    if (ctx.user.includes('Tuesday')) return { text: 'Let me think', finishReason: 'length' };
    return { text: 'GOOD' };
  });
  const { eta, summary } = await run('failures');
  const byId = Object.fromEntries(eta.items.map((it: any) => [it.id, it]));
  const penguin = byId.penguin;
  assert.ok(
    penguin.samples.every(
      (s: any) =>
        s.parse_status === 'sample_failed' && /http-503/.test(s.provider_error) && s.raw_response === '',
    ),
  );
  assert.deepEqual(
    { ...penguin.majority_vote },
    { good: 0, bad: 0, abstain: 0, verdict: 'abstain', tie_broken: false },
  );
  const wing = byId.wing;
  assert.deepEqual([wing.majority_vote.bad, wing.majority_vote.abstain, wing.model_verdict], [2, 0, 'bad']);
  assert.ok(byId.irrelevant.samples.every((s: any) => s.parse_status === 'budget_clipped'));
  assert.equal(summary.failed, 8);
  assert.deepEqual(summary.failuresByKind, { 'http-503': 5, 'http-400': 3 });
  assert.equal(
    server.requests.filter((r) => r.sampleId === 'run-failures:penguin:sample-0').length,
    3,
    'retried 3 times',
  );
  assert.equal(
    server.requests.filter((r) => r.sampleId === 'run-failures:wing:sample-4').length,
    1,
    '400 is not retried',
  );
});

test('an interrupted run resumes without sending a journaled sample again, and gives the same η', async () => {
  server.setScript(hashedVerdicts);
  const whole = await run('whole', { runId: 'same-run' });
  server.setLatency(20); // slower than the journal, so the abort lands mid-run
  const controller = new AbortController();
  let seen = 0;
  await assert.rejects(
    run('parts', {
      runId: 'same-run',
      signal: controller.signal,
      onProgress: () => {
        if (++seen === 11) controller.abort(new Error('stop'));
      },
    }),
    /stop/,
  );
  server.setLatency(0);
  assert.ok(!existsSync(join(dir, 'parts.json')), 'no η at the target after an interruption');
  const journal = readFileSync(journalPathFor(join(dir, 'parts.json')), 'utf8')
    .trim()
    .split('\n');
  const journaled = new Set(journal.slice(1).map((l) => JSON.parse(l).sample.request_id));
  assert.ok(journaled.size >= 11 && journaled.size < 30, `journaled ${journaled.size}`);
  const before = server.requests.length;
  const resumed = await run('parts', { runId: 'ignored-on-resume' });
  const sentAfter = server.requests.slice(before).map((r) => r.sampleId);
  assert.equal(sentAfter.filter((id) => journaled.has(id)).length, 0);
  assert.equal(sentAfter.length + journaled.size, 30);
  assert.equal(resumed.summary.resumed, true);
  assert.equal(resumed.summary.reused, journaled.size);
  assert.deepEqual(stableEta(resumed.eta), stableEta(whole.eta));

  // A finished run re-run with the same output sends nothing.
  const again = server.requests.length;
  const rerun = await run('parts');
  assert.equal(server.requests.length, again);
  assert.deepEqual(stableEta(rerun.eta), stableEta(whole.eta));
});

test('a changed sampling config is not mixed into an existing journal; n_samples and tie_break may change', async () => {
  server.setScript(hashedVerdicts);
  await run('cfg');
  await assert.rejects(
    run('cfg', {}, { params: { temperature: 0.2, max_tokens: 256, stop: [] } }),
    (e: any) => e.code === 'run.config-changed',
  );
  const before = server.requests.length;
  const more = await run('cfg', {}, { nSamples: 7, tieBreak: 'first' });
  assert.equal(server.requests.length - before, 12, 'only samples 5 and 6 of each item are new');
  assert.ok(more.eta.items.every((it: any) => it.samples.length === 7));
  assert.equal(more.eta.endorsement_config.tie_break, 'first');
});

test('--retry-failed sends again only the samples that failed', async () => {
  server.setScript((ctx) => (ctx.user.includes('penguin') ? { status: 404 } : { text: 'GOOD' }));
  const first = await run('retryfailed');
  assert.equal(first.summary.failed, 5);
  server.setScript(() => ({ text: 'BAD' }));
  const before = server.requests.length;
  const second = await run('retryfailed', { retryFailed: true });
  assert.equal(server.requests.length - before, 5);
  assert.equal(second.summary.failed, 0);
  const penguin = second.eta.items.find((it: any) => it.id === 'penguin');
  assert.equal(penguin.model_verdict, 'bad');
});

test('the coherence form sends the coherence prompt and decodes INCOHERENT as good', async () => {
  server.setScript((ctx) => ({ text: ctx.user.includes('penguin') ? 'COHERENT' : 'INCOHERENT' }));
  const { eta } = await run(
    'coherence',
    {},
    {
      prompts: {
        questionForm: 'coherence',
        coherenceFrameId: 'thin-v1',
        paraphraseVariant: 1,
        stripTex: true,
      },
    },
  );
  assert.equal(eta.endorsement_config.question_form, 'coherence');
  assert.equal(eta.endorsement_config.verification_prompt_id, 'framework-default-v1:coherence:thin-v1');
  assert.equal(eta.paraphrase_variant, 1);
  const sent = server.requests.find((r) => r.sampleId === 'run-coherence:base:sample-0')!;
  assert.equal(sent.body.messages.length, 2);
  assert.match(sent.body.messages[0].content, /^You are judging the coherence of a position/); // thin-v1's system prompt
  assert.equal(
    sent.body.messages[1].content,
    'Consider a position that commits to the following: Tweety belongs to the class of birds; and denies: Tweety is able to fly.\n' +
      'Is this position coherent? Answer COHERENT, INCOHERENT, or UNCLEAR.',
  );
  const verdicts = Object.fromEntries(eta.items.map((it: any) => [it.id, it.model_verdict]));
  assert.equal(verdicts.base, 'good');
  assert.equal(verdicts.penguin, 'bad');
});

test('record then replay reproduces the η without the network', async () => {
  server.setScript(hashedVerdicts);
  const fixture = join(dir, 'fixture.jsonl');
  const recorder = await createProvider({
    provider: 'openai',
    baseUrl: server.openaiBaseUrl,
    env: { OPENAI_API_KEY: 'sk-x' },
    record: fixture,
  });
  const outputPath = join(dir, 'recorded.json');
  const base = {
    benchmark: loaded.benchmark,
    config: config(),
    runId: 'rec',
    concurrency: 4,
    retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, timeoutMs: 2000 },
  };
  await runEvaluation({
    ...base,
    provider: recorder.provider,
    outputPath,
    journalPath: journalPathFor(outputPath),
  });
  await recorder.close();
  assert.ok(!readFileSync(fixture, 'utf8').includes('sk-x'));
  const replayer = await createProvider({ provider: 'replay', env: {}, replayFrom: fixture });
  const before = server.requests.length;
  const replayPath = join(dir, 'replayed.json');
  await runEvaluation({
    ...base,
    provider: replayer.provider,
    outputPath: replayPath,
    journalPath: journalPathFor(replayPath),
  });
  assert.equal(server.requests.length, before);
  const a = stableEta(JSON.parse(readFileSync(outputPath, 'utf8')));
  const b = stableEta(JSON.parse(readFileSync(replayPath, 'utf8')));
  assert.deepEqual(b.items, a.items);
});

test('a torn last journal line (killed mid-write) is cut off; a corrupt complete line is a clear error', async () => {
  server.setScript(hashedVerdicts);
  const first = await run('torn');
  const journal = journalPathFor(join(dir, 'torn.json'));
  const lines = readFileSync(journal, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  // Drop the last two samples and leave half a line, as a kill during the write would.
  writeFileSync(journal, `${lines.slice(0, -2).join('\n')}\n${lines.at(-1)!.slice(0, 40)}`);
  const before = server.requests.length;
  const again = await run('torn');
  assert.equal(server.requests.length - before, 2);
  assert.deepEqual(stableEta(again.eta), stableEta(first.eta));
  assert.equal(
    readFileSync(journal, 'utf8')
      .split('\n')
      .filter((l) => l !== '').length,
    lines.length,
  );
  writeFileSync(journal, `${lines.slice(0, 3).join('\n')}\nnot json\n`);
  await assert.rejects(run('torn'), (e: any) => e.code === 'run.journal-corrupt' && /:4:1/.test(e.message));
});

test('the EEE pair validates against the 0.3.0 aggregate and instance types', async () => {
  const { EeeAggregateSchema030, EeeInstanceSchema030 } = await import('../../src/formats/eee/index.js');
  const { writeEeeRun } = await import('../../src/convert/eee-run.js');
  server.setScript(hashedVerdicts);
  const { outputPath } = await run('eee');
  const outDir = join(dir, 'eee-store');
  const written = await writeEeeRun({ etaPath: outputPath, outDir, benchmark: loaded.normalised });
  const again = await writeEeeRun({ etaPath: outputPath, outDir, benchmark: loaded.normalised });
  assert.deepEqual(again, written, 'same run, same paths');
  assert.match(
    written.aggregate,
    /data\/infereval\/openai\/test-model\/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.json$/,
  );
  const ajv = createAjv('draft-07');
  const aggregate = JSON.parse(readFileSync(written.aggregate, 'utf8'));
  const checkAggregate = ajv.compile(EeeAggregateSchema030);
  assert.equal(checkAggregate(aggregate), true, JSON.stringify(checkAggregate.errors));
  const checkRow = ajv.compile(EeeInstanceSchema030);
  const rows = readFileSync(written.samples, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(rows.length, 30);
  assert.equal(aggregate.detailed_evaluation_results.total_rows, 30);
  for (const row of rows) {
    assert.equal(checkRow(row), true, JSON.stringify(checkRow.errors));
    assert.equal(row.evaluation_id, aggregate.evaluation_id);
    assert.equal(row.model_id, aggregate.model_info.id);
  }
  assert.equal(new Set(rows.map((r) => r.sample_id)).size, 30);
});

test('the Anthropic provider runs the same benchmark through the Messages API', async () => {
  server.setScript((ctx) => (ctx.protocol === 'anthropic' ? { text: 'Verdict: GOOD' } : { status: 400 }));
  const { provider } = await createProvider({
    provider: 'anthropic',
    baseUrl: server.anthropicBaseUrl,
    env: { ANTHROPIC_API_KEY: 'sk-ant' },
  });
  const outputPath = join(dir, 'anthropic.json');
  const summary = await runEvaluation({
    benchmark: loaded.benchmark,
    config: config({ providerName: 'anthropic', nSamples: 2 }),
    provider,
    outputPath,
    journalPath: journalPathFor(outputPath),
    concurrency: 3,
    retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, timeoutMs: 2000 },
  });
  assert.equal(summary.failed, 0);
  const eta = JSON.parse(readFileSync(outputPath, 'utf8'));
  assert.equal(eta.model.provider, 'anthropic');
  assert.ok(
    eta.items.every(
      (it: any) =>
        it.model_verdict === 'good' && it.samples.every((s: any) => s.finish_reason === 'end_turn'),
    ),
  );
});
