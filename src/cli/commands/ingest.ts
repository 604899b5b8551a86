import { Option } from 'commander';
import type { SourceId } from '../../convert/types.js';
import type { IngestOptions, IngestResult } from '../../store/ingest.js';
import { useColor, type CliIO, type CommandModule } from '../context.js';
import { addDbOption, json, lakeWarnings, storeTargetOf } from '../options.js';
import { disagreementText } from '../../checks/reconciliation.js';
import { diagnosticLine } from '../output/diagnostics.js';
import { createProgress } from '../output/progress.js';
import { checkOutputs } from '../../io/preflight.js';
import {
  addOverrideOptions,
  modelMapWarnings,
  overrideFilesFrom,
  overridesFrom,
  type OverrideFlags,
} from '../convert-overrides.js';
import { addZipLimitOptions, applyZipLimits, type ZipLimitFlags } from '../zip-limits.js';

interface IngestFlags extends OverrideFlags, ZipLimitFlags {
  db?: string;
  lake?: string;
  allowDuplicates?: boolean;
  strict?: boolean;
  from: string;
  format: 'text' | 'json';
  progress: boolean;
}

/** Diagnostics printed in text mode (all of them are in --format json). */
const SHOWN_DIAGNOSTICS = 200;

async function runIngest(paths: string[], flags: IngestFlags, io: CliIO): Promise<number> {
  // DuckDB is loaded only by the commands that use the store.
  const { openStore } = await import('../../store/db.js');
  const { ingestPaths } = await import('../../store/ingest.js');
  const { sourcesFor } = await import('../../convert/registry.js');
  const from = flags.from === 'auto' ? 'auto' : sourcesFor(flags.from as SourceId)[0].id;
  const overrides = {
    ...overridesFrom(flags),
    ...(await overrideFilesFrom(flags, io.cwd, (m) => io.stderr.write(`${m}\n`))),
  };
  applyZipLimits(flags);
  const target = storeTargetOf(flags, io);
  const dbPath = 'lake' in target ? target.lake : target.db;
  if ('lake' in target) checkOutputs({ inputs: paths, folders: [target.lake], cwd: io.cwd });
  else checkOutputs({ inputs: paths, files: [dbPath], cwd: io.cwd });
  const store = 'lake' in target ? undefined : await openStore(dbPath, { readOnly: false });
  const progress = createProgress(io, { enabled: flags.progress });
  let result: IngestResult;
  try {
    const ingest = store
      ? (options: IngestOptions) => ingestPaths(store, paths, options)
      : async (options: IngestOptions) =>
          (await import('../../store/lake.js')).ingestToLake(dbPath, paths, {
            ...options,
            onLakeWarning: lakeWarnings(io).onWarning,
            onLakeWait: (message) => io.stderr.write(`evalkit: ${message}\n`),
          });
    result = await ingest({
      cwd: io.cwd,
      allowDuplicates: flags.allowDuplicates,
      strict: flags.strict,
      from,
      overrides,
      onProgress: (p) =>
        progress.update(
          p.bytesDone,
          p.bytesTotal,
          `${p.records} records, ${p.rows.toLocaleString('en')} rows`,
        ),
    });
  } finally {
    progress.done();
    store?.close();
  }
  const s = result.summary;
  const warnings = modelMapWarnings(overrides.modelMap);
  if (flags.format === 'json') io.stdout.write(json({ db: dbPath, ...result, warnings }));
  else {
    for (const w of warnings) io.stderr.write(`warning ${w.code}: ${w.message}\n`);
    const color = useColor(io);
    for (const d of result.diagnostics.slice(0, SHOWN_DIAGNOSTICS))
      io.stdout.write(`${diagnosticLine(d, color)}\n`);
    if (result.diagnostics.length > SHOWN_DIAGNOSTICS)
      io.stdout.write(
        `… ${result.diagnostics.length - SHOWN_DIAGNOSTICS} more (--format json lists them all)\n`,
      );
    for (const i of result.items) {
      if (i.status === 'rejected' && i.reason) io.stdout.write(`${i.source}: not stored: ${i.reason}\n`);
      else
        for (const d of i.disagreements ?? [])
          io.stdout.write(
            `${i.source}: ${d.evaluation_result_id || d.evaluation_name}: ${d.outcome}: ${disagreementText(d.note)}\n`,
          );
      if (i.status === 'superseded')
        io.stdout.write(
          `${i.source}: not stored: a copy of the same run at least as complete is stored (${i.kept_copy})\n`,
        );
      if (i.supersedes)
        io.stdout.write(
          `${i.source}: replaces the less complete copy ${i.supersedes.join(', ')} of the same run\n`,
        );
    }
    for (const r of result.retrieval)
      io.stdout.write(
        `${r.source}: retrieval ${r.kind} rows: ${r.added} added, ${r.skipped} already stored, ${r.rejected} rejected` +
          (r.scored > 0 ? `, ${r.scored} scored against their gold rows` : '') +
          '\n',
      );
    io.stdout.write(
      `${s.records} records added (${s.rows.toLocaleString('en')} rows), ${s.skipped} skipped ` +
        `(${s.skipped - s.duplicates - s.superseded} already stored, ${s.duplicates} duplicates${s.superseded > 0 ? `, ${s.superseded} less complete copies of a stored run` : ''})` +
        `${s.replaced > 0 ? `, ${s.replaced} replaced by a more complete copy` : ''}, ${s.rejected} rejected → ${dbPath}\n`,
    );
  }
  if (result.items.length === 0 && result.retrieval.length === 0) {
    io.stderr.write(
      `error usage.nothing-to-ingest: no record or known tool output found in ${paths.join(', ')}\n`,
    );
    return 2;
  }
  return s.rejected > 0 || result.retrieval.some((r) => r.rejected > 0) ? 1 : 0;
}

export const ingestCommand: CommandModule = {
  register(program, io, run) {
    const command = program
      .command('ingest')
      .summary('store records (EEE, datastores, converted outputs, Parquet exports) in a DuckDB file')
      .description(
        'Put evaluation records into one embedded DuckDB file that `query`, `leaderboard`, `compare`, `export`\n' +
          'and `view` read. Accepts EEE aggregate files and datastore folders (each aggregate with its samples\n' +
          'JSONL; 0.2.x records are migrated to 0.3.0), other tools\u2019 outputs through the same importers as\n' +
          '`evalkit convert`, folders written by `evalkit export parquet`, and retrieval JSONL files (gold rows,\n' +
          'result rows, events) into the retrieval_gold, retrieval_results and retrieval_events tables; result\n' +
          'rows without ranking metrics are scored on ingest against their gold rows (gold files go first).\n\n' +
          'Every record is validated first (schema, rules and datastore checks, the diagnostics of `evalkit\n' +
          'validate`): an invalid one is reported and not stored. A record and its rows are stored in one\n' +
          'transaction, never half. Ingesting the same content again changes nothing; a record whose content\n' +
          'is stored under another evaluation_id (EEE check 10) is reported and skipped unless\n' +
          '--allow-duplicates. Copies of one run (the same source run id, e.g. an Inspect log while running and once\n' +
          'finished) are stored once, as the most complete copy, whatever the order: a stored partial copy is\n' +
          'replaced in the transaction that stores the complete one and reported; a complete copy is never replaced.\n' +
          'A record holding a number JSON cannot (NaN, Infinity) is refused the same way.\n' +
          'Each converted result is checked against what its source declares (docs/convert.md, "Reconciliation"):\n' +
          'every disagreement is reported, and --strict refuses the record.\n' +
          'One writer at a time, and not while a reader (`evalkit view`, `query`, ...) has the store open: the\n' +
          'ingest is refused with a message saying so. --db must be a store or a new path (a file that is not a\n' +
          'DuckDB database is refused before any work).\n\n' +
          'Exit codes: 0 everything stored or already there, 1 an input was rejected, 2 usage or I/O error\n' +
          '(including a store in use by another process, and paths where nothing to store was found).\n\n' +
          'The options from --source-organization-name to --retrieved-timestamp say what a converted source cannot\n' +
          '(as in `evalkit convert`); they apply to converted inputs only, never to EEE records, which say it already.',
      )
      .argument('<paths...>', 'files and folders to ingest');
    addDbOption(command)
      .option(
        '--lake <dir>',
        'append to a Parquet lake (Hive-partitioned, zstd; read by --lake on every read command, Spark, Trino, Athena, DuckDB) instead of a store file; see docs/lake.md',
      )
      .option(
        '--allow-duplicates',
        'store a record even when the same content is stored under another evaluation_id',
      )
      .option(
        '--strict',
        'refuse a record whose rows disagree with its source (a reconciliation disagreement: count_mismatch, headline_mismatch, key_collision; see docs/convert.md): every EEE record is checked again against its rows as `evalkit reconcile` does, and one whose result kept as reconciled no longer is is refused too; exit 1',
      )
      .option(
        '--from <source>',
        'the converter for inputs that are not EEE (lm-eval, inspect, helm, promptfoo, openai-evals, bench, infereval), or auto to recognise each',
        'auto',
      );
    addZipLimitOptions(addOverrideOptions(command))
      .addOption(
        new Option('-f, --format <format>', 'summary as text or one JSON object')
          .choices(['text', 'json'])
          .default('text'),
      )
      .option('--no-progress', 'never show the progress bar (it only appears on a terminal)')
      .action((paths: string[], flags: IngestFlags) => run(() => runIngest(paths, flags, io)));
  },
};
