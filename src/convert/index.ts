/**
 * Converting other tools' outputs into Every Eval Ever 0.3.0 records. `convertPaths` is the one entry point for
 * both `evalkit convert` (records written with `writeConverted`) and `evalkit ingest` (records fed to the store):
 * it walks the given files and folders, recognises each source, and yields records (rows streamed, not loaded) or
 * failures, never the same record twice.
 */
import { readdir, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { DataError, IoError } from '../errors.js';
import { SKIPPED_DIRS } from '../io/files.js';
import { claimingSource, expectedSources, probePath, sourcesFor } from './registry.js';
import { inspectListedLogs, isInspectLogListing } from './sources/inspect.js';
import type {
  ConvertedRecord,
  ConvertOverrides,
  ParallelOptions,
  SourceConverter,
  SourceId,
} from './types.js';

export * from './types.js';
export { SOURCES, detectSource, sourceById, probePath } from './registry.js';
export { writeConverted, aggregateText, type WriteOptions, type WriteOutcome } from './write.js';
export { METRIC_FACTS, metricFacts, type MetricFacts } from './metric-facts.js';

/**
 * Why a file met while walking is not converted when it is Every Eval Ever data already (an aggregate record, or a
 * row of a datastore index such as the community-evals converter's aggregate.jsonl); undefined otherwise.
 */
function eeeAlready(head: string | undefined): string | undefined {
  if (head === undefined) return undefined;
  const version = /"(?:eval_)?schema_version"\s*:\s*"([^"]+)"/.exec(head)?.[1];
  if (/"record_type"\s*:/.test(head) && /"object_path"\s*:/.test(head) && /"sha256"\s*:/.test(head))
    return `an Every Eval Ever datastore index (rows naming aggregate objects${version ? `, schema ${version}` : ''}), not a tool's output: validate or ingest the records it names`;
  if (version !== undefined && /"evaluation_results"\s*:/.test(head) && /"model_info"\s*:/.test(head))
    return `an Every Eval Ever record already (schema ${version}), not a tool's output: validate, migrate or ingest it`;
  return undefined;
}

/** A path that could not be converted (the others still are). */
export interface ConvertFailure {
  sourcePath: string;
  source?: SourceId;
  error: Error;
}

export type ConvertItem = ConvertedRecord | ConvertFailure;

export const isConvertFailure = (item: ConvertItem): item is ConvertFailure => 'error' in item;

export interface ConvertPathsOptions {
  from?: SourceId | 'auto';
  overrides?: ConvertOverrides;
  /** Told about each path left out: a file no source claims inside a folder, or a record already yielded. */
  onSkip?: (path: string, reason: string) => void;
  /** Folders not to walk into (absolute paths), e.g. the output datastore when it lies inside an input folder. */
  exclude?: string[];
  /** Worker threads for the rows of large JSONL files (lm-eval samples). */
  parallel?: ParallelOptions;
}

/**
 * The records under the given paths. A file or folder given explicitly that no source claims is a failure (saying
 * what was expected); inside a folder such files are skipped (reported through `onSkip`). Records whose derived
 * id was already yielded (the same run twice) are skipped too.
 */
export async function* convertPaths(
  paths: string[],
  options: ConvertPathsOptions = {},
): AsyncGenerator<ConvertItem> {
  const from = options.from ?? 'auto';
  const sources = sourcesFor(from);
  const overrides = options.overrides ?? {};
  const seen = new Map<string, string>();
  const skip = options.onSkip ?? (() => {});
  const excluded = new Set((options.exclude ?? []).map((p) => resolve(p)));

  async function* run(source: SourceConverter, path: string): AsyncGenerator<ConvertItem> {
    try {
      for await (const record of source.convert(path, { overrides, parallel: options.parallel })) {
        const first = seen.get(record.aggregatePath);
        if (first !== undefined) {
          skip(record.sourcePath, `the same record as from ${first} (${record.aggregatePath})`);
          continue;
        }
        seen.set(record.aggregatePath, record.sourcePath);
        yield record;
      }
    } catch (error) {
      yield { sourcePath: path, source: source.id, error: error as Error };
    }
  }

  async function* walk(dir: string): AsyncGenerator<ConvertItem> {
    let entries;
    try {
      entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    } catch (error) {
      yield {
        sourcePath: dir,
        error: new IoError('io.read', `cannot read ${dir}: ${(error as Error).message}`),
      };
      return;
    }
    for (const e of entries) {
      // Hidden entries are skipped, except a model repository's Hub results (.eval_results).
      if (e.name.startsWith('.') && e.name !== '.eval_results') continue;
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        if (SKIPPED_DIRS.has(e.name) || excluded.has(resolve(path))) continue;
        yield* visit(path, false);
      } else if (e.isFile()) {
        yield* visit(path, false);
      }
    }
  }

  async function* visit(path: string, explicit: boolean): AsyncGenerator<ConvertItem> {
    let probe;
    try {
      probe = await probePath(path);
    } catch (error) {
      yield { sourcePath: path, error: error as Error };
      return;
    }
    if (sources.some((s) => s.id === 'inspect') && isInspectLogListing(probe)) {
      yield* listing(path, explicit);
      return;
    }
    const claimed = claimingSource(probe, sources);
    if (claimed) {
      yield* run(claimed, path);
      return;
    }
    if (probe.isDirectory) {
      yield* walk(path);
      return;
    }
    if (explicit && from !== 'auto') {
      // The user named the source: let it try, and say what is wrong.
      yield* run(sources[0], path);
      return;
    }
    if (explicit)
      yield {
        sourcePath: path,
        error: new DataError(
          'convert.unrecognised',
          `${path}: not a recognised output file; expected one of: ${expectedSources(sources)}`,
        ),
      };
    else skip(path, eeeAlready(probe.head) ?? 'no source recognises it');
  }

  /**
   * An Inspect viewer listing (logs.json): skipped with a note, never taken for a log. Given by name, the logs it
   * lists (beside it) are read; met while walking, they are read from their own files by the walk.
   */
  async function* listing(path: string, explicit: boolean): AsyncGenerator<ConvertItem> {
    let listed: string[];
    try {
      listed = await inspectListedLogs(path);
    } catch (error) {
      yield { sourcePath: path, source: 'inspect', error: error as Error };
      return;
    }
    const logs: string[] = [];
    for (const name of listed) {
      const log = resolve(dirname(path), name);
      if ((await stat(log).catch(() => undefined))?.isFile()) logs.push(log);
    }
    const missing = listed.length - logs.length;
    skip(
      path,
      `an Inspect log listing (the headers of ${listed.length} log(s)), not a log: ` +
        (explicit
          ? 'the logs it lists are read from their own files'
          : 'its logs are read from their own files') +
        (missing > 0 ? `; ${missing} listed log(s) not found beside it` : ''),
    );
    if (!explicit) return;
    if (logs.length === 0) {
      yield {
        sourcePath: path,
        source: 'inspect',
        error: new DataError(
          'convert.inspect.listing',
          `${path}: an Inspect log listing whose ${listed.length} log(s) are not beside it; convert the log files or their folder`,
        ),
      };
      return;
    }
    for (const log of logs) yield* visit(log, true);
  }

  for (const path of paths) {
    const info = await stat(path).catch(() => undefined);
    if (!info) {
      yield { sourcePath: path, error: new IoError('io.not-found', `no such file or directory: ${path}`) };
      continue;
    }
    yield* visit(path, true);
  }
}
