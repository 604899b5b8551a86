import { Option } from 'commander';
import type { CliIO, CommandModule } from '../context.js';
import { json, lakeWarnings, resolvePath } from '../options.js';
import { textTable } from '../../report/tables.js';

interface LakeFlags {
  format: 'text' | 'json';
  minParts?: string;
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function runCompact(dir: string, flags: LakeFlags, io: CliIO): Promise<number> {
  const { compactLake } = await import('../../store/lake-compact.js');
  const minUnits = flags.minParts === undefined ? undefined : Number(flags.minParts);
  if (minUnits !== undefined && (!Number.isInteger(minUnits) || minUnits < 2)) {
    const { UsageError } = await import('../../errors.js');
    throw new UsageError(
      'usage.bad-min-parts',
      `--min-parts must be a whole number ≥ 2 (got ${flags.minParts})`,
    );
  }
  const report = await compactLake(resolvePath(io.cwd, dir), {
    minUnits,
    ...lakeWarnings(io),
    onWait: (message) => io.stderr.write(`evalkit: ${message}\n`),
  });
  if (flags.format === 'json') io.stdout.write(json(report));
  else if (report.partitions.length === 0)
    io.stdout.write(`nothing to compact: ${report.unchanged} partition(s), each one unit of files already\n`);
  else {
    for (const p of report.partitions)
      io.stdout.write(
        `${p.partition}: ${p.merged} units (${p.files_before} files, ${mb(p.bytes_before)}) → 1 (${p.files_after} files, ${mb(p.bytes_after)})\n`,
      );
    if (report.unchanged > 0) io.stdout.write(`${report.unchanged} partition(s) left as they were\n`);
  }
  return 0;
}

async function runStats(dir: string, flags: LakeFlags, io: CliIO): Promise<number> {
  const { lakeStats } = await import('../../store/lake-compact.js');
  const rows = await lakeStats(resolvePath(io.cwd, dir), lakeWarnings(io).onWarning);
  if (flags.format === 'json') io.stdout.write(json({ tables: rows }));
  else if (rows.length === 0) io.stdout.write('an empty lake: no part files\n');
  else
    io.stdout.write(
      `${textTable(
        ['table', 'partition', 'parts', 'units', 'rows', 'bytes'],
        rows.map((r) => [
          r.table,
          r.partition,
          String(r.parts),
          String(r.units),
          r.rows.toLocaleString('en'),
          mb(r.bytes),
        ]),
        [2, 3, 4, 5],
      )}\n`,
    );
  return 0;
}

const formatOption = (): Option =>
  new Option('-f, --format <format>', 'output as text or JSON').choices(['text', 'json']).default('text');

export const lakeCommand: CommandModule = {
  register(program, io, run) {
    const lake = program
      .command('lake')
      .summary('look after a Parquet lake: its parts per table and partition, and compaction')
      .description(
        'Commands for a lake written by `evalkit ingest --lake DIR` (docs/lake.md). Each ingest adds files; `lake stats` says how many parts, rows and bytes each table and partition holds, and `lake compact` merges a partition\u2019s small parts into one sorted file per table.',
      );
    lake
      .command('compact')
      .summary('merge each partition\u2019s parts into one file per table, without changing any answer')
      .description(
        'Merge the parts that ingests added to each partition into one new file per table, sorted by record. The new files are written first; then, under the lock writers take, one step publishes them and removes the old ones. A reader running meanwhile reads the old set or the new one, never both or neither; a kill at any moment leaves a lake that reads the same, and the next compact or ingest completes the work. Parts that cannot be read, or are not the lake\u2019s own, are left as they are and named.\n\n' +
          'Exit codes: 0 ok, 2 usage or I/O error (no lake, a lock held too long).',
      )
      .argument('<dir>', 'the lake folder')
      .addOption(
        new Option(
          '--min-parts <n>',
          'compact a partition once it holds this many units of files (an ingest adds one); at least 2',
        ).default('2'),
      )
      .addOption(formatOption())
      .action((dir: string, flags: LakeFlags) => run(() => runCompact(dir, flags, io)));
    lake
      .command('stats')
      .summary('parts, rows and bytes per table and partition')
      .description(
        'For each table and partition of the lake: its part files, the units of publishing they belong to (an ingest or a compaction), their rows (from the Parquet footers) and bytes. Files that are not the lake\u2019s own are named on standard error and not counted.\n\n' +
          'Exit codes: 0 ok, 2 usage or I/O error.',
      )
      .argument('<dir>', 'the lake folder')
      .addOption(formatOption())
      .action((dir: string, flags: LakeFlags) => run(() => runStats(dir, flags, io)));
  },
};
