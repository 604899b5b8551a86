/**
 * Where an output file really goes, checked before anything is written; shared by every atomic writer
 * (writeFileAtomic, the η writer):
 * - a symlink is written through: the file it points to is replaced, the link stays a link;
 * - an existing file's permission bits are kept (a 0600 file stays 0600);
 * - an existing directory, FIFO or device, or a parent path that is a file, is a clear IoError;
 * - the first time a process writes into a folder, temporaries `.NAME.PID.HEX.tmp` left there by processes that
 *   are gone (kill -9 during a write) are removed.
 */
import { randomBytes } from 'node:crypto';
import { lstatSync, statSync } from 'node:fs';
import { mkdir, readdir, realpath, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { IoError } from '../errors.js';
import { describeFileKind } from './file-kind.js';
import { isProcessAlive } from './process-alive.js';

export interface OutputTarget {
  /** The file that is replaced (the symlink's target when `path` is a symlink). */
  target: string;
  /** The temporary file to write, beside the target. */
  tmp: string;
  /** Permission bits of the file being replaced; undefined for a new file (the umask decides). */
  mode: number | undefined;
}

const TEMP_NAME = /^\.(.+)\.(\d+)\.[0-9a-f]{12}\.tmp$/;
const swept = new Set<string>();

/** The temporary name for a target: `.NAME.PID.HEX.tmp` beside it. */
export function tempPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

/** Removes temporaries of dead processes from `dir`, once per process and folder. Returns the names removed. */
export async function sweepStaleTemporaries(dir: string): Promise<string[]> {
  const key = resolve(dir);
  if (swept.has(key)) return [];
  swept.add(key);
  const removed: string[] = [];
  const names = await readdir(key).catch(() => [] as string[]);
  for (const name of names) {
    const m = TEMP_NAME.exec(name);
    if (!m || isProcessAlive(Number(m[2]))) continue;
    const path = join(key, name);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) continue;
    await rm(path, { force: true });
    removed.push(name);
  }
  return removed;
}

/**
 * The first ancestor of `abs` that exists and is not a directory (a symbolic link followed: one to a folder is a
 * folder, one to a file or to nothing blocks), said as the error's sentence; undefined if none.
 */
function fileInPath(abs: string): string | undefined {
  for (let p = dirname(abs); p !== dirname(p); p = dirname(p)) {
    const link = lstatSafe(p);
    if (link === undefined) continue; // does not exist yet: look further up
    if (!link.isSymbolicLink()) return link.isDirectory() ? undefined : `${p} is a file, not a folder`;
    let info: ReturnType<typeof statSync>;
    try {
      info = statSync(p);
    } catch {
      return `${p} is a symbolic link to a folder that cannot be reached`;
    }
    return info.isDirectory()
      ? undefined
      : `${p} is a symbolic link to ${describeFileKind(info)}, not a folder`;
  }
  return undefined;
}

/**
 * Checks, without writing anything, that `path` can be an output file: not an existing directory, FIFO or device,
 * no file where a folder of its path should be, not a dangling symlink. Commands call it for every output before
 * any work is paid for (a run's requests), so that a bad -o / --log / --record fails at once.
 */
export function checkOutputFile(path: string, shown: string = path): void {
  const abs = resolve(path);
  const link = lstatSafe(abs);
  if (link) {
    let info: ReturnType<typeof lstatSync>;
    try {
      info = statSync(abs);
    } catch {
      throw new IoError(
        'io.dangling-symlink',
        `cannot write ${shown}: it is a symbolic link to a file that cannot be reached; remove the link or create its target`,
      );
    }
    if (!info.isFile())
      throw new IoError(
        info.isDirectory() ? 'io.is-directory' : 'io.not-regular',
        `cannot write ${shown}: it is ${describeFileKind(info)}; give a file path`,
      );
    return;
  }
  const blocker = fileInPath(abs);
  if (blocker) throw new IoError('io.parent-not-directory', `cannot write ${shown}: ${blocker}`);
}

/** The same for an output folder (files are written under it): it must be a folder or not exist yet. */
export function checkOutputFolder(path: string, shown: string = path): void {
  const abs = resolve(path);
  let info: ReturnType<typeof lstatSync> | undefined;
  try {
    info = statSync(abs);
  } catch {
    info = undefined;
  }
  // A link to nothing: no folder can be made there (mkdir finds the link, and the write fails after all the work).
  if (!info && lstatSafe(abs)?.isSymbolicLink())
    throw new IoError(
      'io.dangling-symlink',
      `cannot write under ${shown}: it is a symbolic link to a folder that cannot be reached; remove the link or create its target`,
    );
  if (info && !info.isDirectory())
    throw new IoError(
      'io.not-directory',
      `cannot write under ${shown}: it is ${describeFileKind(info)}, not a folder`,
    );
  if (!info) {
    const blocker = fileInPath(abs);
    if (blocker) throw new IoError('io.parent-not-directory', `cannot write under ${shown}: ${blocker}`);
  }
}

/** Checks `path` as an output, creates its folder, sweeps stale temporaries, and says where to write. */
export async function prepareOutput(path: string): Promise<OutputTarget> {
  let target = resolve(path);
  let mode: number | undefined;
  const link = lstatSafe(target);
  if (link?.isSymbolicLink()) {
    try {
      target = await realpath(target);
    } catch {
      throw new IoError(
        'io.dangling-symlink',
        `cannot write ${path}: it is a symbolic link to a file that cannot be reached; remove the link or create its target`,
      );
    }
  }
  const info = link ? await stat(target).catch(() => undefined) : undefined;
  if (info) {
    if (!info.isFile())
      throw new IoError(
        info.isDirectory() ? 'io.is-directory' : 'io.not-regular',
        `cannot write ${path}: it is ${describeFileKind(info)}; give a file path`,
      );
    mode = info.mode & 0o7777;
  }
  const dir = dirname(target);
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const blocker = code === 'ENOTDIR' || code === 'EEXIST' ? fileInPath(target) : undefined;
    if (blocker) throw new IoError('io.parent-not-directory', `cannot write ${path}: ${blocker}`);
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
      throw new IoError('io.permission', `cannot write ${path}: cannot create the folder ${dir} (${code})`);
    throw new IoError('io.write', `cannot write ${path}: ${(error as Error).message}`);
  }
  await sweepStaleTemporaries(dir);
  return { target, tmp: tempPathFor(target), mode };
}

function lstatSafe(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** The IoError for a failed write of `path` (permission and full-disk cases said plainly). */
export function writeError(path: string, error: unknown): IoError {
  if (error instanceof IoError) return error;
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'EACCES' || code === 'EPERM')
    return new IoError('io.permission', `cannot write ${path}: permission denied`);
  if (code === 'ENOSPC')
    return new IoError('io.disk-full', `cannot write ${path}: no space left on the device`);
  if (code === 'EISDIR') return new IoError('io.is-directory', `cannot write ${path}: it is a directory`);
  return new IoError('io.write', `cannot write ${path}: ${(error as Error)?.message ?? String(error)}`);
}
