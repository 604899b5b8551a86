/**
 * Inputs are regular files. A FIFO, a device (/dev/zero), a socket or a directory given where a file is read would
 * hang or grow memory without end, so every file input goes through here first: refused with what the path is.
 * Opening uses O_NONBLOCK so that even opening a FIFO with no writer returns at once, and the check is made on the
 * opened descriptor (no window between the check and the read).
 */
import { closeSync, constants, createReadStream, fstatSync, openSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { IoError } from '../errors.js';
import { describeFileKind, readError } from './file-kind.js';

function notRegular(shown: string, kind: string): IoError {
  return new IoError('io.not-regular', `cannot read ${shown}: it is ${kind}, not a regular file`);
}

/** Throws an IoError unless `path` (symlinks followed) is a readable regular file. `shown` names it in messages. */
export async function assertRegularFile(path: string, shown: string = path): Promise<void> {
  const info = await stat(path).catch((e: unknown) => {
    throw readError(shown, e);
  });
  if (!info.isFile()) throw notRegular(shown, describeFileKind(info));
}

/** The same check, synchronously (for code paths that read synchronously). */
export function assertRegularFileSync(path: string, shown: string = path): void {
  let info;
  try {
    info = statSync(path);
  } catch (e) {
    throw readError(shown, e);
  }
  if (!info.isFile()) throw notRegular(shown, describeFileKind(info));
}

/** Opens a regular file for reading; refuses anything else without blocking on it. The caller closes the handle. */
export async function openRegularFile(path: string, shown: string = path): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw readError(shown, e);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notRegular(shown, describeFileKind(info));
    return handle;
  } catch (e) {
    await handle.close().catch(() => undefined);
    throw readError(shown, e);
  }
}

export interface ReadOptions {
  /** Refuse a file larger than this many bytes (an IoError naming the size), instead of reading it into memory. */
  maxBytes?: number;
}

/** Reads a whole regular file (refusing FIFOs, devices, directories; optionally capped in size). */
export async function readRegularFile(
  path: string,
  shown: string = path,
  options: ReadOptions = {},
): Promise<Buffer> {
  const handle = await openRegularFile(path, shown);
  try {
    if (options.maxBytes !== undefined) {
      const { size } = await handle.stat();
      if (size > options.maxBytes)
        throw new IoError(
          'io.too-large',
          `cannot read ${shown}: it holds ${size} bytes, more than the ${options.maxBytes} allowed`,
        );
    }
    return await handle.readFile();
  } catch (e) {
    throw readError(shown, e);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * createReadStream for a regular file only: the file is opened (without blocking) and checked at once; for
 * anything else the stream fails with the IoError on its first read, the way a missing file would.
 */
export function createRegularReadStream(
  path: string,
  options: { start?: number; end?: number; highWaterMark?: number; encoding?: BufferEncoding } = {},
  shown: string = path,
): Readable {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const info = fstatSync(fd);
    if (!info.isFile()) throw notRegular(shown, describeFileKind(info));
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    const failing = new Readable({ read() {} });
    process.nextTick(() => failing.destroy(readError(shown, error)));
    return failing;
  }
  return createReadStream(path, { ...options, fd });
}
