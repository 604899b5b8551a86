/**
 * What a path is, in words a user understands ("a named pipe (FIFO)", "a character device"), and the one way the
 * project turns a failed stat/open/read into an IoError that says so (not "no such file" for a FIFO or EACCES).
 */
import type { Stats } from 'node:fs';
import { IoError } from '../errors.js';

export function describeFileKind(info: Stats): string {
  if (info.isFile()) return 'a regular file';
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a named pipe (FIFO)';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSocket()) return 'a socket';
  if (info.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/** An IoError for a system error met while reading `shown` (the path as the user typed it). */
export function readError(shown: string, error: unknown): IoError {
  if (error instanceof IoError) return error;
  const code = (error as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ENOENT':
      return new IoError('io.not-found', `no such file: ${shown}`);
    case 'EACCES':
    case 'EPERM':
      return new IoError('io.permission', `cannot read ${shown}: permission denied`);
    case 'EISDIR':
      return new IoError('io.not-regular', `cannot read ${shown}: it is a directory, not a file`);
    case 'ENOTDIR':
      return new IoError(
        'io.not-found',
        `no such file: ${shown} (a part of the path is a file, not a folder)`,
      );
    case 'ELOOP':
      return new IoError('io.symlink-loop', `cannot read ${shown}: too many levels of symbolic links`);
    default:
      return new IoError('io.read', `cannot read ${shown}: ${(error as Error)?.message ?? String(error)}`);
  }
}
