import { Option } from 'commander';
import type { CliIO, CommandModule } from '../context.js';
import { addDbOption, addLakeOption, storeTargetOf, json } from '../options.js';

interface QueryFlags {
  db?: string;
  lake?: string;
  format: 'table' | 'json' | 'csv';
}

async function runQueryCommand(sql: string, flags: QueryFlags, io: CliIO): Promise<number> {
  const { openReadStore } = await import('../../store/open.js');
  const { runQuery, formatCsv, formatTable } = await import('../../store/query.js');
  const store = await openReadStore(storeTargetOf(flags, io));
  try {
    const result = await runQuery(store, sql);
    if (flags.format === 'json') io.stdout.write(json(result));
    else if (flags.format === 'csv') io.stdout.write(formatCsv(result));
    else io.stdout.write(formatTable(result));
    return 0;
  } finally {
    store.close();
  }
}

export const queryCommand: CommandModule = {
  register(program, io, run) {
    const command = program
      .command('query')
      .summary('run SQL over the store (read-only)')
      .description(
        'Run SQL over the store made by `evalkit ingest`, opened read-only (a statement that would change it\n' +
          'fails with a message). Tables: records, results, samples, documents, ingests; views: models,\n' +
          'benchmarks, result_rows, sample_rows (see the README for every column). Several statements: the\n' +
          'last one\u2019s result is printed.\n\n' +
          'Exit codes: 0 ok, 2 a bad query, a missing store or a store in use by a writer.',
      )
      .argument('<sql>', 'the SQL text (quote it for the shell)');
    addLakeOption(addDbOption(command))
      .addOption(
        new Option('-f, --format <format>', 'an aligned table, one JSON object ({columns, rows}) or CSV')
          .choices(['table', 'json', 'csv'])
          .default('table'),
      )
      .action((sql: string, flags: QueryFlags) => run(() => runQueryCommand(sql, flags, io)));
  },
};
