/**
 * `evalkit migrate` without the CLI: finds the files, migrates each (EEE aggregates with their samples files,
 * EEE instance files, legacy benchmark outputs), optionally moves them into their canonical layout, and writes
 * every output atomically. Returns one report per file; never writes outside the output folder (or, in place,
 * outside the input's own tree). The options are checked first, then a plan is made (plan.ts), then applied
 * (apply.ts).
 */
import { resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { applyMigrationPlan } from './apply.js';
import { collectInputs, diskFiles } from './inputs.js';
import { planMigration } from './plan.js';
import { MIGRATION_TARGETS, type MigrateOptions, type MigrateResult } from './types.js';

export * from './types.js';
export { claimingTypes, contentUuid4, planMigration } from './plan.js';
export type {
  Input,
  MigrationFiles,
  MigrationPlan,
  MigrationWrite,
  PlannedFile,
  PlanOptions,
} from './plan.js';
export { applyMigrationPlan } from './apply.js';
export { collectInputs, diskFiles } from './inputs.js';

/** The options as one place checks them: usage errors before anything is read. */
export function checkMigrateOptions(paths: string[], options: MigrateOptions): void {
  if (paths.length === 0) throw new UsageError('usage.no-paths', 'no files given to migrate');
  const modes = [options.outDir !== undefined, options.inPlace === true].filter(Boolean).length;
  if (modes > 1)
    throw new UsageError('usage.migrate-mode', 'choose one place to write: an output folder or in place');
  if (modes === 0 && !options.dryRun)
    throw new UsageError(
      'usage.migrate-mode',
      'say where to write (an output folder or in place), or ask for a dry run that only reports',
    );
  if (options.to !== undefined && !Object.values(MIGRATION_TARGETS).includes(options.to))
    throw new UsageError(
      'usage.migrate-to',
      `target ${JSON.stringify(options.to)}: evalkit migrates to EEE 0.3.0 or benchmark output v1`,
    );
}

export async function migratePaths(paths: string[], options: MigrateOptions = {}): Promise<MigrateResult> {
  const cwd = options.cwd ?? process.cwd();
  checkMigrateOptions(paths, options);
  const outDir = options.outDir !== undefined ? resolve(cwd, options.outDir) : undefined;
  const inputs = await collectInputs(paths, cwd);
  const plan = await planMigration(inputs, diskFiles(cwd), { ...options, cwd, outDir });
  return applyMigrationPlan(plan, options);
}
