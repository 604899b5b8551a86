import { Option } from 'commander';
import type { CliIO, CommandModule } from '../context.js';
import { addDbOption, addLakeOption, json, lakeWarnings, resolvePath, storeTargetOf } from '../options.js';
import { checkOutputs } from '../../io/preflight.js';
import { registerHfEvals } from './export-hf-evals.js';

interface ExportFlags {
  db?: string;
  lake?: string;
  format: 'text' | 'json';
}

async function runExportParquet(dir: string, flags: ExportFlags, io: CliIO): Promise<number> {
  const { openReadStore } = await import('../../store/open.js');
  const { exportParquet } = await import('../../store/parquet.js');
  const from = storeTargetOf(flags, io);
  checkOutputs({ inputs: ['lake' in from ? from.lake : from.db], folders: [dir], cwd: io.cwd });
  const target = resolvePath(io.cwd, dir);
  const store = await openReadStore(from, lakeWarnings(io));
  try {
    const summary = await exportParquet(store, target);
    if (flags.format === 'json') io.stdout.write(json(summary));
    else {
      for (const t of summary.tables)
        io.stdout.write(`${t.table}: ${t.rows.toLocaleString('en')} rows in ${t.files} file(s)\n`);
      io.stdout.write(`exported to ${summary.dir} (schema: evalkit-export.json)\n`);
    }
    return 0;
  } finally {
    store.close();
  }
}

export const exportCommand: CommandModule = {
  register(program, io, run) {
    const exp = program
      .command('export')
      .summary('write the store out for other engines (Parquet) and for the Hugging Face Hub (.eval_results)')
      .description(
        'Write the store in a form other engines read (`evalkit export parquet DIR`) or the Hub publishes\n' +
          '(`evalkit export hf-evals OUT`).',
      );
    const parquet = exp
      .command('parquet')
      .summary('records, results, samples and documents as Hive-partitioned Parquet')
      .description(
        'Write the store\u2019s tables as Parquet, one folder per table, partitioned by collection\n' +
          '(<table>/collection=<c>/data_0.parquet; records without a collection under\n' +
          'collection=__HIVE_DEFAULT_PARTITION__), with the tables\u2019 own column names and evalkit-export.json\n' +
          'describing every column. Spark, Trino, DuckDB, Polars and Hugging Face datasets read the folders\n' +
          'directly; `evalkit ingest DIR` reads the export back into a store. DIR must not exist or be empty;\n' +
          'it is written in a temporary folder beside it (.DIR.tmp-PID) and renamed into place at the end; a\n' +
          'temporary folder left by a killed export is removed by the next export to DIR.\n\n' +
          'Exit codes: 0 ok, 2 usage or I/O error.',
      )
      .argument('<dir>', 'the folder to write');
    addLakeOption(addDbOption(parquet))
      .addOption(
        new Option('-f, --format <format>', 'summary as text or JSON')
          .choices(['text', 'json'])
          .default('text'),
      )
      .action((dir: string, flags: ExportFlags) => run(() => runExportParquet(dir, flags, io)));
    registerHfEvals(exp, io, run);
  },
};
