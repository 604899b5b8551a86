/**
 * Model repositories on disk (`DIR/<org>/<model>/.eval_results/*.yaml`, clones of Hub model repos): the entries
 * already there, read with a YAML 1.2 parser, and the safe folder and file names evalkit writes under.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseDocument, isSeq, type Document } from 'yaml';
import { DataError, IoError } from '../../errors.js';
import { kindInClone } from './confine.js';

/** A name safe as a file or folder on every platform: [A-Za-z0-9._-] only, no dot-only or reserved name. */
export function safeName(name: string): string {
  let s = name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/[. ]+$/, (m) => '_'.repeat(m.length));
  if (s === '' || /^\.+$/.test(s)) s = `_${s}`;
  if (/^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i.test(s)) s = `_${s}`;
  return s;
}

/** The folder of a model id under a root: one safe component per part of `org/name`. */
export function modelPath(modelId: string): string {
  return modelId.split('/').map(safeName).join('/');
}

export const EVAL_RESULTS = '.eval_results';

/** An entry found in a model repository. */
export interface ExistingEntry {
  dataset_id: string;
  task_id?: string;
  value: unknown;
  /** The file (relative to the model folder) and the entry's position in it. */
  file: string;
  index: number;
}

/** A parsed `.eval_results` file; a syntax error is a DataError with file:line:col and `hf-evals.bad-yaml`. */
export function parseEvalResults(text: string, file: string): Document {
  const doc = parseDocument(text, { prettyErrors: true });
  const error = doc.errors[0];
  if (error) {
    const at = error.linePos?.[0];
    throw new DataError(
      'hf-evals.bad-yaml',
      `${file}:${at ? `${at.line}:${at.col}` : '1:1'}: ${error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`,
    );
  }
  return doc;
}

/** Whether more entries can be appended to the file's text as block sequence items (an empty file, or a block list). */
export function appendable(doc: Document): boolean {
  return doc.contents === null || (isSeq(doc.contents) && !doc.contents.flow);
}

/**
 * The entries under `<clone>/.eval_results/` (every .yaml / .yml file, in name order); none when there is no folder.
 * With several clones (the output folder first, then the model repository) a file name found in an earlier one
 * hides the same name in a later one: the entries are those of the files the export will append to. Nothing is read
 * outside a clone (kindInClone: a link out, a dangling link, a folder named .yaml, a file named .eval_results are
 * errors naming the path).
 */
export async function existingEntries(clones: readonly string[]): Promise<ExistingEntry[]> {
  const files = new Map<string, string>();
  for (const clone of clones) {
    const kind = await kindInClone(clone, EVAL_RESULTS);
    if (kind === 'absent') continue;
    if (kind === 'file')
      throw new IoError(
        'hf-evals.not-a-folder',
        `${join(clone, EVAL_RESULTS)} is a file, not a folder: a model repository keeps its entries in the folder ${EVAL_RESULTS}/`,
      );
    for (const name of (await readdir(join(clone, EVAL_RESULTS))).filter((n) => /\.ya?ml$/i.test(n)).sort()) {
      if (files.has(name)) continue;
      const kind = await kindInClone(clone, `${EVAL_RESULTS}/${name}`);
      if (kind === 'folder')
        throw new IoError(
          'hf-evals.not-a-file',
          `${join(clone, EVAL_RESULTS, name)} is a folder, not a file: a .eval_results entry file is a YAML list`,
        );
      if (kind === 'file') files.set(name, join(clone, EVAL_RESULTS, name));
    }
  }
  const out: ExistingEntry[] = [];
  for (const name of [...files.keys()].sort()) {
    const file = files.get(name)!;
    const value: unknown = parseEvalResults(await readFile(file, 'utf8'), file).toJS();
    if (value === null || value === undefined) continue;
    if (!Array.isArray(value))
      throw new DataError(
        'hf-evals.not-a-list',
        `${file}:1:1: a .eval_results file is a YAML list of entries`,
      );
    value.forEach((e, index) => {
      const dataset =
        typeof e === 'object' && e !== null ? (e as Record<string, unknown>).dataset : undefined;
      if (typeof dataset !== 'object' || dataset === null) return;
      const d = dataset as Record<string, unknown>;
      if (typeof d.id !== 'string') return;
      out.push({
        dataset_id: d.id,
        ...(typeof d.task_id === 'string' ? { task_id: d.task_id } : {}),
        value: (e as Record<string, unknown>).value,
        file: `${EVAL_RESULTS}/${name}`,
        index,
      });
    });
  }
  return out;
}
