import { assertEvaluationOfBenchmark } from '../../checks/benchmark-hash.js';
import { loadInfereval } from '../../validate/infereval.js';
import { monotonicity } from '../../metrics/infereval/monotonicity.js';
import { renderMonotonicity } from '../../report/text/metrics.js';
import type { CommandModule } from '../context.js';
import { json, resolvePath } from '../options.js';
import { formatOption, type ReportFormat } from './metrics.js';

export const monotonicityCommand: CommandModule = {
  register(program, io, run) {
    program
      .command('monotonicity')
      .summary("check the model's verdicts along the benchmark's ordinal ladders")
      .description(
        "Score every monotonicity ladder of the benchmark (items with monotonicity_step, grouped by ladder, family and fixed tier, in tier order) against the evaluation's model verdicts. Only good and bad are ordered (bad < good); an abstain is a gap. A strict inversion against the expected direction is a violation; a ladder with fewer than two substantive steps is insufficient, not a pass.\n\n" +
          'Exit codes: 0 no ladder violated, 1 a ladder is violated or a file is invalid, 2 usage or I/O error.',
      )
      .argument('<evaluation>', 'the evaluation η')
      .argument('<benchmark>', 'the benchmark β with the ladders')
      .addOption(formatOption())
      .action((evaluation: string, benchmark: string, flags: { format: ReportFormat }) =>
        run(async () => {
          const eta = await loadInfereval(resolvePath(io.cwd, evaluation), 'evaluation');
          const bench = await loadInfereval(resolvePath(io.cwd, benchmark), 'benchmark');
          assertEvaluationOfBenchmark(eta, bench, { evaluation, benchmark });
          const report = monotonicity(eta, bench);
          io.stdout.write(flags.format === 'json' ? json(report) : renderMonotonicity(report, flags.format));
          return report.n_violated > 0 ? 1 : 0;
        }),
      );
  },
};
