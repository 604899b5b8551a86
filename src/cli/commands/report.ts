import { Option } from 'commander';
import { assertEvaluationOfBenchmark } from '../../checks/benchmark-hash.js';
import { loadInfereval } from '../../validate/infereval.js';
import type { Benchmark } from '../../formats/infereval/types.js';
import { writeFileAtomic } from '../../io/atomic.js';
import { checkOutputs } from '../../io/preflight.js';
import { evaluationMetrics } from '../../metrics/infereval/evaluation-metrics.js';
import { readRetestEvidence, readSweepEvidence } from '../../report/evidence.js';
import { renderHtml } from '../../report/html.js';
import { renderMarkdown } from '../../report/markdown.js';
import { buildReportModel, type RetestEvidence, type SweepEvidence } from '../../report/model.js';
import { readJsonDocument } from '../../report/read-input.js';
import type { CommandModule } from '../context.js';
import { json, optionalInteger, resolvePath } from '../options.js';

interface ReportFlags {
  benchmark?: string;
  retest?: string;
  sweep?: string;
  reference: string;
  html?: string;
  markdown?: string;
  ci: boolean;
  ciIterations: string;
  ciSeed: string;
  format: 'markdown' | 'json';
}

export const reportCommand: CommandModule = {
  register(program, io, run) {
    program
      .command('report')
      .summary(
        'construct-validity report of an infereval evaluation: Markdown and a self-contained HTML page',
      )
      .description(
        'Write a construct-validity report of an infereval evaluation (η): identity, summary metrics, reliability, ' +
          'which evidence was supplied (benchmark, test–retest, sweep) or not, negative findings (under-powered ' +
          'cells, model–consensus contradictions, flipped items, tie-breaks, instrument failures), and a verdict ' +
          'with its reasons. The HTML page is one file with inline CSS and SVG charts (κ per tag with CI bars, ' +
          'model-vs-consensus matrix, verdict distributions, dispersion histogram, sweep and retest plots); it has ' +
          'no script, forbids scripts by its Content-Security-Policy, and escapes all record text.\n\n' +
          'Without --html or --markdown the Markdown report goes to standard output.\n\n' +
          'Exit codes: 0 written, 1 invalid input data, 2 usage or I/O error.',
      )
      .argument('<evaluation>', 'the evaluation η (JSON)')
      .option('-b, --benchmark <file>', 'the benchmark β (analyst names, panels); listed as evidence')
      .option('--retest <file>', 'a test–retest result (JSON: kappa, agreement, flip_rate, flipped[])')
      .option('--sweep <file>', 'a parameter sweep result (JSON: parameter, points[{value, kappa}])')
      .option(
        '-r, --reference <spec>',
        "reference for Cohen's κ: consensus, analyst:<id> or analyst:<index>",
        'consensus',
      )
      .option('--html <file>', 'write the self-contained HTML report here (atomically)')
      .option('--markdown <file>', 'write the Markdown report here (atomically)')
      .option('--no-ci', 'skip the subsampling confidence intervals')
      .option('--ci-iterations <n>', 'subsamples for the confidence intervals', '1000')
      .option('--ci-seed <seed>', 'seed of the confidence intervals (same seed, same report)', '0')
      .addOption(
        new Option(
          '-f, --format <format>',
          'standard output: the markdown report, or the report model as json',
        )
          .choices(['markdown', 'json'])
          .default('markdown'),
      )
      .action((evaluation: string, flags: ReportFlags) =>
        run(async () => {
          const iterations = optionalInteger(flags.ciIterations, '--ci-iterations', 1)!;
          const seed = optionalInteger(flags.ciSeed, '--ci-seed', 0)!;
          checkOutputs({
            inputs: [evaluation, flags.benchmark, flags.retest, flags.sweep],
            files: [flags.html, flags.markdown],
            cwd: io.cwd,
          });
          const evaluationPath = resolvePath(io.cwd, evaluation);
          const eta = await loadInfereval(evaluationPath, 'evaluation');
          let benchmark: Benchmark | undefined;
          if (flags.benchmark)
            benchmark = await loadInfereval(resolvePath(io.cwd, flags.benchmark), 'benchmark');
          if (benchmark)
            assertEvaluationOfBenchmark(eta, benchmark, { evaluation, benchmark: flags.benchmark! });
          let retest: RetestEvidence | undefined;
          if (flags.retest) {
            retest = readRetestEvidence(
              await readJsonDocument(resolvePath(io.cwd, flags.retest)),
              flags.retest,
            );
          }
          let sweep: SweepEvidence | undefined;
          if (flags.sweep) {
            sweep = readSweepEvidence(await readJsonDocument(resolvePath(io.cwd, flags.sweep)), flags.sweep);
          }
          const tags = [...new Set(eta.items.flatMap((i) => i.tags ?? []))].sort();
          const metrics = evaluationMetrics(eta, {
            benchmark,
            reference: flags.reference,
            byTag: tags,
            ci: flags.ci ? { iterations, seed } : false,
          });
          const model = buildReportModel({
            evaluation: eta,
            metrics,
            benchmark,
            retest,
            sweep,
            files: { evaluation, benchmark: flags.benchmark, retest: flags.retest, sweep: flags.sweep },
          });
          const markdown = renderMarkdown(model);
          if (flags.html) await writeFileAtomic(resolvePath(io.cwd, flags.html), renderHtml(model));
          if (flags.markdown) await writeFileAtomic(resolvePath(io.cwd, flags.markdown), markdown);
          if (flags.format === 'json') io.stdout.write(json(model));
          else if (!flags.html && !flags.markdown) io.stdout.write(markdown);
          else {
            const written = [flags.html, flags.markdown].filter(Boolean).join(', ');
            io.stdout.write(
              `report written: ${written} (verdict: construct validity ${model.verdict.label})\n`,
            );
          }
          return 0;
        }),
      );
  },
};
