/**
 * The check every command that writes makes before it does any work: no output is one of its inputs (or another
 * output), every output file can be written (not a directory, FIFO or device, no file in its folder path), and
 * every output folder is a folder or can be created. Convert, ingest, view and the commands all call this one.
 */
import { resolve } from 'node:path';
import { assertOutputsNotInputs } from './output-is-input.js';
import { checkOutputFile, checkOutputFolder } from './output-target.js';

export interface OutputPlan {
  /** Files the command reads (undefined entries and "-" are ignored). */
  inputs: readonly (string | undefined)[];
  /** Files it writes. */
  files?: readonly (string | undefined)[];
  /** Folders it writes files under. */
  folders?: readonly (string | undefined)[];
  /** Base of relative paths (the CLI's cwd). */
  cwd?: string;
}

const given = (p: string | undefined): p is string => typeof p === 'string' && p !== '' && p !== '-';

/** Throws UsageError (output is an input) or IoError (an output that cannot be written) before any work. */
export function checkOutputs(plan: OutputPlan): void {
  const cwd = plan.cwd ?? process.cwd();
  const files = (plan.files ?? []).filter(given);
  assertOutputsNotInputs(plan.inputs, [...files, ...(plan.folders ?? []).filter(given)], cwd);
  for (const f of files) checkOutputFile(resolve(cwd, f), f);
  for (const d of (plan.folders ?? []).filter(given)) checkOutputFolder(resolve(cwd, d), d);
}
