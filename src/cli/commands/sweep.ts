import { join, resolve } from 'node:path';
import { Option } from 'commander';
import { UsageError } from '../../errors.js';
import { checkOutputs } from '../../io/preflight.js';
import { paraphraseVariantCount } from '../../formats/infereval/prompts.js';
import { openRunLog } from '../../run/run-log.js';
import { createProvider, loadBenchmarkForRun } from '../../run/setup.js';
import {
  parseSweepValues,
  runSweep,
  sweepEtaPath,
  SWEEP_PARAMETERS,
  type SweepParameter,
  type SweepSummary,
} from '../../run/sweep.js';
import type { CommandModule } from '../context.js';
import { requestControls, type RunOptions } from '../../run/settings.js';
import { alignedColumns } from '../../report/tables.js';
import { addRunOptions } from '../run-options.js';
import { interruptSignal, progressReporter, runSettingsFor } from './evaluate.js';

/** Everything `sweep` takes: the shared run options and its own. */
interface SweepCliOptions extends RunOptions {
  vary: SweepParameter;
  values: string;
  outputDir?: string;
  log?: string;
  format: 'text' | 'json';
}

const fmt = (x: number | null): string => (x === null ? 'undefined' : x.toFixed(3));

function sweepText(s: SweepSummary, outDir: string): string {
  const header = ['value', 'coverage', 'κ_C', 'κ_F', 'agree', 'failed'];
  const rows = s.runs.map((r) => [
    String(r.value),
    fmt(r.coverage),
    fmt(r.cohens_kappa_consensus),
    fmt(r.fleiss_kappa),
    `${r.agreement_count}/${r.n_items}`,
    String(r.failed_samples),
  ]);
  const table = alignedColumns(
    [header, ...rows],
    header.map(() => 'right'),
  );
  return [
    `sweep of ${s.parameter} on ${s.benchmark_id}`,
    table.slice(0, -1),
    `κ_C range ${fmt(s.kappa_range)}: ${s.interpretation}`,
    `wrote ${s.runs.length} η and sweep-summary.json in ${outDir}`,
    '',
  ].join('\n');
}

export const sweepCommand: CommandModule = {
  register(program, io, run) {
    const cmd = program
      .command('sweep')
      .summary('run a benchmark once per value of one parameter and report how κ_C moves')
      .description(
        'Runs `evaluate` once per value of --vary and writes one η per value plus sweep-summary.json: coverage, ' +
          'κ_C, κ_F and agreement count per value, the κ_C range and its reading (< 0.05 stable, < 0.10 moderately ' +
          'sensitive, else varies substantively).\n\n' +
          'Values of n_samples and tie_break share one sample journal, so each sample is drawn once. An interrupted ' +
          'sweep resumes like evaluate.\n\n' +
          'Exit codes: 0 done, 1 some samples failed, 2 usage or I/O error.',
      )
      .argument('<benchmark>', 'infereval benchmark JSON')
      .addOption(
        new Option('--vary <parameter>', 'the parameter to sweep')
          .choices([...SWEEP_PARAMETERS])
          .makeOptionMandatory(),
      )
      .requiredOption('--values <list>', 'comma-separated values, e.g. 1,3,5 or abstain,first');
    addRunOptions(cmd)
      .option(
        '-o, --output-dir <dir>',
        'where the η files and sweep-summary.json go (default sweep-<benchmark id>-<parameter>)',
      )
      .option('--log <run.jsonl>', 'structured run log of every run')
      .addOption(
        new Option('-f, --format <format>', 'summary format').choices(['text', 'json']).default('text'),
      )
      .action((benchmarkPath: string, opts: SweepCliOptions) =>
        run(async () => {
          const parameter = opts.vary;
          const values = parseSweepValues(parameter, opts.values);
          if (opts.paraphraseCycle)
            throw new UsageError(
              'usage.conflict',
              'sweep over paraphrase_variant instead of --paraphrase-cycle',
            );
          const loaded = await loadBenchmarkForRun(resolve(io.cwd, benchmarkPath));
          const settings = runSettingsFor(opts, io, loaded);
          const outDir = resolve(io.cwd, opts.outputDir ?? `sweep-${loaded.benchmark.id}-${parameter}`);
          if (parameter === 'paraphrase_variant') {
            const count = paraphraseVariantCount(loaded.benchmark);
            const beyond = values.find((v) => (v as number) >= count);
            if (beyond !== undefined)
              throw new UsageError(
                'sweep.bad-value',
                `paraphrase_variant ${beyond} does not exist: this benchmark has variants 0..${count - 1}`,
              );
          }
          checkOutputs({
            inputs: [benchmarkPath, opts.replayFrom],
            files: [
              ...values.map((v) => sweepEtaPath(outDir, parameter, v)),
              join(outDir, 'sweep-summary.json'),
              opts.log,
              opts.record,
            ],
            folders: [outDir],
            cwd: io.cwd,
          });
          const { provider, close } = await createProvider(settings.providerSetup);
          const log = openRunLog(opts.log === undefined ? undefined : resolve(io.cwd, opts.log));
          const interrupt = interruptSignal();
          let progress = progressReporter(io, 'sweep');
          let summary: SweepSummary;
          try {
            summary = await runSweep({
              benchmark: loaded.benchmark,
              benchmarkHash: loaded.hash,
              config: settings.config,
              parameter,
              values,
              outDir,
              provider,
              runId: settings.runId,
              ...requestControls(settings),
              log,
              signal: interrupt.signal,
              onRunStart: (value) => {
                progress = progressReporter(io, `${parameter}=${value}`);
              },
              onProgress: (p) => progress.update(p),
              onRunDone: () => progress.done(),
            });
          } finally {
            progress.done(); // an error mid-run must not be printed after a half-drawn bar
            interrupt.dispose();
            await close();
            await log.close();
          }
          io.stdout.write(
            opts.format === 'json' ? `${JSON.stringify(summary, null, 2)}\n` : sweepText(summary, outDir),
          );
          return summary.runs.some((r) => r.failed_samples > 0) ? 1 : 0;
        }),
      );
  },
};
