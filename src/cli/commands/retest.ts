import { assertEvaluationOfBenchmark } from '../../checks/benchmark-hash.js';
import { loadInfereval } from '../../validate/infereval.js';
import { retest } from '../../metrics/infereval/retest.js';
import { renderRetest } from '../../report/text/metrics.js';
import type { CommandModule } from '../context.js';
import { json, resolvePath } from '../options.js';
import { formatOption, type ReportFormat } from './metrics.js';

interface RetestFlags {
  benchmark?: string;
  excludeFailed?: boolean;
  format: ReportFormat;
}

export const retestCommand: CommandModule = {
  register(program, io, run) {
    program
      .command('retest')
      .summary('test–retest reliability of two runs of the same benchmark')
      .description(
        "Compare two evaluations of the same benchmark made with the same setup: Cohen's κ between the runs' model verdicts over the items substantive in both, agreement and flip rates, per-item dispersion deltas and a stability verdict (κ ≥ 0.8 stable, ≥ 0.6 moderately stable, else substantively unstable).\n\n" +
          'The runs must share benchmark_id, benchmark_hash (when both have one), endorsement_config and paraphrase_variant; otherwise the command stops with a retest.mismatch.* error naming the difference.\n\n' +
          'Exit codes: 0 compared, 1 the runs are not comparable or a file is invalid, 2 usage or I/O error.',
      )
      .argument('<evaluation-a>', 'the first run η_A')
      .argument('<evaluation-b>', 'the second run η_B')
      .option('-b, --benchmark <file>', 'the benchmark, to annotate flipped items with their factor levels')
      .option(
        '--exclude-failed',
        'leave out items whose every sample failed in either run (instrument failure)',
      )
      .addOption(formatOption())
      .action((a: string, b: string, flags: RetestFlags) =>
        run(async () => {
          const etaA = await loadInfereval(resolvePath(io.cwd, a), 'evaluation');
          const etaB = await loadInfereval(resolvePath(io.cwd, b), 'evaluation');
          const bench = flags.benchmark
            ? await loadInfereval(resolvePath(io.cwd, flags.benchmark), 'benchmark')
            : undefined;
          if (bench)
            for (const [eta, file] of [
              [etaA, a],
              [etaB, b],
            ] as const)
              assertEvaluationOfBenchmark(eta, bench, { evaluation: file, benchmark: flags.benchmark! });
          const report = retest(etaA, etaB, { benchmark: bench, excludeFailed: flags.excludeFailed });
          io.stdout.write(flags.format === 'json' ? json(report) : renderRetest(report, flags.format));
          return 0;
        }),
      );
  },
};
