// Nothing lost: the CLI is SIGKILLed at random moments during a run against the local server and resumed each
// time. Every item ends with exactly n samples, none duplicated, no journaled sample is ever requested again,
// and the η equals an uninterrupted run's (timestamps and wall times aside).
// test-runner: own process (long: as a job of its own it keeps the batches short).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEFAULT_RETRY } from '../../src/io/net/retry.js';
import { runEvaluation } from '../../src/run/runner.js';
import { createProvider, loadBenchmarkForRun } from '../../src/run/setup.js';
import { cliCommand } from '../helpers/cli.js';
import { hashedVerdicts, startProviderServer } from '../helpers/provider-server.js';
import { projectRoot } from '../helpers/shared.js';
import { stableEta } from './eta.js';

const ITEMS = 40;
const N = 5;
const KILLS = 10;

function benchmark(): unknown {
  const bearers: Record<string, { expression: string }> = {};
  for (let i = 0; i < ITEMS; i++) bearers[`p${i}`] = { expression: `premise number ${i} holds` };
  bearers.c = { expression: 'the conclusion holds' };
  return {
    schema_version: '1.0',
    id: 'sigkill-bench',
    bearers,
    analysts: [{ id: 'a' }],
    items: Array.from({ length: ITEMS }, (_, i) => ({
      id: `item-${i}`,
      premises: [`p${i}`],
      conclusions: ['c'],
      analyst_verdicts: [i % 3 === 0 ? 'bad' : 'good'],
    })),
  };
}

function journalSamples(path: string): { keys: string[]; ids: Set<string> } {
  if (!existsSync(path)) return { keys: [], ids: new Set() };
  const text = readFileSync(path, 'utf8');
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  const keys: string[] = [];
  const ids = new Set<string>();
  for (const line of complete.split('\n')) {
    if (line === '') continue;
    const parsed = JSON.parse(line);
    if (parsed.type !== 'sample') continue;
    keys.push(`${parsed.item}#${parsed.sample.sample_index}`);
    ids.add(parsed.sample.request_id);
  }
  return { keys, ids };
}

test(
  `SIGKILL ${KILLS} times at random moments, resume each time: nothing lost, nothing sent twice`,
  { timeout: 240_000 },
  async () => {
    const server = await startProviderServer({ script: hashedVerdicts, latencyMs: 15 });
    const dir = mkdtempSync(join(tmpdir(), 'evalkit-sigkill-'));
    try {
      const benchPath = join(dir, 'bench.json');
      writeFileSync(benchPath, JSON.stringify(benchmark()));
      const command = await cliCommand();
      const args = (out: string) => [
        ...command,
        'evaluate',
        benchPath,
        '--provider',
        'openai',
        '--model',
        'kill-test',
        '--base-url',
        server.openaiBaseUrl,
        '--n-samples',
        String(N),
        '--concurrency',
        '8',
        '--run-id',
        'sigkill-run',
        '-o',
        out,
      ];
      const spawnRun = (out: string) =>
        spawn(process.execPath, args(out), {
          cwd: projectRoot,
          env: { ...process.env, OPENAI_API_KEY: 'k', NO_COLOR: '1' },
          stdio: 'ignore',
        });
      const exit = (child: ReturnType<typeof spawnRun>) =>
        new Promise<{ code: number | null; signal: string | null }>((resolve) =>
          child.on('close', (code, signal) => resolve({ code, signal })),
        );

      // The uninterrupted run, in this process, with the settings the CLI uses.
      const loaded = await loadBenchmarkForRun(benchPath);
      const { provider } = await createProvider({
        provider: 'openai',
        baseUrl: server.openaiBaseUrl,
        env: { OPENAI_API_KEY: 'k' },
      });
      const wholePath = join(dir, 'whole.json');
      await runEvaluation({
        benchmark: loaded.benchmark,
        benchmarkHash: loaded.hash,
        config: {
          providerName: 'openai',
          model: 'kill-test',
          baseUrl: server.openaiBaseUrl,
          params: { temperature: 1, max_tokens: 1024, stop: [] },
          nSamples: N,
          tieBreak: 'abstain',
          prompts: {
            questionForm: 'support',
            coherenceFrameId: 'thin-v1',
            paraphraseVariant: 0,
            stripTex: true,
          },
        },
        provider,
        outputPath: wholePath,
        journalPath: `${wholePath}.journal.jsonl`,
        runId: 'sigkill-run',
        concurrency: 8,
        retry: DEFAULT_RETRY,
      });

      // The interrupted one.
      const out = join(dir, 'killed.json');
      const journal = `${out}.journal.jsonl`;
      let kills = 0;
      let repeated = 0;
      let rng = 0x9e3779b9;
      const random = () => (rng = (Math.imul(rng, 1664525) + 1013904223) >>> 0) / 2 ** 32;
      for (let round = 0; round < KILLS; round++) {
        const before = journalSamples(journal);
        const firstRequest = server.requests.length;
        const child = spawnRun(out);
        const done = exit(child);
        const threshold = 1 + Math.floor(random() * 40);
        let finished = false;
        done.then(() => (finished = true));
        while (!finished && server.requests.length - firstRequest < threshold)
          await new Promise((r) => setTimeout(r, 2));
        const killed = !finished;
        if (killed) {
          child.kill('SIGKILL');
          const result = await done;
          assert.equal(result.signal, 'SIGKILL');
          kills++;
        }
        repeated += server.requests.slice(firstRequest).filter((r) => before.ids.has(r.sampleId)).length;
        const after = journalSamples(journal);
        assert.equal(new Set(after.keys).size, after.keys.length, 'no sample journaled twice');
        if (process.env.EVALKIT_TEST_VERBOSE)
          process.stderr.write(
            `round ${round} threshold ${threshold} sent ${server.requests.length - firstRequest} journal ${after.keys.length} killed ${killed}\n`,
          );
        if (!killed) break;
      }
      // Let it finish.
      const before = journalSamples(journal);
      const firstRequest = server.requests.length;
      const last = await exit(spawnRun(out));
      assert.equal(last.code, 0);
      repeated += server.requests.slice(firstRequest).filter((r) => before.ids.has(r.sampleId)).length;
      assert.equal(repeated, 0, 'a journaled sample was requested again');
      assert.ok(kills >= KILLS - 2, `only ${kills} kills landed`);

      const eta = JSON.parse(readFileSync(out, 'utf8'));
      assert.equal(eta.items.length, ITEMS);
      for (const it of eta.items)
        assert.deepEqual(
          it.samples.map((s: any) => s.sample_index),
          [0, 1, 2, 3, 4],
        );
      const final = journalSamples(journal);
      assert.equal(final.keys.length, ITEMS * N);
      assert.equal(new Set(final.keys).size, ITEMS * N);
      assert.deepEqual(stableEta(eta), stableEta(JSON.parse(readFileSync(join(dir, 'whole.json'), 'utf8'))));
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
