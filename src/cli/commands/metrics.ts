import { Option } from 'commander';
import { UsageError } from '../../errors.js';
import { assertEvaluationOfBenchmark } from '../../checks/benchmark-hash.js';
import { loadInfereval } from '../../validate/infereval.js';
import type { Benchmark } from '../../formats/infereval/types.js';
import {
  evaluationMetrics,
  parseRsrTarget,
  type RsrTargetSpec,
} from '../../metrics/infereval/evaluation-metrics.js';
import { renderMetrics } from '../../report/text/metrics.js';
import { json, optionalInteger, parseNumber, resolvePath } from '../options.js';
import type { CommandModule } from '../context.js';

export const REPORT_FORMATS = ['text', 'markdown', 'json'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export function formatOption(): Option {
  return new Option('-f, --format <format>', 'output: text for people, markdown tables, or json for machines')
    .choices(REPORT_FORMATS)
    .default('text');
}

interface MetricsFlags {
  benchmark?: string;
  reference: string;
  byTag?: string[];
  byRsrTarget?: string[];
  ci?: boolean;
  ciIterations: string;
  ciSubsampleSize?: string;
  ciSeed?: string;
  ciConfidence: string;
  weightByMargin?: boolean;
  excludeFailed?: boolean;
  thinMargin: string;
  format: ReportFormat;
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

export const metricsCommand: CommandModule = {
  register(program, io, run) {
    program
      .command('metrics')
      .summary(
        "agreement metrics of an infereval evaluation: coverage, Cohen's and Fleiss' κ, dispersion, CIs",
      )
      .description(
        "Compute the metrics of an infereval evaluation (η): coverage (overall and per analyst), Cohen's κ_C of the model against a reference (the analysts' consensus by default), Fleiss' κ_F with the model as one more rater, the inter-analyst κ_F* (all analysts, per panel, primary panel) and the cross-panel κ, the dispersion of the model's samples, decompositions by tag and by RSR target, and optionally Politis–Romano subsampling CIs that reproduce the Python reference's intervals seed for seed.\n\n" +
          'Items whose every sample failed (instrument failure) are counted and shown in every output; --exclude-failed recomputes without them. An undefined κ is null in JSON and "undefined (reason)" in text.\n\n' +
          'Exit codes: 0 ok, 1 invalid evaluation or benchmark, 2 usage or I/O error.',
      )
      .argument('<evaluation>', 'the evaluation η (JSON)')
      .option(
        '-b, --benchmark <file>',
        'the benchmark β: analyst ids, panels, rsr_target (needed by --by-rsr-target)',
      )
      .option(
        '-r, --reference <spec>',
        'reference for κ_C: consensus, analyst:<id> (needs --benchmark) or analyst:<0-based index>',
        'consensus',
      )
      .option('--by-tag <tag>', 'add a decomposition over the items carrying the tag (repeatable)', collect)
      .option(
        '--by-rsr-target <json>',
        'add a decomposition over the items whose rsr_target is {"X":[…],"A":[…]} (repeatable; needs --benchmark)',
        collect,
      )
      .option('--ci', 'add Politis–Romano subsampling confidence intervals on κ_C and κ_F (needs n ≥ 10)')
      .option('--ci-iterations <n>', 'subsamples drawn for --ci', '1000')
      .option('--ci-subsample-size <b>', 'items per subsample (default max(2, round(n^0.7)); 2 ≤ b < n)')
      .option(
        '--ci-seed <seed>',
        'seed (integer) for the CI; the same seed gives the same interval as the reference',
      )
      .option('--ci-confidence <c>', 'two-sided coverage of the CI', '0.95')
      .option(
        '--weight-by-margin',
        "weight κ_C (and a κ_F variant) by each item's plurality margin of its samples",
      )
      .option(
        '--exclude-failed',
        'recompute without the items whose every sample failed (instrument failure)',
      )
      .option('--thin-margin <t>', 'plurality margin below which an item counts as thin', '0.4')
      .addOption(formatOption())
      .action((evaluation: string, flags: MetricsFlags) =>
        run(async () => {
          const iterations = optionalInteger(flags.ciIterations, '--ci-iterations', 1)!;
          const subsampleSize = optionalInteger(flags.ciSubsampleSize, '--ci-subsample-size', 2);
          const seed = optionalInteger(flags.ciSeed, '--ci-seed', Number.MIN_SAFE_INTEGER);
          const confidence = parseNumber(flags.ciConfidence, '--ci-confidence', 0, 1, true);
          const thin = parseNumber(flags.thinMargin, '--thin-margin', 0, 1);
          const targets: RsrTargetSpec[] = (flags.byRsrTarget ?? []).map(parseRsrTarget);
          if (targets.length > 0 && !flags.benchmark) {
            throw new UsageError(
              'usage.needs-benchmark',
              '--by-rsr-target needs --benchmark (rsr_target lives on benchmark items)',
            );
          }
          const eta = await loadInfereval(resolvePath(io.cwd, evaluation), 'evaluation');
          let benchmark: Benchmark | undefined;
          if (flags.benchmark)
            benchmark = await loadInfereval(resolvePath(io.cwd, flags.benchmark), 'benchmark');
          if (benchmark)
            assertEvaluationOfBenchmark(eta, benchmark, { evaluation, benchmark: flags.benchmark! });
          const report = evaluationMetrics(eta, {
            benchmark,
            reference: flags.reference,
            byTag: flags.byTag ?? [],
            byRsrTarget: targets,
            ci: flags.ci ? { iterations, subsampleSize, seed, confidence } : false,
            weightByMargin: flags.weightByMargin,
            excludeFailed: flags.excludeFailed,
            thinMarginThreshold: thin,
          });
          io.stdout.write(
            flags.format === 'json' ? json(report) : renderMetrics(report, flags.format, flags.ci === true),
          );
          return 0;
        }),
      );
  },
};
