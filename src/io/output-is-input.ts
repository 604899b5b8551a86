/**
 * One check every command that writes makes before any work: no output may be one of its inputs (it would be
 * overwritten, or truncated while being read), and no two outputs may be the same file. Paths are compared by
 * their real path (symlinks resolved; for an output that does not exist yet, its nearest existing folder's real
 * path + the rest), and files that exist on both sides also by device and inode (hard links).
 */
import { realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError } from '../errors.js';

/** The real path of `abs`, or of its nearest existing ancestor joined with the part that does not exist yet. */
export function realPathOf(abs: string): string {
  try {
    return realpathSync(abs);
  } catch {
    const parent = dirname(abs);
    if (parent === abs) return abs;
    return join(realPathOf(parent), basename(abs));
  }
}

function identity(abs: string): { real: string; inode?: string } {
  const real = realPathOf(abs);
  try {
    const info = statSync(real);
    return { real, inode: `${info.dev}:${info.ino}` };
  } catch {
    return { real };
  }
}

const same = (a: { real: string; inode?: string }, b: { real: string; inode?: string }): boolean =>
  a.real === b.real || (a.inode !== undefined && a.inode === b.inode);

/**
 * Throws a UsageError (`io.output-is-input`) when an output is one of the inputs, or (`io.outputs-collide`) when
 * two outputs are the same file. Paths are resolved against `cwd`; "-" (stdin/stdout) and empty entries are
 * ignored. Messages name the paths as they were typed.
 */
export function assertOutputsNotInputs(
  inputs: readonly (string | undefined)[],
  outputs: readonly (string | undefined)[],
  cwd: string = process.cwd(),
): void {
  const keep = (p: string | undefined): p is string => typeof p === 'string' && p !== '' && p !== '-';
  const ins = inputs.filter(keep).map((p) => ({ shown: p, id: identity(resolve(cwd, p)) }));
  const outs = outputs.filter(keep).map((p) => ({ shown: p, id: identity(resolve(cwd, p)) }));
  for (const [i, out] of outs.entries()) {
    const input = ins.find((x) => same(x.id, out.id));
    if (input)
      throw new UsageError(
        'io.output-is-input',
        `the output ${out.shown} is the input ${input.shown}: writing it would destroy the input; choose another output path`,
      );
    const other = outs.slice(0, i).find((x) => same(x.id, out.id));
    if (other)
      throw new UsageError(
        'io.outputs-collide',
        `two outputs are the same file (${other.shown} and ${out.shown}); give each its own path`,
      );
  }
}
