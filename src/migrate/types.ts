// What `evalkit migrate` takes and what it reports, shared by the plan, its application and the CLI.
import type { MigrationNote } from '../formats/eee/migrate.js';

export const MIGRATION_TARGETS: Record<string, string> = {
  'eee.aggregate': '0.3.0',
  'eee.instance': '0.3.0',
  'bench.output': 'v1',
};

export interface MigrateOptions {
  /** Target version: "0.3.0" (EEE) or "v1" (benchmark output); default the current one of each family. */
  to?: string;
  /** Write the migrated files under this folder (keeping their paths relative to the inputs). */
  outDir?: string;
  /** Replace the input files. */
  inPlace?: boolean;
  /** Only report what would be done. */
  dryRun?: boolean;
  /** Called after each output file is written (or planned, in a dry run). */
  onProgress?: (p: { done: number; total: number; file: string }) => void;
  /** Move files to the canonical layout: data/<collection>/<developer>/<model>/<uuid4>.json, outputs/<benchmark>/<run_id>.json. */
  layout?: boolean;
  cwd?: string;
}

/** What a file is: a type migrate converts, another known document type (left alone), or unknown. */
export type FileKind = 'eee.aggregate' | 'eee.instance' | 'bench.output' | 'unknown' | `${string}.${string}`;
export type FileStatus = 'migrated' | 'current' | 'failed' | 'skipped';

export interface FileReport {
  /** The input as the user would name it (relative to cwd when below it). */
  input: string;
  /** Where the result was (or, with dryRun, would be) written; absent when nothing is written. */
  output?: string;
  kind: FileKind;
  from?: string;
  to?: string;
  status: FileStatus;
  /** Everything changed, inferred, moved or kept aside as unmapped. */
  notes: MigrationNote[];
  /** Why the file could not be migrated (status "failed"). */
  problems: string[];
}

export interface MigrateResult {
  files: FileReport[];
  summary: Record<FileStatus, number>;
}
