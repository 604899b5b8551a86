// The reading side of `evalkit migrate`: the files under the paths given, and the disk as the plan sees it.
import { existsSync } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { IoError } from '../errors.js';
import { assertRegularFile, readRegularFile } from '../io/regular-file.js';
import { displayPath, type Input, type MigrationFiles } from './plan.js';

const SKIP = new Set(['.git', 'node_modules', '.venv', 'venv', '__pycache__']);

export async function collectInputs(paths: string[], cwd: string): Promise<Input[]> {
  const inputs: Input[] = [];
  for (const p of paths) {
    const abs = resolve(cwd, p);
    const st = await stat(abs).catch(() => undefined);
    if (!st) throw new IoError('io.not-found', `cannot read ${p}: no such file or folder`);
    if (!st.isDirectory()) await assertRegularFile(abs, p);
    if (st.isFile()) {
      inputs.push({ abs, rel: basename(abs), base: dirname(abs), explicit: true });
      continue;
    }
    const walk = async (dir: string): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
        const child = join(dir, e.name);
        if (e.isDirectory() && !SKIP.has(e.name)) await walk(child);
        else if (e.isFile() && /\.(json|jsonl)$/.test(e.name))
          inputs.push({ abs: child, rel: relative(abs, child), base: abs, explicit: false });
      }
    };
    await walk(abs);
  }
  const seen = new Set<string>();
  return inputs.filter((i) => (seen.has(i.abs) ? false : (seen.add(i.abs), true)));
}

/** The disk as the plan reads it; errors name files as the user would (relative to `cwd` when below it). */
export function diskFiles(cwd: string): MigrationFiles {
  return {
    read: (abs) => readRegularFile(abs, displayPath(abs, cwd)),
    kindOf: async (abs) => {
      const st = await lstat(abs).catch(() => undefined);
      if (!st) return undefined;
      return st.isFile() ? 'file' : st.isSymbolicLink() ? 'symlink' : 'other';
    },
    modifiedAt: async (abs) => (await stat(abs)).mtime.toISOString(),
    repoRootOf: findRepoRoot,
  };
}

/** The nearest folder above `path` holding .git, else undefined. */
function findRepoRoot(path: string): string | undefined {
  let dir = dirname(path);
  for (;;) {
    if (existsSync(join(dir, '.git'))) return dir;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}
