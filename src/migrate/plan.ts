/**
 * The plan of `evalkit migrate`: what each input is, what it becomes and where it would be written, decided
 * without writing anything. Every read goes through `MigrationFiles`, so a plan can be made over files held in
 * memory (tests) as well as over the disk (inputs.ts); apply.ts carries the plan out.
 */
import { createHash } from 'node:crypto';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { canonicalLocation } from '../checks/path-policy.js';
import { datastoreLocation, nonPortableReason, uuidOfName } from '../checks/names.js';
import { looksLikeEeeAggregate, looksLikeEeeInstance } from '../formats/eee/index.js';
import {
  EEE_CURRENT_VERSION,
  SAMPLES_FILE_PATH,
  migrateEeeAggregate,
  migrateEeeInstanceRow,
  type MigrationNote,
} from '../formats/eee/migrate.js';
import { looksLegacy, migrateLegacyBenchOutput } from '../formats/bench-output/migrate.js';
import { documentTypes } from '../formats/registry.js';
import { parseStrictJson } from '../io/strict-json.js';
import { validateValue } from '../validate/index.js';
import { isObject, type Json } from '../io/json-value.js';
import type { FileKind, FileReport, MigrateOptions } from './types.js';

/**
 * The known document types whose keys claim `doc` (every type in the registry, not only those migrate converts).
 * Only a document no type claims may be taken for a legacy benchmark output: an infereval benchmark or evaluation
 * also has `schema_version` and no `$schema`, and must never be rewritten as a benchmark output.
 */
export function claimingTypes(doc: Json): string[] {
  return documentTypes
    .filter((t) => {
      try {
        return t.looksLike(doc);
      } catch {
        return false;
      }
    })
    .map((t) => t.id);
}

/** One file to migrate, as found under the paths given. */
export interface Input {
  abs: string;
  /** Path relative to the input argument it was found under (a file argument: its name). */
  rel: string;
  /** Folder the relative path is relative to. */
  base: string;
  explicit: boolean;
}

/** What the plan reads: regular files' bytes, what a path is (links never followed), times, repository roots. */
export interface MigrationFiles {
  read(abs: string): Promise<Buffer>;
  kindOf(abs: string): Promise<'file' | 'symlink' | 'other' | undefined>;
  /** Last modification time, ISO 8601. */
  modifiedAt(abs: string): Promise<string>;
  /** The nearest folder above `abs` holding .git. */
  repoRootOf(abs: string): string | undefined;
}

export interface PlanOptions extends Pick<MigrateOptions, 'to' | 'inPlace' | 'layout'> {
  cwd: string;
  /** The output folder, absolute; absent in place (and in a dry run without one). */
  outDir?: string;
}

/** One write: bytes to `dest`, which must stay inside `root`; `removeAfter`: the old file when it moves in place. */
export interface MigrationWrite {
  dest: string;
  root: string;
  bytes: string | Buffer;
  removeAfter?: string;
}

export interface PlannedFile {
  report: FileReport;
  writes: MigrationWrite[];
}

export interface MigrationPlan {
  cwd: string;
  outDir?: string;
  /** Every input file (absolute), for the output-is-input guard. */
  inputs: string[];
  files: PlannedFile[];
}

/** A deterministic UUID4 from bytes (so a re-run names the file the same). */
export function contentUuid4(bytes: Uint8Array): string {
  const h = createHash('sha256').update(bytes).digest();
  h[6] = (h[6] & 0x0f) | 0x40;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

/** A datastore path part from free text: portable, never empty. */
function part(text: unknown): string {
  const s = String(text ?? '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[.-]+|[.-]+$/g, '');
  return s === '' || nonPortableReason(s) ? 'unknown' : s;
}

/** data/<collection>/<developer>/<model>: kept from the current place when it already has that shape. */
function datastoreFolder(abs: string, doc: Json): string {
  const loc = datastoreLocation(abs);
  if (loc && loc.parts.length === 4 && loc.parts.slice(0, 3).every((p) => !nonPortableReason(p)))
    return ['data', ...loc.parts.slice(0, 3)].join('/');
  const id = typeof doc.model_info?.id === 'string' ? doc.model_info.id : '';
  const collection =
    (typeof doc.evaluation_id === 'string' && doc.evaluation_id.includes('/')
      ? doc.evaluation_id.split('/')[0]
      : '') || doc.source_metadata?.source_name;
  const developer = doc.model_info?.developer ?? (id.includes('/') ? id.split('/')[0] : undefined);
  const model = id.includes('/') ? id.split('/').slice(1).join('-') : id || doc.model_info?.name;
  return ['data', part(collection), part(developer), part(model)].join('/');
}

/** Where one output goes (absolute) and the folder it must stay inside. */
interface Target {
  dest: string;
  root: string;
}

export function displayPath(abs: string, cwd: string): string {
  const rel = relative(cwd, abs);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : abs;
}

export function inside(path: string, root: string): boolean {
  const r = resolve(root);
  const p = resolve(path);
  return p === r || p.startsWith(r.endsWith(sep) ? r : r + sep);
}

/** Decides, for every input, what it becomes and where it goes. Writes nothing. */
export async function planMigration(
  inputs: Input[],
  files: MigrationFiles,
  options: PlanOptions,
): Promise<MigrationPlan> {
  const { cwd, outDir } = options;
  const byAbs = new Map(inputs.map((i) => [i.abs, i]));
  const claimed = new Set<string>();
  const planned: PlannedFile[] = [];

  /** Where an output goes: under outDir at its relative path, or (in place) under the input's base. */
  const destination = (input: Input, outRel: string): Target => {
    const root = outDir ?? (options.layout ? (datastoreLocation(input.abs)?.root ?? input.base) : input.base);
    return { dest: join(root, outRel), root };
  };

  // Aggregates first: they carry their samples files with them.
  const parsed = new Map<string, { bytes: Buffer; value?: unknown; error?: string }>();
  const read = async (abs: string) => {
    let entry = parsed.get(abs);
    if (entry) return entry;
    const bytes = await files.read(abs);
    const p = abs.endsWith('.jsonl') ? undefined : parseStrictJson(bytes);
    const issue = p?.issues[0];
    entry = p
      ? p.ok && p.issues.length === 0
        ? { bytes, value: p.value }
        : {
            bytes,
            error: `not strict JSON (${issue?.line}:${issue?.column} ${issue?.code}: ${issue?.message})`,
          }
      : { bytes };
    parsed.set(abs, entry);
    return entry;
  };

  const wantEee = options.to === undefined || options.to === EEE_CURRENT_VERSION;
  const wantBench = options.to === undefined || options.to === 'v1';
  const leftAlone = (report: FileReport, kind: FileKind): PlannedFile => {
    report.kind = kind;
    report.problems.push(`left alone: the target ${options.to} does not apply to ${kind}`);
    return { report, writes: [] };
  };

  for (const input of inputs) {
    if (!input.abs.endsWith('.json') || !wantEee) continue;
    const entry = await read(input.abs);
    if (!isObject(entry.value) || !looksLikeEeeAggregate(entry.value)) continue;
    claimed.add(input.abs);
    planned.push(await planAggregate(input, entry.bytes, entry.value));
  }
  for (const input of inputs) {
    if (claimed.has(input.abs)) continue;
    const entry = await read(input.abs);
    const report: FileReport = {
      input: displayPath(input.abs, cwd),
      kind: 'unknown',
      status: 'skipped',
      notes: [],
      problems: [],
    };
    if (entry.error) {
      // Not strict JSON is invalid input wherever it was found: never "nothing to do".
      report.status = 'failed';
      report.problems.push(entry.error);
      planned.push({ report, writes: [] });
      continue;
    }
    if (isObject(entry.value) && looksLikeEeeAggregate(entry.value)) {
      planned.push(leftAlone(report, 'eee.aggregate'));
      continue;
    }
    if (input.abs.endsWith('.jsonl')) {
      const rows = migrateRows(entry.bytes, options.inPlace === true);
      const other = rows.eee ? undefined : firstRowType(entry.bytes);
      if (other) {
        // Rows of another known type (retrieval gold, results, events...): never migrated, never "failed".
        report.kind = other as FileKind;
        report.problems.push(`left alone: ${other} is not a type evalkit migrate converts`);
        planned.push({ report, writes: [] });
        continue;
      }
      // Rows that are not strict JSON are invalid input wherever found; rows of no known kind are "unknown" below.
      if (!rows.eee && rows.problems.some((p) => p.includes('not strict JSON'))) {
        report.status = 'failed';
        report.problems.push(...rows.problems);
        planned.push({ report, writes: [] });
        continue;
      }
      if (rows.eee && !wantEee) {
        planned.push(leftAlone(report, 'eee.instance'));
        continue;
      }
      if (rows.eee) {
        const outRel = input.rel;
        const dest = destination(input, outRel);
        report.kind = 'eee.instance';
        Object.assign(report, {
          from: rows.from,
          to: EEE_CURRENT_VERSION,
          notes: rows.notes,
          problems: rows.problems,
        });
        report.status = rows.problems.length > 0 ? 'failed' : rows.changed ? 'migrated' : 'current';
        planned.push({ report, writes: writesFor(report, dest, rows.bytes, input.abs, rows.changed) });
        continue;
      }
    } else if (isObject(entry.value) && claimingTypes(entry.value).some((id) => id !== 'bench.output')) {
      // A document of another known type (an infereval benchmark, a single instance row...): never migrated.
      const id = claimingTypes(entry.value).find((t) => t !== 'bench.output')!;
      report.kind = id as FileKind;
      report.problems.push(`left alone: ${id} is not a type evalkit migrate converts`);
      planned.push({ report, writes: [] });
      continue;
    } else if (
      isObject(entry.value) &&
      (claimingTypes(entry.value).includes('bench.output') ||
        looksLegacy(entry.value) ||
        entry.value.schema_version === 'v1')
    ) {
      planned.push(
        wantBench
          ? await planBench(input, entry.bytes, entry.value, report)
          : leftAlone(report, 'bench.output'),
      );
      continue;
    }
    report.problems.push('not an EEE record, EEE instance file or (legacy) benchmark output');
    if (input.explicit) report.status = 'failed';
    planned.push({ report, writes: [] });
  }

  async function planAggregate(input: Input, bytes: Buffer, doc: Json): Promise<PlannedFile> {
    const invalid = options.inPlace ? invalidBefore(doc) : undefined;
    const outcome = migrateEeeAggregate(doc);
    if (invalid && outcome.changed) outcome.problems.push(invalid);
    const report: FileReport = {
      input: displayPath(input.abs, cwd),
      kind: 'eee.aggregate',
      from: outcome.from,
      to: outcome.to,
      status: 'current',
      notes: [...outcome.notes],
      problems: [...outcome.problems],
    };
    const value: Json = outcome.value;
    let changed = outcome.changed;
    const writes: MigrationWrite[] = [];
    // The samples file: what detailed_evaluation_results names (never outside the tree), or the sibling.
    const loc = datastoreLocation(input.abs);
    const der = isObject(value.detailed_evaluation_results) ? value.detailed_evaluation_results : undefined;
    const uuid = uuidOfName(basename(input.abs));
    let samplesAbs: string | undefined;
    const fp = der?.file_path;
    if (typeof fp === 'string' && !isAbsolute(fp) && !fp.split(/[\\/]/).includes('..')) {
      const candidate = loc ? join(loc.root, fp) : join(dirname(input.abs), basename(fp));
      // Symbolic links are never followed: a samples file must be a regular file inside the tree.
      if ((await files.kindOf(candidate)) === 'file') samplesAbs = candidate;
    }
    const linked = [typeof fp === 'string' ? fp : undefined, uuid ? `${uuid}_samples.jsonl` : undefined]
      .filter((x): x is string => x !== undefined)
      .map((x) => join(dirname(input.abs), basename(x)));
    if (!samplesAbs && uuid) {
      const sibling = join(dirname(input.abs), `${uuid}_samples.jsonl`);
      if ((await files.kindOf(sibling)) === 'file') samplesAbs = sibling;
    }
    if (!samplesAbs)
      for (const candidate of linked)
        if ((await files.kindOf(candidate)) === 'symlink')
          report.problems.push(`${basename(candidate)} is a symbolic link: it is never followed`);
    const newUuid = uuid && uuid === uuid.toLowerCase() ? uuid : contentUuid4(bytes);
    const folder = options.layout ? datastoreFolder(input.abs, value) : undefined;
    const outRel = folder ? `${folder}/${newUuid}.json` : input.rel;
    const dest = destination(input, outRel);
    if (samplesAbs) {
      claimed.add(samplesAbs);
      const samplesBytes = await files.read(samplesAbs);
      const rows = migrateRows(samplesBytes, options.inPlace === true);
      const samplesInput = byAbs.get(samplesAbs);
      const samplesRel = folder
        ? `${folder}/${newUuid}_samples.jsonl`
        : samplesInput
          ? samplesInput.rel
          : relative(input.base, samplesAbs);
      const samplesDest = folder
        ? destination(input, samplesRel)
        : samplesInput
          ? destination(samplesInput, samplesRel)
          : destination(input, samplesRel);
      const samplesReport: FileReport = {
        input: displayPath(samplesAbs, cwd),
        kind: 'eee.instance',
        from: rows.from,
        to: EEE_CURRENT_VERSION,
        status: rows.problems.length > 0 ? 'failed' : rows.changed ? 'migrated' : 'current',
        notes: rows.notes,
        problems: rows.problems,
      };
      if (!folder && !samplesInput && samplesRel.startsWith('..'))
        samplesReport.problems.push(
          'the samples file lies outside the folder being migrated: migrate the datastore folder, or migrate the layout too',
        );
      if (samplesReport.problems.length > 0) {
        samplesReport.status = 'failed';
        report.problems.push(`its samples file ${samplesReport.input} could not be migrated`);
      }
      const samplesWrites = writesFor(samplesReport, samplesDest, rows.bytes, samplesAbs, rows.changed);
      planned.push({ report: samplesReport, writes: samplesWrites });
      // Companion reference, checksum and row count follow the samples file.
      const target = isObject(value.detailed_evaluation_results) ? value.detailed_evaluation_results : {};
      const wantedPath = folder
        ? samplesRel
        : typeof target.file_path === 'string'
          ? target.file_path
          : samplesRel;
      const algorithm = target.hash_algorithm === 'md5' ? 'md5' : 'sha256';
      const checksum = createHash(algorithm).update(rows.bytes).digest('hex');
      const update: Json = {
        format: 'jsonl',
        file_path: wantedPath,
        hash_algorithm: algorithm,
        checksum,
        total_rows: rows.count,
      };
      for (const [k, v] of Object.entries(update)) {
        if (target[k] === v) continue;
        report.notes.push({
          pointer: `/detailed_evaluation_results/${k}`,
          kind: target[k] === undefined ? 'inferred' : 'converted',
          detail: `set to ${JSON.stringify(v)}`,
        });
        target[k] = v;
        changed = true;
      }
      value.detailed_evaluation_results = target;
    }
    if (folder && der && !samplesAbs)
      report.problems.push(
        `detailed_evaluation_results names ${JSON.stringify(fp ?? null)}, which does not exist: cannot move it`,
      );
    if (folder || samplesAbs)
      report.problems = report.problems.filter(
        (p) =>
          !p.startsWith('detailed_evaluation_results.file_path') ||
          !SAMPLES_FILE_PATH.test(String(value.detailed_evaluation_results?.file_path)),
      );
    if (changed && !outcome.changed) {
      report.to = EEE_CURRENT_VERSION;
    }
    report.status = report.problems.length > 0 ? 'failed' : changed ? 'migrated' : 'current';
    const text = changed ? `${JSON.stringify(value, null, 2)}\n` : bytes;
    writes.push(...writesFor(report, dest, text, input.abs, changed));
    return { report, writes };
  }

  async function planBench(input: Input, bytes: Buffer, doc: Json, report: FileReport): Promise<PlannedFile> {
    const folder = basename(dirname(input.abs));
    const mtime = await files.modifiedAt(input.abs);
    const outcome = migrateLegacyBenchOutput(doc, {
      benchmarkHint: ['results', 'outputs', '.', ''].includes(folder) ? undefined : folder,
      startedAtHint: mtime,
    });
    Object.assign(report, {
      kind: 'bench.output',
      from: typeof doc.schema_version === 'string' ? doc.schema_version : 'legacy',
      to: 'v1',
      notes: outcome.notes,
      problems: outcome.problems,
      status: outcome.problems.length > 0 ? 'failed' : outcome.changed ? 'migrated' : 'current',
    });
    const outRel = options.layout ? canonicalLocation(input.rel, outcome.value) : input.rel;
    // In place, a folder argument is the repository root; a single file moves within its git repository.
    const root =
      outDir ?? (options.layout && input.explicit ? (files.repoRootOf(input.abs) ?? input.base) : input.base);
    const dest: Target = { dest: join(root, outRel), root };
    const text = outcome.changed ? `${JSON.stringify(outcome.value, null, 2)}\n` : bytes;
    return {
      report,
      writes: writesFor(report, dest, text, input.abs, outcome.changed || options.layout === true),
    };
  }

  /** The writes for one file: with -o every file is written; in place only changed or moved files. */
  function writesFor(
    report: FileReport,
    target: Target,
    bytes: string | Buffer,
    source: string,
    changed: boolean,
  ): MigrationWrite[] {
    if (report.status === 'failed') return [];
    const moved = resolve(target.dest) !== resolve(source);
    if (!outDir && !changed && !moved) return [];
    report.output = displayPath(target.dest, cwd);
    return [{ ...target, bytes, removeAfter: !outDir && moved ? source : undefined }];
  }

  return { cwd, outDir, inputs: inputs.map((i) => i.abs), files: planned };
}

interface RowsOutcome {
  eee: boolean;
  bytes: Buffer;
  changed: boolean;
  count: number;
  from: string;
  notes: MigrationNote[];
  problems: string[];
}

/** The known type (other than EEE) claiming the first non-blank row of a JSONL file, if any. */
function firstRowType(bytes: Buffer): string | undefined {
  const line = bytes
    .toString('utf8')
    .split('\n')
    .find((l) => l.trim() !== '');
  if (line === undefined) return undefined;
  const parsed = parseStrictJson(line.replace(/\r$/, ''));
  if (!parsed.ok || !isObject(parsed.value)) return undefined;
  return claimingTypes(parsed.value).find((t) => !t.startsWith('eee.'));
}

/**
 * Why a document about to be rewritten in place is invalid as it stands (by its own version's schema), or
 * undefined. In place, such a document is not rewritten: the migration would hide what was wrong with it.
 */
function invalidBefore(doc: unknown): string | undefined {
  const result = validateValue(doc, { schemaOnly: true });
  const errors = result.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length === 0) return undefined;
  const first = errors[0];
  const as = result.type
    ? ` as ${result.type}${result.schema_version ? ` ${result.schema_version}` : ''}`
    : '';
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  return `invalid before migration${as}: ${first.code} ${first.message}${first.pointer ? ` at ${first.pointer}` : ''}${more}; not rewritten in place (fix it first, or migrate with -o DIR to look at the result)`;
}

/** Migrates every row of an instance file; unchanged rows keep their exact bytes. `checkBefore`: refuse rows that are invalid as they stand (in place). */
function migrateRows(bytes: Buffer, checkBefore = false): RowsOutcome {
  const lines = bytes.toString('utf8').split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const out: string[] = [];
  const notes: MigrationNote[] = [];
  const problems: string[] = [];
  const froms = new Set<string>();
  let changed = false;
  let eee = false;
  let count = 0;
  lines.forEach((raw, i) => {
    const text = raw.replace(/\r$/, '');
    if (text.trim() === '') {
      changed = true; // blank lines are dropped so that total_rows counts every line
      return;
    }
    count++;
    const parsed = parseStrictJson(text);
    if (!parsed.ok || parsed.issues.length > 0 || !isObject(parsed.value)) {
      const issue = parsed.issues[0];
      problems.push(
        `line ${i + 1}: not strict JSON (${issue?.code ?? 'json'}: ${issue?.message ?? 'not an object'})`,
      );
      out.push(text);
      return;
    }
    if (looksLikeEeeInstance(parsed.value)) eee = true;
    const outcome = migrateEeeInstanceRow(parsed.value);
    froms.add(outcome.from);
    const invalid = checkBefore && outcome.changed ? invalidBefore(parsed.value) : undefined;
    if (invalid) problems.push(`line ${i + 1}: ${invalid}`);
    for (const p of outcome.problems) problems.push(`line ${i + 1}: ${p}`);
    for (const n of outcome.notes) notes.push({ ...n, line: i + 1 });
    if (outcome.changed) {
      changed = true;
      out.push(JSON.stringify(outcome.value));
    } else out.push(text);
    if (raw !== text) changed = true;
  });
  const newBytes = Buffer.from(out.length > 0 ? `${out.join('\n')}\n` : '', 'utf8');
  if (!changed && !newBytes.equals(bytes)) changed = true;
  return {
    eee,
    bytes: changed ? newBytes : bytes,
    changed,
    count,
    from: [...froms].sort().join(', ') || 'unknown',
    notes,
    problems,
  };
}
