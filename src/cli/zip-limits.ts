// The options that raise (or lower) the expansion caps of the archive reader, for the commands that read Inspect
// `.eval` logs (convert, ingest). The caps themselves live in io/zip.ts.
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import {
  DEFAULT_ZIP_LIMITS,
  formatBytes,
  MAX_MEMBER_CEILING,
  memberLimitProblem,
  setDefaultZipLimits,
} from '../io/zip.js';

export interface ZipLimitFlags {
  zipMemberLimit?: string;
  zipArchiveLimit?: string;
}

const UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, kib: 1024, m: 1024 ** 2, mib: 1024 ** 2 };
UNITS.g = UNITS.gib = 1024 ** 3;
UNITS.t = UNITS.tib = 1024 ** 4;

/** A size such as `2GiB`, `512MiB`, `1.5G` or a number of bytes (binary units). */
export function parseSize(value: string, flag: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value);
  const unit = m ? UNITS[m[2].toLowerCase()] : undefined;
  const bytes = m && unit !== undefined ? Math.floor(Number(m[1]) * unit) : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1)
    throw new UsageError(
      'usage.bad-option',
      `${flag} expects a size such as 2GiB, 512MiB or 1000000, got "${value}"`,
    );
  return bytes;
}

export function addZipLimitOptions(command: Command): Command {
  return command
    .option(
      '--zip-member-limit <size>',
      `largest expanded size of one member of an archive (Inspect .eval), e.g. 1.5GiB (default ${formatBytes(DEFAULT_ZIP_LIMITS.maxMemberBytes)}, at most ${formatBytes(MAX_MEMBER_CEILING)}: a member is read whole as one text); a guard against archives that expand without bound`,
    )
    .option(
      '--zip-archive-limit <size>',
      `largest expanded size of all members of one archive (default ${formatBytes(DEFAULT_ZIP_LIMITS.maxArchiveBytes)})`,
    );
}

/** Sets the archive reader's caps from the flags (before any archive is opened). */
export function applyZipLimits(flags: ZipLimitFlags): void {
  const member =
    flags.zipMemberLimit === undefined
      ? DEFAULT_ZIP_LIMITS.maxMemberBytes
      : parseSize(flags.zipMemberLimit, '--zip-member-limit');
  const problem = memberLimitProblem(member);
  if (problem)
    throw new UsageError('usage.bad-option', `--zip-member-limit ${flags.zipMemberLimit}: ${problem}`);
  setDefaultZipLimits({
    maxMemberBytes: member,
    maxArchiveBytes:
      flags.zipArchiveLimit === undefined
        ? DEFAULT_ZIP_LIMITS.maxArchiveBytes
        : parseSize(flags.zipArchiveLimit, '--zip-archive-limit'),
  });
}
