/**
 * Where `view --export DIR` writes, and what it may replace there.
 *
 * The site is built in a sibling folder `.DIR.evalkit-new-<pid>-<random>` and swapped in when complete, so a run
 * that is killed leaves the earlier site (or none) as it was. An export ends by writing `DIR/.evalkit-export.json`:
 * every file it wrote, with its SHA-256. Only a folder holding exactly such an export (each listed file unchanged,
 * nothing else) is replaced; an empty folder is filled; any other folder is refused, and nothing in it is touched.
 *
 * The swap is two renames (DIR aside to `.DIR.evalkit-old-<pid>-<random>`, the new site to DIR), then the listed
 * files of the earlier site are removed. If the process dies between the renames, the next export puts the earlier
 * site back first; folders of runs that are gone (pid no longer alive) are swept, by their listed files.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, rmdir, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { IoError, UsageError } from '../errors.js';
import { isLeftover, removeOnExit, temporaryName, type RemovedOnExit } from '../io/remove-on-exit.js';

export const EXPORT_MARKER = '.evalkit-export.json';
const GENERATOR = 'evalkit view --export';

export interface ExportMarker {
  generator: typeof GENERATOR;
  version: 1;
  /** Every file the export wrote (paths relative to the folder, with `/`), with the SHA-256 of its bytes. */
  files: Record<string, string>;
}

const sha256 = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

/** The files under `dir` (relative, `/`-separated), with symbolic links and other non-files named as such. */
async function listTree(dir: string): Promise<{ files: string[]; others: string[] }> {
  const files: string[] = [];
  const others: string[] = [];
  const walk = async (folder: string) => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      const rel = relative(dir, path).split(sep).join('/');
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) files.push(rel);
      else others.push(rel);
    }
  };
  await walk(dir);
  return { files, others };
}

async function readMarker(dir: string): Promise<ExportMarker | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, EXPORT_MARKER), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const marker = JSON.parse(text) as ExportMarker;
    if (marker.generator !== GENERATOR || typeof marker.files !== 'object' || marker.files === null)
      return undefined;
    return marker;
  } catch {
    return undefined;
  }
}

/** The files of `dir` that the marker does not account for: not listed, changed since, or not regular files. */
async function foreignFiles(dir: string, marker: ExportMarker): Promise<string[]> {
  const { files, others } = await listTree(dir);
  const foreign = [...others];
  for (const file of files) {
    if (file === EXPORT_MARKER) continue;
    const hash = marker.files[file];
    if (hash === undefined || sha256(await readFile(join(dir, file))) !== hash) foreign.push(file);
  }
  return foreign;
}

/** Removes the files the marker lists that are unchanged, then the marker and the folders left empty. */
async function removeExport(dir: string, marker: ExportMarker): Promise<void> {
  for (const [file, hash] of Object.entries(marker.files)) {
    const path = join(dir, ...file.split('/'));
    if (file.split('/').some((part) => part === '..' || part === '')) continue;
    try {
      if (lstatSync(path).isFile() && sha256(await readFile(path)) === hash) await unlink(path);
    } catch {
      // already gone
    }
  }
  await unlink(join(dir, EXPORT_MARKER)).catch(() => undefined);
  const prune = async (folder: string): Promise<boolean> => {
    let empty = true;
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      if (entry.isDirectory() && (await prune(join(folder, entry.name)))) continue;
      empty = false;
    }
    if (empty) await rmdir(folder);
    return empty;
  };
  await prune(dir).catch(() => undefined);
}

type Previous = { kind: 'absent' } | { kind: 'empty' } | { kind: 'export'; marker: ExportMarker };

function refuse(dir: string, why: string): never {
  throw new UsageError(
    'view.export-target',
    `${dir} ${why}: evalkit replaces a folder only when it holds an earlier export and nothing else (it lists its files in ${EXPORT_MARKER}); choose a new or empty folder`,
  );
}

async function previousExport(dir: string): Promise<Previous> {
  if (!existsSync(dir)) return { kind: 'absent' };
  if (!lstatSync(dir).isDirectory()) refuse(dir, 'is not a folder');
  const entries = await readdir(dir);
  if (entries.length === 0) return { kind: 'empty' };
  const marker = await readMarker(dir);
  if (!marker) refuse(dir, 'is not empty and holds no earlier export');
  const foreign = await foreignFiles(dir, marker);
  if (foreign.length > 0) {
    const shown =
      foreign.slice(0, 3).join(', ') + (foreign.length > 3 ? `, … (${foreign.length} in all)` : '');
    refuse(dir, `holds files the earlier export did not write or that changed since (${shown})`);
  }
  return { kind: 'export', marker };
}

/** Puts back an earlier site whose swap was cut short, and sweeps the folders of export runs that are gone. */
async function recover(dir: string): Promise<void> {
  const parent = dirname(dir);
  const base = basename(dir);
  const oldPrefix = `.${base}.evalkit-old-`;
  const newPrefix = `.${base}.evalkit-new-`;
  for (const name of await readdir(parent).catch(() => [] as string[])) {
    const path = join(parent, name);
    if (isLeftover(name, oldPrefix)) {
      if (!existsSync(dir)) {
        await rename(path, dir);
        continue;
      }
      const marker = await readMarker(path);
      if (marker) await removeExport(path, marker);
    } else if (isLeftover(name, newPrefix)) {
      await rm(path, { recursive: true, force: true });
    }
  }
}

export interface SiteBuilder {
  /** The folder the site is being built in (swapped to the target by `commit`). */
  readonly staging: string;
  write(relative: string, data: string | Uint8Array): Promise<void>;
  /** Writes the marker and swaps the new site in. */
  commit(): Promise<void>;
  /** Removes what was built; the target stays as it was. */
  abort(): Promise<void>;
}

/**
 * Checks the target (refusing a folder that is not empty and not an earlier export) and starts a site beside it.
 * `dir` is resolved through symbolic links first.
 */
export async function beginSite(target: string): Promise<SiteBuilder> {
  let dir = target;
  try {
    dir = realpathSync(target);
  } catch {
    // new
  }
  const parent = dirname(dir);
  await mkdir(parent, { recursive: true }).catch((error: Error) => {
    throw new IoError('view.export-target', `cannot create ${parent}: ${error.message}`);
  });
  await recover(dir);
  const previous = await previousExport(dir);
  const staging = join(parent, temporaryName(`.${basename(dir)}.evalkit-new-`));
  await mkdir(staging).catch((error: Error) => {
    throw new IoError('view.export-target', `cannot write beside ${dir}: ${error.message}`);
  });
  const cleanup: RemovedOnExit = removeOnExit(staging);
  const files: Record<string, string> = {};
  const made = new Set<string>([staging]);

  return {
    staging,
    async write(rel, data) {
      const path = join(staging, ...rel.split('/'));
      const folder = dirname(path);
      if (!made.has(folder)) {
        await mkdir(folder, { recursive: true });
        made.add(folder);
      }
      await writeFile(path, data);
      files[rel] = sha256(data);
    },
    async commit() {
      const marker: ExportMarker = { generator: GENERATOR, version: 1, files };
      await writeFile(join(staging, EXPORT_MARKER), `${JSON.stringify(marker, null, 1)}\n`);
      if (previous.kind === 'export') {
        const aside = join(parent, temporaryName(`.${basename(dir)}.evalkit-old-`));
        await rename(dir, aside);
        await rename(staging, dir);
        cleanup.keep();
        await removeExport(aside, previous.marker);
        return;
      }
      if (previous.kind === 'empty') await rmdir(dir);
      await rename(staging, dir);
      cleanup.keep();
    },
    async abort() {
      cleanup.remove();
    },
  };
}
