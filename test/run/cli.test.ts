// evalkit evaluate / sweep through the real CLI (in process) and the library sweep.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cli } from '../helpers/cli.js';
import {
  hashedVerdicts,
  startProviderServer,
  evaluateAgainst,
  providerArgs,
  type ProviderServer,
} from '../helpers/provider-server.js';
import { projectRoot } from '../helpers/shared.js';
import { loadBenchmarkForRun, createProvider } from '../../src/run/setup.js';
import { parseSweepValues, runSweep, sweepVerdict } from '../../src/run/sweep.js';

const bench = join(projectRoot, 'examples/run/birds.benchmark.json');
const fixture = join(projectRoot, 'examples/run/birds.fixture.jsonl');
let server: ProviderServer;
let dir: string;
before(async () => {
  server = await startProviderServer({ script: hashedVerdicts });
  dir = mkdtempSync(join(tmpdir(), 'evalkit-cli-run-'));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

test('--dry-run prints every prompt and sends nothing', async () => {
  const r = await cli([
    ...evaluateAgainst(server, bench),
    '--dry-run',
    '--format',
    'json',
    '--paraphrase-cycle',
  ]);
  assert.equal(r.code, 0, r.stderr);
  const { prompts } = JSON.parse(r.stdout);
  assert.equal(prompts.length, 12, 'two paraphrase variants × six items');
  assert.equal(prompts[0].user, 'Premises: t is a bird\nConclusion: t flies\nVerdict:');
  assert.equal(
    prompts[6].user,
    'Premises: Tweety belongs to the class of birds\nConclusion: Tweety is able to fly\nVerdict:',
  );
  assert.equal(server.requests.length, 0);
});

test('usage problems are clear errors with exit 2 and no stack trace', async () => {
  const noKey = await cli(
    ['evaluate', bench, '--provider', 'anthropic', '--model', 'm', '-o', join(dir, 'x.json')],
    { env: { ANTHROPIC_API_KEY: '' } },
  );
  assert.equal(noKey.code, 2);
  assert.match(noKey.stderr, /run\.api-key-missing.*ANTHROPIC_API_KEY/);
  assert.doesNotMatch(noKey.stderr, /\bat .*\.([cm]?js|ts):\d+/);
});

test('evaluate (replay from the example fixture) writes η, log and an EEE pair that validates', async () => {
  const out = join(dir, 'birds.eta.json');
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
    out,
    '--log',
    join(dir, 'run.jsonl'),
    '--eee-out',
    join(dir, 'eee'),
    '--format',
    'json',
    '--run-id',
    'cli-run',
  ]);
  assert.equal(r.code, 0, r.stderr);
  const summary = JSON.parse(r.stdout);
  assert.equal(summary.samples, 30);
  assert.equal(summary.failed, 0);
  const eta = JSON.parse(readFileSync(out, 'utf8'));
  assert.equal(eta.id, 'cli-run');
  assert.equal(eta.model.provider, 'replay');
  const events = readFileSync(join(dir, 'run.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l).event);
  assert.deepEqual([events[0], events.at(-1)], ['run', 'finish']);
  assert.equal(events.filter((e) => e === 'sample').length, 30);
  assert.equal(events.filter((e) => e === 'item').length, 6);
  const modelDir = join(dir, 'eee/data/infereval/unknown/demo-model');
  const files = readdirSync(modelDir).sort();
  assert.equal(files.length, 2);
  assert.match(files[0], /^[0-9a-f-]{36}\.json$/);
  const rows = readFileSync(join(modelDir, files[1]), 'utf8').trim().split('\n');
  assert.equal(rows.length, 30);
  const v = await cli(['validate', join(dir, 'eee')]);
  assert.equal(v.code, 0, v.stdout + v.stderr);
});

test('sweep over tie_break draws each sample once and writes sweep-summary.json', async () => {
  const outDir = join(dir, 'sweep');
  const r = await cli(
    [
      'sweep',
      bench,
      '--vary',
      'tie_break',
      '--values',
      'abstain,good,first',
      ...providerArgs(server),
      '--n-samples',
      '4',
      '-o',
      outDir,
      '--format',
      'json',
    ],
    { env: { OPENAI_API_KEY: 'k' } },
  );
  assert.equal(r.code, 0, r.stderr);
  const summary = JSON.parse(r.stdout);
  assert.deepEqual(summary.values, ['abstain', 'good', 'first']);
  assert.equal(summary.runs.length, 3);
  assert.equal(server.requests.length, 24, '6 items × 4 samples, shared by the three values');
  const onDisk = JSON.parse(readFileSync(join(outDir, 'sweep-summary.json'), 'utf8'));
  assert.deepEqual(onDisk, summary);
  for (const row of summary.runs) assert.ok(row.n_items === 6 && row.coverage >= 0 && row.coverage <= 1);
});

test('library sweep over temperature: one journal per value, κ_C range and verdict', async () => {
  const loaded = await loadBenchmarkForRun(bench);
  const { provider } = await createProvider({
    provider: 'openai',
    baseUrl: server.openaiBaseUrl,
    env: { OPENAI_API_KEY: 'k' },
  });
  // At temperature 0 the model agrees with the consensus everywhere; at 1 it says BAD to everything.
  const bad = ['penguin', 'broken wing', 'Premises: t is an animal'];
  server.setScript((ctx) => ({
    text: ctx.body.temperature > 0.5 || bad.some((b) => ctx.user.includes(b)) ? 'BAD' : 'GOOD',
  }));
  const summary = await runSweep({
    benchmark: loaded.benchmark,
    config: {
      providerName: 'openai',
      model: 'm',
      params: { temperature: 1, max_tokens: 64, stop: [] },
      nSamples: 1,
      tieBreak: 'abstain',
      prompts: { questionForm: 'support', coherenceFrameId: 'thin-v1', paraphraseVariant: 0, stripTex: true },
    },
    parameter: 'temperature',
    values: parseSweepValues('temperature', '0,1'),
    outDir: join(dir, 'sweep-t'),
    provider,
    concurrency: 4,
    retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, timeoutMs: 2000 },
  });
  assert.equal(summary.runs[0].cohens_kappa_consensus, 1);
  assert.equal(summary.runs[0].agreement_count, 6);
  assert.equal(summary.runs[1].cohens_kappa_consensus, 0, 'all BAD: no agreement beyond chance');
  assert.equal(summary.runs[1].coverage, 1);
  assert.equal(summary.runs[1].agreement_count, 3);
  assert.equal(summary.kappa_range, 1);
  assert.equal(summary.interpretation, 'varies substantively');
  assert.notEqual(readFileSync(join(dir, 'sweep-t', 'eta.temperature=0.json.journal.jsonl'), 'utf8'), '');
  assert.equal(sweepVerdict(0.07), 'moderately sensitive');
  assert.equal(sweepVerdict(0.1), 'varies substantively');
  assert.throws(() => parseSweepValues('n_samples', '1,x'), /not a valid n_samples/);
});
