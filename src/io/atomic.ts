import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { IoError } from '../errors.js';

/**
 * Writes a file atomically: the bytes go to a temporary file beside the target, are flushed to disk,
 * and the temporary file is renamed over the target. A crash or kill at any moment leaves either the old
 * file or the new one, never a half-written one.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await mkdir(dir, { recursive: true });
    const handle = await open(tmp, 'w');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw new IoError('io.write', `cannot write ${path}: ${(error as Error).message}`);
  }
}
