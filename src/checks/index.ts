import type { Diagnostic } from '../diagnostics.js';

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
export async function runTreeChecks(
  _files: string[],
  _options: TreeCheckOptions = {},
): Promise<Diagnostic[]> {
  return [];
}
