import { Option } from 'commander';
import { resolve } from 'node:path';
import { migratePaths, type FileReport } from '../../migrate/index.js';
import { UsageError } from '../../errors.js';
import type { CliIO, CommandModule } from '../context.js';
import { createProgress } from '../output/progress.js';

interface MigrateFlags {
  to?: string;
  output?: string;
  inPlace?: boolean;
  dryRun?: boolean;
  layout?: boolean | string;
  verbose?: boolean;
  quiet?: boolean;
  progress: boolean;
  format: 'text' | 'json';
}

function describe(f: FileReport, verbose: boolean): string[] {
  const versions = f.from && f.to ? ` ${f.from} → ${f.to}` : '';
  const where = f.output ? ` → ${f.output}` : '';
  const lines = [`${f.status.padEnd(8)} ${f.input} (${f.kind}${versions})${where}`];
  for (const p of f.problems) lines.push(`  problem: ${p}`);
  const shown = verbose ? f.notes : f.notes.filter((n) => n.kind !== 'converted');
  for (const n of shown)
    lines.push(`  ${n.kind.padEnd(9)} ${n.line ? `line ${n.line} ` : ''}${n.pointer}: ${n.detail}`);
  const hidden = f.notes.length - shown.length;
  if (hidden > 0) lines.push(`  (${hidden} value(s) converted in form only; --verbose lists them)`);
  return lines;
}

/**
 * The closing summary, grouped: per status, how many files of each kind, and for failed and skipped files the
 * reasons with their counts (a tree of 500 files gives a few lines, not 500).
 */
export function groupedSummary(files: FileReport[]): string[] {
  const lines: string[] = [];
  for (const status of ['migrated', 'current', 'failed', 'skipped'] as const) {
    const group = files.filter((f) => f.status === status);
    if (group.length === 0) continue;
    const kinds = countBy(group.map((f) => f.kind));
    lines.push(`  ${status}: ${kinds.map(([k, n]) => `${n} ${k}`).join(', ')}`);
    if (status === 'failed' || status === 'skipped') {
      // "line 12: ..." and file-specific wording collapse into one reason.
      const reasons = countBy(
        group.flatMap((f) => [...new Set(f.problems.map((p) => p.replace(/^line \d+: /, '')))]),
      );
      for (const [reason, n] of reasons.slice(0, 8)) lines.push(`    ${n} × ${reason}`);
      if (reasons.length > 8) lines.push(`    … and ${reasons.length - 8} other reason(s)`);
    }
  }
  return lines;
}

function countBy(values: string[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

/** `--layout flat|tree`: each path is a datastore converted between EEE's tree and flat layouts. */
async function convertLayouts(
  paths: string[],
  to: 'flat' | 'tree',
  flags: MigrateFlags,
  io: CliIO,
): Promise<number> {
  const { convertLayout } = await import('../../migrate/layout.js');
  let failed = 0;
  const results = [];
  for (const path of paths) {
    const result = await convertLayout(resolve(io.cwd, path), to, {
      outDir: flags.output === undefined ? undefined : resolve(io.cwd, flags.output),
      dryRun: flags.dryRun,
    });
    results.push(result);
    if (result.problems.length > 0) failed++;
    if (flags.format === 'json') continue;
    for (const d of result.diagnostics)
      io.stdout.write(`${d.file}:${d.line}:${d.column} ${d.severity} ${d.code} ${d.message}\n`);
    for (const p of result.problems) io.stdout.write(`${path}: not converted: ${p}\n`);
    if (result.problems.length === 0)
      io.stdout.write(
        `${flags.dryRun ? '(dry run) ' : ''}${path}: ${result.records} record(s) to the ${to} layout, ${result.written.length} file(s) written → ${result.out}\n`,
      );
  }
  if (flags.format === 'json')
    io.stdout.write(`${JSON.stringify({ dry_run: flags.dryRun === true, layouts: results }, null, 2)}\n`);
  return failed > 0 ? 1 : 0;
}

export const migrateCommand: CommandModule = {
  register(program, io, run) {
    program
      .command('migrate')
      .summary('bring EEE records to 0.3.0 and legacy benchmark outputs to v1')
      .description(
        [
          'Migrate each PATH (files or folders):',
          '  EEE aggregate records and instance rows 0.2.0 / 0.2.1 / 0.2.2 -> 0.3.0;',
          '    an aggregate takes its samples file along, and its companion',
          '    reference, checksum and total_rows are rewritten;',
          '  legacy benchmark outputs ({config, results}, {metrics, metadata},',
          '    {scores, details}) -> benchmark output v1.',
          'Scores are never changed. Every inferred value is reported (and, in EEE',
          'records, listed in source_metadata.additional_details.evalkit_migration).',
          'A value with no place in v1 is reported as unmapped and kept under',
          'results.details.legacy. Files already current are left as they are, so a',
          're-run gives the same bytes. Writes are atomic (temporary file + rename).',
          '',
          'Exit codes: 0 every input migrated or already current, 1 some input could',
          'not be migrated, 2 usage or I/O error.',
        ].join('\n'),
      )
      .argument('[path...]', 'files or folders to migrate')
      .option(
        '--to <version>',
        'target version: 0.3.0 (EEE) or v1 (benchmark output); default the current one',
      )
      .option('-o, --output <dir>', 'write the migrated files under DIR (paths kept relative to each PATH)')
      .option('--in-place', 'replace the input files (atomically)')
      .option('--dry-run', 'report what would change, write nothing')
      .option(
        '--layout [flat|tree]',
        'also move files to the canonical layout: data/<collection>/<developer>/<model>/<uuid4>.json (+ _samples.jsonl), outputs/<benchmark>/<run_id>.json; ' +
          'with flat or tree, convert each PATH (an EEE datastore folder) to EEE\u2019s flat layout (flat/objects + flat/indexes/by_collection) or back to the tree, beside the layout it has or under --output',
      )
      .option('--no-progress', 'never show the progress line (it only appears on a terminal)')
      .option('-v, --verbose', 'list every converted value, not only inferred, moved and unmapped ones')
      .option('-q, --quiet', 'list only the files that failed, then the summary')
      .addOption(
        new Option('-f, --format <format>', 'report format').choices(['text', 'json']).default('text'),
      )
      .action((paths: string[], flags: MigrateFlags) =>
        run(async () => {
          if (flags.layout === 'flat' || flags.layout === 'tree')
            return convertLayouts(paths, flags.layout, flags, io);
          // `--layout PATH…`: the option takes an optional value, so a first path given right after it lands there.
          if (typeof flags.layout === 'string') {
            paths = [flags.layout, ...paths];
            flags.layout = true;
          }
          if (paths.length === 0)
            throw new UsageError(
              'usage.no-paths',
              "missing required argument 'path' (files or folders to migrate)",
            );
          const progress = createProgress(io, { enabled: flags.progress, unit: 'items' });
          const result = await migratePaths(paths, {
            onProgress: (p) => progress.update(p.done, p.total, `files written  ${p.file}`),
            to: flags.to,
            outDir: flags.output,
            inPlace: flags.inPlace,
            dryRun: flags.dryRun,
            layout: flags.layout,
            cwd: io.cwd,
          }).finally(() => progress.done());
          if (flags.format === 'json')
            io.stdout.write(`${JSON.stringify({ dry_run: flags.dryRun === true, ...result }, null, 2)}\n`);
          else {
            for (const f of result.files)
              if (!flags.quiet || f.status === 'failed')
                io.stdout.write(`${describe(f, flags.verbose === true).join('\n')}\n`);
            const s = result.summary;
            io.stdout.write(
              `${flags.dryRun ? '(dry run) ' : ''}${result.files.length} file(s): ${s.migrated} migrated, ${s.current} already current, ${s.failed} failed, ${s.skipped} skipped\n`,
            );
            const groups = groupedSummary(result.files);
            if (groups.length > 0) io.stdout.write(`${groups.join('\n')}\n`);
          }
          return result.summary.failed > 0 ? 1 : 0;
        }),
      );
  },
};
