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
import type { ConvertedRecord } from './types.js';
import { pathExists } from '../io/files.js';
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

/** Streams the rows into an open file, the sha256 updated with each block as it is written; row count and sha256. */
async function streamRows(
  record: ConvertedRecord,
  handle: FileHandle | undefined,
): Promise<{ totalRows: number; checksum: string }> {
  const hash = createHash('sha256');
  let totalRows = 0;
  for await (const block of blocksOf(record)) {
    hash.update(block.bytes);
    totalRows += block.rows;
    if (handle) writeAll(handle.fd, block.bytes);
  }
  return { totalRows, checksum: hash.digest('hex') };
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

  if (options.dryRun) {
    const totalRows = record.rows ? (await streamRows(record, undefined)).totalRows : 0;
    const there =
      (await pathExists(aggregatePath)) || (samplesPath !== undefined && (await pathExists(samplesPath)));
    return { status: 'planned', aggregatePath, samplesPath, totalRows, exists: there };
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
        ({ totalRows, checksum } = await streamRows(record, handle));
        await handle.sync();
      } finally {
        await handle.close();
      }
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
    const text = aggregateText(aggregate);

    const aggregateThere = await pathExists(aggregatePath);
    const samplesThere = samplesPath !== undefined && (await pathExists(samplesPath));
    let status: WriteOutcome['status'] = 'written';
    if (aggregateThere || samplesThere) {
      const sameAggregate = aggregateThere && (await readFile(aggregatePath, 'utf8')) === text;
      const sameSamples =
        samplesPath === undefined || (samplesThere && (await fileDigest(samplesPath)) === checksum);
      if (sameAggregate && sameSamples) {
        return { status: 'unchanged', aggregatePath, samplesPath, totalRows, checksum };
      }
      if (!options.force)
        throw new DataError(
          'convert.exists',
          `${aggregateThere ? aggregatePath : samplesPath} already exists with different content`,
        );
      status = 'overwritten';
    }
    const aggregateTemp = await writeTemp(aggregatePath, text, temps);
    // Samples first, aggregate last: a reader never sees an aggregate whose samples file is missing or stale.
    if (samplesTemp && samplesPath) await rename(samplesTemp, samplesPath);
    await rename(aggregateTemp, aggregatePath);
    return { status, aggregatePath, samplesPath, totalRows, checksum };
  } catch (error) {
    if (error instanceof DataError || error instanceof IoError) throw error;
    const e = error as NodeJS.ErrnoException;
    if (e && typeof e.code === 'string' && /^E[A-Z]+$/.test(e.code))
      throw new IoError('io.write', `cannot write ${aggregatePath}: ${e.message}`);
    throw error;
  } finally {
    await Promise.all(temps.map((t) => rm(t, { force: true })));
  }
}
