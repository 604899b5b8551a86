import { UsageError } from '../../errors.js';
import { assertEvaluationOfBenchmark } from '../../checks/benchmark-hash.js';
import { loadInfereval } from '../../validate/infereval.js';
import { structure } from '../../metrics/infereval/structure.js';
import { renderStructure } from '../../report/text/metrics.js';
import type { CommandModule } from '../context.js';
import { json, parseNumber, resolvePath } from '../options.js';
import { formatOption, type ReportFormat } from './metrics.js';

interface StructureFlags {
  benchmark?: string;
  thinMargin: string;
  maxThinFraction: string;
  strict?: boolean;
  format: ReportFormat;
}

export const structureCommand: CommandModule = {
  register(program, io, run) {
    program
      .command('structure')
      .summary("structural checks of the model's verdicts: containment, RSR roles, base cases, thin margins")
      .description(
        "Check the model's verdicts against the structure of the benchmark.\n\n" +
          'Containment: items whose conclusion is among their premises must be endorsed good.\n\n' +
          "RSR role consistency: per rsr_target (X ⊢ A), an item tagged irrelevant-addition keeps the model's verdict on the base case, a defeater turns a good base case bad, a supporter is good.\n\n" +
          'Base-case stability: each base case (tagged base-inference, or with premises X and conclusions A) gets a decisive verdict (margin ≥ --thin-margin, no tie-break) that matches the analysts.\n\n' +
          "Thin-margin agreement: the share of the model's agreements with the analysts that rest on a thin sample margin (fails above --max-thin-fraction).\n\n" +
          'Exit codes: 0 checked (with --strict: only when no check fails), 1 a check failed under --strict or a file is invalid, 2 usage or I/O error.',
      )
      .argument('<evaluation>', 'the evaluation η')
      .option(
        '-b, --benchmark <file>',
        'the benchmark β (required: rsr_target, premises and tags come from it)',
      )
      .option('--thin-margin <t>', 'plurality margin below which a verdict counts as thin', '0.4')
      .option('--max-thin-fraction <f>', 'largest share of thin agreements that still passes', '0.25')
      .option('--strict', 'exit 1 when any check fails')
      .addOption(formatOption())
      .action((evaluation: string, flags: StructureFlags) =>
        run(async () => {
          if (!flags.benchmark)
            throw new UsageError('usage.needs-benchmark', 'structure needs --benchmark <file>');
          const thin = parseNumber(flags.thinMargin, '--thin-margin', 0, 1);
          const maxThin = parseNumber(flags.maxThinFraction, '--max-thin-fraction', 0, 1);
          const eta = await loadInfereval(resolvePath(io.cwd, evaluation), 'evaluation');
          const bench = await loadInfereval(resolvePath(io.cwd, flags.benchmark), 'benchmark');
          assertEvaluationOfBenchmark(eta, bench, { evaluation, benchmark: flags.benchmark });
          const report = structure(eta, bench, { thinMarginThreshold: thin, maxThinFraction: maxThin });
          io.stdout.write(flags.format === 'json' ? json(report) : renderStructure(report, flags.format));
          return flags.strict && report.n_failed_checks > 0 ? 1 : 0;
        }),
      );
  },
};
