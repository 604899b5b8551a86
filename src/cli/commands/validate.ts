import { Option } from 'commander';
import { readFile } from 'node:fs/promises';
import { validatePaths } from '../../validate/index.js';
import {
  reconciliationLines,
  storedReconciliations,
  type Reconciliation,
} from '../../checks/reconciliation.js';
import { optionalInteger } from '../options.js';
import { useColor, type CliIO, type CommandModule } from '../context.js';
import { OUTPUT_FORMATS, report, type OutputFormat } from '../output/diagnostics.js';
import { createProgress } from '../output/progress.js';

/** Diagnostics kept and shown by default; bounds memory on a huge, mostly invalid input. */
export const DEFAULT_MAX_ERRORS = 10_000;

interface ValidateFlags {
  type?: string;
  schemaVersion?: string;
  schemaOnly?: boolean;
  benchmark?: string;
  format: OutputFormat;
  maxErrors: string;
  quiet?: boolean;
  jobs: string;
  stdinFormat: 'auto' | 'json' | 'jsonl';
  progress: boolean;
  exclude?: string[];
  failOnEmpty?: boolean;
}

/**
 * The reconciliation outcomes EEE aggregates written by evalkit keep (`score_details.details.evalkit_reconciliation`),
 * per file: `validate` reports them beside its diagnostics (they are facts about the conversion, not schema problems).
 */
async function storedOutcomes(
  files: { path: string; documents: number; types: Record<string, number> }[],
): Promise<{ file: string; results: Reconciliation[] }[]> {
  const out: { file: string; results: Reconciliation[] }[] = [];
  for (const f of files) {
    if (f.path === '-' || !f.path.endsWith('.json') || !Object.keys(f.types).some((t) => t.startsWith('eee')))
      continue;
    try {
      const results = storedReconciliations(
        JSON.parse(await readFile(f.path, 'utf8')) as Record<string, unknown>,
      );
      if (results.length > 0) out.push({ file: f.path, results });
    } catch {
      // Not readable as one JSON document: its diagnostics say so.
    }
  }
  return out;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

async function runValidate(paths: string[], flags: ValidateFlags, io: CliIO): Promise<number> {
  // 0 = no limit; the default keeps memory bounded on huge, mostly invalid inputs.
  const maxErrors = optionalInteger(flags.maxErrors, '--max-errors', 0) || undefined;
  const jobs = flags.jobs === 'auto' ? 'auto' : (optionalInteger(flags.jobs, '--jobs', 1) ?? 1);
  const progress = createProgress(io, { enabled: flags.progress });
  try {
    const result = await validatePaths(paths, {
      type: flags.type,
      schemaVersion: flags.schemaVersion,
      schemaOnly: flags.schemaOnly,
      benchmark: flags.benchmark,
      maxDiagnostics: maxErrors,
      jobs,
      cwd: io.cwd,
      exclude: flags.exclude,
      stdin: io.stdin as AsyncIterable<Buffer>,
      streamFormat: flags.stdinFormat,
      onProgress: (p) =>
        progress.update(
          p.bytesDone,
          p.bytesTotal,
          p.phase === 'tree-checks' ? 'checking across files…' : `${p.filesDone}/${p.filesTotal} files`,
        ),
    });
    progress.done();
    const stored = await storedOutcomes(result.files);
    const text = report(flags.format, result.files, result.summary, {
      color: useColor(io),
      quiet: flags.quiet,
    });
    if (flags.format === 'json' && stored.length > 0) {
      io.stdout.write(`${JSON.stringify({ ...JSON.parse(text), reconciliation: stored }, null, 2)}\n`);
    } else {
      io.stdout.write(text);
      if (flags.format === 'text' && !flags.quiet)
        for (const s of stored)
          io.stdout.write(
            reconciliationLines(s.results, '')
              .map((l) => `${s.file}: ${l}\n`)
              .join(''),
          );
    }
    if (result.summary.files === 0 && flags.failOnEmpty) {
      io.stderr.write(
        `evalkit: error validate.nothing-found: no .json, .jsonl or .ndjson file in ${paths.join(', ')}${flags.exclude?.length ? ' (after --exclude)' : ''}\n`,
      );
      return 2;
    }
    return result.summary.errors > 0 || result.summary.invalid > 0 ? 1 : 0;
  } finally {
    progress.done();
  }
}

export const validateCommand: CommandModule = {
  register(program, io, run) {
    program
      .command('validate')
      .summary('validate EEE, infereval, retrieval and benchmark-output documents')
      .description(
        'Validate documents against their schema, then the cross-field rules and the checks across files. ' +
          'A .json file is one document; a .jsonl/.ndjson file is one document per non-blank line; directories are ' +
          'walked (skipping .git and node_modules); globs (*, **, ?, [..], {a,b}) are expanded; "-" reads standard ' +
          "input. Each document's type and version are detected from its keys and its schema_version.\n\n" +
          'Exit codes: 0 all valid (or nothing found: the summary says so), 1 any invalid document or failed check, ' +
          '2 usage or I/O error, or nothing found with --fail-on-empty.',
      )
      .argument('<paths...>', 'files, directories, globs, or - for standard input')
      .option('-t, --type <type>', 'force the document type (see `evalkit schema list`)')
      .option('-s, --schema-version <version>', 'force the version (e.g. 0.3.0, or a schema_version value)')
      .option('--schema-only', 'run the JSON Schema only: no cross-field rules and no checks across files')
      .option('--benchmark <file>', 'infereval benchmark that evaluations must match (benchmark_hash check)')
      .addOption(
        new Option('-f, --format <format>', 'output: text lines, one JSON object, or GitHub annotations')
          .choices(OUTPUT_FORMATS)
          .default('text'),
      )
      .option(
        '--max-errors <n>',
        'show at most N diagnostics, 0 for all (the counts in the summary stay exact)',
        String(DEFAULT_MAX_ERRORS),
      )
      .option('-q, --quiet', 'print errors only: no warnings, no summary line')
      .option(
        '--exclude <glob>',
        'leave out files matching GLOB (repeatable); matched against each path and its trailing parts, e.g. "old/**", "*.bak.json"',
        collect,
      )
      .option('--fail-on-empty', 'exit 2 when no file was found to validate (e.g. a wrong folder in CI)')
      .option(
        '-j, --jobs <n>',
        'threads that parse and validate (this one and N - 1 workers), or auto: one per CPU (at most 8) when the ' +
          'files hold 128 MiB or more, else 1. Large JSONL files are split into byte ranges; the output is the same',
        'auto',
      )
      .addOption(
        new Option(
          '--stdin-format <format>',
          'how "-" is read: auto (JSON Lines if the first line is a whole value)',
        )
          .choices(['auto', 'json', 'jsonl'])
          .default('auto'),
      )
      .option('--no-progress', 'never show the progress bar (it only appears on a terminal)')
      .action((paths: string[], flags: ValidateFlags) => run(() => runValidate(paths, flags, io)));
  },
};
