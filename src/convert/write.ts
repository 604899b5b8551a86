/**
 * Writes a converted record into a datastore: the instance rows are streamed to a temporary samples file (row count
 * and sha256 computed on the way), then the aggregate with `detailed_evaluation_results` filled in; both are
 * renamed into place only when everything succeeded, so a failure mid-stream leaves no partial pair. Existing files
 * are never overwritten without `force`; identical bytes already there are "unchanged", not an error.
 */
import { createHash } from 'node:crypto';
import { writeSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { DataError, IoError } from '../errors.js';
import { fileDigest } from './read.js';
import { BlockEncoder, type RowBlock } from './row-blocks.js';
import {
  reconcileAggregate,
  RowTally,
  tallyBlock,
  type Reconciliation,
  type RowFacts,
} from '../checks/reconciliation.js';
import type { ConvertedRecord } from './types.js';
import { pathExists } from '../io/files.js';
import { PAUSE_BEFORE_RENAME } from '../io/atomic.js';
import { pauseForTest } from '../io/test-pause.js';
import { sweepStaleTemporaries, tempPathFor } from '../io/output-target.js';
import type { InputGuard } from '../io/output-is-input.js';

export interface WriteOptions {
  /** Replace existing files that differ. */
  force?: boolean;
  /** Write nothing: read the rows (so a broken source still fails) and say where the record would go. */
  dryRun?: boolean;
  /** The command's inputs: a file to be written that is one of them (by real path or inode) is refused. */
  inputs?: InputGuard;
}

export interface WriteOutcome {
  /** written: new files; overwritten: replaced different files (force); unchanged: the same bytes were there;
   *  planned: dry run. */
  status: 'written' | 'overwritten' | 'unchanged' | 'planned';
  aggregatePath: string;
  samplesPath?: string;
  totalRows: number;
  /** sha256 of the samples file (absent in a dry run or without rows). */
  checksum?: string;
  /** Dry run: whether a file already exists at the target. */
  exists?: boolean;
  /** What the writer changed that a reader must know (repeated sample ids renamed). */
  notes?: string[];
  /** Each result checked against what its source declares (also written into the record). */
  reconciliation: Reconciliation[];
}

/** The aggregate's text as written (two-space indent, final newline). */
export function aggregateText(aggregate: Record<string, unknown>): string {
  return `${JSON.stringify(aggregate, null, 2)}\n`;
}

/** The record's rows as blocks of JSONL bytes: the source's own blocks, or its rows serialised here. */
async function* blocksOf(record: ConvertedRecord): AsyncGenerator<RowBlock> {
  if (record.rowBlocks) {
    yield* record.rowBlocks();
    return;
  }
  if (!record.rows) return;
  const encoder = new BlockEncoder();
  for await (const row of record.rows()) {
    const done = encoder.add(JSON.stringify(row));
    if (done) yield done;
  }
  const rest = encoder.take();
  if (rest) yield rest;
}

/**
 * Writes all of `bytes` at the file's position, synchronously: a block goes into the page cache in a fraction of a
 * millisecond, while an asynchronous write costs a round trip through libuv's thread pool during which this thread
 * (which converts rows too, see row-blocks.ts) waits.
 */
export function writeAll(fd: number, bytes: Uint8Array): void {
  for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
}

const SAMPLE_ID_KEY = Buffer.from('"sample_id":"');

/**
 * Keeps every row's sample_id unique in the samples file, as validation requires (EEE check 9): a source that holds
 * the same item twice (an lm-eval samples file with a repeated doc_id, two runs' lines in one file) would otherwise
 * give a pair that `validate` rejects. A repeat is written as `ID#2`, `ID#3`, … in file order (so the same input
 * gives the same bytes on one thread or many), and the record says so in a note. The id is the row's first
 * `"sample_id":"` member: the row writers put it before any nested object.
 */
export class UniqueSampleIds {
  private readonly seen = new Map<string, number>();
  private row = 0;
  /** Repeats renamed. */
  renamed = 0;
  private example: { id: string; first: number; again: number } | undefined;

  /** The id for the next row: `id` itself the first time, else `id#2`, `id#3`, … (the first free one). */
  next(id: string): string {
    this.row++;
    const first = this.seen.get(id);
    if (first === undefined) {
      this.seen.set(id, this.row);
      return id;
    }
    let n = 2;
    while (this.seen.has(`${id}#${n}`)) n++;
    const unique = `${id}#${n}`;
    this.seen.set(unique, this.row);
    this.renamed++;
    this.example ??= { id, first, again: this.row };
    return unique;
  }

  /** A block of JSONL rows with repeated ids renamed (the same buffer when nothing repeats). */
  block(bytes: Buffer): Buffer {
    return renameIds(bytes, (id) => (id === undefined ? (this.row++, undefined) : this.next(id)));
  }

  /**
   * `block` for a block whose rows' facts are known (RowBlock.facts, one per row): each row's id is its facts'
   * `sample_id` (the first `"sample_id"` of a row as evalkit writes it), so the bytes are read again only when an id
   * repeats; the facts of a renamed row then name its id as written.
   */
  blockWithFacts(bytes: Buffer, facts: RowFacts[]): Buffer {
    let renamed = false;
    const unique: (string | undefined)[] = [];
    for (const f of facts) {
      const id = f.sample_id;
      if (typeof id !== 'string') {
        this.row++;
        unique.push(undefined);
        continue;
      }
      const u = this.next(id);
      unique.push(u);
      if (u !== id) {
        renamed = true;
        f.sample_id = u;
      }
    }
    if (!renamed) return bytes;
    let row = 0;
    return renameIds(bytes, () => unique[row++]);
  }

  /** The note for the record's report, when a repeat was renamed. */
  note(): string | undefined {
    if (!this.example) return undefined;
    const { id, first, again } = this.example;
    return (
      `${this.renamed} row(s) repeat a sample_id already used (e.g. ${JSON.stringify(id)} on rows ${first} and ${again}): ` +
      `the source holds the same item more than once; the repeats are written as ${JSON.stringify(`${id}#2`)}, … so ` +
      'that every sample_id is unique'
    );
  }
}

/**
 * `bytes` (JSONL rows) with each row's first `"sample_id"` string replaced by what `idFor` makes of it (called once a
 * row, in order; with undefined for a row without one); only a longer id of the same start is written (`ID#2`), as
 * UniqueSampleIds makes them. The same buffer when no id changes.
 */
function renameIds(bytes: Buffer, idFor: (id: string | undefined) => string | undefined): Buffer {
  let out: Buffer[] | undefined;
  let copied = 0;
  for (let start = 0; start < bytes.length;) {
    let end = bytes.indexOf(0x0a, start);
    if (end === -1) end = bytes.length;
    const key = bytes.indexOf(SAMPLE_ID_KEY, start);
    if (key !== -1 && key < end) {
      const open = key + SAMPLE_ID_KEY.length;
      let close = open;
      let escaped = false;
      while (close < end && bytes[close] !== 0x22) {
        if (bytes[close] === 0x5c) escaped = true;
        close += bytes[close] === 0x5c ? 2 : 1;
      }
      const raw = bytes.toString('utf8', open, close);
      const id = escaped ? (JSON.parse(`"${raw}"`) as string) : raw;
      const unique = idFor(id);
      if (unique !== undefined && unique !== id) {
        out ??= [];
        out.push(bytes.subarray(copied, close), Buffer.from(unique.slice(id.length)));
        copied = close;
      }
    } else idFor(undefined);
    start = end + 1;
  }
  if (!out) return bytes;
  out.push(bytes.subarray(copied));
  return Buffer.concat(out);
}

/**
 * Streams the rows into an open file, the sha256 updated with each block as it is written (repeated sample ids
 * renamed on the way, see UniqueSampleIds); row count, sha256 and the note about renamed ids.
 */
async function streamRows(
  record: ConvertedRecord,
  handle: FileHandle | undefined,
  tally: RowTally,
): Promise<{ totalRows: number; checksum: string; note?: string }> {
  const hash = createHash('sha256');
  const ids = new UniqueSampleIds();
  let totalRows = 0;
  for await (const block of blocksOf(record)) {
    // Tallied for reconciliation as written (repeated sample ids renamed), as the store and a reader see them: from
    // the facts the source gave with its rows, else read from the bytes.
    const facts = block.facts?.length === block.rows ? block.facts : undefined;
    const bytes = facts ? ids.blockWithFacts(block.bytes, facts) : ids.block(block.bytes);
    if (facts) for (const f of facts) tally.add(f);
    else tallyBlock(tally, bytes);
    hash.update(bytes);
    totalRows += block.rows;
    if (handle) writeAll(handle.fd, bytes);
  }
  return { totalRows, checksum: hash.digest('hex'), note: ids.note() };
}

/** Writes `data` to a new temporary file beside `path`, named in `temps` before it exists (so it is always removed). */
async function writeTemp(path: string, data: string, temps: string[]): Promise<string> {
  const tmp = tempPathFor(path);
  temps.push(tmp);
  const handle = await open(tmp, 'w');
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return tmp;
}

/** Writes one record under `root` (the datastore root: the folder that holds `data/`). */
export async function writeConverted(
  record: ConvertedRecord,
  root: string,
  options: WriteOptions = {},
): Promise<WriteOutcome> {
  const aggregatePath = join(root, record.aggregatePath);
  const samplesPath = record.rows && record.samplesPath ? join(root, record.samplesPath) : undefined;

  const tally = new RowTally();
  if (options.dryRun) {
    const streamed = record.rows ? await streamRows(record, undefined, tally) : undefined;
    const reconciliation = reconcileAggregate(structuredClone(record.aggregate), tally, record.declared);
    const totalRows = streamed?.totalRows ?? 0;
    const there =
      (await pathExists(aggregatePath)) || (samplesPath !== undefined && (await pathExists(samplesPath)));
    return {
      status: 'planned',
      aggregatePath,
      samplesPath,
      totalRows,
      exists: there,
      ...(streamed?.note ? { notes: [streamed.note] } : {}),
      reconciliation,
    };
  }

  try {
    await mkdir(dirname(aggregatePath), { recursive: true });
  } catch (error) {
    throw new IoError('io.write', `cannot create ${dirname(aggregatePath)}: ${(error as Error).message}`);
  }
  // Temporaries of processes killed mid-write (kill -9) are removed before this one writes its own.
  await sweepStaleTemporaries(dirname(aggregatePath));
  if (samplesPath) await sweepStaleTemporaries(dirname(samplesPath));
  for (const path of [aggregatePath, samplesPath]) if (path) options.inputs?.assertNotInput(path);
  // Every temporary is listed here before it is created and removed on every way out (written, unchanged, refused,
  // failed); after a successful rename the name is gone and removing it is a no-op.
  const temps: string[] = [];
  const notes: string[] = [];
  // The samples file's fsync and close, under way while this thread reconciles its rows with the aggregate.
  let samplesSynced: Promise<void> | undefined;
  try {
    let totalRows = 0;
    let checksum: string | undefined;
    const aggregate = structuredClone(record.aggregate);
    let samplesTemp: string | undefined;
    if (samplesPath && record.rows) {
      samplesTemp = tempPathFor(samplesPath);
      temps.push(samplesTemp);
      const handle = await open(samplesTemp, 'w');
      try {
        let note: string | undefined;
        ({ totalRows, checksum, note } = await streamRows(record, handle, tally));
        if (note) notes.push(note);
      } catch (error) {
        await handle.close();
        throw error;
      }
      // Waiting for the disk (a large file's fsync is a good part of a conversion's time) while this thread goes on
      // to the reconciliation: awaited before anything is compared or renamed.
      samplesSynced = handle.sync().finally(() => handle.close());
      const der = (aggregate.detailed_evaluation_results ?? {}) as Record<string, unknown>;
      aggregate.detailed_evaluation_results = {
        format: 'jsonl',
        file_path: record.samplesPath,
        hash_algorithm: 'sha256',
        checksum,
        total_rows: totalRows,
        ...Object.fromEntries(
          Object.entries(der).filter(([k]) => !['format', 'file_path', 'hash_algorithm'].includes(k)),
        ),
      };
    }
    const reconciliation = reconcileAggregate(aggregate, tally, record.declared);
    const text = aggregateText(aggregate);
    await samplesSynced;
    const outcome = (status: WriteOutcome['status']): WriteOutcome => ({
      status,
      aggregatePath,
      samplesPath,
      totalRows,
      checksum,
      ...(notes.length ? { notes } : {}),
      reconciliation,
    });

    const aggregateThere = await pathExists(aggregatePath);
    const samplesThere = samplesPath !== undefined && (await pathExists(samplesPath));
    let status: WriteOutcome['status'] = 'written';
    if (aggregateThere || samplesThere) {
      const sameAggregate = aggregateThere && (await readFile(aggregatePath, 'utf8')) === text;
      const sameSamples =
        samplesPath === undefined || (samplesThere && (await fileDigest(samplesPath)) === checksum);
      if (sameAggregate && sameSamples) return outcome('unchanged');
      if (!options.force)
        throw new DataError(
          'convert.exists',
          `${aggregateThere ? aggregatePath : samplesPath} already exists with different content`,
        );
      status = 'overwritten';
    }
    const aggregateTemp = await writeTemp(aggregatePath, text, temps);
    // Samples first, aggregate last: a reader never sees an aggregate whose samples file is missing or stale.
    await pauseForTest(PAUSE_BEFORE_RENAME, `before-rename ${samplesTemp ?? aggregateTemp}`);
    if (samplesTemp && samplesPath) await rename(samplesTemp, samplesPath);
    await rename(aggregateTemp, aggregatePath);
    return outcome(status);
  } catch (error) {
    if (error instanceof DataError || error instanceof IoError) throw error;
    const e = error as NodeJS.ErrnoException;
    if (e && typeof e.code === 'string' && /^E[A-Z]+$/.test(e.code))
      throw new IoError('io.write', `cannot write ${aggregatePath}: ${e.message}`);
    throw error;
  } finally {
    // (A failed fsync was thrown above, when awaited; on another way out it is waited for, not reported twice.)
    await samplesSynced?.catch(() => undefined);
    await Promise.all(temps.map((t) => rm(t, { force: true })));
  }
}
