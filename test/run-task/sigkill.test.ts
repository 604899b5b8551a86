// `evalkit run` killed with SIGKILL mid-run and resumed: the same records as an uninterrupted run, no journaled
// call requested again, the kill known to have landed while calls were still outstanding.
// test-runner: own process (it spawns the CLI and kills it).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliCommand } from '../helpers/cli.js';
import { startProviderServer } from '../helpers/provider-server.js';
import { journalSamples, killWhen, recordsUnder, requestKey, spawnRun, writeTask } from './helpers.js';

const SAMPLES = 40;
const EPOCHS = 2;

/** The journal's finished calls as `key#epoch`. */
const journaled = (path: string): string[] =>
  journalSamples(path).map((l) => `${l.item}#${l.sample.sample_index}`);

/** What must not differ between a resumed and an uninterrupted run (ids, timestamps and latencies do). */
const stable = (rows: any[]) =>
  rows.map((r) => [
    r.sample_id,
    r.sample_hash,
    r.input.raw,
    r.output.raw[0],
    r.evaluation.score,
    r.error ?? null,
  ]);

test(
  'SIGKILL mid-run, then the same command: same records, no journaled call sent again',
  { timeout: 180_000 },
  async () => {
    const server = await startProviderServer({
      latencyMs: 25,
      script: (ctx) => {
        const { sample, epoch } = requestKey(ctx.sampleId);
        return { text: (Number(sample.slice(1)) + epoch) % 3 === 0 ? 'yes' : 'no' };
      },
    });
    const dir = mkdtempSync(join(tmpdir(), 'evalkit-run-kill-'));
    try {
      const task = writeTask(
        dir,
        'kill',
        `name: kill\ndataset: {path: kill.jsonl}\nscorers: [match, includes]\nepochs: ${EPOCHS}\n`,
        Array.from({ length: SAMPLES }, (_, i) => ({ id: `s${i}`, input: `question ${i}`, target: 'yes' })),
      );
      const command = await cliCommand();
      const args = (out: string) => [
        ...command,
        'run',
        task,
        '--provider',
        'openai',
        '--model',
        'm',
        '--base-url',
        server.openaiBaseUrl,
        '--concurrency',
        '4',
        '-o',
        out,
      ];
      const start = (out: string) => spawnRun(args(out));

      // Uninterrupted.
      const whole = join(dir, 'whole');
      assert.equal((await start(whole).done).code, 0);

      // Killed once about a third of the way, then resumed.
      const out = join(dir, 'killed');
      const journal = join(`${out}.journal`, 'kill', 'openai--m.jsonl');
      const firstRequest = server.requests.length;
      await killWhen(start(out), () => server.requests.length - firstRequest >= (SAMPLES * EPOCHS) / 3);
      const before = journaled(journal);
      // The kill landed mid-run: some calls finished, not all.
      assert.ok(before.length > 0 && before.length < SAMPLES * EPOCHS, `journaled ${before.length}`);
      assert.equal(existsSync(join(out, 'data')), false, 'no record is written before the run finished');

      const resumedFrom = server.requests.length;
      assert.equal((await start(out).done).code, 0);
      const again = server.requests.slice(resumedFrom).map((r) => {
        const k = requestKey(r.sampleId);
        return `answer/${k.sample}#${k.epoch - 1}`;
      });
      const done = new Set(before);
      assert.deepEqual(
        again.filter((k) => done.has(k)),
        [],
        'a journaled call was requested again',
      );
      const after = journaled(journal);
      assert.equal(after.length, SAMPLES * EPOCHS);
      assert.equal(new Set(after).size, after.length, 'no call journaled twice');

      const a = recordsUnder(out).get('unknown/m')!;
      const b = recordsUnder(whole).get('unknown/m')!;
      assert.deepEqual(stable(a.rows), stable(b.rows));
      assert.deepEqual(
        a.aggregate.evaluation_results.map((r: any) => r.score_details),
        b.aggregate.evaluation_results.map((r: any) => r.score_details),
      );
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
