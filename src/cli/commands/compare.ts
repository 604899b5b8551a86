import { Option } from 'commander';
import { DataError, UsageError } from '../../errors.js';
import type { CompareReport, Comparison } from '../../store/compare.js';
import type { CommandModule } from '../context.js';
import { formatInterval, formatNumber, formatP } from '../output/numbers.js';
import { gateSummary, renderGithub, renderMarkdown, sideLabel as label } from '../output/compare-formats.js';
import {
  addDbOption,
  addLakeOption,
  storeTargetOf,
  lakeWarnings,
  json,
  optionalInteger,
  parseInteger,
  parseNumber,
} from '../options.js';
import { retrievalCompareCommand } from './retrieval-stats.js';
import { DEFAULT_MIN_PAIRS } from '../../store/compare-gate.js';

interface CompareFlags {
  db?: string;
  lake?: string;
  retrieval?: boolean;
  benchmark?: string;
  metric?: string;
  clusterBy?: string;
  bootstrap?: string | true;
  seed?: string;
  failIfWorse?: boolean;
  margin?: string;
  alpha?: string;
  minPairs?: string;
  allowUntested?: boolean;
  format: 'text' | 'json' | 'markdown' | 'github';
}

/** The default resample count of a bare `--bootstrap` (also in src/store/compare.ts's DEFAULT_BOOTSTRAP). */
const DEFAULT_RESAMPLES = 10_000;

const TEST_NAMES: Record<NonNullable<Comparison['test']>, string> = {
  t: 'paired t',
  'mcnemar-exact': 'exact McNemar',
  'sign-exact': 'exact sign test',
  z: 'unpaired z',
};

const GATE_TESTS: Record<NonNullable<NonNullable<Comparison['gate']>['test']>, string> = {
  t: 'paired t',
  'clustered-t': 'clustered t',
  'sign-exact': 'exact sign test',
  z: 'unpaired z',
};

/** How the CI was obtained, as the text names it. */
function ciMethod(c: Comparison): string {
  const method =
    c.ci_method === 'newcombe'
      ? 'Newcombe hybrid score, paired 0/1'
      : c.ci_method === 't'
        ? `t, ${c.df} df`
        : 'normal';
  const range = c.difference_bounds;
  return c.ci_clipped && range ? `${method}, clipped to ${formatInterval(range, true)}` : method;
}

function verdict(c: Comparison, a: string, b: string): string {
  const p = c.clustered?.p_holm ?? c.p_holm;
  if (p === null) return 'no test possible';
  if (p >= 0.05) return `no significant difference (Holm p ${formatP(p)} ≥ 0.05)`;
  const aBetter = c.lower_is_better ? c.difference < 0 : c.difference > 0;
  return `${aBetter ? a : b} is better (Holm p ${formatP(p)} < 0.05)`;
}

/** The cluster field as printed: "test_idx (as the results declare)" when no --cluster-by chose it. */
const clusterName = (report: CompareReport): string =>
  `${report.cluster_by}${report.cluster_by_declared ? ' (as the results declare)' : ''}`;

function renderText(report: CompareReport): string {
  const a = label(report.a);
  const b = label(report.b);
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
      `  SE ${formatNumber(c.se)}  95% CI ${c.ci === null ? 'n/a' : `${formatInterval(c.ci, true)} (${ciMethod(c)})`}  ` +
        `p ${formatP(c.p_value)}${c.test === null ? '' : ` (${TEST_NAMES[c.test]})`}  Holm p ${formatP(c.p_holm)}`,
    );
    if (c.note) out.push(`  note: ${c.note}`);
    if (c.disagreement_a) out.push(`  ! A: ${c.disagreement_a}`);
    if (c.disagreement_b) out.push(`  ! B: ${c.disagreement_b}`);
    for (const [side, status] of [
      ['A', c.run_status_a],
      ['B', c.run_status_b],
    ] as const)
      if (status !== 'complete')
        out.push(
          `  note: ${side}'s run did not finish (run ${status}): its result covers only what it got through`,
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
        `  clustered by ${clusterName(report)}: ${c.clustered.clusters} clusters, SE ${formatNumber(c.clustered.se)}, ` +
          `95% CI ${formatInterval(c.clustered.ci, true)} (t, ${c.clustered.df} df${c.clustered.ci_clipped && c.difference_bounds ? `, clipped to ${formatInterval(c.difference_bounds, true)}` : ''}), p ${formatP(c.clustered.p_value)}, ` +
          `Holm p ${formatP(c.clustered.p_holm)}`,
      );
    else if (report.cluster_by !== null && c.paired)
      out.push(
        `  clustered by ${clusterName(report)}: n/a (${c.clustered_reason ?? 'fewer than 2 clusters'})`,
      );
    if (c.bootstrap)
      out.push(
        `  bootstrap: ${c.bootstrap.resamples} resamples${report.cluster_by !== null ? ' of clusters' : ''}, seed ${c.bootstrap.seed}, ` +
          `95% CI ${c.bootstrap.ci === null ? `n/a (${c.bootstrap.reason ?? 'no interval'})` : formatInterval(c.bootstrap.ci, true)}`,
      );
    if (c.gate)
      out.push(
        `  gate: B worse than A by ${formatNumber(c.gate.worse_by, true)} (margin ${c.gate.margin}), ` +
          `one-sided p ${formatP(c.gate.p_value)}${c.gate.test === null ? '' : ` (${GATE_TESTS[c.gate.test]})`}, ` +
          `Holm p ${formatP(c.gate.p_holm)} → ${c.gate.verdict}${c.gate.detail ? ` — ${c.gate.detail}` : ''}`,
      );
    out.push(`  → ${verdict(c, a, b)}`);
  }
  const summary = gateSummary(report);
  if (summary !== null) out.push('', summary);
  return out.join('\n') + '\n';
}

const RENDER: Record<CompareFlags['format'], (report: CompareReport) => string> = {
  text: renderText,
  json,
  markdown: renderMarkdown,
  github: renderGithub,
};

export const compareCommand: CommandModule = {
  register(program, io, run) {
    const command = program
      .command('compare')
      .summary('paired significance test of two models or two runs on every benchmark and metric both have')
      .description(
        'A and B are each a model id (its result per benchmark and metric: that of its most recently retrieved\n' +
          'record, as on the leaderboard) or an evaluation id (one run; exact, or a unique prefix), so two runs\n' +
          'of one model compare too ("did my change make it worse?"). An id that is ambiguous (both a model and\n' +
          'a run, or the prefix of several runs) is an error listing the candidates.\n\n' +
          'For every benchmark (evaluation_name) and metric both sides have in the store, pair the instance rows by sample_hash (when every row of both\n' +
          "has one, else by sample_id; the epochs of one sample reduced first by the source's epoch reducer) and report: mean A, mean B, the\n" +
          'difference d̄ = mean of a_i − b_i, paired SE = sd(d)/√n (n − 1 in the variance), a 95% CI and two-sided p\n' +
          "(Student t, n − 1 df), the correlation of A's and B's scores and the minimum detectable effect at 80%\n" +
          "power ((z₀.₉₇₅ + z₀.₈)·SE ≈ 2.8·SE). 0/1 scores: the discordant counts and McNemar's exact p.\n" +
          '--cluster-by FIELD (a samples column, else a metadata key, else a top-level field of the row): clustered\n' +
          'SE = √(C/(C−1)·Σ_c (Σ_{i∈c} (d_i − d̄))²)/n, CI and p with C − 1 df. --bootstrap [N]: a seeded paired\n' +
          'percentile bootstrap CI of d̄ (items, or clusters). p-values are Holm-adjusted over all comparisons of\n' +
          'the call. When every paired difference is equal (no variance) the t test is undefined: p comes from the\n' +
          "exact sign test (McNemar's on 0/1 scores) and the output says so. With fewer than two paired samples:\n" +
          'an unpaired z test on the two scores and standard errors, marked UNPAIRED with the reason.\n' +
          'An unknown id lists the closest model ids and evaluation ids.\n\n' +
          'CI gate: with --fail-if-worse, A is the baseline and B the candidate. For every comparison a one-sided\n' +
          "test asks whether B is worse than A (in the metric's direction) by more than --margin (default 0, in the\n" +
          "metric's units): H0 worse_by ≤ margin against H1 worse_by > margin, on the same pairing and evidence as\n" +
          'above (paired t; clustered t with --cluster-by; exact sign test when every paired difference is equal;\n' +
          'unpaired z). Holm adjusts the one-sided p-values across the comparisons; the gate fails (exit 1) when any\n' +
          'is below --alpha (default 0.05), and says which. The gate never passes on nothing: it also fails when a\n' +
          'benchmark and metric of the baseline is missing from the candidate (missing), has no possible test\n' +
          '(untested) or pairs on fewer than --min-pairs samples (too few pairs, default 10), unless\n' +
          '--allow-untested (then it passes on what was tested and says what was not). --margin must be below a\n' +
          "bounded metric's range. --format markdown writes a table for a pull-request\n" +
          'comment, --format github workflow annotations (::error on a failing comparison).\n\n' +
          'Exit codes: 0 ok (gate passed), 1 the gate failed or the models share no benchmark and metric, 2 usage or\n' +
          'I/O error (unknown model).',
      )
      .argument('<a>', 'side A: a model id (model_info.id) or an evaluation id (or its unique prefix)')
      .argument('<b>', 'side B: a model id or an evaluation id (or its unique prefix)')
      .option('--benchmark <name>', 'only this benchmark (evaluation_name)')
      .option('--metric <name>', 'only this metric (metric_name, else metric_id)')
      .option('--cluster-by <field>', 'clustered SE over this field (a samples column or a metadata key)')
      .option(
        '--bootstrap [n]',
        `paired percentile bootstrap CI with n resamples, 100 to 100000 (default ${DEFAULT_RESAMPLES})`,
      )
      .option('--seed <n>', 'bootstrap seed', '0')
      .option(
        '--retrieval',
        'compare two retrieval systems on their common gold queries; A and B name a system by a value of one of its identity fields, or field=value,…',
      )
      .option(
        '--fail-if-worse',
        'CI gate: exit 1 when B (candidate) is significantly worse than A (baseline)',
      )
      .option(
        '--margin <d>',
        'with --fail-if-worse: how much worse B may be, in the metric units (default 0)',
      )
      .option('--alpha <a>', 'with --fail-if-worse: one-sided significance level after Holm (default 0.05)')
      .option(
        '--min-pairs <n>',
        'with --fail-if-worse: the fewest paired samples that count as tested (default 10)',
      )
      .option(
        '--allow-untested',
        'with --fail-if-worse: pass although some benchmarks/metrics of A were untested, missing or too thinly paired',
      )
      .addOption(
        new Option('-f, --format <format>', 'output format')
          .choices(['text', 'json', 'markdown', 'github'])
          .default('text'),
      );
    addLakeOption(addDbOption(command)).action((modelA: string, modelB: string, flags: CompareFlags) =>
      run(async () => {
        const bootstrap =
          flags.bootstrap === undefined
            ? undefined
            : flags.bootstrap === true
              ? DEFAULT_RESAMPLES
              : parseInteger(flags.bootstrap, '--bootstrap', Number.MIN_SAFE_INTEGER);
        const seed = optionalInteger(flags.seed, '--seed', 0);
        const gate = flags.failIfWorse
          ? {
              margin: parseNumber(flags.margin ?? '0', '--margin', 0),
              alpha: parseNumber(flags.alpha ?? '0.05', '--alpha', 0, 1, true),
              min_pairs: parseInteger(flags.minPairs ?? String(DEFAULT_MIN_PAIRS), '--min-pairs', 2),
              allow_untested: flags.allowUntested === true,
            }
          : undefined;
        if (
          gate === undefined &&
          (flags.margin !== undefined ||
            flags.alpha !== undefined ||
            flags.minPairs !== undefined ||
            flags.allowUntested)
        )
          throw new UsageError(
            'usage.bad-option',
            '--margin, --alpha, --min-pairs and --allow-untested need --fail-if-worse',
          );
        if (
          flags.retrieval &&
          (gate !== undefined || flags.format === 'markdown' || flags.format === 'github')
        )
          throw new UsageError(
            'usage.bad-option',
            '--retrieval does not take --fail-if-worse or --format markdown/github',
          );
        if (flags.retrieval)
          return retrievalCompareCommand(io, modelA, modelB, {
            ...flags,
            format: flags.format === 'json' ? 'json' : 'text',
            bootstrap,
            seed,
          });
        const { withReadStore } = await import('../../store/open.js');
        const { compareModels, checkBootstrap } = await import('../../store/compare.js');
        if (bootstrap !== undefined) checkBootstrap(bootstrap);
        const report: CompareReport = await withReadStore(
          storeTargetOf(flags, io),
          lakeWarnings(io),
          (store) =>
            compareModels(store, modelA, modelB, {
              benchmark: flags.benchmark,
              metric: flags.metric,
              clusterBy: flags.clusterBy,
              bootstrap,
              seed,
              gate,
            }),
        );
        if (report.comparisons.length === 0)
          throw new DataError(
            'store.nothing-to-compare',
            `${label(report.a)} and ${label(report.b)} share no benchmark and metric${flags.benchmark || flags.metric ? ' matching the filters' : ''}`,
          );
        io.stdout.write(RENDER[flags.format](report));
        return report.gate?.failed ? 1 : 0;
      }),
    );
  },
};
