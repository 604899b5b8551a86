import { Option } from 'commander';
import { DataError } from '../../errors.js';
import { loadInfereval } from '../../validate/infereval.js';
import { fitFactorModel } from '../../metrics/infereval/factor-model.js';
import { renderFactorModel } from '../../report/text/factor-model.js';
import type { CommandModule } from '../context.js';
import { json, resolvePath } from '../options.js';

interface ModelFlags {
  benchmark: string;
  reference: string;
  format: 'text' | 'json';
}

export const modelCommand: CommandModule = {
  register(program, io, run) {
    program
      .command('model')
      .summary("factor-effects model: which of the benchmark's design factors drive agreement")
      .description(
        "Fit a logistic regression of per-sample agreement with the reference (the analysts' consensus by default) on the benchmark's declared factors, with item-clustered standard errors, as the infereval reference's `model` command does: one row per substantive sample, dummy coding against each factor's first declared level, an intercept, maximum likelihood, and statsmodels' cluster-robust covariance with its default small-sample correction G/(G−1)·(N−1)/(N−K).\n\n" +
          'Prints coefficients, standard errors, z, p, 95% intervals and odds ratios, a joint Wald χ² test per factor (df = levels − 1), McFadden pseudo-R², deviance and null deviance, and the samples dropped as abstentions (failed samples are counted apart: they are not abstentions). Not a GLMM: the clustered errors stand in for per-item random effects.\n\n' +
          'Separation (a factor level whose observations all agree or all disagree) and a rank-deficient design (a declared level nobody uses, confounded factors) are errors that name the level, never numbers.\n\n' +
          'Exit codes: 0 fitted, 1 invalid files or a model that cannot be fitted, 2 usage or I/O error.',
      )
      .argument('<evaluation>', 'the evaluation η')
      .requiredOption('-b, --benchmark <file>', 'the benchmark β (its factors and factor_levels)')
      .option(
        '-r, --reference <spec>',
        'what agreement is measured against: consensus, analyst:<id> or analyst:<0-based index>',
        'consensus',
      )
      .addOption(
        new Option('-f, --format <format>', 'text for people, json for machines')
          .choices(['text', 'json'])
          .default('text'),
      )
      .action((evaluation: string, flags: ModelFlags) =>
        run(async () => {
          const eta = await loadInfereval(resolvePath(io.cwd, evaluation), 'evaluation');
          const bench = await loadInfereval(resolvePath(io.cwd, flags.benchmark), 'benchmark');
          if (eta.benchmark_id !== bench.id) {
            throw new DataError(
              'model.benchmark-mismatch',
              `the evaluation is of benchmark ${JSON.stringify(eta.benchmark_id)} but --benchmark has id ${JSON.stringify(bench.id)}`,
            );
          }
          const fit = fitFactorModel(eta, bench, { reference: flags.reference });
          io.stdout.write(flags.format === 'json' ? json(fit) : renderFactorModel(fit));
          return 0;
        }),
      );
  },
};
