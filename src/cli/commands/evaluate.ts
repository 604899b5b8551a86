import { resolve } from 'node:path';
import { Option } from 'commander';
import pc from 'picocolors';
import { InterruptedError } from '../../errors.js';
import { journaledCount } from '../../run/journal.js';
import { openRunLog } from '../../run/run-log.js';
import { runEvaluation, type RunProgress, type RunSummary } from '../../run/runner.js';
import { defaultEtaPath, dryRunPrompts, planEvaluation } from '../../run/plan.js';
import { requestControls, runSettingsFrom, type RunOptions, type RunSettings } from '../../run/settings.js';
import { createProvider, loadBenchmarkForRun, type LoadedBenchmark } from '../../run/setup.js';
import { writeEeeRun } from '../../convert/eee-run.js';
import { lockPathFor, staleLockOwner } from '../../io/lock.js';
import { checkOutputs } from '../../io/preflight.js';
import { isInteractive, useColor, type CliIO, type CommandModule } from '../context.js';
import { formatDuration, terminalColumns } from '../output/progress.js';
import { addRunOptions } from '../run-options.js';

/** The CLI's side of the shared run settings: the library checks them, warnings go to stderr. */
export function runSettingsFor(opts: RunOptions, io: CliIO, loaded: LoadedBenchmark): RunSettings {
  return runSettingsFrom(
    opts,
    { env: io.env, cwd: io.cwd, warn: (m) => io.stderr.write(`warning: ${m}\n`) },
    loaded,
  );
}

// ---- progress ----

export function progressReporter(io: CliIO, label: string): { update(p: RunProgress): void; done(): void } {
  const tty = isInteractive(io);
  let last = 0;
  let lastQuietStep = -1;
  let shown = false;
  return {
    update(p) {
      const now = performance.now();
      if (tty) {
        if (now - last < 100 && p.samplesDone < p.samplesTotal) return;
        last = now;
        const width = 24;
        const fraction = p.samplesTotal === 0 ? 1 : p.samplesDone / p.samplesTotal;
        const filled = Math.round(width * fraction);
        const rate = p.samplesDone / Math.max(p.elapsedMs / 1000, 1e-3);
        const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
        const line =
          `${label} ${bar} items ${p.itemsDone}/${p.itemsTotal}  samples ${p.samplesDone}/${p.samplesTotal}` +
          `  failed ${p.samplesFailed}  tokens ${p.tokens}  ${rate.toFixed(1)}/s` +
          (p.samplesDone > 0 && p.samplesDone < p.samplesTotal
            ? `  ETA ${formatDuration(((p.samplesTotal - p.samplesDone) / rate) * 1000)}`
            : '');
        io.stderr.write(`\r${line.slice(0, Math.max(20, terminalColumns(io.stderr) - 1))}\x1b[K`);
        shown = true;
      } else {
        // Quiet: one line per 10 % of the samples.
        const step = p.samplesTotal === 0 ? 10 : Math.floor((10 * p.samplesDone) / p.samplesTotal);
        if (step !== lastQuietStep && step > 0) {
          lastQuietStep = step;
          io.stderr.write(
            `${label}: ${p.samplesDone}/${p.samplesTotal} samples, ${p.itemsDone}/${p.itemsTotal} items, ${p.samplesFailed} failed\n`,
          );
        }
      }
    },
    done() {
      // The finished bar stays on screen as a record of the run; idempotent like the validate bar.
      if (tty && shown) io.stderr.write('\n');
      shown = false;
    },
  };
}

/**
 * How fast the calls went: a rate only over a second or more (a rate over a few milliseconds, or over the journal's
 * answers alone, says nothing), else the count and the time.
 */
export function rateText(called: number, elapsedMs: number): string {
  const calls = `${called} call${called === 1 ? '' : 's'}`;
  if (elapsedMs < 1000) return `${calls} in ${Math.round(elapsedMs)} ms`;
  return `${(called / (elapsedMs / 1000)).toFixed(1)} samples/s over ${(elapsedMs / 1000).toFixed(1)} s`;
}

export function summaryText(s: RunSummary, color: boolean): string {
  const c = pc.createColors(color);
  const lines = [
    `${c.bold('wrote')} ${s.outputPath} (run ${s.runId}${s.resumed ? ', resumed' : ''})`,
    `  items ${s.items}, samples ${s.samples} (${s.called} called, ${s.reused} from the journal, ${s.retries} retries)`,
    `  model verdicts: good ${s.verdicts.good}, bad ${s.verdicts.bad}, abstain ${s.verdicts.abstain - s.itemsAllFailed}` +
      (s.itemsAllFailed > 0
        ? `; ${s.itemsAllFailed} item${s.itemsAllFailed === 1 ? '' : 's'} without an answer (every sample failed)`
        : ''),
    `  parse: ${
      Object.entries(s.statuses)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none'
    }`,
    `  tokens: ${s.inputTokens} in, ${s.outputTokens} out; ${rateText(s.called, s.elapsedMs)}`,
  ];
  if (s.usageDropped > 0)
    lines.push(
      c.yellow(
        `  ${s.usageDropped} sample${s.usageDropped === 1 ? '' : 's'} had token counts that are not non-negative integers; they were dropped (see the run log)`,
      ),
    );
  if (s.failed > 0) {
    const why = Object.entries(s.failuresByKind)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    lines.push(
      c.red(
        `  ${s.failed} sample${s.failed === 1 ? '' : 's'} failed (${why}); they are recorded as sample_failed, not as abstentions — rerun with --retry-failed to send them again`,
      ),
    );
  } else lines.push(c.green('  no sample failed'));
  return `${lines.join('\n')}\n`;
}

/** Ctrl-C stops the run; every journaled sample is kept and a rerun resumes. */
export function interruptSignal(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  // Listening with `on`, not `once`, until dispose(): while a listener is there, the lock and the temporaries
  // leave the stop to the run (which ends with what it journaled, io/lock.ts); with `once` the listener was gone
  // by the time theirs ran, and they ended the process at once, silently. A second signal stops at once.
  const onSignal = (signal: NodeJS.Signals): void => {
    if (controller.signal.aborted) {
      dispose();
      process.kill(process.pid, signal);
      return;
    }
    controller.abort(
      new InterruptedError(
        signal === 'SIGINT' ? 'SIGINT' : 'SIGTERM',
        'interrupted: every finished call is journaled; rerun the same command to resume',
      ),
    );
  };
  const dispose = (): void => {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return { signal: controller.signal, dispose };
}

/** Everything `evaluate` takes: the shared run options and its own. */
export interface EvaluateCliOptions extends RunOptions {
  output?: string;
  log?: string;
  resume?: boolean;
  dryRun?: boolean;
  eeeOut?: string;
  format: 'text' | 'json';
}

export const evaluateCommand: CommandModule = {
  register(program, io, run) {
    const cmd = program
      .command('evaluate')
      .summary('run an infereval benchmark against a model: concurrent, retried, resumable')
      .description(
        'Runs every item of an infereval benchmark (β) n times against a model, parses each answer, majority-votes, ' +
          'and writes the evaluation (η).\n\n' +
          'Every finished sample is journaled (ETA.json.journal.jsonl beside the η) before it counts: rerunning the same command ' +
          '(or --resume) continues an interrupted run without sending any request twice.\n\n' +
          'Provider failures are retried, then recorded as sample_failed, never as the model abstaining.\n\n' +
          'Exit codes: 0 all samples answered, 1 some samples failed (η written), 2 usage or I/O error.',
      )
      .argument('<benchmark>', 'infereval benchmark JSON');
    addRunOptions(cmd)
      .option(
        '-o, --output <eta>',
        'where the η goes (default <benchmark>.<model>.eta.json); its journal sits beside it',
      )
      .option('--log <run.jsonl>', 'structured run log (run, item, sample, retry, finish events)')
      .option('--resume', 'continue the run journaled beside -o (the default whenever that journal exists)')
      .option('--dry-run', 'print every prompt and call nothing')
      .option(
        '--eee-out <dir>',
        'also write the run as an Every Eval Ever 0.3.0 aggregate + samples pair under DIR (datastore layout)',
      )
      .addOption(
        new Option('-f, --format <format>', 'summary format').choices(['text', 'json']).default('text'),
      )
      .action((benchmarkPath: string, opts: EvaluateCliOptions) =>
        run(async () => {
          const loaded = await loadBenchmarkForRun(resolve(io.cwd, benchmarkPath));
          const settings = runSettingsFor(opts, io, loaded);

          if (opts.dryRun) {
            const prompts = dryRunPrompts(settings, loaded.benchmark);
            if (opts.format === 'json') io.stdout.write(`${JSON.stringify({ prompts }, null, 2)}\n`);
            else {
              for (const p of prompts) {
                io.stdout.write(`── ${p.item} (variant ${p.paraphrase_variant}, ×${p.samples})\n`);
                if (p.system !== null) io.stdout.write(`[system]\n${p.system}\n`);
                io.stdout.write(`[user]\n${p.user}\n\n`);
              }
              io.stdout.write(`${prompts.length} prompts; nothing was sent (--dry-run)\n`);
            }
            return 0;
          }

          const output = resolve(io.cwd, opts.output ?? defaultEtaPath(benchmarkPath, settings.config.model));
          const runs = planEvaluation(settings, loaded.benchmark, output);
          const outputs = runs.map((r) => r.outputPath);
          // Every output is checked before the first request is paid for.
          checkOutputs({
            inputs: [benchmarkPath, opts.replayFrom],
            files: [
              ...(outputs.length === 1 && opts.output !== undefined ? [opts.output] : outputs),
              ...runs.map((r) => r.journalPath),
              opts.log,
              opts.record,
            ],
            folders: [opts.eeeOut],
            cwd: io.cwd,
          });
          const { provider, close } = await createProvider(settings.providerSetup);
          const log = openRunLog(opts.log === undefined ? undefined : resolve(io.cwd, opts.log));
          const interrupt = interruptSignal();
          const summaries: RunSummary[] = [];
          try {
            for (const planned of runs) {
              const { config, outputPath, variant } = planned;
              const stale = staleLockOwner(outputPath);
              if (stale !== undefined)
                io.stderr.write(
                  `evalkit: note: taking over ${lockPathFor(outputPath)}: its process ${stale.pid} (started ${stale.started_at}) is gone\n`,
                );
              const progress = progressReporter(io, settings.cycle ? `variant ${variant}` : 'evaluate');
              try {
                const summary = await runEvaluation({
                  benchmark: loaded.benchmark,
                  benchmarkHash: loaded.hash,
                  config,
                  provider,
                  outputPath,
                  journalPath: planned.journalPath,
                  runId: planned.runId,
                  ...requestControls(settings),
                  log,
                  signal: interrupt.signal,
                  onProgress: progress.update,
                });
                summaries.push(summary);
                if (opts.eeeOut !== undefined) {
                  const written = await writeEeeRun({
                    etaPath: outputPath,
                    outDir: resolve(io.cwd, opts.eeeOut),
                    benchmark: loaded.normalised,
                    prompts: config.prompts,
                    baseUrl: config.baseUrl,
                  });
                  (summary as RunSummary & { eee?: unknown }).eee = written;
                }
              } catch (error) {
                const reason: unknown = interrupt.signal.reason;
                if (interrupt.signal.aborted && reason instanceof InterruptedError)
                  throw new InterruptedError(
                    reason.signal,
                    `interrupted: ${journaledCount(planned.journalPath)} of ` +
                      `${loaded.benchmark.items.length * config.nSamples} calls journaled; rerun the same command to resume`,
                  );
                throw error;
              } finally {
                progress.done();
              }
            }
          } finally {
            interrupt.dispose();
            await close();
            await log.close();
          }
          if (opts.format === 'json')
            io.stdout.write(
              `${JSON.stringify(summaries.length === 1 ? summaries[0] : summaries, null, 2)}\n`,
            );
          else for (const s of summaries) io.stdout.write(summaryText(s, useColor(io)));
          return summaries.some((s) => s.failed > 0) ? 1 : 0;
        }),
      );
  },
};
