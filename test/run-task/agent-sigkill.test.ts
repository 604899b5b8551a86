// An agent run (OpenAI chat completions, Anthropic Messages) killed with SIGKILL mid-run and resumed: each sample
// continues at its last journaled turn, no journaled turn is requested again, and the records equal an uninterrupted
// run's.
// test-runner: own process (it spawns the CLI and kills it).
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliCommand } from '../helpers/cli.js';
import { startProviderServer, type Protocol } from '../helpers/provider-server.js';
import {
  ANTHROPIC_KEY_ENV,
  anthropicRun,
  journalSamples,
  killWhen,
  openaiRun,
  recordsUnder,
  spawnRun,
  writeTask,
} from './helpers.js';

const SAMPLES = 24;
const TURNS = 4;

/** The journal's finished model turns as `sample/turn`. */
const journaledTurns = (path: string): string[] =>
  journalSamples(path)
    .filter((l) => l.item.startsWith('turn/'))
    .map((l) => l.item.slice('turn/'.length));

/** `run:sample:epoch-1:turn-N` → `sample/N-1`. */
const turnOf = (sampleId: string): string => {
  const [, sample, , turn] = sampleId.split(':');
  return `${sample}/${Number(turn.replace('turn-', '')) - 1}`;
};

/** The conversation of a request, read the same way for both protocols: the model's turns and the last result. */
function readConversation(protocol: Protocol, body: any): { turn: number; lastResult: string | undefined } {
  const messages: any[] = body.messages ?? [];
  const turn = messages.filter((m) => m.role === 'assistant').length;
  const results =
    protocol === 'openai'
      ? messages.filter((m) => m.role === 'tool').map((m) => m.content)
      : messages.flatMap((m) =>
          m.role === 'user' && Array.isArray(m.content)
            ? m.content.filter((b: any) => b.type === 'tool_result').map((b: any) => b.content)
            : [],
        );
  return { turn, lastResult: results.at(-1) };
}

for (const protocol of ['openai', 'anthropic'] as const)
  test(
    `SIGKILL mid-run of an agent task (${protocol}), then the same command: no turn paid twice, same records`,
    { timeout: 180_000 },
    async () => {
      const server = await startProviderServer({
        latencyMs: 20,
        script: (ctx) => {
          const { turn, lastResult } = readConversation(protocol, ctx.body);
          const sample = ctx.sampleId.split(':')[1];
          if (turn < TURNS - 1)
            return {
              toolCalls: [
                {
                  id: `c${turn}`,
                  name: 'calculator',
                  arguments: `{"expression": "${sample.slice(1)} + ${turn}"}`,
                },
              ],
            };
          return { text: `answer ${lastResult}` };
        },
      });
      const dir = mkdtempSync(join(tmpdir(), 'evalkit-agent-kill-'));
      try {
        const task = writeTask(
          dir,
          'ak',
          'name: ak\ndataset: {path: ak.jsonl}\ntools: [{name: calculator, builtin: calculator}]\nscorers: [numeric, {step_count: {max: 3}}]\n',
          Array.from({ length: SAMPLES }, (_, i) => ({
            id: `s${i}`,
            input: `q ${i}`,
            target: String(i + TURNS - 2),
          })),
        );
        const command = await cliCommand();
        const runArgs = (out: string) =>
          protocol === 'openai'
            ? openaiRun(task, server.openaiBaseUrl, out, ['--concurrency', '4'])
            : anthropicRun(task, server.anthropicBaseUrl, out, ['--concurrency', '4']);
        const start = (out: string) => spawnRun([...command, ...runArgs(out)], ANTHROPIC_KEY_ENV);

        const whole = join(dir, 'whole');
        assert.equal((await start(whole).done).code, 0);

        const out = join(dir, 'killed');
        const journal = join(
          `${out}.journal`,
          'ak',
          protocol === 'openai' ? 'openai--m.jsonl' : 'anthropic--claude-t.jsonl',
        );
        const first = server.requests.length;
        await killWhen(start(out), () => server.requests.length - first >= (SAMPLES * TURNS) / 3);
        const before = journaledTurns(journal);
        assert.ok(before.length > 0 && before.length < SAMPLES * TURNS, `journaled ${before.length}`);
        // Some sample was caught between turns: it has a journaled turn but not its last.
        const bySample = new Map<string, number>();
        for (const k of before) bySample.set(k.split('/')[0], (bySample.get(k.split('/')[0]) ?? 0) + 1);
        assert.ok(
          [...bySample.values()].some((n) => n < TURNS),
          'no sample was interrupted mid-trajectory',
        );

        const resumedFrom = server.requests.length;
        assert.equal((await start(out).done).code, 0);
        const again = server.requests.slice(resumedFrom);
        assert.ok(again.every((r) => r.protocol === protocol));
        const done = new Set(before);
        assert.deepEqual(
          again.map((r) => turnOf(r.sampleId)).filter((k) => done.has(k)),
          [],
          'a journaled turn was requested again',
        );
        assert.equal(
          before.length + again.length,
          SAMPLES * TURNS,
          'every turn requested exactly once overall',
        );

        const stable = (root: string) =>
          [...recordsUnder(root).values()][0].rows.map((r) => [
            r.sample_id,
            r.evaluation.score,
            r.metadata.stop_reason,
            JSON.stringify(
              r.messages.map((m: any) => [
                m.role,
                m.content,
                m.tool_calls?.map((c: any) => c.arguments_json),
              ]),
            ),
          ]);
        assert.deepEqual(stable(out), stable(whole));
        assert.ok(stable(out).every((r) => r[2] === 'answered'));
        // numeric: each answer is the last sum the tool gave; step_count: four turns are more than three.
        assert.deepEqual(
          [...recordsUnder(out).values()][0].rows.map((r) => [r.evaluation_result_id, r.evaluation.score]),
          Array.from({ length: SAMPLES }, () => [
            ['ak.numeric', 1],
            ['ak.step_count', 0],
          ]).flat(),
        );
      } finally {
        await server.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

test(
  'Ctrl-C while a command tool runs: the stopped call is not journaled, the resumed run runs it again',
  { timeout: 120_000 },
  async () => {
    const server = await startProviderServer({
      script: (ctx) =>
        (ctx.body.messages ?? []).some((m: any) => m.role === 'tool')
          ? { text: 'ok' }
          : { toolCalls: [{ id: 'w', name: 'wait', arguments: '{}' }] },
    });
    const dir = mkdtempSync(join(tmpdir(), 'evalkit-agent-int-'));
    try {
      const gate = join(dir, 'gate');
      mkdirSync(gate);
      const task = writeTask(
        dir,
        'w',
        'name: w\ndataset: {path: w.jsonl}\ntools: [{name: wait, command: [./wait.mjs]}]\nscorers: [match]\n',
        [{ id: 'only', input: 'x', target: 'ok' }],
        {
          // Says it started, then waits until the test releases it.
          'wait.mjs': `#!/usr/bin/env node
import { existsSync, writeFileSync } from 'node:fs';
writeFileSync(${JSON.stringify(join(gate, 'started'))}, '');
setInterval(() => { if (existsSync(${JSON.stringify(join(gate, 'release'))})) { console.log('done'); process.exit(0); } }, 5);
`,
        },
      );
      chmodSync(join(dir, 'wait.mjs'), 0o755);
      const command = await cliCommand();
      const out = join(dir, 'out');
      const run = spawnRun([...command, ...openaiRun(task, server.openaiBaseUrl, out)]);
      while (!existsSync(join(gate, 'started'))) await new Promise((r) => setTimeout(r, 5));
      run.child.kill('SIGINT');
      assert.equal((await run.done).code, 130);
      const journal = join(`${out}.journal`, 'w', 'openai--m.jsonl');
      assert.deepEqual(
        journalSamples(journal).map((l) => l.item),
        ['turn/only/0'],
        'the model turn is journaled, the interrupted tool call is not',
      );
      writeFileSync(join(gate, 'release'), '');
      const before = server.requests.length;
      assert.equal(
        (await spawnRun([...command, ...openaiRun(task, server.openaiBaseUrl, out)]).done).code,
        0,
      );
      // The resumed run sent only the second turn, after running the tool again.
      assert.equal(server.requests.length - before, 1);
      const row = [...recordsUnder(out).values()][0].rows[0];
      assert.deepEqual(
        row.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content),
        ['done'],
      );
      assert.equal(row.metadata.stop_reason, 'answered');
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
