/**
 * One check every command that writes makes before any work: no output may be one of its inputs (it would be
 * overwritten, or truncated while being read), and no two outputs may be the same file. Paths are compared by
 * their real path (symlinks resolved; for an output that does not exist yet, its nearest existing folder's real
 * path + the rest), and files that exist on both sides also by device and inode (hard links).
 */
import { readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
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

/**
 * The inputs of a command whose output files are only known as it goes (convert: one record at a time), so that
 * every file about to be written is checked against every input, not only the output root. The inputs are every
 * file under an input folder (links followed; folders the command does not read, such as an output root inside an
 * input folder, left out) and, for an input file, the files beside it (a harness's results file is read with its
 * samples files). A target is an input when its real path or its device and inode (a hard link) is one of theirs.
 * The inputs are listed once, when the first target that already exists is checked (a new file destroys nothing).
 */
export class InputGuard {
  private readonly roots: { shown: string; abs: string }[];
  private readonly notRead: Set<string>;
  private index: { reals: Map<string, string>; inodes: Map<string, string> } | undefined;

  /** `inputs` as typed (resolved against `cwd`); `notRead`: folders the command does not read. */
  constructor(inputs: readonly string[], notRead: readonly string[] = [], cwd: string = process.cwd()) {
    this.notRead = new Set(notRead.map((p) => realPathOf(resolve(cwd, p))));
    this.roots = inputs
      .filter((p) => p !== '' && p !== '-')
      .map((shown) => ({ shown, abs: resolve(cwd, shown) }));
  }

  /** The input `target` is (as typed), or undefined when writing it destroys no input. */
  inputAt(target: string): string | undefined {
    let info: Stats;
    try {
      info = statSync(target);
    } catch {
      return undefined; // nothing there yet (or a dangling link): nothing to destroy
    }
    const { reals, inodes } = this.inputs();
    return reals.get(realPathOf(target)) ?? inodes.get(`${info.dev}:${info.ino}`);
  }

  /** Throws UsageError `io.output-is-input` when `target` is one of the inputs. */
  assertNotInput(target: string, shown: string = target): void {
    const input = this.inputAt(target);
    if (input !== undefined)
      throw new UsageError(
        'io.output-is-input',
        `the output ${shown} is the input ${input}: writing it would destroy the input; choose another output root`,
      );
  }

  private inputs(): { reals: Map<string, string>; inodes: Map<string, string> } {
    if (this.index) return this.index;
    const reals = new Map<string, string>();
    const inodes = new Map<string, string>();
    const seenDirs = new Set<string>();
    const addFile = (real: string, info: Stats, shown: string): void => {
      if (!reals.has(real)) reals.set(real, shown);
      if (!inodes.has(`${info.dev}:${info.ino}`)) inodes.set(`${info.dev}:${info.ino}`, shown);
    };
    const visit = (abs: string, shown: string, depth: number, descend: boolean): void => {
      let info: Stats;
      let real: string;
      try {
        info = statSync(abs);
        real = realpathSync(abs);
      } catch {
        return;
      }
      if (info.isFile()) return addFile(real, info, shown);
      if (!descend || !info.isDirectory() || depth > 64 || seenDirs.has(real) || this.notRead.has(real))
        return;
      seenDirs.add(real);
      let names: string[];
      try {
        names = readdirSync(abs);
      } catch {
        return;
      }
      for (const name of names) visit(join(abs, name), join(shown, name), depth + 1, true);
    };
    for (const root of this.roots) {
      visit(root.abs, root.shown, 0, true);
      let isFile = false;
      try {
        isFile = statSync(root.abs).isFile();
      } catch {
        isFile = false;
      }
      if (isFile) {
        const dir = dirname(root.abs);
        let names: string[] = [];
        try {
          names = readdirSync(dir);
        } catch {
          names = [];
        }
        for (const name of names) visit(join(dir, name), join(dirname(root.shown), name), 1, false);
      }
    }
    this.index = { reals, inodes };
    return this.index;
  }
}
