import { Option } from 'commander';
import { loadInfereval } from '../../validate/infereval.js';
import { compareRuns, GUARDS, type Guard, type RunComparison } from '../../metrics/infereval/compare-runs.js';
import type { CommandModule } from '../context.js';
import { json, parseInteger, parseNumber, resolvePath } from '../options.js';

interface CompareFlags {
  guard?: Guard;
  threshold: string;
  nFloor: string;
  coverageFloor: string;
  allowDifferentSetup?: boolean;
  format: 'text' | 'json';
}

const k = (x: number | null): string => (x === null ? 'undefined' : `${x >= 0 ? '+' : ''}${x.toFixed(3)}`);

export function renderComparison(c: RunComparison): string {
  const lines = [
    `cross-run comparison: ${c.run_a ?? 'A'} vs ${c.run_b ?? 'B'}`,
    `  items:              ${c.n_items} (${c.n_both_substantive} substantive in both, ${(c.intersection_fraction * 100).toFixed(1)}%)`,
    `  coverage:           A ${(c.coverage_a * 100).toFixed(1)}%, B ${(c.coverage_b * 100).toFixed(1)}%`,
    `  cross-run κ:        ${k(c.cross_run_kappa)}${c.undefined_reasons.cross_run_kappa ? ` (${c.undefined_reasons.cross_run_kappa})` : ''}`,
    `  mean TV distance:   ${c.mean_tv_distance.toFixed(3)}`,
  ];
  const diffs = Object.entries(c.differences);
  lines.push(
    diffs.length === 0
      ? '  setups:             identical'
      : `  setups differ in:   ${diffs.map(([key, d]) => `${key} (${JSON.stringify(d.a)} vs ${JSON.stringify(d.b)})`).join(', ')}`,
  );
  const failed = [
    ...c.instrument_failures.run_a.map((id) => `${id} (A)`),
    ...c.instrument_failures.run_b.map((id) => `${id} (B)`),
  ];
  if (failed.length) lines.push(`  instrument failures (every sample failed; no TV): ${failed.join(', ')}`);
  const moved = c.per_item.filter((p) => p.tv !== null && p.tv > 0).sort((x, y) => y.tv! - x.tv!);
  if (moved.length === 0) lines.push('  every item has the same sample distribution in both runs (TV 0)');
  else {
    lines.push(`  items whose distribution moved (${moved.length}):`);
    for (const p of moved.slice(0, 10))
      lines.push(
        `    ${p.item_id}  TV ${p.tv!.toFixed(3)}  ${p.verdict_a} → ${p.verdict_b}  (n ${p.n_a} / ${p.n_b})`,
      );
    if (moved.length > 10) lines.push(`    … and ${moved.length - 10} more`);
  }
  if (c.guard) {
    const g = c.guard;
    lines.push(`${g.name} guard: ${g.summary}`);
    if (g.offenders.length)
      lines.push(
        `  over threshold: ${g.offenders.map((o) => `${o.item_id} (${o.tv.toFixed(3)})`).join(', ')}`,
      );
    if (g.under_powered.length)
      lines.push(
        `  under-powered: ${g.under_powered.slice(0, 10).join(', ')}${g.under_powered.length > 10 ? `, … (${g.under_powered.length})` : ''}`,
      );
  }
  for (const w of c.warnings) lines.push(`warning: ${w}`);
  return `${lines.join('\n')}\n`;
}

export const compareRunsCommand: CommandModule = {
  register(program, io, run) {
    program
      .command('compare-runs')
      .summary(
        'compare two runs of the same items (TV distance, cross-run κ) and gate them with a validity guard',
      )
      .description(
        "Compare two evaluations of the same items made under configurations that differ on one axis (question form, template, coherence frame, premise order), as the infereval reference's compare_runs does: the per-item total-variation distance between the two runs' sample verdict distributions and its mean, and Cohen's κ between the runs' model verdicts over the items substantive in both — reported as insufficient overlap when fewer than --coverage-floor of the items are.\n\n" +
          'The runs must be of the same benchmark, B must hold every item of A, and (unless --allow-different-setup) the model and its sampler parameters must be identical.\n\n' +
          'With --guard, the validity gate: every item must have a TV below --threshold (0.10) with at least --n-floor (30) counted samples in both runs. `template` reads it as template equivalence (two templates must agree within noise), `shuffle` as shuffle invariance (premise order must not move the verdict), `distribution` as the plain gate. Items whose every sample failed have no distribution: they are listed as instrument failures and fail the gate as under-powered (the reference gives them a TV of 0.5).\n\n' +
          'Exit codes: 0 compared (and the gate passed), 1 the gate failed, the runs cannot be compared or a file is invalid, 2 usage or I/O error.',
      )
      .argument('<evaluation-a>', 'run A (its item order is used)')
      .argument('<evaluation-b>', 'run B')
      .addOption(new Option('-g, --guard <name>', 'evaluate the validity gate').choices([...GUARDS]))
      .option('--threshold <tv>', 'per-item TV at or above which the gate fails', '0.10')
      .option('--n-floor <n>', 'counted samples each item needs in both runs for the gate', '30')
      .option('--coverage-floor <f>', 'least share of items substantive in both for κ to be reported', '0.5')
      .option('--allow-different-setup', 'compare runs of different models or sampler parameters')
      .addOption(
        new Option('-f, --format <format>', 'text or json').choices(['text', 'json']).default('text'),
      )
      .action((pathA: string, pathB: string, flags: CompareFlags) =>
        run(async () => {
          const options = {
            guard: flags.guard,
            threshold: parseNumber(flags.threshold, '--threshold', 0, 1),
            nFloor: parseInteger(flags.nFloor, '--n-floor', 0),
            coverageFloor: parseNumber(flags.coverageFloor, '--coverage-floor', 0, 1),
            allowDifferentSetup: flags.allowDifferentSetup === true,
          };
          const a = await loadInfereval(resolvePath(io.cwd, pathA), 'evaluation');
          const b = await loadInfereval(resolvePath(io.cwd, pathB), 'evaluation');
          const result = compareRuns(a, b, options);
          io.stdout.write(flags.format === 'json' ? json(result) : renderComparison(result));
          for (const w of result.warnings) if (flags.format === 'json') io.stderr.write(`warning: ${w}\n`);
          return result.guard && !result.guard.passed ? 1 : 0;
        }),
      );
  },
};
