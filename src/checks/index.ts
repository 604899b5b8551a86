import type { Diagnostic } from '../diagnostics.js';
import { checkBenchOutputPaths } from './bench-paths.js';
import { checkBenchmarkHashes } from './benchmark-hash.js';
import {
  prepareEeeTree,
  type PreparedEeeTree,
  type RowCheckContext,
  type RowCheckResult,
  type SamplesRowChecks,
} from './eee-tree.js';
import { checkEeeFlat, flatRootsOf, looseIndexesByRoot } from './eee-flat.js';
import { JsonCache } from './json-cache.js';

export { CHECK_CODES, checkMessage, type CheckCode, type CheckCodeId } from './codes.js';
export {
  checkEeeTree,
  prepareEeeTree,
  recordFingerprint,
  SamplesRowChecks,
  type PreparedEeeTree,
  type RowCheckContext,
  type RowCheckResult,
} from './eee-tree.js';
export { checkBenchOutputPaths } from './bench-paths.js';
export {
  checkEeeFlat,
  flatRootsOf,
  isFlatIndexFile,
  isLooseFlatIndexFile,
  readFlatIndexes,
} from './eee-flat.js';
export { checkBenchmarkHashes, loadBenchmarkHash, isInferevalEvaluation } from './benchmark-hash.js';
export * from './path-policy.js';
export * from './names.js';

/** Options for the checks that look across documents and files (beyond one document's schema). */
export interface TreeCheckOptions {
  /** An infereval benchmark to compare evaluations' benchmark_hash against. */
  benchmark?: string;
  /** Files given besides the documents (a flat datastore's indexes), so the flat checks find their datastore. */
  flatIndexes?: string[];
  /** Index files of flat rows lying outside `flat/indexes/` (recognised by content), read as their datastore's. */
  looseFlatIndexes?: string[];
}

/**
 * Runs every check across files (EEE datastore integrity, the benchmark output v1 path policy, benchmark hashes)
 * over the files `evalkit validate` was given (absolute paths of every file it read). Called once per validate run
 * unless --schema-only.
 */
export async function runTreeChecks(files: string[], options: TreeCheckOptions = {}): Promise<Diagnostic[]> {
  return (await prepareTreeChecks(files, options)).finish();
}

/** The checks across files, prepared before the files are read (see `PreparedTreeChecks`). */
export interface PreparedTreeChecks {
  /**
   * Row checks to feed while reading a given EEE samples file (every non-blank line of one read, then `done()`),
   * so that `finish` need not read and parse it again; undefined for any other file.
   */
  rowChecks(path: string): SamplesRowChecks | undefined;
  /** The same for a worker thread: the plain data its `SamplesRowChecks` need, then `acceptRows` with the result. */
  rowContext(path: string): RowCheckContext | undefined;
  acceptRows(path: string, result: RowCheckResult): void;
  finish(): Promise<Diagnostic[]>;
}

/** Reads what the checks need before the files themselves (the EEE aggregates); `finish` runs the rest. */
export async function prepareTreeChecks(
  files: string[],
  options: TreeCheckOptions = {},
): Promise<PreparedTreeChecks> {
  const json = new JsonCache();
  // The tree's files and a flat datastore's objects get the same checks, each set on its own (a datastore holding
  // both layouts of the same records is not a datastore of duplicates).
  const trees = [await prepareEeeTree(files, json), await prepareEeeTree(files, json, { flat: true })];
  const first = <T>(pick: (t: PreparedEeeTree) => T | undefined): T | undefined => {
    for (const t of trees) {
      const found = pick(t);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return {
    rowChecks: (path) => first((t) => t.rowChecks(path)),
    rowContext: (path) => first((t) => t.rowContext(path)),
    acceptRows: (path, result) => trees.forEach((t) => t.acceptRows(path, result)),
    async finish() {
      const diagnostics = [
        ...(await trees[0].finish()),
        ...(await trees[1].finish()),
        ...(await checkEeeFlat(
          flatRootsOf([...files, ...(options.flatIndexes ?? [])]),
          await looseIndexesByRoot(options.looseFlatIndexes ?? []),
        )),
        ...(await checkBenchOutputPaths(files, json)),
      ];
      if (options.benchmark !== undefined)
        diagnostics.push(...(await checkBenchmarkHashes(files, options.benchmark)));
      return diagnostics;
    },
  };
}
