import { Option } from 'commander';
import { EvalkitError, UsageError } from '../../errors.js';
import { convertPaths, isConvertFailure } from '../../convert/index.js';
import { SOURCES } from '../../convert/registry.js';
import type { ConvertedRecord, FieldFate, SourceId } from '../../convert/types.js';
import { writeConverted, type WriteOutcome } from '../../convert/write.js';
import { createProgress } from '../output/progress.js';
import type { CommandModule } from '../context.js';
import { json, optionalInteger, resolvePath } from '../options.js';
import { reconciliationLines, type Reconciliation } from '../../checks/reconciliation.js';
import { checkOutputs } from '../../io/preflight.js';
import { InputGuard } from '../../io/output-is-input.js';
import {
  addOverrideOptions,
  modelMapWarnings,
  overrideFilesFrom,
  overridesFrom,
  type OverrideFlags,
} from '../convert-overrides.js';
import { withCliHint } from '../hints.js';
import { addZipLimitOptions, applyZipLimits, type ZipLimitFlags } from '../zip-limits.js';

interface ConvertFlags extends OverrideFlags, ZipLimitFlags {
  output: string;
  from: SourceId | 'auto';
  force?: boolean;
  dryRun?: boolean;
  format: 'text' | 'json';
  jobs: string;
}

interface RecordReport {
  source: SourceId;
  sourcePath: string;
  status: WriteOutcome['status'];
  aggregatePath: string;
  samplesPath?: string;
  rows: number;
  exists?: boolean;
  fields: FieldFate[];
  notes: string[];
  /** Each result against what its source declares (docs/convert.md, "Reconciliation"). */
  reconciliation: Reconciliation[];
}

interface FailureReport {
  sourcePath: string;
  source?: SourceId;
  code: string;
  message: string;
}

const failureOf = (sourcePath: string, source: SourceId | undefined, error: Error): FailureReport => ({
  sourcePath,
  ...(source ? { source } : {}),
  code: error instanceof EvalkitError ? error.code : 'internal',
  message: error instanceof EvalkitError ? withCliHint(error.code, error.message) : error.message,
});

function fieldSummary(fields: FieldFate[]): string {
  const count = (fate: FieldFate['fate']) => fields.filter((f) => f.fate === fate).length;
  return `${count('mapped')} mapped, ${count('inferred')} inferred, ${count('additional_details')} kept in additional_details, ${count('not-mapped')} not mapped`;
}

/** Inferred / not-mapped fields listed per record in the text report (json lists all). */
const TEXT_LIST_MAX = 8;

function textReport(r: RecordReport): string {
  const verb =
    r.status === 'planned' ? (r.exists ? 'would replace or keep (exists)' : 'would write') : r.status;
  const lines = [
    `${r.source}  ${r.sourcePath}`,
    `  ${verb}: ${r.aggregatePath}${r.samplesPath ? ` + ${r.rows} rows in ${r.samplesPath.split('/').pop()}` : ''}`,
    `  fields: ${fieldSummary(r.fields)}`,
  ];
  const list = (fate: FieldFate['fate'], show: (f: FieldFate) => string): void => {
    const all = r.fields.filter((f) => f.fate === fate);
    for (const f of all.slice(0, TEXT_LIST_MAX)) lines.push(show(f));
    if (all.length > TEXT_LIST_MAX)
      lines.push(`    … and ${all.length - TEXT_LIST_MAX} more ${fate} (all of them with --format json)`);
  };
  list('inferred', (f) => `    inferred    ${f.field} → ${f.to}: ${f.reason}`);
  list('not-mapped', (f) => `    not mapped  ${f.field}: ${f.reason}`);
  lines.push(...reconciliationLines(r.reconciliation));
  for (const n of r.notes) lines.push(`  note: ${n}`);
  return `${lines.join('\n')}\n`;
}

export const convertCommand: CommandModule = {
  register(program, io, run) {
    const command = program
      .command('convert')
      .summary("other tools' outputs (lm-eval, OpenAI evals, ...) into Every Eval Ever 0.3.0 records")
      .description(
        'Converts the native outputs of evaluation harnesses into Every Eval Ever 0.3.0 aggregate + samples pairs in\n' +
          'the datastore layout data/<collection>/<developer>/<model>/<uuid>.json under the -o root. A PATH is a file\n' +
          'or a folder (walked; every run in it is converted). Sources: ' +
          SOURCES.map((s) => s.id).join(', ') +
          '.\n\n' +
          'Deterministic: the same input and options give the same ids, file names and bytes; the same run found\n' +
          'twice is written once. Instance rows are streamed (constant memory). A report lists, per record, every\n' +
          'source field mapped, inferred, kept in additional_details, or not mapped (with the reason), and how each\n' +
          'result reconciles with what its source declares (count, headline, keys; kept in score_details.details,\n' +
          'every disagreement printed; docs/convert.md, "Reconciliation").\n\n' +
          'Exit codes: 0 all converted, 1 some sources failed (the others are still written), 2 usage or I/O error,\n' +
          'or nothing convertible found in PATHS.',
      )
      .argument('<paths...>', 'output files or folders of the harnesses')
      .requiredOption('-o, --output <root>', 'datastore root (the folder that holds data/)')
      .addOption(
        new Option('--from <source>', 'the source format, or auto to recognise each file')
          .choices(['auto', ...SOURCES.map((s) => s.id)])
          .default('auto'),
      )
      .option('--force', 'replace existing files that differ')
      .option('--dry-run', 'print the plan (which record, from which source, to where) and write nothing')
      .option(
        '-j, --jobs <n>',
        'threads for large JSONL inputs (lm-eval samples files, cut into 1 MiB byte ranges): this one and N − 1 ' +
          'workers; auto: one per CPU (at most 3) for files of 32 MiB or more. 1 converts in this thread only. The ' +
          'output is the same bytes',
        'auto',
      );
    addZipLimitOptions(addOverrideOptions(command))
      .addOption(
        new Option('-f, --format <format>', 'report format').choices(['text', 'json']).default('text'),
      )
      .action((paths: string[], flags: ConvertFlags) =>
        run(async () => {
          const overrides = {
            ...overridesFrom(flags),
            ...(await overrideFilesFrom(flags, io.cwd, (m) => io.stderr.write(`${m}\n`))),
          };
          applyZipLimits(flags);
          const jobs = flags.jobs === 'auto' ? undefined : optionalInteger(flags.jobs, '--jobs', 1);
          const root = resolvePath(io.cwd, flags.output);
          // The shared output guard: the datastore root is neither an input nor a file, nor under one.
          if (!flags.dryRun) checkOutputs({ inputs: paths, folders: [flags.output], cwd: io.cwd });
          // And every file written under it is checked against every input (real paths, links, inodes).
          const inputs = new InputGuard(paths, [root], io.cwd);
          const records: RecordReport[] = [];
          const failures: FailureReport[] = [];
          const skipped: { path: string; reason: string }[] = [];
          const progress = createProgress(io, { unit: 'items' });
          let rowsSeen = 0;
          const counted = (record: ConvertedRecord): ConvertedRecord => {
            if (!record.rows) return record;
            const { rows, rowBlocks } = record;
            const label = `rows ${record.sourcePath}`;
            return {
              ...record,
              rows: async function* () {
                for await (const row of rows()) {
                  rowsSeen++;
                  if ((rowsSeen & 1023) === 0) progress.update(rowsSeen, 0, label);
                  yield row;
                }
              },
              ...(rowBlocks && {
                rowBlocks: async function* () {
                  for await (const block of rowBlocks()) {
                    rowsSeen += block.rows;
                    progress.update(rowsSeen, 0, label);
                    yield block;
                  }
                },
              }),
            };
          };
          const absolute = paths.map((p) => resolvePath(io.cwd, p));
          const display = new Map(absolute.map((a, i) => [a, paths[i]]));
          const shown = (p: string): string => {
            for (const [abs, given] of display) if (p === abs) return given;
            for (const [abs, given] of display)
              if (p.startsWith(`${abs}/`)) return `${given.replace(/\/$/, '')}/${p.slice(abs.length + 1)}`;
            return p;
          };
          const unresolved = (text: string): string => {
            let out = text;
            for (const [abs, given] of display) out = out.split(abs).join(given.replace(/\/$/, ''));
            return out;
          };
          try {
            for await (const item of convertPaths(absolute, {
              from: flags.from,
              overrides,
              exclude: [root],
              parallel: { jobs },
              onSkip: (path, reason) => skipped.push({ path: shown(path), reason: unresolved(reason) }),
            })) {
              if (isConvertFailure(item)) {
                // A declared metric fact that contradicts a score is the user's file at fault: the run stops.
                if (item.error instanceof UsageError) throw item.error;
                failures.push(failureOf(shown(item.sourcePath), item.source, item.error));
                continue;
              }
              try {
                const outcome = await writeConverted(counted(item), root, {
                  force: flags.force,
                  dryRun: flags.dryRun,
                  inputs,
                });
                records.push({
                  source: item.source,
                  sourcePath: shown(item.sourcePath),
                  status: outcome.status,
                  aggregatePath: item.aggregatePath,
                  ...(item.samplesPath ? { samplesPath: item.samplesPath } : {}),
                  rows: outcome.totalRows,
                  ...(outcome.exists !== undefined ? { exists: outcome.exists } : {}),
                  fields: item.fields,
                  notes: [...item.notes, ...(outcome.notes ?? [])],
                  reconciliation: outcome.reconciliation,
                });
              } catch (error) {
                failures.push(failureOf(shown(item.sourcePath), item.source, error as Error));
              }
            }
          } finally {
            progress.done();
          }
          const rows = records.reduce((n, r) => n + r.rows, 0);
          const warnings = modelMapWarnings(overrides.modelMap);
          if (flags.format === 'json') {
            io.stdout.write(
              json({
                root,
                dry_run: Boolean(flags.dryRun),
                summary: { records: records.length, rows, failed: failures.length, skipped: skipped.length },
                records,
                failures,
                skipped,
                warnings,
              }),
            );
          } else {
            for (const w of warnings) io.stderr.write(`warning ${w.code}: ${w.message}\n`);
            for (const r of records) io.stdout.write(textReport(r));
            for (const s of skipped) io.stdout.write(`skipped ${s.path}: ${s.reason}\n`);
            for (const f of failures) io.stderr.write(`${f.sourcePath}: error ${f.code} ${f.message}\n`);
            io.stdout.write(
              `${records.length} record(s), ${rows} row(s) ${flags.dryRun ? 'planned (nothing written: --dry-run)' : `under ${root}`}` +
                `${failures.length > 0 ? `; ${failures.length} source(s) failed` : ''}\n`,
            );
          }
          if (records.length === 0 && failures.length === 0) {
            // Nothing recognised: a wrong folder or --from, not a successful conversion of nothing.
            io.stderr.write(
              `error usage.nothing-to-convert: no ${flags.from === 'auto' ? 'known tool' : flags.from} output found in ${paths.join(', ')}` +
                `${skipped.length > 0 ? ` (${skipped.length} file(s) skipped, listed above)` : ''}; sources: ${SOURCES.map((s) => s.id).join(', ')}\n`,
            );
            return 2;
          }
          if (failures.some((f) => f.code.startsWith('io.'))) return 2;
          return failures.length > 0 ? 1 : 0;
        }),
      );
  },
};
