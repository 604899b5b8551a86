/**
 * Carries out a migration plan (plan.ts): refuses it whole when an output would land on an input or outside its
 * folder, then writes every output atomically and, in place, removes the files that moved and the folders they
 * left empty. With `dryRun` it only reports.
 */
import { readdir, rm, rmdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { IoError } from '../errors.js';
import { writeFileAtomic } from '../io/atomic.js';
import { assertOutputsNotInputs } from '../io/output-is-input.js';
import { displayPath, inside, type MigrationPlan } from './plan.js';
import type { FileStatus, MigrateOptions, MigrateResult } from './types.js';

export async function applyMigrationPlan(
  plan: MigrationPlan,
  options: Pick<MigrateOptions, 'dryRun' | 'onProgress'> = {},
): Promise<MigrateResult> {
  const { cwd, outDir, files: planned } = plan;
  // With -o, no output may land on an input (e.g. -o pointing at the folder being migrated).
  if (outDir)
    assertOutputsNotInputs(
      plan.inputs.map((abs) => displayPath(abs, cwd)),
      planned.flatMap((p) => p.writes.map((w) => displayPath(w.dest, cwd))),
      cwd,
    );
  // Safety: nothing outside the output folder (or, in place, outside each input's tree).
  for (const p of planned)
    for (const w of p.writes) {
      if (!inside(w.dest, w.root))
        throw new IoError('io.write', `refusing to write ${w.dest}: it lies outside ${w.root}`);
    }
  const total = planned.reduce((n, p) => n + p.writes.length, 0);
  let done = 0;
  for (const p of planned)
    for (const w of p.writes) {
      if (!options.dryRun) {
        await writeFileAtomic(w.dest, w.bytes);
        if (w.removeAfter && resolve(w.removeAfter) !== resolve(w.dest)) {
          await rm(w.removeAfter, { force: true });
          await removeEmptyFolders(dirname(w.removeAfter), w.root);
        }
      }
      options.onProgress?.({ done: ++done, total, file: displayPath(w.dest, cwd) });
    }
  const files = planned.map((p) => p.report);
  const summary: Record<FileStatus, number> = { migrated: 0, current: 0, failed: 0, skipped: 0 };
  for (const f of files) summary[f.status]++;
  return { files, summary };
}

/** Removes `dir` and its parents while they are empty, never `root` or anything above it. */
async function removeEmptyFolders(dir: string, root: string): Promise<void> {
  while (inside(dir, root) && resolve(dir) !== resolve(root)) {
    const entries = await readdir(dir).catch(() => ['?']);
    if (entries.length > 0) return;
    if (
      !(await rmdir(dir).then(
        () => true,
        () => false,
      ))
    )
      return;
    dir = dirname(dir);
  }
}
