/**
 * `evalkit export hf-evals`: a store's results as the Hugging Face Hub's community-evals files, one folder per model,
 * `OUT/<model>/.eval_results/<task>.yaml`, each a YAML list of entries (see entries.ts for what an entry holds).
 * With model repositories (`--model-repos DIR`, clones laid out as `DIR/<org>/<model>/`), each entry is audited
 * against the entries already there: `ready`, `already_present` (same dataset, task and value), `score_conflict`
 * (same dataset and task, another value: never overwritten); benchmarks without a mapping are `unmapped`. Only
 * `ready` entries are written, appended to the model's file for that task (its own entries untouched, in order).
 * Nothing goes over the network: publishing is the user's `git push`.
 */
import { mkdtemp, readdir, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';
import { DataError, IoError, UsageError } from '../../errors.js';
import { writeFileAtomic } from '../../io/atomic.js';
import type { Store } from '../db.js';
import type { BenchmarkMapping } from './benchmarks.js';
import { hfEntries, hubEntry, type HfEntry, type Unmapped } from './entries.js';
import { kindInClone } from './confine.js';
import { modelIndex } from './model-index.js';
import {
  appendable,
  EVAL_RESULTS,
  existingEntries,
  modelPath,
  parseEvalResults,
  safeName,
  type ExistingEntry,
} from './repos.js';
import { toYaml } from './yaml.js';

export { builtinBenchmarks, builtinRows, readBenchmarks, type BenchmarkMapping } from './benchmarks.js';
export type { HfEntry, Unmapped } from './entries.js';

export type AuditStatus = 'ready' | 'already_present' | 'score_conflict' | 'unmapped' | 'no_clone';

export interface AuditRow {
  model_id: string;
  benchmark: string;
  status: AuditStatus;
  /** The entry (absent for unmapped benchmarks). */
  entry?: HfEntry;
  /** The file the entry goes to, relative to the output folder. */
  file?: string;
  /** The entry already in the model repository (already_present, score_conflict). */
  existing?: { file: string; index: number; value: unknown };
  /** Why a benchmark is unmapped, or why a ready entry has nowhere to go (no_clone). */
  reason?: string;
}

export interface HfExportOptions {
  /** The output folder. */
  out: string;
  table: ReadonlyMap<string, BenchmarkMapping>;
  /** Model repositories to audit against (`DIR/<org>/<model>`). */
  modelRepos?: string;
  models?: string[];
  sourceUrl?: string;
  sourceName?: string;
  /** Audit only, write nothing. */
  dryRun?: boolean;
  /** Also make the legacy model-index block of each model. */
  modelIndex?: boolean;
}

export interface HfExportReport {
  rows: AuditRow[];
  /** Files written (relative to `out`), with the number of entries appended. */
  written: { file: string; entries: number; appended: boolean }[];
  /** model id → its `model-index:` YAML block (with --model-index). */
  model_index?: Record<string, string>;
}

const sameValue = (a: unknown, b: number): boolean =>
  (typeof a === 'number' || (typeof a === 'string' && a.trim() !== '')) && Number(a) === b;

/**
 * Where the audit reads a model's entries from and the export appends them: the output folder's copy of the model
 * first, then its clone under --model-repos (the file appended to is the output's if it has one, else a copy of the
 * clone's): the audit sees exactly the files that will be written.
 */
function clonesOf(model: string, out: string, repos: string | undefined, intoClones: boolean): string[] {
  const folders = [join(out, modelPath(model))];
  if (repos !== undefined && !intoClones) folders.push(join(repos, modelPath(model)));
  return folders;
}

/** Whether OUT is the --model-repos folder itself (the same folder however it is spelled: links, `..`, a slash). */
async function sameFolder(out: string, repos: string | undefined): Promise<boolean> {
  if (repos === undefined) return false;
  const real = (p: string): Promise<string> => realpath(p).catch(() => resolve(p));
  return (await real(out)) === (await real(repos));
}

/** The audit rows of the entries, with their target file names (unique per model: task, else dataset_task). */
async function audit(
  entries: HfEntry[],
  unmapped: Unmapped[],
  out: string,
  repos: string | undefined,
): Promise<AuditRow[]> {
  const intoClones = await sameFolder(out, repos);
  const rows: AuditRow[] = [];
  const byModel = new Map<string, HfEntry[]>();
  for (const e of entries) byModel.set(e.model_id, [...(byModel.get(e.model_id) ?? []), e]);
  for (const [model, list] of byModel) {
    const taskCount = new Map<string, number>();
    for (const e of list) taskCount.set(safeName(e.task_id), (taskCount.get(safeName(e.task_id)) ?? 0) + 1);
    // Writing into the clones themselves (OUT is DIR): a model without a clone gets no folder made for it.
    const noClone =
      repos !== undefined &&
      intoClones &&
      (await kindInClone(join(repos, modelPath(model)), '')) === 'absent';
    const existing: ExistingEntry[] = noClone
      ? []
      : await existingEntries(clonesOf(model, out, repos, intoClones));
    for (const e of list) {
      const name =
        (taskCount.get(safeName(e.task_id)) ?? 0) > 1
          ? safeName(`${e.dataset_id.slice(e.dataset_id.indexOf('/') + 1)}_${e.task_id}`)
          : safeName(e.task_id);
      const file = `${modelPath(model)}/${EVAL_RESULTS}/${name}.yaml`;
      const same = existing.filter(
        (x) => x.dataset_id === e.dataset_id && (x.task_id ?? undefined) === e.task_id,
      );
      const equal = same.find((x) => sameValue(x.value, e.value));
      const row: AuditRow = { model_id: model, benchmark: e.benchmark, status: 'ready', entry: e, file };
      if (noClone)
        ((row.status = 'no_clone'),
          (row.reason = `no clone of the model at ${join(repos!, modelPath(model))}: nothing written (clone it there first)`));
      else if (equal)
        ((row.status = 'already_present'),
          (row.existing = { file: equal.file, index: equal.index, value: equal.value }));
      else if (same.length > 0)
        ((row.status = 'score_conflict'),
          (row.existing = { file: same[0]!.file, index: same[0]!.index, value: same[0]!.value }));
      rows.push(row);
    }
  }
  for (const u of unmapped)
    rows.push({ model_id: u.model_id, benchmark: u.benchmark, status: 'unmapped', reason: u.reason });
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return rows.sort((a, b) => cmp(a.model_id, b.model_id) || cmp(a.benchmark, b.benchmark));
}

/**
 * Refuses models whose ids clean to one folder (`acme/a b` and `acme/a_b`; `模型/x` and `模/x` both `_/x`; ids that
 * differ in case only, one folder on a case-insensitive file system): their entries would be merged into one
 * model's files.
 */
function refuseFolderCollisions(entries: HfEntry[]): void {
  const byFolder = new Map<string, Set<string>>();
  for (const e of entries) {
    const key = modelPath(e.model_id).toLowerCase();
    byFolder.set(key, (byFolder.get(key) ?? new Set()).add(e.model_id));
  }
  for (const ids of byFolder.values())
    if (ids.size > 1) {
      const names = [...ids].sort();
      throw new DataError(
        'hf-evals.folder-collision',
        `the models ${names.map((m) => `"${m}"`).join(' and ')} would be written to one folder (${modelPath(names[0]!)}): their entries would be merged into one model's files; export them one at a time (--model ID) into different folders, or store them under distinct ids (--model-map)`,
      );
    }
}

/**
 * The text of a model's .eval_results file (`<clone>/.eval_results/<name>`), or undefined when it does not exist;
 * found without leaving the clone (kindInClone), and a folder in its place is an error.
 */
async function fileText(path: { clone: string; rel: string }): Promise<string | undefined> {
  const kind = await kindInClone(path.clone, path.rel);
  if (kind === 'absent') return undefined;
  const full = join(path.clone, path.rel);
  if (kind === 'folder')
    throw new IoError(
      'hf-evals.not-a-file',
      `${full} is a folder, not a file: a .eval_results entry file is a YAML list`,
    );
  return readFile(full, 'utf8');
}

/**
 * Appends entries to a file's text (the model repository's file for the task when the output folder has none):
 * the existing text unchanged, the new items after it; the result read back must be the old entries then the new.
 */
async function appendTo(
  target: { clone: string; rel: string },
  fallback: { clone: string; rel: string } | undefined,
  items: ReturnType<typeof hubEntry>[],
): Promise<boolean> {
  const targetPath = join(target.clone, target.rel);
  const before = (await fileText(target)) ?? (fallback === undefined ? undefined : await fileText(fallback));
  let text = toYaml(items);
  let old: unknown[] = [];
  if (before !== undefined && before.trim() !== '') {
    const doc = parseEvalResults(before, targetPath);
    if (!appendable(doc))
      throw new DataError(
        'hf-evals.not-a-list',
        `${targetPath}:1:1: not a block list of entries: cannot append to it`,
      );
    old = (doc.toJS() as unknown[] | null) ?? [];
    text = `${before.endsWith('\n') ? before : `${before}\n`}${text}`;
  }
  const back = parse(text) as unknown[];
  if (!isDeepStrictEqual(back, [...old, ...JSON.parse(JSON.stringify(items))]))
    throw new DataError(
      'hf-evals.append',
      `${targetPath}: the appended file would not read back as its entries then the new ones`,
    );
  await writeFileAtomic(targetPath, text);
  return before !== undefined && before.trim() !== '';
}

async function isEmptyOrAbsent(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length === 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
}

/** Audits the store's entries and writes the ready ones (see the module comment). */
export async function exportHfEvals(store: Store, options: HfExportOptions): Promise<HfExportReport> {
  if (options.modelRepos === undefined && !options.dryRun && !(await isEmptyOrAbsent(options.out)))
    throw new UsageError(
      'usage.output-exists',
      `${options.out} is not empty: export hf-evals writes into a new folder, or into model repositories with --model-repos`,
    );
  const { entries, unmapped } = await hfEntries(store, options);
  refuseFolderCollisions(entries);
  const rows = await audit(entries, unmapped, options.out, options.modelRepos);
  const written: HfExportReport['written'] = [];
  if (!options.dryRun) {
    const byFile = new Map<string, AuditRow[]>();
    for (const r of rows) if (r.status === 'ready') byFile.set(r.file!, [...(byFile.get(r.file!) ?? []), r]);
    for (const [file, list] of [...byFile].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const model = modelPath(list[0]!.model_id);
      const rel = file.slice(model.length + 1);
      const appended = await appendTo(
        { clone: join(options.out, model), rel },
        options.modelRepos === undefined ? undefined : { clone: join(options.modelRepos, model), rel },
        list.map((r) => hubEntry(r.entry!)),
      );
      written.push({ file, entries: list.length, appended });
    }
  }
  const report: HfExportReport = { rows, written };
  if (options.modelIndex) report.model_index = modelIndex(entries);
  return report;
}

/**
 * A store over EEE records (files or folders): they are ingested into a temporary store, validated as `ingest`
 * validates them, which is removed afterwards. An input that is not stored (invalid) is a DataError.
 */
export async function withRecordsStore<T>(
  paths: string[],
  cwd: string,
  f: (store: Store) => Promise<T>,
): Promise<T> {
  const { openStore } = await import('../db.js');
  const { ingestPaths } = await import('../ingest.js');
  const dir = await mkdtemp(join(tmpdir(), 'evalkit-hf-evals-'));
  try {
    const store = await openStore(join(dir, 'records.duckdb'), { readOnly: false });
    try {
      const result = await ingestPaths(store, paths, { cwd });
      const errors = result.diagnostics.filter((d) => d.severity === 'error');
      if (result.summary.rejected > 0 || errors.length > 0)
        throw new DataError(
          'hf-evals.invalid-records',
          `records not valid: ${errors
            .slice(0, 5)
            .map((d) => `${d.file}:${d.line}:${d.column} ${d.code} ${d.message}`)
            .join('; ')}`,
        );
      return await f(store);
    } finally {
      store.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
