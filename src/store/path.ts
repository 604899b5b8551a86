/**
 * Where the store is, without loading DuckDB (so the CLI's option parsing stays light): the `--db` flag, else
 * `$EVALKIT_DB`, else `evalkit.duckdb` in the working directory.
 */
export const DEFAULT_STORE_FILE = 'evalkit.duckdb';

/** The store path: the flag, else $EVALKIT_DB, else `evalkit.duckdb` (relative paths stay relative). */
export function storePath(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return flag ?? (env.EVALKIT_DB || undefined) ?? DEFAULT_STORE_FILE;
}
