/**
 * `evalkit ingest`: one pipeline, source → (convert) → validate → store. Every input becomes EEE 0.3.0 records:
 * EEE files and datastore trees are read as they are (0.2.x migrated to 0.3.0 after validation), other tools'
 * outputs go through `src/convert` (the same importers as `evalkit convert`), and a Parquet export made by
 * `evalkit export parquet` is read back. Each record is validated first (schema, rules and the datastore checks,
 * the same diagnostics as `evalkit validate`), and an invalid one is reported and not stored. A record and its rows
 * are written in one transaction; a record whose content is already stored is skipped (idempotent), and a duplicate
 * under another evaluation_id (EEE check 10) is reported and skipped unless `allowDuplicates`.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { looksLikeEeeAggregate, prepareEeeTree } from '../checks/eee-tree.js';
import { datastoreLocation, uuidOfName } from '../checks/names.js';
import type { Diagnostic } from '../diagnostics.js';
import { IoError, UsageError } from '../errors.js';
import { declaredEeeVersion, migrateEeeAggregate, migrateEeeInstanceRow } from '../formats/eee/migrate.js';
import {
  convertPaths,
  isConvertFailure,
  type ConvertedRecord,
  type ConvertOverrides,
  type SourceId,
} from '../convert/index.js';
import { claimingSource, expectedSources, probePath, sourcesFor } from '../convert/registry.js';
import { DataError } from '../errors.js';
import { SKIPPED_DIRS } from '../io/files.js';
import { Engine } from '../validate/engine.js';
import { validateFileAt } from '../validate/file.js';
import {
  admitDecision,
  admitDocument,
  refusedStrict,
  type IngestItem,
  type UnitContext,
  type UnitOutcome,
} from './admission.js';
import type { Store } from './db.js';
import { flatRecords } from './flat-records.js';
import { isParquetExport, readParquetExport } from './parquet.js';
import { convertedRows, hasConvertedRows } from './converted-rows.js';
import { INSERT_SAMPLES_FROM_JSONL_SQL } from './sample-row.js';
import {
  ingestRetrievalFile,
  retrievalFileKind,
  type RetrievalIngestOutcome,
  type RetrievalKind,
} from './retrieval/ingest.js';
import { readRetrievalExport, RETRIEVAL_TABLES } from './retrieval/parquet.js';
import { RecordWriter, startStatement, type Decision, type RowFeeder } from './write.js';
import { admitRun, RunIndex } from './supersede.js';
import { isObject, type Json } from '../io/json-value.js';
import { backfillResultItems } from './result-items.js';
import { repairUnscoredRows } from './unscored-rows.js';
import {
  isDisagreement,
  recheckAggregate,
  recheckDisagreement,
  recheckFails,
  reconcileAggregate,
  reconciliationCounts,
  rowFacts,
  RowTally,
  storedDisagreements,
} from '../checks/reconciliation.js';

export type { IngestItem, UnitContext, UnitOutcome } from './admission.js';

export interface IngestOptions {
  /** Base of relative paths (default: process.cwd()). */
  cwd?: string;
  /** Store a duplicate of a stored record under another evaluation_id instead of skipping it. */
  allowDuplicates?: boolean;
  /** Refuse a record whose rows disagree with its source (a reconciliation disagreement, docs/convert.md). */
  strict?: boolean;
  /** Which converter reads inputs that are not EEE (default: recognise each). */
  from?: SourceId | 'auto';
  /** What converted sources cannot say (as `evalkit convert`'s options); EEE records are stored as they are. */
  overrides?: ConvertOverrides;
  onProgress?: (progress: IngestProgress) => void;
  /**
   * Refuse retrieval files (gold, results, events, and an export's retrieval tables) before anything is read, with
   * this reason: a store that cannot keep them (the lake) must not report rows it did not keep.
   */
  refuseRetrieval?: string;
}

export interface IngestProgress {
  bytesDone: number;
  bytesTotal: number;
  records: number;
  rows: number;
}

export interface IngestSummary {
  /** Records added. */
  records: number;
  /** Instance rows added. */
  rows: number;
  /** Records not added because already stored, duplicates, or less complete copies of a stored run. */
  skipped: number;
  duplicates: number;
  /** Copies not stored because a copy of the same run at least as complete is stored. */
  superseded: number;
  /** Stored copies replaced by a more complete copy of their run. */
  replaced: number;
  /** Inputs not stored because invalid. */
  rejected: number;
  errors: number;
  warnings: number;
}

export interface IngestResult {
  ingest_id: string;
  summary: IngestSummary;
  items: IngestItem[];
  /** Retrieval files (gold, results, events), one entry each, in the order they were stored. */
  retrieval: (Omit<RetrievalIngestOutcome, 'diagnostics'> & { source: string })[];
  diagnostics: Diagnostic[];
}

/** One record to store, however it was found. */
interface Unit {
  kind: 'eee' | 'parquet' | 'convert' | 'retrieval';
  /** For a retrieval file: which rows it holds. */
  retrievalKind?: RetrievalKind;
  /** Absolute path. */
  path: string;
  /** The path as the user would write it. */
  display: string;
  bytes: number;
  /** For a converted input: the source that claims it. */
  source?: SourceId;
}

/**
 * Sources whose inputs are themselves documents evalkit validates (benchmark output v1, infereval η): the input is
 * validated before it is converted, and an invalid one is not stored.
 */
const VALIDATED_SOURCES = new Set<SourceId>(['bench', 'infereval']);

/** Throws `store.retrieval-refused` naming the first unit that holds retrieval rows. */
function refuseRetrievalUnits(units: Unit[], reason: string): void {
  for (const unit of units) {
    const tables =
      unit.kind === 'parquet'
        ? RETRIEVAL_TABLES.filter((t) => existsSync(join(unit.path, t)))
        : unit.kind === 'retrieval'
          ? [unit.retrievalKind]
          : [];
    if (tables.length > 0)
      throw new UsageError(
        'store.retrieval-refused',
        `${unit.display} holds retrieval rows (${tables.join(', ')}): ${reason}; nothing was stored`,
      );
  }
}

/** Ingests the given files and folders into an open (read-write) store. */
export async function ingestPaths(
  store: Store,
  paths: string[],
  options: IngestOptions = {},
): Promise<IngestResult> {
  const cwd = options.cwd ?? process.cwd();
  // A store written before the items tables (or by an older evalkit) gets its records' items first, and the rows an
  // older evalkit stored with a missing value in their columns are repaired.
  await backfillResultItems(store);
  await repairUnscoredRows(store);
  const ingestId = runId(paths);
  const items: IngestItem[] = [];
  const diagnostics: Diagnostic[] = [];
  const discovered = await discover(paths, cwd, options.from ?? 'auto');
  diagnostics.push(...discovered.diagnostics);
  items.push(...discovered.rejected);
  if (options.refuseRetrieval !== undefined)
    await refuseRetrievalUnits(discovered.units, options.refuseRetrieval);

  await store.connection.run(
    `INSERT INTO ingests (ingest_id, started_at, paths) VALUES ($1, now()::TIMESTAMP, $2::JSON)`,
    [ingestId, JSON.stringify(paths)],
  );
  const writer = new RecordWriter(store, ingestId);
  const progress: IngestProgress = {
    bytesDone: 0,
    bytesTotal: discovered.units.reduce((n, u) => n + u.bytes, 0),
    records: 0,
    rows: 0,
  };
  const onBytes = (n: number): void => {
    progress.bytesDone += n;
    options.onProgress?.(progress);
  };
  const engine = new Engine();
  const context: UnitContext = {
    writer,
    engine,
    allowDuplicates: options.allowDuplicates === true,
    strict: options.strict === true,
    onBytes,
    cwd,
    converted: new Set(),
    runs: new RunIndex(store),
    flat: await flatRecords(discovered.units.map((u) => u.path)),
  };
  const retrieval: IngestResult['retrieval'] = [];
  for (const unit of discovered.units) {
    const before = progress.bytesDone;
    if (unit.kind === 'parquet')
      for (const r of await readRetrievalExport(store, unit.path))
        retrieval.push({
          source: `${unit.display}/${r.table}`,
          kind: r.table === 'retrieval_gold' ? 'gold' : r.table === 'retrieval_results' ? 'result' : 'event',
          rows: r.rows,
          added: r.added,
          skipped: r.rows - r.added,
          rejected: 0,
          scored: 0,
        });
    if (unit.kind === 'retrieval') {
      const { diagnostics: found, ...outcome } = await ingestRetrievalFile(
        store,
        unit.path,
        unit.display,
        unit.retrievalKind!,
        ingestId,
      );
      retrieval.push({ source: unit.display, ...outcome });
      diagnostics.push(...found);
      progress.bytesDone = before + unit.bytes;
      options.onProgress?.(progress);
      continue;
    }
    const outcome =
      unit.kind === 'parquet'
        ? await readParquetExport(unit.path, unit.display, context)
        : unit.kind === 'convert'
          ? await ingestConverted(unit, options.from ?? 'auto', options.overrides ?? {}, engine, context)
          : await ingestEeeFile(unit, engine, context);
    for (const item of outcome.items) {
      // A record this ingest added and a later, more complete copy of its run replaced is not in the store.
      if (item.supersedes)
        for (const earlier of items)
          if (earlier.status === 'added' && item.supersedes.includes(earlier.evaluation_id ?? '')) {
            earlier.status = 'superseded';
            earlier.kept_copy = item.evaluation_id;
            progress.records--;
            progress.rows -= earlier.rows;
          }
      items.push(item);
      if (item.status === 'added') {
        progress.records++;
        progress.rows += item.rows;
      }
    }
    diagnostics.push(...outcome.diagnostics);
    progress.bytesDone = before + unit.bytes;
    options.onProgress?.(progress);
  }

  const summary = summarize(items, diagnostics);
  await store.connection.run(
    `UPDATE ingests SET finished_at = now()::TIMESTAMP, records_added = $2, rows_added = $3, skipped = $4,
       rejected = $5 WHERE ingest_id = $1`,
    [ingestId, summary.records, summary.rows, summary.skipped, summary.rejected],
  );
  return { ingest_id: ingestId, summary, items, retrieval, diagnostics };
}

function summarize(items: IngestItem[], diagnostics: Diagnostic[]): IngestSummary {
  const count = (status: IngestItem['status']) => items.filter((i) => i.status === status).length;
  return {
    records: count('added'),
    rows: items.reduce((n, i) => n + (i.status === 'added' ? i.rows : 0), 0),
    skipped: count('already-stored') + count('duplicate') + count('superseded'),
    duplicates: count('duplicate'),
    superseded: count('superseded'),
    replaced: items.reduce((n, i) => n + (i.status === 'added' ? (i.supersedes?.length ?? 0) : 0), 0),
    rejected: count('rejected'),
    errors: diagnostics.filter((d) => d.severity === 'error').length,
    warnings: diagnostics.filter((d) => d.severity === 'warning').length,
  };
}

/** A uuid-shaped id of this run (time, process and paths). */
function runId(paths: string[]): string {
  const b = createHash('sha256')
    .update(`${Date.now()}\n${process.pid}\n${Math.random()}\n${paths.join('\n')}`)
    .digest()
    .subarray(0, 16);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Finding the inputs

interface Discovery {
  units: Unit[];
  rejected: IngestItem[];
  diagnostics: Diagnostic[];
}

async function discover(paths: string[], cwd: string, from: SourceId | 'auto'): Promise<Discovery> {
  const sources = sourcesFor(from);
  /** Whether a converter claims the file or folder (EEE inputs are read as they are, never converted). */
  const claimed = async (abs: string): Promise<SourceId | undefined> => {
    try {
      return claimingSource(await probePath(abs), sources)?.id;
    } catch {
      return undefined;
    }
  };
  const found: Discovery = { units: [], rejected: [], diagnostics: [] };
  const seen = new Set<string>();
  const samples = new Map<string, string>();
  const display = (abs: string, arg: string, argAbs: string): string =>
    abs === argAbs ? arg : join(arg, relative(argAbs, abs));

  const visitFile = async (abs: string, shown: string, explicit: boolean): Promise<void> => {
    if (seen.has(abs)) return;
    seen.add(abs);
    const info = await stat(abs);
    if (abs.endsWith('_samples.jsonl')) {
      samples.set(abs, shown);
      return;
    }
    if (abs.endsWith('.json') && (await isEeeAggregateFile(abs))) {
      found.units.push({
        kind: 'eee',
        path: abs,
        display: shown,
        bytes: info.size + (await companionSize(abs)),
      });
      return;
    }
    const retrievalKind = from === 'auto' ? await retrievalFileKind(abs) : undefined;
    if (retrievalKind) {
      found.units.push({ kind: 'retrieval', path: abs, display: shown, bytes: info.size, retrievalKind });
      return;
    }
    const source = (await claimed(abs)) ?? (explicit && from !== 'auto' ? from : undefined);
    if (source) {
      found.units.push({ kind: 'convert', path: abs, display: shown, bytes: info.size, source });
      return;
    }
    if (explicit)
      found.rejected.push({
        source: shown,
        origin_kind: 'unknown',
        status: 'rejected',
        rows: 0,
        reason: `not an input evalkit ingests: expected an EEE record or datastore, an evalkit Parquet export, or one of: ${expectedSources(sources)}`,
      });
  };

  const visitDir = async (abs: string, shown: string): Promise<void> => {
    if (await isParquetExport(abs)) {
      found.units.push({ kind: 'parquet', path: abs, display: shown, bytes: 0 });
      return;
    }
    const source = await claimed(abs);
    if (source) {
      found.units.push({ kind: 'convert', path: abs, display: shown, bytes: 0, source });
      return;
    }
    const entries = (await readdir(abs, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const child = join(abs, e.name);
      if (e.isDirectory() && !SKIPPED_DIRS.has(e.name)) await visitDir(child, join(shown, e.name));
      else if (e.isFile()) await visitFile(child, join(shown, e.name), false);
    }
  };

  for (const arg of paths) {
    const abs = resolve(cwd, arg);
    const info = await stat(abs).catch(() => undefined);
    if (!info) throw new IoError('io.not-found', `no such file or directory: ${arg}`);
    if (info.isDirectory()) await visitDir(abs, arg);
    else await visitFile(abs, display(abs, arg, abs), true);
  }
  // A samples file whose aggregate was not among the inputs is read with that aggregate, when it is beside it.
  const paired = new Set(found.units.flatMap((u) => (u.kind === 'eee' ? [companionGuess(u.path)] : [])));
  for (const [abs, shown] of samples) {
    if (paired.has(abs)) continue;
    const uuid = uuidOfName(basename(abs));
    const aggregate = uuid ? join(dirname(abs), `${uuid}.json`) : undefined;
    if (aggregate && !seen.has(aggregate) && (await isEeeAggregateFile(aggregate).catch(() => false))) {
      seen.add(aggregate);
      const info = await stat(aggregate);
      found.units.push({
        kind: 'eee',
        path: aggregate,
        display: join(dirname(shown), basename(aggregate)),
        bytes: info.size + (await companionSize(aggregate)),
      });
    } else if (!aggregate || !seen.has(aggregate))
      found.diagnostics.push({
        file: shown,
        line: 0,
        column: 0,
        pointer: '',
        severity: 'warning',
        code: 'store.samples-without-record',
        message: 'an instance-level file without its aggregate record: not stored (ingest the aggregate)',
      });
  }
  // Gold files first, so that result rows of the same run are scored against them.
  const order = (u: Unit): number => (u.kind !== 'retrieval' ? 0 : u.retrievalKind === 'gold' ? -1 : 0);
  found.units.sort((a, b) => order(a) - order(b));
  return found;
}

async function isEeeAggregateFile(abs: string): Promise<boolean> {
  try {
    return looksLikeEeeAggregate(JSON.parse(await readFile(abs, 'utf8')));
  } catch {
    return false;
  }
}

/** The samples file beside an aggregate by name (`<uuid>_samples.jsonl`), used to size the work. */
function companionGuess(aggregate: string): string {
  return aggregate.replace(/\.json$/, '_samples.jsonl');
}

async function companionSize(aggregate: string): Promise<number> {
  return (await stat(companionGuess(aggregate)).catch(() => undefined))?.size ?? 0;
}

/**
 * The samples file an aggregate names: `detailed_evaluation_results.file_path` below the datastore root (or beside
 * the aggregate outside a datastore), as the datastore checks resolve it; else the sibling `<uuid>_samples.jsonl`.
 */
export function samplesFileOf(aggregatePath: string, doc: Json, flat = false): string | undefined {
  const der = doc.detailed_evaluation_results;
  const filePath = isObject(der) && typeof der.file_path === 'string' ? der.file_path : undefined;
  if (filePath) {
    // A flat datastore's instance rows lie beside their aggregate object, as the tree check pairs them.
    const location = flat ? undefined : datastoreLocation(aggregatePath);
    return location ? join(location.root, filePath) : join(dirname(aggregatePath), basename(filePath));
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// EEE files: validate (as `evalkit validate` would, with the datastore checks), migrate, store

async function ingestEeeFile(unit: Unit, engine: Engine, context: UnitContext): Promise<UnitOutcome> {
  const diagnostics: Diagnostic[] = [];
  const item: IngestItem = { source: unit.display, origin_kind: 'eee', status: 'rejected', rows: 0 };
  const outcome = { items: [item], diagnostics };
  const aggregateResult = await validateFileAt(unit.display, unit.path, false, engine);
  diagnostics.push(...aggregateResult.diagnostics);
  if (aggregateResult.invalid > 0) return outcome;
  const flat = context.flat?.get(unit.path);
  if (flat && flat.errors.length > 0) {
    diagnostics.push(...flat.errors);
    return outcome;
  }
  const original = JSON.parse(await readFile(unit.path, 'utf8')) as Json;
  const declared = declaredEeeVersion(original);
  const migrated = migrateEeeAggregate(original);
  if (migrated.problems.length > 0) {
    item.reason = `cannot migrate ${declared ?? 'this version'} to 0.3.0: ${migrated.problems.join('; ')}`;
    return outcome;
  }
  const aggregate = migrated.value as Json;
  item.evaluation_id = String(aggregate.evaluation_id);
  const stored = storedDisagreements(aggregate);
  if (stored.length > 0) item.disagreements = stored;
  if (context.strict && refusedStrict(item)) return outcome;
  const decision = await context.writer.decide(aggregate);
  item.record_key = decision.recordKey;
  if (!(await admitDecision(decision, item, diagnostics, context.allowDuplicates, unit.display)))
    return outcome;

  const samplesAbs = samplesFileOf(unit.path, original, flat !== undefined);
  const samplesShown = samplesAbs ? relativeDisplay(unit, samplesAbs) : undefined;
  // A flat datastore's objects get every check the tree layout's files get.
  const tree = await prepareEeeTree(samplesAbs ? [unit.path, samplesAbs] : [unit.path], undefined, {
    flat: flat !== undefined,
  });
  const rowChecks = samplesAbs ? tree.rowChecks(samplesAbs) : undefined;
  // --strict checks every result again against the rows as `evalkit reconcile` does (the same recheck): a record
  // whose rows were changed after it was written (a row deleted, flipped or duplicated, the checksum recomputed) or
  // whose headline was edited is refused.
  const tally = context.strict ? new RowTally() : undefined;
  /** Reads the samples file once through the validator (and the datastore row checks); true when valid. */
  const validateRows = async (append?: (row: Json) => void): Promise<boolean> => {
    const result = await validateFileAt(samplesShown!, samplesAbs!, true, engine, {
      onBytes: context.onBytes,
      rows: {
        line(line, row) {
          rowChecks?.line(line, row);
          if (!row || !isObject(row.value)) return;
          const value = migrated.changed ? (migrateEeeInstanceRow(row.value).value as Json) : row.value;
          tally?.add(rowFacts(value as Record<string, unknown>));
          if (append) append(value);
        },
      },
    });
    rowChecks?.done();
    diagnostics.push(...result.diagnostics);
    documents = result.documents;
    const treeOk = await treeVerdict();
    return result.invalid === 0 && treeOk;
  };
  let documents = 0;
  let valid = true;
  const treeVerdict = async (): Promise<boolean> => {
    const found = (await tree.finish()).map((d) => ({
      ...d,
      file: shownPath(d.file, unit, samplesAbs, samplesShown),
    }));
    diagnostics.push(...found);
    return !found.some((d) => d.severity === 'error');
  };
  const hasRows = samplesAbs !== undefined && samplesShown !== undefined;
  // Legacy rows are migrated one by one on their way in (the Appender); a 0.3.0 file is read and stored by DuckDB
  // on its own threads while the validator reads it here, and kept only if both agree it is whole and valid.
  const rows: RowFeeder | undefined =
    hasRows && migrated.changed ? (append) => validateRows(append) : undefined;
  const columns =
    hasRows && !migrated.changed
      ? async (key: string): Promise<number> => {
          // Running before the validator starts: its reads are synchronous and would hold back the statement's
          // start (startStatement) until they were over, one after the other instead of side by side.
          const insert = await startStatement(
            context.writer.store.connection,
            INSERT_SAMPLES_FROM_JSONL_SQL,
            [key, samplesAbs!],
          ).then(
            ({ result }) => ({
              done: result.then(
                (r) => ({ ok: true as const, rows: Number(r.rowsChanged) }),
                (error: Error) => ({ ok: false as const, error }),
              ),
            }),
            (error: Error) => ({ done: Promise.resolve({ ok: false as const, error }) }),
          );
          valid = await validateRows();
          const stored = await insert.done;
          if (!valid) return 0;
          if (!stored.ok || stored.rows !== documents) {
            valid = false;
            diagnostics.push({
              file: samplesShown!,
              line: 0,
              column: 0,
              pointer: '',
              severity: 'error',
              code: 'store.rows',
              message: stored.ok
                ? `DuckDB read ${stored.rows} rows where the validator read ${documents}: not stored`
                : `DuckDB could not read the rows: ${stored.error.message.split('\n')[0]}`,
            });
            return 0;
          }
          return stored.rows;
        }
      : undefined;
  if (!hasRows && !(await treeVerdict())) return outcome;
  let run: { committed: (recordKey: string) => void } | undefined;
  const written = await context.writer.write({
    rows,
    columns,
    recordKey: decision.recordKey,
    finish: async () => {
      if (!valid) return undefined;
      if (tally) {
        const failing = recheckAggregate(aggregate, tally).filter(recheckFails);
        if (failing.length > 0) {
          item.disagreements = failing.map(recheckDisagreement);
          if (refusedStrict(item)) return undefined;
        }
      }
      if (context.runs) {
        run = await admitRun(context.runs, aggregate, item, diagnostics, unit.display);
        if (!run) return undefined;
      }
      return {
        aggregate,
        origin: {
          kind: 'eee',
          path: unit.display,
          collection: flat?.collection ?? collectionOf(unit.path, aggregate),
        },
        decision: decision as Decision & { status: 'new' | 'duplicate' },
        diagnostics,
      };
    },
  });
  if (written === undefined) return outcome;
  run?.committed(decision.recordKey);
  item.status = 'added';
  item.rows = written;
  return outcome;
}

function relativeDisplay(unit: Unit, abs: string): string {
  return join(dirname(unit.display), relative(dirname(unit.path), abs));
}

function shownPath(file: string, unit: Unit, samplesAbs?: string, samplesShown?: string): string {
  const abs = resolve(file);
  if (abs === unit.path) return unit.display;
  if (samplesAbs && abs === samplesAbs && samplesShown) return samplesShown;
  return file;
}

/** The datastore collection: data/<collection>/... of the file, else of the record's own samples path. */
export function collectionOf(path: string | undefined, aggregate: Json): string | null {
  const location = path ? datastoreLocation(path) : undefined;
  if (location && location.parts.length >= 2) return location.parts[0];
  const der = aggregate.detailed_evaluation_results;
  const filePath = isObject(der) && typeof der.file_path === 'string' ? der.file_path : '';
  const parts = filePath.split('/');
  return parts[0] === 'data' && parts.length >= 3 ? parts[1] : null;
}

// ---------------------------------------------------------------------------------------------------------------
// Other tools' outputs: through the converters (the same importers as `evalkit convert`), then validated and stored

/** The records a converter makes of one input; the checksum of their rows is computed as `writeConverted` writes them. */
async function ingestConverted(
  unit: Unit,
  from: SourceId | 'auto',
  overrides: ConvertOverrides,
  engine: Engine,
  context: UnitContext,
): Promise<UnitOutcome> {
  const outcome: UnitOutcome = { items: [], diagnostics: [] };
  if (unit.source && VALIDATED_SOURCES.has(unit.source) && !unit.path.endsWith('.jsonl')) {
    const input = await validateFileAt(unit.display, unit.path, false, engine);
    outcome.diagnostics.push(...input.diagnostics);
    if (input.invalid > 0) {
      outcome.items.push({ source: unit.display, origin_kind: unit.source, status: 'rejected', rows: 0 });
      return outcome;
    }
  }
  for await (const converted of convertPaths([unit.path], { from, overrides })) {
    if (isConvertFailure(converted)) {
      const e = converted.error;
      if (!(e instanceof DataError) && !(e instanceof IoError)) throw e;
      outcome.items.push({
        source: unit.display,
        origin_kind: converted.source ?? 'unknown',
        status: 'rejected',
        rows: 0,
        reason: e.message,
      });
      continue;
    }
    if (context.converted.has(converted.aggregatePath)) continue;
    context.converted.add(converted.aggregatePath);
    outcome.items.push(await storeConverted(converted, unit, engine, context, outcome.diagnostics));
  }
  return outcome;
}

async function storeConverted(
  record: ConvertedRecord,
  unit: Unit,
  engine: Engine,
  context: UnitContext,
  diagnostics: Diagnostic[],
): Promise<IngestItem> {
  const shown =
    record.sourcePath === unit.path
      ? unit.display
      : join(unit.display, relative(unit.path, record.sourcePath));
  const item: IngestItem = { source: shown, origin_kind: record.source, status: 'rejected', rows: 0 };
  // Diagnostics name the files `evalkit convert` would write, rows by their line in the samples file.
  const rowsFile = record.samplesPath ?? `${record.aggregatePath} (rows)`;
  const hash = createHash('sha256');
  const tally = new RowTally();
  const rows: RowFeeder | undefined = hasConvertedRows(record)
    ? (append) => admitConvertedRows(record, engine, rowsFile, hash, diagnostics, tally, append)
    : undefined;
  const placeholder = `pending-${createHash('sha256').update(`${record.sourcePath}\n${record.aggregatePath}`).digest('hex')}`;
  let run: { committed: (recordKey: string) => void } | undefined;
  let storedKey = placeholder;
  let stored: Json | undefined;
  const written = await context.writer.write({
    rows,
    recordKey: placeholder,
    finish: async (count) => {
      const aggregate = structuredClone(record.aggregate) as Json;
      if (hasConvertedRows(record) && record.samplesPath) {
        const der = isObject(aggregate.detailed_evaluation_results)
          ? aggregate.detailed_evaluation_results
          : {};
        aggregate.detailed_evaluation_results = {
          ...der,
          format: 'jsonl',
          file_path: record.samplesPath,
          hash_algorithm: 'sha256',
          checksum: hash.digest('hex'),
          total_rows: count,
        };
      }
      item.evaluation_id = String(aggregate.evaluation_id);
      const reconciliation = reconcileAggregate(aggregate, tally, record.declared);
      item.reconciliation = reconciliationCounts(reconciliation);
      const disagreements = reconciliation.filter((r) => isDisagreement(r.outcome));
      if (disagreements.length > 0) item.disagreements = disagreements;
      if (context.strict && refusedStrict(item)) return undefined;
      const { diagnostics: found } = admitDocument(aggregate, engine, {
        file: record.aggregatePath,
        line: 0,
        column: 0,
      });
      diagnostics.push(...found);
      if (found.some((d) => d.severity === 'error')) return undefined;
      const decision = await context.writer.decide(aggregate);
      item.record_key = decision.recordKey;
      if (!(await admitDecision(decision, item, diagnostics, context.allowDuplicates, shown)))
        return undefined;
      if (context.runs) {
        run = await admitRun(context.runs, aggregate, item, diagnostics, shown);
        if (!run) return undefined;
      }
      storedKey = decision.recordKey;
      stored = aggregate;
      return {
        aggregate,
        origin: { kind: record.source, path: shown, collection: collectionOf(undefined, aggregate) },
        decision: decision as Decision & { status: 'new' | 'duplicate' },
        diagnostics: found,
        documents: await keptDocuments(record),
      };
    },
  });
  if (written !== undefined) {
    if (stored) run?.committed(storedKey);
    item.status = 'added';
    item.rows = written;
  }
  return item;
}

/**
 * A converted record's rows through the store's admission (validator and finite numbers), each admitted row
 * appended and every row's text hashed as `evalkit convert` would write it; false when any row was refused (the
 * record is then not stored). A source that cannot produce its rows (a RangeError: too deep to serialise) is
 * reported as this record's error, and the run goes on with the next input.
 */
async function admitConvertedRows(
  record: ConvertedRecord,
  engine: Engine,
  rowsFile: string,
  hash: ReturnType<typeof createHash>,
  diagnostics: Diagnostic[],
  tally: RowTally,
  append: (row: Json) => void,
): Promise<boolean> {
  let line = 0;
  let ok = true;
  try {
    for await (const { text, row } of convertedRows(record)) {
      line++;
      tally.addRow(row);
      hash.update(`${text}\n`);
      const verdict = admitDocument(row, engine, { file: rowsFile, line });
      diagnostics.push(...verdict.diagnostics);
      if (verdict.ok) append(row);
      else ok = false;
    }
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    diagnostics.push({
      file: rowsFile,
      line: line + 1,
      column: 1,
      pointer: '',
      severity: 'error',
      code: 'store.row-unreadable',
      message: `the converter could not produce this row (${error.message}): the record is not stored`,
    });
    return false;
  }
  return ok;
}

/** The source document kept beside its EEE mapping when EEE cannot hold all of it (an infereval η). */
async function keptDocuments(record: ConvertedRecord): Promise<{ kind: string; raw: unknown }[]> {
  if (record.source !== 'infereval') return [];
  try {
    return [{ kind: 'infereval.evaluation', raw: JSON.parse(await readFile(record.sourcePath, 'utf8')) }];
  } catch {
    return [];
  }
}
