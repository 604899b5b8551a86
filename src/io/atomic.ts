import { chmod, open, rename, rm } from 'node:fs/promises';
import { prepareOutput, writeError } from './output-target.js';
import { pauseForTest } from './test-pause.js';

/** Test hook (docs/testing.md): the N-th file written whole but not yet renamed into place pauses for a kill. */
export const PAUSE_BEFORE_RENAME = 'EVALKIT_TEST_PAUSE_BEFORE_RENAME';

/**
 * Writes a file atomically: the bytes go to a temporary file beside the target, are flushed to disk,
 * and the temporary file is renamed over the target. A crash or kill at any moment leaves either the old
 * file or the new one, never a half-written one. A symlink is written through (its target is replaced, the link
 * stays), the replaced file's permission bits are kept, and temporaries of dead processes in the folder are
 * removed (see output-target.ts).
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const { target, tmp, mode } = await prepareOutput(path);
  try {
    const handle = await open(tmp, 'w', mode ?? 0o666);
    try {
      await handle.writeFile(data);
      if (mode !== undefined) await chmod(tmp, mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await pauseForTest(PAUSE_BEFORE_RENAME, `before-rename ${tmp}`);
    await rename(tmp, target);
  } catch (error) {
    await rm(tmp, { force: true });
    throw writeError(path, error);
  }
}
