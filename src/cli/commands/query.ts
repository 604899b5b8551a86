import { Option } from 'commander';
import type { CliIO, CommandModule } from '../context.js';
import { addDbOption, addLakeOption, storeTargetOf, lakeWarnings } from '../options.js';

interface QueryFlags {
  db?: string;
  lake?: string;
  format: 'table' | 'json' | 'jsonl' | 'csv';
}

/** Thrown by the sink when the reader of standard output has gone away: the query stops reading rows. */
class OutputClosed extends Error {}

/**
 * Writes to a stream and waits when its buffer is full, so that a large result is never held in memory; stops the
 * query when the stream is gone (`evalkit query … | head`).
 */
function streamSink(stream: CliIO['stdout']): (text: string) => Promise<void> | void {
  const closed = (): boolean =>
    Boolean((stream as { destroyed?: boolean; writableEnded?: boolean }).destroyed);
  return (text) => {
    if (closed()) throw new OutputClosed();
    if (text === '' || stream.write(text)) return;
    return new Promise<void>((resolve) => {
      const done = (): void => {
        stream.removeListener('drain', done);
        stream.removeListener('close', done);
        stream.removeListener('error', done);
        resolve();
      };
      stream.once('drain', done);
      stream.once('close', done);
      stream.once('error', done);
    });
  };
}

async function runQueryCommand(sql: string, flags: QueryFlags, io: CliIO): Promise<number> {
  const { withReadStore } = await import('../../store/open.js');
  const { streamQuery } = await import('../../store/query.js');
  // A lake's query that finds a damaged part runs again without its records, if nothing was printed yet.
  const sink = streamSink(io.stdout);
  let printed = false;
  const printing: typeof sink = (text) => {
    printed ||= text.length > 0;
    return sink(text);
  };
  try {
    const summary = await withReadStore(
      storeTargetOf(flags, io),
      lakeWarnings(io),
      (store) => streamQuery(store, sql, flags.format, printing),
      () => !printed,
    );
    // Table and JSON output say it themselves; CSV and JSON lines are data only, so the note goes to stderr.
    if (summary.statements > 1 && (flags.format === 'csv' || flags.format === 'jsonl'))
      io.stderr.write(
        `evalkit: ${summary.statements} statements ran; the output is the last one\u2019s result\n`,
      );
    return 0;
  } catch (error) {
    if (error instanceof OutputClosed) return 0;
    throw error;
  }
}

export const queryCommand: CommandModule = {
  register(program, io, run) {
    const command = program
      .command('query')
      .summary('run SQL over the store (read-only)')
      .description(
        'Run SQL over the store made by `evalkit ingest` (--db) or over a lake (--lake). The store is opened ' +
          'read-only and locked down: the SQL reads the store and nothing else (no files, no other databases, no ' +
          'extensions, no settings changed), and only statements that read run: SELECT, WITH, FROM, DESCRIBE, ' +
          'SHOW, SUMMARIZE, EXPLAIN, PRAGMA, CALL and SET VARIABLE. Any other kind (INSERT, CREATE — temporary ' +
          'objects too —, COPY, EXPORT, ATTACH, ...) is refused before it runs, with a message. Tables: records, ' +
          'results, samples, documents, ingests; views: models, benchmarks, result_rows, sample_rows (see ' +
          'docs/query.md).\n\n' +
          'Several statements (separated by ;) all run, in order; the output is the last one\u2019s result (the ' +
          'table footer and the JSON "statements" field say how many ran). Rows are streamed as they are read: ' +
          'memory stays flat however large the result (a table\u2019s column widths come from its first rows).\n\n' +
          'Exit codes: 0 ok, 2 a bad or refused query, a missing store or a store in use by a writer.',
      )
      .argument('<sql>', 'the SQL text (quote it for the shell)');
    addLakeOption(addDbOption(command))
      .addOption(
        new Option(
          '-f, --format <format>',
          'an aligned table, CSV, one JSON object ({columns, rows, statements}) or JSON lines (one object per row)',
        )
          .choices(['table', 'csv', 'json', 'jsonl'])
          .default('table'),
      )
      .action((sql: string, flags: QueryFlags) => run(() => runQueryCommand(sql, flags, io)));
  },
};
