import { existsSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { formatDiagnosticText } from '../../diagnostics.js';
import { DataError, IoError, UsageError } from '../../errors.js';
import { checkOutputs } from '../../io/preflight.js';
import { validateValue } from '../../validate/index.js';
import { writeFileAtomic } from '../../io/atomic.js';
import { addUncertainty } from '../../metrics/eee/record-uncertainty.js';
import { spliceUncertainty } from '../../metrics/eee/splice-uncertainty.js';
import { locateRowDiagnostics } from '../../metrics/eee/row-positions.js';
import { readJsonText, readJsonlRows } from '../../report/read-input.js';
import type { CommandModule } from '../context.js';
import { json, optionalInteger, parseNumber, resolvePath } from '../options.js';
import { Option } from 'commander';

interface StatsFlags {
  samples?: string;
  output?: string;
  inPlace?: boolean;
  iterations: string;
  seed: string;
  confidence: string;
  format: 'text' | 'json';
}

/**
 * The samples file of an aggregate: --samples, else `detailed_evaluation_results.file_path` looked up beside the
 * aggregate (by file name), under the datastore root (the folder holding `data/`), and from the working directory.
 * A file_path is the record's word, not the user's: an absolute one, or one that climbs out of those folders, is
 * refused (only --samples may name a file elsewhere).
 */
function findSamples(aggregatePath: string, record: unknown, cwd: string): string {
  const der = (record as { detailed_evaluation_results?: { file_path?: unknown } })
    ?.detailed_evaluation_results;
  const filePath = typeof der?.file_path === 'string' ? der.file_path : undefined;
  const candidates: string[] = [];
  if (filePath) {
    if (isAbsolute(filePath) || /^[A-Za-z]:[\\/]/.test(filePath) || filePath.startsWith('\\\\'))
      throw new DataError(
        'eee.stats.samples-outside',
        `${aggregatePath}: detailed_evaluation_results.file_path ${JSON.stringify(filePath)} is an absolute path; ` +
          'a samples file is only looked up inside the datastore (name it with --samples FILE)',
      );
    const inside = (root: string, path: string): boolean => {
      const r = relative(root, path);
      return r !== '' && !r.startsWith('..') && !isAbsolute(r);
    };
    candidates.push(join(dirname(aggregatePath), basename(filePath)));
    const parts = resolve(aggregatePath).split(sep);
    const dataAt = parts.lastIndexOf('data');
    if (dataAt > 0) {
      const root = parts.slice(0, dataAt).join(sep) || sep;
      if (inside(root, join(root, filePath))) candidates.push(join(root, filePath));
    }
    if (inside(cwd, resolvePath(cwd, filePath))) candidates.push(resolvePath(cwd, filePath));
  } else {
    candidates.push(aggregatePath.replace(/\.json$/, '_samples.jsonl'));
  }
  const found = candidates.find((c) => existsSync(c));
  if (!found) {
    throw new IoError(
      'eee.stats.samples-not-found',
      `cannot find the samples file of ${aggregatePath} (looked at ${candidates.join(', ')}); pass --samples FILE`,
    );
  }
  return found;
}

/**
 * Whether the record was already invalid before --in-place touched it: said in the output (a warning and the last
 * line), so that "wrote" never reads as "this record is now fine". The uncertainty is still written: only its keys
 * change, every other byte stays as it was.
 */
function invalidBefore(record: unknown, shown: string): string | undefined {
  const result = validateValue(record, { schemaOnly: true, file: shown });
  const errors = result.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length === 0) return undefined;
  const first = errors[0];
  return (
    `${shown} was not a valid ${result.type ?? 'EEE aggregate'}${result.schema_version ? ` ${result.schema_version}` : ''} before this change ` +
    `(${first.code}: ${first.message}${first.pointer ? ` at ${first.pointer}` : ''}` +
    `${errors.length > 1 ? `, and ${errors.length - 1} more` : ''}); it still is — run \`evalkit validate ${shown}\``
  );
}

export const statsCommand: CommandModule = {
  register(program, io, run) {
    program
      .command('stats')
      .summary('uncertainty of EEE scores from their instance rows, written into score_details.uncertainty')
      .description(
        'For every evaluation result of an Every Eval Ever aggregate record, compute from its instance rows (the ' +
          'samples file): the mean, the sample standard deviation, the analytic standard error (sd/√n), a seeded ' +
          'percentile bootstrap CI of the mean (method and resample count recorded), and for binary scores the ' +
          'Wilson interval (written to score_details.details as wilson_ci_lower/upper). Rows are matched to results ' +
          'by evaluation_result_id, else by evaluation_name. Writes a new file (-o) or the aggregate itself ' +
          '(--in-place, atomically: only the uncertainty and the details keys written change, every other byte ' +
          'of the file stays as it was); with neither, only the summary is printed.\n\n' +
          'Exit codes: 0 ok, 1 rows that match no result or have no score, 2 usage or I/O error.',
      )
      .argument('<aggregate>', 'the aggregate record (JSON)')
      .option(
        '--samples <file>',
        'instance-level rows (JSONL); default: from detailed_evaluation_results.file_path',
      )
      .option('-o, --output <file>', 'write the updated record to this file')
      .option(
        '--in-place',
        'update the aggregate itself, atomically, changing only score_details.uncertainty and the details written',
      )
      .option('--iterations <n>', 'bootstrap resamples', '10000')
      .option('--seed <n>', 'bootstrap seed (recorded in details.bootstrap_seed)', '0')
      .option('--confidence <c>', 'two-sided confidence level', '0.95')
      .addOption(
        new Option('-f, --format <format>', 'summary as text or json')
          .choices(['text', 'json'])
          .default('text'),
      )
      .action((aggregate: string, flags: StatsFlags) =>
        run(async () => {
          if (flags.output && flags.inPlace)
            throw new UsageError('usage.conflict', 'use either -o or --in-place, not both');
          const iterations = optionalInteger(flags.iterations, '--iterations', 1)!;
          const seed = optionalInteger(flags.seed, '--seed', 0)!;
          const confidence = parseNumber(flags.confidence, '--confidence', 0, 1, true);
          const aggregatePath = resolvePath(io.cwd, aggregate);
          // The text too: diagnostics about the aggregate carry line:column, and --in-place keeps its bytes.
          const { value: record, text: aggregateText } = await readJsonText(aggregatePath, {
            expect: ['eee.aggregate'],
          });
          const samplesPath = flags.samples
            ? resolvePath(io.cwd, flags.samples)
            : findSamples(aggregatePath, record, io.cwd);
          // In place the aggregate is the output by design; its samples file never is.
          checkOutputs({
            inputs: flags.inPlace ? [samplesPath] : [aggregatePath, samplesPath],
            files: [flags.inPlace ? aggregatePath : flags.output],
            cwd: io.cwd,
          });
          const invalid = flags.inPlace ? invalidBefore(record, aggregate) : undefined;
          const rows = await readJsonlRows(samplesPath, { expect: ['eee.instance'] });
          const outcome = addUncertainty(record, rows, {
            iterations,
            seed,
            confidence,
            aggregateFile: aggregate,
            aggregateText,
            samplesFile: flags.samples ?? samplesPath,
          });
          await locateRowDiagnostics(samplesPath, flags.samples ?? samplesPath, outcome.diagnostics);
          const target = flags.inPlace
            ? aggregatePath
            : flags.output
              ? resolvePath(io.cwd, flags.output)
              : undefined;
          const errors = outcome.diagnostics.filter((d) => d.severity === 'error').length;
          let changed = false;
          if (target && !outcome.diagnostics.some((d) => d.code === 'eee.stats.not-aggregate')) {
            if (flags.inPlace) {
              // Spliced into the file's own text: every byte outside the uncertainty stays as it was.
              const splice = spliceUncertainty(aggregateText, record, outcome.record, aggregate);
              changed = splice.changed;
              if (changed) await writeFileAtomic(target, splice.text);
            } else {
              changed = true;
              await writeFileAtomic(target, json(outcome.record));
            }
          }
          if (flags.format === 'json') {
            io.stdout.write(
              json({
                results: outcome.results,
                diagnostics: outcome.diagnostics,
                written: target ?? null,
                changed,
                ...(invalid ? { invalid_before: invalid } : {}),
              }),
            );
          } else {
            for (const d of outcome.diagnostics.slice(0, 50)) io.stderr.write(`${formatDiagnosticText(d)}\n`);
            for (const r of outcome.results) {
              const u = r.uncertainty;
              if (!u) {
                io.stdout.write(`${r.evaluation_name}: skipped (${r.skipped})\n`);
                continue;
              }
              const f = (x: number | null) => (x === null ? 'n/a' : x.toFixed(4));
              io.stdout.write(
                `${r.evaluation_name}: n=${u.num_samples} mean=${f(u.mean)} sd=${f(u.standard_deviation)} se=${f(u.standard_error)} ` +
                  `bootstrap ${Math.round(confidence * 100)}% [${f(u.bootstrap.lower)}, ${f(u.bootstrap.upper)}] (${iterations} resamples, seed ${seed})` +
                  (u.wilson ? ` wilson [${f(u.wilson.lower)}, ${f(u.wilson.upper)}]` : '') +
                  '\n',
              );
            }
            io.stdout.write(
              !target
                ? 'nothing written (use -o FILE or --in-place)\n'
                : changed
                  ? `wrote ${target}\n`
                  : `${target} already holds these values; left unchanged\n`,
            );
            if (invalid) io.stdout.write(`note: ${invalid}\n`);
          }
          return errors > 0 ? 1 : 0;
        }),
      );
  },
};
