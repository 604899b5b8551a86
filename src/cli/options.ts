// Flag values shared by every command: numbers checked once, paths resolved against the CLI's cwd, JSON printed
// the same way. A bad value is a UsageError (exit 2) that names the flag.
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { DEFAULT_STORE_FILE, storePath } from '../store/path.js';
import type { CliIO } from './context.js';

/** An integer flag value in [min, max] (a safe integer, so a seed is never silently rounded). */
export function parseInteger(
  value: string,
  flag: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const text = value.trim();
  const n = Number(text);
  if (!/^[-+]?\d+$/.test(text) || !Number.isSafeInteger(n) || n < min || n > max) {
    const range =
      min <= Number.MIN_SAFE_INTEGER
        ? 'of magnitude below 2^53'
        : max < Number.MAX_SAFE_INTEGER
          ? `in [${min}, ${max}]`
          : `≥ ${min}`;
    throw new UsageError('usage.bad-option', `${flag} expects an integer ${range}, got "${value}"`);
  }
  return n;
}

/** Like parseInteger, for a flag that may be absent. */
export function optionalInteger(value: string | undefined, flag: string, min: number): number | undefined {
  return value === undefined ? undefined : parseInteger(value, flag, min);
}

/** A finite number flag value in [min, max] (or (min, max) with `exclusive`). */
export function parseNumber(
  value: string,
  flag: string,
  min: number,
  max = Infinity,
  exclusive = false,
): number {
  const n = Number(value);
  const inside = exclusive ? n > min && n < max : n >= min && n <= max;
  if (value.trim() === '' || !Number.isFinite(n) || !inside) {
    const range = exclusive ? `(${min}, ${max})` : `[${min}, ${max}]`;
    throw new UsageError('usage.bad-option', `${flag} expects a number in ${range}, got "${value}"`);
  }
  return n;
}

/** commander argument parsers for the two kinds above. */
export const intArg =
  (flag: string, min: number, max = Number.MAX_SAFE_INTEGER) =>
  (value: string): number =>
    parseInteger(value, flag, min, max);
export const numberArg =
  (flag: string, min: number, max = Infinity) =>
  (value: string): number =>
    parseNumber(value, flag, min, max);

export function resolvePath(cwd: string, path: string): string {
  return resolve(cwd, path);
}

/** JSON as the CLI prints it: two-space indent and a final newline. */
export const json = (value: unknown): string => JSON.stringify(value, null, 2) + '\n';

/**
 * The `--db FILE` option of every store command (ingest, query, leaderboard, compare, export, view), declared the
 * same way everywhere: `addDbOption(command)` when registering, `dbPathOf(flags.db, io)` in the action.
 */
export function addDbOption<C extends Command>(command: C): C {
  command.option(
    '--db <file>',
    `the store, a DuckDB file (default: $EVALKIT_DB, else ${DEFAULT_STORE_FILE} in the current folder)`,
  );
  return command;
}

/** `--lake <dir>` beside `--db`: read a Parquet lake (`evalkit ingest --lake`) instead of a store file. */
export function addLakeOption<C extends Command>(command: C): C {
  command.option(
    '--lake <dir>',
    'read a Parquet lake written by `evalkit ingest --lake` (Hive-partitioned Parquet) instead of a store file',
  );
  return command;
}

/** What a read command reads: the lake given by --lake, else the store file (--db, $EVALKIT_DB, the default). */
export function storeTargetOf(
  flags: { db?: string; lake?: string },
  io: Pick<CliIO, 'cwd' | 'env'>,
): { db: string } | { lake: string } {
  if (flags.lake !== undefined) {
    if (flags.db !== undefined)
      throw new UsageError('usage.db-and-lake', '--db and --lake name two stores: give one of them');
    return { lake: resolvePath(io.cwd, flags.lake) };
  }
  return { db: dbPathOf(flags.db, io) };
}

/** A lake's skipped files, told on standard error as warnings (`evalkit: warning CODE message`). */
export function lakeWarnings(io: Pick<CliIO, 'stderr'>): {
  onWarning: (code: string, message: string) => void;
} {
  return { onWarning: (code, message) => io.stderr.write(`evalkit: warning ${code} ${message}\n`) };
}

/** The store file a command works on, resolved against the CLI's working directory. */
export function dbPathOf(flag: string | undefined, io: Pick<CliIO, 'cwd' | 'env'>): string {
  return resolvePath(io.cwd, storePath(flag, io.env));
}
