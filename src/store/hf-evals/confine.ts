/**
 * What is at a path inside a model's clone (`<root>/<org>/<model>/…`), found without ever leaving the clone: a
 * cloned repository may hold symbolic links (`.eval_results/gsm8k.yaml → /home/me/.bashrc`, `.eval_results → /etc`),
 * and export hf-evals reads and appends to the files there. A link is followed only while it resolves inside the
 * clone's folder; one that leads out of it, or nowhere, is an error naming it, as is a folder where a file belongs
 * and a file where a folder belongs (never `EISDIR`/`ENOTDIR`/`ENOENT` half-way through a write).
 */
import { lstat, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { describeFileKind } from '../../io/file-kind.js';
import { IoError } from '../../errors.js';

export type CloneEntryKind = 'absent' | 'file' | 'folder';

const errnoOf = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;

/** Whether `path` is `base` or lies below it. */
const inside = (base: string, path: string): boolean => {
  const rel = relative(base, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * The kind of what is at `rel` ('/'-separated, below the clone folder `clone`): absent, a regular file or a folder.
 * Every step of the way is checked: a link must resolve inside the clone (else `hf-evals.link-outside`, or
 * `hf-evals.dangling-link`), a step before the last must be a folder (`hf-evals.not-a-folder`), and the last may not
 * be another kind of file (`hf-evals.not-a-file`). An absent clone folder makes everything absent.
 */
export async function kindInClone(clone: string, rel: string): Promise<CloneEntryKind> {
  let base: string;
  try {
    base = await realpath(clone);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT' || errnoOf(error) === 'ENOTDIR') return 'absent';
    throw error;
  }
  const top = await stat(base);
  if (!top.isDirectory())
    throw new IoError(
      'hf-evals.not-a-folder',
      `${clone} is ${describeFileKind(top)}, not a folder: a model's clone is a folder (DIR/<org>/<model>/)`,
    );
  const parts = rel.split('/').filter((p) => p !== '');
  let path = clone;
  for (const [i, part] of parts.entries()) {
    path = join(path, part);
    const last = i === parts.length - 1;
    let info;
    try {
      info = await lstat(path);
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') return 'absent';
      throw error;
    }
    if (info.isSymbolicLink()) {
      let resolved: string;
      try {
        resolved = await realpath(path);
      } catch (error) {
        if (errnoOf(error) === 'ENOENT' || errnoOf(error) === 'ELOOP')
          throw new IoError(
            'hf-evals.dangling-link',
            `${path} is a symbolic link that leads nowhere: export hf-evals reads and writes only real files inside the model's clone ${clone}`,
          );
        throw error;
      }
      if (!inside(base, resolved))
        throw new IoError(
          'hf-evals.link-outside',
          `${path} is a symbolic link to ${resolved}, outside the model's clone ${clone}: export hf-evals never follows a link out of the clone (replace the link with the file itself)`,
        );
      info = await stat(path);
    }
    if (!last && !info.isDirectory())
      throw new IoError(
        'hf-evals.not-a-folder',
        `${path} is ${describeFileKind(info)}, not a folder: the model's ${parts.slice(0, i + 1).join('/')} must be a folder of .yaml files`,
      );
    if (last) {
      if (info.isDirectory()) return 'folder';
      if (info.isFile()) return 'file';
      throw new IoError('hf-evals.not-a-file', `${path} is ${describeFileKind(info)}, not a regular file`);
    }
  }
  return 'folder';
}
