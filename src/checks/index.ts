import type { Diagnostic } from '../diagnostics.js';
import { checkBenchOutputPaths } from './bench-paths.js';
import { checkBenchmarkHashes } from './benchmark-hash.js';
import { checkEeeTree } from './eee-tree.js';
import { JsonCache } from './json-cache.js';

export { CHECK_CODES, checkMessage, type CheckCode, type CheckCodeId } from './codes.js';
export { checkEeeTree, recordFingerprint } from './eee-tree.js';
export { checkBenchOutputPaths, looksLegacyBenchOutput } from './bench-paths.js';
export { checkBenchmarkHashes, loadBenchmarkHash, isInferevalEvaluation } from './benchmark-hash.js';
export * from './path-policy.js';
export * from './names.js';

/** Options for the checks that look across documents and files (beyond one document's schema). */
export interface TreeCheckOptions {
  /** An infereval benchmark to compare evaluations' benchmark_hash against. */
  benchmark?: string;
}

/**
 * Runs every check across files (EEE datastore integrity, the benchmark output v1 path policy, benchmark hashes)
 * over the files `evalkit validate` was given (absolute paths of every file it read). Called once per validate run
 * unless --schema-only.
 */
export async function runTreeChecks(files: string[], options: TreeCheckOptions = {}): Promise<Diagnostic[]> {
  const diagnostics = [...(await checkEeeTree(files)), ...(await checkBenchOutputPaths(files))];
  if (options.benchmark !== undefined)
    diagnostics.push(...(await checkBenchmarkHashes(files, options.benchmark)));
  return diagnostics;
}
