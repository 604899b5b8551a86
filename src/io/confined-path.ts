/**
 * A file a task or a promptfoo config names (a dataset, a prompt, a var, a schema, a template) is read only from the
 * config's own folder and below: a relative path resolves against that folder, an absolute path or a `..` that
 * leaves it is refused, and so is a symbolic link (of the file or of a folder on its way) that leads out of it. A
 * shared config can therefore not read `/proc/self/environ`, `~/.ssh/…` or `../../secrets` and send it to a model.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { UsageError } from '../errors.js';

const outside = (root: string, path: string): boolean => {
  const rel = relative(root, path);
  return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
};

/**
 * The path `ref` names, resolved against `dir` and checked to stay inside it (its real path too, once the file
 * exists: a missing file is left for the reader to report); returned resolved, links not followed. `code` is the
 * refusal's error code, `what` names the file in the message (`prompts[0]`, `the dataset`).
 */
export function confinedPath(dir: string, ref: string, what: string, code: string): string {
  const full = resolve(dir, ref);
  if (outside(dir, full))
    throw new UsageError(
      code,
      `${what}: ${ref} is outside the folder ${dir}; files are read only from the folder of the file that names them and below`,
    );
  let real: string;
  try {
    real = realpathSync(full);
  } catch {
    return full;
  }
  let realDir: string;
  try {
    realDir = realpathSync(dir);
  } catch {
    realDir = dir;
  }
  if (outside(realDir, real))
    throw new UsageError(
      code,
      `${what}: ${ref} is a symbolic link (or lies under one) that leads outside the folder ${dir}; files are read only from the folder of the file that names them and below`,
    );
  return full;
}
