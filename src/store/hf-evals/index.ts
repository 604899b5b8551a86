/**
 * `evalkit export hf-evals`: a store's results as the Hugging Face Hub's community-evals files, one folder per model,
 * `OUT/<model>/.eval_results/<task>.yaml`, each a YAML list of entries (see entries.ts for what an entry holds).
 * With model repositories (`--model-repos DIR`, clones laid out as `DIR/<org>/<model>/`), each entry is audited
 * against the entries already there: `ready`, `already_present` (same dataset, task and value), `score_conflict`
 * (same dataset and task, another value: never overwritten); benchmarks without a mapping are `unmapped`. Only
 * `ready` entries are written, appended to the model's file for that task (its own entries untouched, in order).
 * Nothing goes over the network: publishing is the user's `git push`.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';
import { DataError, UsageError } from '../../errors.js';
import { writeFileAtomic } from '../../io/atomic.js';
import type { Store } from '../db.js';
import type { BenchmarkMapping } from './benchmarks.js';
import { hfEntries, hubEntry, type HfEntry, type Unmapped } from './entries.js';
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

export type AuditStatus = 'ready' | 'already_present' | 'score_conflict' | 'unmapped';

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
  /** Why a benchmark is unmapped. */
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

/** The audit rows of the entries, with their target file names (unique per model: task, else dataset_task). */
async function audit(
  entries: HfEntry[],
  unmapped: Unmapped[],
  repos: string | undefined,
): Promise<AuditRow[]> {
  const rows: AuditRow[] = [];
  const byModel = new Map<string, HfEntry[]>();
  for (const e of entries) byModel.set(e.model_id, [...(byModel.get(e.model_id) ?? []), e]);
  for (const [model, list] of byModel) {
    const taskCount = new Map<string, number>();
    for (const e of list) taskCount.set(safeName(e.task_id), (taskCount.get(safeName(e.task_id)) ?? 0) + 1);
    const existing: ExistingEntry[] =
      repos === undefined ? [] : await existingEntries(join(repos, modelPath(model)));
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
      if (equal)
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

/** Reads a file's text, or undefined when it does not exist. */
async function textOf(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Appends entries to a file's text (the model repository's file for the task when the output folder has none):
 * the existing text unchanged, the new items after it; the result read back must be the old entries then the new.
 */
async function appendTo(
  target: string,
  fallback: string | undefined,
  items: ReturnType<typeof hubEntry>[],
): Promise<boolean> {
  const before = (await textOf(target)) ?? (fallback === undefined ? undefined : await textOf(fallback));
  let text = toYaml(items);
  let old: unknown[] = [];
  if (before !== undefined && before.trim() !== '') {
    const doc = parseEvalResults(before, target);
    if (!appendable(doc))
      throw new DataError(
        'hf-evals.not-a-list',
        `${target}:1:1: not a block list of entries: cannot append to it`,
      );
    old = (doc.toJS() as unknown[] | null) ?? [];
    text = `${before.endsWith('\n') ? before : `${before}\n`}${text}`;
  }
  const back = parse(text) as unknown[];
  if (!isDeepStrictEqual(back, [...old, ...JSON.parse(JSON.stringify(items))]))
    throw new DataError(
      'hf-evals.append',
      `${target}: the appended file would not read back as its entries then the new ones`,
    );
  await writeFileAtomic(target, text);
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
  const rows = await audit(entries, unmapped, options.modelRepos);
  const written: HfExportReport['written'] = [];
  if (!options.dryRun) {
    const byFile = new Map<string, AuditRow[]>();
    for (const r of rows) if (r.status === 'ready') byFile.set(r.file!, [...(byFile.get(r.file!) ?? []), r]);
    for (const [file, list] of [...byFile].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const appended = await appendTo(
        join(options.out, file),
        options.modelRepos === undefined ? undefined : join(options.modelRepos, file),
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
