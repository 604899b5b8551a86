/**
 * Instance rows as bytes: the JSONL text of rows gathered into blocks of whole lines, ready for the writer (which
 * hashes and writes each block as it comes, see write.ts). A source whose rows come one per line of a large JSONL
 * file (lm-eval samples) offers them this way too, and then the file is cut into byte ranges at newlines that
 * worker threads parse, map and serialise, while this thread puts their blocks back in file order: the bytes are
 * the same as from one thread, errors name the line in the file, and memory stays bounded by the chunks in flight
 * (counted in chunks, not rows). Small files are converted in this thread: a pool is not worth starting for them.
 */
import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { DataError, EvalkitError, IoError, UsageError } from '../errors.js';
import { lineBoundaries } from '../io/jsonl.js';
import { startWorker } from '../io/worker-thread.js';
import type { RowFacts } from '../checks/reconciliation.js';
import { jsonlLineText, LineError, parseJsonlLine, readJsonlLines } from './read.js';
import type { MappedRow, ParallelOptions } from './types.js';

/** Whole JSONL lines (each row's JSON text and a newline) and how many rows they hold. */
export interface RowBlock {
  bytes: Buffer;
  rows: number;
  /** Source lines the mapper made no row of (it returned ''), counted with the block they fell in. */
  skipped?: number;
  /**
   * The facts the writer's reconciliation reads of each row, in order, when the mapper gave them for every row of
   * the block (see MappedRow); else the writer reads them from the bytes.
   */
  facts?: RowFacts[];
}

/** Rows are gathered into blocks of about this many bytes. */
export const BLOCK_BYTES = 1 << 20;

/** Files smaller than this are converted in this thread (default of `ParallelOptions.thresholdBytes`). */
export const DEFAULT_THRESHOLD_BYTES = 32 * 1024 * 1024;
/**
 * Byte range one worker task reads (default of `ParallelOptions.chunkBytes`). Small ranges keep the workers' heaps
 * and the blocks in flight small (measured: 1 MiB ranges, 220 MB peak RSS with two workers; 4 MiB, 285 MB) at no
 * cost in throughput.
 */
export const DEFAULT_CHUNK_BYTES = 1024 * 1024;
/**
 * Threads by default, at most (this one and two workers): each worker holds about 55 MB (its own V8 heap and code),
 * and peak RSS must stay under 256 MB. `--jobs N` may ask for more.
 */
export const MAX_DEFAULT_JOBS = 3;

/**
 * Encodes row lines straight into blocks (no joined string, no Buffer per row). `add` returns the finished block
 * when a line no longer fits in the current one; `take` returns what is left. New blocks reuse the memory in
 * `spares` (buffers of `blockBytes` whose blocks were written) before allocating.
 */
export class BlockEncoder {
  private buf: Buffer | undefined;
  private used = 0;
  private rows = 0;
  private skipped = 0;
  /** The facts of the block's rows; undefined once a row came without them. */
  private facts: RowFacts[] | undefined = [];
  constructor(
    private readonly blockBytes = BLOCK_BYTES,
    private readonly spares: ArrayBuffer[] = [],
  ) {}

  private allocate(json: string, worst: number): Buffer {
    if (worst > this.blockBytes) return Buffer.allocUnsafe(Buffer.byteLength(json) + 1);
    const spare = this.spares.pop();
    return spare !== undefined && spare.byteLength === this.blockBytes
      ? Buffer.from(spare)
      : Buffer.allocUnsafe(this.blockBytes);
  }

  /**
   * Adds a row's JSON text (and its facts, when known); '' is a line the mapper made no row of (counted, not
   * written). `ascii`: the text is known to be ASCII (see MappedRow).
   */
  add(json: string, facts?: RowFacts, ascii = false): RowBlock | undefined {
    if (json === '') {
      this.skipped++;
      return undefined;
    }
    // A UTF-16 unit takes at most 3 UTF-8 bytes.
    const worst = json.length * 3 + 1;
    let done: RowBlock | undefined;
    if (this.buf !== undefined && this.buf.length - this.used < worst) done = this.take();
    if (this.buf === undefined) this.buf = this.allocate(json, worst);
    // ASCII written as Latin-1: the same bytes, copied without the UTF-8 encoder's work on each character.
    this.used += ascii ? this.buf.write(json, this.used, 'latin1') : this.buf.write(json, this.used);
    this.buf[this.used++] = 0x0a;
    this.rows++;
    if (facts === undefined) this.facts = undefined;
    else this.facts?.push(facts);
    return done;
  }

  take(): RowBlock | undefined {
    if (this.buf === undefined || this.rows === 0) {
      if (this.skipped === 0) return undefined;
      const empty: RowBlock = { bytes: Buffer.alloc(0), rows: 0, skipped: this.skipped };
      this.skipped = 0;
      return empty;
    }
    const block: RowBlock = { bytes: this.buf.subarray(0, this.used), rows: this.rows };
    if (this.skipped > 0) block.skipped = this.skipped;
    if (this.facts !== undefined) block.facts = this.facts;
    this.facts = [];
    this.buf = undefined;
    this.used = 0;
    this.rows = 0;
    this.skipped = 0;
    return block;
  }
}

/** Which source's row mapper a worker uses (see row-mappers.ts), with its context as plain (cloneable) data. */
export interface RowJob {
  source: 'lm-eval';
  /** The JSONL file whose non-blank lines are the rows. */
  path: string;
  context: unknown;
}

/**
 * Maps one parsed line (its number within what is read, and its text, which JSON.parse accepted) to the row's JSON
 * text (with its facts, see MappedRow), or '' when the line makes no row (e.g. its score is NaN or ±Infinity).
 * `ascii`: the line's bytes are all ASCII. Throws LineError for bad lines.
 */
export type LineMapper = (value: unknown, line: number, text: string, ascii: boolean) => string | MappedRow;

/**
 * The blocks of the rows of `path` (or of a byte range of it, lines numbered within the range), mapped in this
 * thread. `stats.lines` is set at the end (blank lines included). `reuse`: memory to use again (a worker's).
 */
export async function* encodeRange(
  path: string,
  map: LineMapper,
  range: { start?: number; end?: number } = {},
  stats?: { lines: number },
  reuse?: { spares: ArrayBuffer[]; readBuffer: Buffer },
): AsyncGenerator<RowBlock> {
  const encoder = new BlockEncoder(BLOCK_BYTES, reuse?.spares);
  // Each line parsed just before it is mapped: parsed values do not outlive their row (a batch of parsed lines would
  // survive the young generation's collections and be copied and promoted).
  for await (const batch of readJsonlLines(path, range, stats, reuse?.readBuffer))
    for (const l of batch) {
      const text = jsonlLineText(path, l);
      // Decoded from valid UTF-8: as many characters as bytes only when every byte is ASCII.
      const row = map(parseJsonlLine(path, l, text), l.line, text, l.bytes.length === text.length);
      const done = typeof row === 'string' ? encoder.add(row) : encoder.add(row.json, row.facts, row.ascii);
      if (done) yield done;
    }
  const rest = encoder.take();
  if (rest) yield rest;
}

// ---------------------------------------------------------------------------------------------------------------
// Worker protocol

export interface ChunkTask {
  id: number;
  job: RowJob;
  range: { start: number; end: number };
  /** Block buffers already written, handed back for reuse (transferred). */
  spares?: ArrayBuffer[];
}

export type ChunkReply =
  | {
      kind: 'done';
      id: number;
      blocks: { buffer: ArrayBuffer; length: number; rows: number; skipped?: number; facts?: RowFacts[] }[];
      lines: number;
    }
  | {
      kind: 'failed';
      id: number;
      name: string;
      code: string;
      message: string;
      line?: number;
      detail?: string;
    };

/** A thrown error as a reply (line and detail kept apart for a LineError, so that the line can be renumbered). */
export function failedReply(id: number, error: unknown): ChunkReply {
  const e = error as Error;
  if (error instanceof LineError)
    return {
      kind: 'failed',
      id,
      name: 'LineError',
      code: error.code,
      message: error.message,
      line: error.line,
      detail: error.detail,
    };
  return {
    kind: 'failed',
    id,
    name: error instanceof EvalkitError ? error.constructor.name : 'Error',
    code: error instanceof EvalkitError ? error.code : 'internal',
    message: e?.message ?? String(error),
  };
}

/** Memory a thread uses again from chunk to chunk (see encodeRange). */
export interface ChunkMemory {
  spares: ArrayBuffer[];
  readBuffer: Buffer;
}

/** A thread's reusable memory, empty of spares. */
export const chunkMemory = (): ChunkMemory => ({
  spares: [],
  readBuffer: Buffer.allocUnsafe(DEFAULT_CHUNK_BYTES),
});

/** Written block buffers kept for reuse, at most (beyond, they are left to the GC). */
const MAX_SPARES = 8;

/**
 * Keeps a written block's memory for the next blocks (fresh memory for every block costs page faults and
 * collections, about 5% of a conversion); only whole block buffers, and at most MAX_SPARES.
 */
function keepForReuse(spares: ArrayBuffer[], bytes: Buffer): void {
  if (bytes.byteOffset === 0 && bytes.buffer.byteLength === BLOCK_BYTES && spares.length < MAX_SPARES)
    spares.push(bytes.buffer as ArrayBuffer);
}

/**
 * Converts one chunk task into its reply, in whichever thread calls it: the blocks (each owning its memory from
 * offset 0, ready to be transferred) and the number of lines read, or the failure with its line counted within the
 * range.
 */
export async function convertChunk(
  task: ChunkTask,
  map: LineMapper,
  memory: ChunkMemory,
): Promise<{ reply: ChunkReply; transfer: ArrayBuffer[] }> {
  try {
    const stats = { lines: 0 };
    const blocks: (ChunkReply & { kind: 'done' })['blocks'] = [];
    const transfer: ArrayBuffer[] = [];
    for await (const block of encodeRange(task.job.path, map, task.range, stats, memory)) {
      // Blocks own their memory from offset 0 (see BlockEncoder); anything else is copied before the transfer.
      const bytes = block.bytes.byteOffset === 0 ? block.bytes : Uint8Array.prototype.slice.call(block.bytes);
      const buffer = bytes.buffer as ArrayBuffer;
      blocks.push({
        buffer,
        length: bytes.length,
        rows: block.rows,
        ...(block.skipped ? { skipped: block.skipped } : {}),
        ...(block.facts ? { facts: block.facts } : {}),
      });
      transfer.push(buffer);
    }
    return { reply: { kind: 'done', id: task.id, blocks, lines: stats.lines }, transfer };
  } catch (error) {
    return { reply: failedReply(task.id, error), transfer: [] };
  }
}

/** The error a failed reply stands for; a LineError's line is moved by `lineBase` (the lines before its chunk). */
function replyError(reply: ChunkReply & { kind: 'failed' }, path: string, lineBase: number): Error {
  if (reply.line !== undefined && reply.detail !== undefined)
    return new LineError(reply.code, path, lineBase + reply.line, reply.detail);
  if (reply.name === 'IoError') return new IoError(reply.code, reply.message);
  if (reply.name === 'UsageError') return new UsageError(reply.code, reply.message);
  if (reply.name === 'DataError') return new DataError(reply.code, reply.message);
  return new Error(reply.message);
}

// ---------------------------------------------------------------------------------------------------------------
// The pool

/** Threads to use by default: the machine's parallelism, capped for memory. */
export function defaultJobs(): number {
  return Math.max(1, Math.min(availableParallelism(), MAX_DEFAULT_JOBS));
}

/**
 * The blocks of a JSONL file's rows, in file order. `map` is the same mapping the workers build from `job` (used
 * here for a file under the threshold, or with one job).
 */
export async function* rowBlocksOf(
  job: RowJob,
  map: () => LineMapper,
  options: ParallelOptions = {},
): AsyncGenerator<RowBlock> {
  const jobs = options.jobs ?? defaultJobs();
  const chunkBytes = Math.max(1, options.chunkBytes ?? DEFAULT_CHUNK_BYTES);
  // Jobs asked for explicitly: workers for any file of more than one chunk.
  const threshold =
    options.thresholdBytes ?? (options.jobs === undefined ? DEFAULT_THRESHOLD_BYTES : chunkBytes);
  const info = await stat(job.path).catch(() => undefined);
  if (jobs <= 1 || info === undefined || !info.isFile() || info.size === 0 || info.size < threshold) {
    const memory = chunkMemory();
    for await (const block of encodeRange(job.path, map(), {}, undefined, memory)) {
      yield block;
      // Written once the consumer asks for the next block.
      keepForReuse(memory.spares, block.bytes);
    }
    return;
  }
  const cuts = await lineBoundaries(job.path, info.size, Math.ceil(info.size / chunkBytes));
  const tasks: ChunkTask[] = [];
  for (let k = 0; k + 1 < cuts.length; k++)
    tasks.push({ id: tasks.length, job, range: { start: cuts[k], end: cuts[k + 1] } });
  yield* inPool(job.path, tasks, Math.min(jobs, tasks.length) - 1, map());
}

/**
 * Chunks each thread may be ahead of the one being written. Results come back in any order but are written in file
 * order, so a thread that finds the next chunk to write still in another's hands starts a later one instead of
 * waiting; with 2 per thread it often could not (measured on 256 MB of 4 KB rows: 2 → 1.97–2.18 s, 8 → 1.68–1.89 s,
 * 16 and 32 no better), and each chunk ahead holds about 1.2 MB of output.
 */
const CHUNKS_AHEAD_PER_THREAD = 8;
/**
 * Tasks a worker holds at once: the one it converts and the next, so that it never waits for this thread (busy
 * converting a chunk of its own) to hand it more.
 */
const TASKS_PER_WORKER = 2;

/**
 * Runs the chunk tasks on `workerCount` workers and this thread, and yields their blocks in task order. This thread
 * converts a chunk itself whenever the next block to write is not ready (with as many threads as cores, a thread
 * that only waited, hashed and wrote would leave a core part idle, and one more busy thread would only take turns
 * with the others). At most CHUNKS_AHEAD_PER_THREAD chunks per thread are ahead of the one being written. Each
 * block's memory goes back to a converter once the consumer asks for the next block (it has been written then): left
 * to the garbage collector, transferred buffers pile up to tens of MB before V8 frees them.
 */
async function* inPool(
  path: string,
  tasks: ChunkTask[],
  workerCount: number,
  map: LineMapper,
): AsyncGenerator<RowBlock> {
  const maxAhead = (workerCount + 1) * CHUNKS_AHEAD_PER_THREAD;
  const memory = chunkMemory();
  const { spares } = memory;
  const replies = new Map<number, ChunkReply>();
  let wake: (() => void) | undefined;
  let crash: Error | undefined;
  let next = 0; // next task to start
  let wanted = 0; // next task to yield
  let stop = false;
  const held = new Map<Worker, number>();
  const notify = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const canStart = (): boolean => !stop && next < tasks.length && next < wanted + maxAhead;
  const feed = (): void => {
    for (const [worker, count] of held)
      for (let n = count; n < TASKS_PER_WORKER && canStart(); n++) {
        const give = spares.splice(0, 2);
        worker.postMessage({ ...tasks[next++], spares: give }, give);
        held.set(worker, n + 1);
      }
  };
  const settle = (reply: ChunkReply): void => {
    replies.set(reply.id, reply);
    // Nothing after a failed chunk is needed: the first failure in file order ends the conversion.
    if (reply.kind === 'failed') stop = true;
  };
  for (let i = 0; i < workerCount; i++) {
    const worker = startWorker(import.meta.url, 'convert-worker');
    held.set(worker, 0);
    worker.on('message', (reply: ChunkReply) => {
      settle(reply);
      held.set(worker, held.get(worker)! - 1);
      feed();
      notify();
    });
    worker.on('error', (error) => {
      crash ??= error;
      notify();
    });
    worker.on('exit', (code) => {
      if (!stop) crash ??= new Error(`a conversion worker stopped (exit code ${code})`);
      notify();
    });
  }
  try {
    feed();
    let lineBase = 0;
    while (wanted < tasks.length) {
      const reply = replies.get(wanted);
      if (reply === undefined) {
        if (crash) throw crash;
        if (canStart()) {
          settle((await convertChunk(tasks[next++], map, memory)).reply);
          feed();
        } else await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      replies.delete(wanted);
      if (reply.kind === 'failed') throw replyError(reply, path, lineBase);
      wanted++;
      feed();
      lineBase += reply.lines;
      for (const b of reply.blocks) {
        const bytes = Buffer.from(b.buffer, 0, b.length);
        const block: RowBlock = { bytes, rows: b.rows };
        if (b.skipped) block.skipped = b.skipped;
        if (b.facts) block.facts = b.facts;
        yield block;
        keepForReuse(spares, bytes);
      }
    }
  } finally {
    stop = true;
    await Promise.all([...held.keys()].map((w) => w.terminate()));
  }
}
