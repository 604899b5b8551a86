import { Option } from 'commander';
import { DataError } from '../../errors.js';
import type { CompareReport, Comparison } from '../../store/compare.js';
import type { CommandModule } from '../context.js';
import { formatInterval, formatNumber, formatP } from '../output/numbers.js';
import {
  addDbOption,
  addLakeOption,
  storeTargetOf,
  json,
  optionalInteger,
  parseInteger,
} from '../options.js';

interface CompareFlags {
  db?: string;
  lake?: string;
  benchmark?: string;
  metric?: string;
  clusterBy?: string;
  bootstrap?: string | true;
  seed?: string;
  format: 'text' | 'json';
}

/** The default resample count of a bare `--bootstrap` (also in src/store/compare.ts's DEFAULT_BOOTSTRAP). */
const DEFAULT_RESAMPLES = 10_000;

function verdict(c: Comparison, a: string, b: string): string {
  const p = c.clustered?.p_holm ?? c.p_holm;
  if (p === null) return 'no test possible (no standard error)';
  if (p >= 0.05) return `no significant difference (Holm p ${formatP(p)} ≥ 0.05)`;
  const aBetter = c.lower_is_better ? c.difference < 0 : c.difference > 0;
  return `${aBetter ? a : b} is better (Holm p ${formatP(p)} < 0.05)`;
}

function renderText(report: CompareReport): string {
  const { model_a: a, model_b: b } = report;
  const out: string[] = [`${a} (A) vs ${b} (B)`];
  for (const c of report.comparisons) {
    out.push('');
    const direction = c.lower_is_better ? 'lower' : 'higher';
    if (c.paired) {
      out.push(
        `${c.benchmark} · ${c.metric} (${direction} is better): paired on ${c.n_paired} samples ` +
          `(${c.n_unpaired_a} only in A, ${c.n_unpaired_b} only in B)`,
      );
    } else {
      out.push(`${c.benchmark} · ${c.metric} (${direction} is better): UNPAIRED — ${c.reason}`);
    }
    out.push(
      `  mean A ${formatNumber(c.mean_a)}  mean B ${formatNumber(c.mean_b)}  difference A − B ${formatNumber(c.difference, true)}`,
    );
    out.push(
      `  SE ${formatNumber(c.se)}  95% CI ${formatInterval(c.ci, true)} (${c.df === null ? 'normal' : `t, ${c.df} df`})  ` +
        `p ${formatP(c.p_value)}  Holm p ${formatP(c.p_holm)}`,
    );
    out.push(
      `  correlation ${c.correlation === null ? 'n/a' : c.correlation.toFixed(3)}  minimum detectable effect (80% power) ${formatNumber(c.mde)}`,
    );
    if (c.mcnemar)
      out.push(
        `  McNemar: A right and B wrong ${c.mcnemar.a_only}, B right and A wrong ${c.mcnemar.b_only}, exact p ${formatP(c.mcnemar.p_value)}`,
      );
    if (c.clustered)
      out.push(
        `  clustered by ${report.cluster_by}: ${c.clustered.clusters} clusters, SE ${formatNumber(c.clustered.se)}, ` +
          `95% CI ${formatInterval(c.clustered.ci, true)} (t, ${c.clustered.df} df), p ${formatP(c.clustered.p_value)}, ` +
          `Holm p ${formatP(c.clustered.p_holm)}`,
      );
    else if (report.cluster_by !== null && c.paired)
      out.push(`  clustered by ${report.cluster_by}: n/a (fewer than 2 clusters)`);
    if (c.bootstrap)
      out.push(
        `  bootstrap: ${c.bootstrap.resamples} resamples${report.cluster_by !== null ? ' of clusters' : ''}, seed ${c.bootstrap.seed}, ` +
          `95% CI ${formatInterval(c.bootstrap.ci, true)}`,
      );
    out.push(`  → ${verdict(c, a, b)}`);
  }
  return out.join('\n') + '\n';
}

export const compareCommand: CommandModule = {
  register(program, io, run) {
    const command = program
      .command('compare')
      .summary('paired significance test of two models on every benchmark and metric both have')
      .description(
        'For every benchmark (evaluation_name) and metric both models have in the store (each model: the result\n' +
          'of its most recently retrieved record), pair the instance rows by sample_hash (when every row of both\n' +
          'has one, else by sample_id; the epochs of one sample averaged first) and report: mean A, mean B, the\n' +
          'difference d̄ = mean of a_i − b_i, paired SE = sd(d)/√n (n − 1 in the variance), a 95% CI and two-sided p\n' +
          "(Student t, n − 1 df), the correlation of A's and B's scores and the minimum detectable effect at 80%\n" +
          "power ((z₀.₉₇₅ + z₀.₈)·SE ≈ 2.8·SE). 0/1 scores: the discordant counts and McNemar's exact p.\n" +
          '--cluster-by FIELD (a samples column, else a metadata key, else a top-level field of the row): clustered\n' +
          'SE = √(C/(C−1)·Σ_c (Σ_{i∈c} (d_i − d̄))²)/n, CI and p with C − 1 df. --bootstrap [N]: a seeded paired\n' +
          'percentile bootstrap CI of d̄ (items, or clusters). p-values are Holm-adjusted over all comparisons of\n' +
          'the call. With fewer than two paired samples: an unpaired z test on the two scores and standard\n' +
          'errors, marked UNPAIRED with the reason. MODEL ids are model_info.id; an unknown id lists the closest.\n\n' +
          'Exit codes: 0 ok, 1 the models share no benchmark and metric, 2 usage or I/O error (unknown model).',
      )
      .argument('<model_a>', 'model A (model_info.id)')
      .argument('<model_b>', 'model B (model_info.id)')
      .option('--benchmark <name>', 'only this benchmark (evaluation_name)')
      .option('--metric <name>', 'only this metric (metric_name, else metric_id)')
      .option('--cluster-by <field>', 'clustered SE over this field (a samples column or a metadata key)')
      .option(
        '--bootstrap [n]',
        `paired percentile bootstrap CI with n resamples (default ${DEFAULT_RESAMPLES})`,
      )
      .option('--seed <n>', 'bootstrap seed', '0')
      .addOption(
        new Option('-f, --format <format>', 'output format').choices(['text', 'json']).default('text'),
      );
    addLakeOption(addDbOption(command)).action((modelA: string, modelB: string, flags: CompareFlags) =>
      run(async () => {
        const bootstrap =
          flags.bootstrap === undefined
            ? undefined
            : flags.bootstrap === true
              ? DEFAULT_RESAMPLES
              : parseInteger(flags.bootstrap, '--bootstrap', 1);
        const seed = optionalInteger(flags.seed, '--seed', 0);
        const { openReadStore } = await import('../../store/open.js');
        const { compareModels } = await import('../../store/compare.js');
        const store = await openReadStore(storeTargetOf(flags, io));
        let report: CompareReport;
        try {
          report = await compareModels(store, modelA, modelB, {
            benchmark: flags.benchmark,
            metric: flags.metric,
            clusterBy: flags.clusterBy,
            bootstrap,
            seed,
          });
        } finally {
          store.close();
        }
        if (report.comparisons.length === 0)
          throw new DataError(
            'store.nothing-to-compare',
            `${modelA} and ${modelB} share no benchmark and metric${flags.benchmark || flags.metric ? ' matching the filters' : ''}`,
          );
        io.stdout.write(flags.format === 'json' ? json(report) : renderText(report));
        return 0;
      }),
    );
  },
};
