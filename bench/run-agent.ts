// `evalkit run` for agents (`npm run bench -- run-agent`, issue 43): 200 samples × 5 model turns (4 calculator calls
// and a final answer) at concurrency 16 against the local provider server in its own process with 50 ms latency per
// call. The ideal is every call back to back on 16 lanes: 200 × 5 × 50 ms / 16 = 3.125 s (320 calls/s); the figure is
// the ideal time over the measured time (target ≥ 80 %). Baseline in the same run: the single-turn task engine on the
// same server, 1,000 samples (as many calls) at concurrency 16, against the same ideal.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOpenAIProvider } from '../src/run/providers/openai.js';
import { loadTask, runTask } from '../src/run/task/index.js';
import { startServer } from './evaluate.js';

const TURNS = 5;
const CONCURRENCY = 16;
const LATENCY_MS = 50;

function writeTaskFile(dir: string, samples: number, agent: boolean): string {
  mkdirSync(dir, { recursive: true });
  const rows = Array.from({ length: samples }, (_, i) =>
    JSON.stringify({ id: `s${i}`, input: `question ${i}`, target: 'GOOD' }),
  );
  writeFileSync(join(dir, 'bench.jsonl'), `${rows.join('\n')}\n`);
  const path = join(dir, 'bench.task.yaml');
  const tools = agent
    ? `tools: [{name: calculator, builtin: calculator}]\nlimits: {max_turns: ${TURNS + 1}}\nscorers: [match, {step_count: {max: ${TURNS}}}]\n`
    : 'scorers: [match]\n';
  writeFileSync(path, `name: bench\ndataset: {path: bench.jsonl}\n${tools}`);
  return path;
}

/** One run of the engine: wall seconds and the model calls it made. */
async function measure(url: string, samples: number, agent: boolean, dir: string) {
  const task = loadTask(writeTaskFile(dir, samples, agent));
  const provider = createOpenAIProvider({ apiKey: 'bench', baseURL: url });
  const started = performance.now();
  const run = await runTask({
    task,
    target: { providerName: 'openai', model: 'bench-model', baseUrl: url, provider },
    journalPath: join(dir, 'journal.jsonl'),
    concurrency: CONCURRENCY,
    retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 50, timeoutMs: 30_000 },
  });
  const seconds = (performance.now() - started) / 1000;
  if (run.summary.failed > 0) throw new Error(`${run.summary.failed} samples failed`);
  if (agent && run.results.some((r) => r.epochs[0].agent!.turns.length !== TURNS))
    throw new Error(`a sample did not take ${TURNS} turns`);
  return { seconds, calls: run.summary.called };
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'evalkit-bench-agent-'));
  const server = await startServer(LATENCY_MS, ['--agent-turns', String(TURNS)]);
  try {
    const samples = 200;
    const calls = samples * TURNS;
    const ideal = (calls * LATENCY_MS) / 1000 / CONCURRENCY;
    await measure(server.url, 20, true, join(dir, 'warmup'));
    // Alternate the agent and the single-turn baseline so the machine's load falls on both alike; best of 3.
    const agent: number[] = [];
    const single: number[] = [];
    for (let i = 0; i < 3; i++) {
      const a = async () => {
        const m = await measure(server.url, samples, true, join(dir, `agent-${i}`));
        if (m.calls !== calls) throw new Error(`agent run made ${m.calls} calls, not ${calls}`);
        agent.push(m.seconds);
      };
      const b = async () =>
        single.push((await measure(server.url, calls, false, join(dir, `single-${i}`))).seconds);
      if (i % 2 === 0) await a().then(b);
      else await b().then(a);
    }
    const best = (xs: number[]) => Math.min(...xs);
    const pct = (s: number) => ((100 * ideal) / s).toFixed(0);
    console.log(
      `run (agent), ${samples} samples × ${TURNS} turns, concurrency ${CONCURRENCY}, ${LATENCY_MS} ms latency: ` +
        `${best(agent).toFixed(2)} s (best of 3: ${agent.map((s) => s.toFixed(2)).join(', ')}) = ${pct(best(agent))}% of ideal ` +
        `${ideal.toFixed(3)} s (target ≥ 80%); ${(calls / best(agent)).toFixed(0)} calls/s. ` +
        `Single-turn baseline, ${calls} samples: ${best(single).toFixed(2)} s = ${pct(best(single))}%`,
    );
  } finally {
    server.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run();
