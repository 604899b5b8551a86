/**
 * `--jobs N`: spreads files, and byte ranges of large JSONL files, over N threads (this one and N - 1 workers). Ranges
 * end just after a newline; each task numbers lines from 1 within its range and reports how many lines it read, so
 * the results are renumbered here. Workers send back diagnostics and counts, not documents.
 */
import type { Worker } from 'node:worker_threads';
import type { RowCheckContext, RowCheckResult } from '../checks/eee-tree.js';
import { IoError } from '../errors.js';
import { lineBoundariesAt } from '../io/jsonl.js';
import { startWorker } from '../io/worker-thread.js';
import { emptyFileResult, type FileResult } from './file.js';
import { runTask, type WorkerReply, type WorkerTask } from './task.js';

export interface ParallelFile {
  path: string;
  absPath: string;
  jsonl: boolean;
  size: number;
  /** Row checks to run while reading (the file is then read whole by one worker, not split into ranges). */
  rows?: RowCheckContext;
}

/** JSONL files above this size are split into ranges, of at most this size. */
export const DEFAULT_RANGE_BYTES = 16 * 1024 * 1024;
/** Tasks a worker is sent before it has finished the first of them (see validateInWorkers). */
const AHEAD = 2;
/** The smallest range (below rangeBytes / 4). */
const MIN_RANGE_BYTES = 1024 * 1024;

/**
 * Where to cut a file that `jobs` threads read: guided, each range a 1/(2·jobs) share of what is left (at most
 * `rangeBytes`, at least a quarter of it or 1 MiB), so that the ranges shrink towards the end and the threads finish
 * together, the one that started late (a worker loads its modules first) included.
 */
export function rangeTargets(size: number, jobs: number, rangeBytes: number): number[] {
  const smallest = Math.min(MIN_RANGE_BYTES, Math.ceil(rangeBytes / 4));
  const targets: number[] = [];
  for (let at = 0; ;) {
    at += Math.max(smallest, Math.min(rangeBytes, Math.ceil((size - at) / (2 * jobs))));
    if (at >= size) return targets;
    targets.push(at);
  }
}

/**
 * Single-thread seconds of work left below which `--jobs auto` starts no worker: a worker first loads the validator
 * (~0.2 s of CPU on a core of its own) and then halves what is left, so on a file the fast path reads at ~360 MB/s
 * two threads lost to one up to ~200 MB (bench/RESULTS.md); the slow path reads 4× fewer bytes a second, so the same
 * bytes are worth a worker there.
 */
export const AUTO_PARALLEL_SECONDS = 1;

/**
 * Whether workers pay for the work left, from what this thread did first: `bytes` in `seconds` of its CPU time,
 * `remainingBytes` still to read (`--jobs auto`).
 */
export function workersPay(done: { bytes: number; seconds: number }, remainingBytes: number): boolean {
  if (done.bytes <= 0) return true;
  return (remainingBytes * done.seconds) / done.bytes >= AUTO_PARALLEL_SECONDS;
}

/**
 * Validates files with `jobs` workers and returns one result per file, in the order given, with line numbers as in
 * the files. `onBytes` reports progress. With `adaptive` (`--jobs auto`), this thread reads the first two tasks alone
 * and starts the workers only when the rest is worth them at the rate it read the second (`workersPay`, or
 * `adaptive` itself).
 */
export async function validateInWorkers(
  files: ParallelFile[],
  jobs: number,
  options: {
    engine: WorkerTask['engine'];
    maxDiagnostics?: number;
    maxDepth?: number;
    rangeBytes?: number;
    onBytes?: (n: number) => void;
    /** What the row checks of a file with `rows` found. */
    onRows?: (file: ParallelFile, result: RowCheckResult) => void;
    /** Start the workers only if the first task's rate says they pay (true: `workersPay`). */
    adaptive?: boolean | ((done: { bytes: number; seconds: number }, remainingBytes: number) => boolean);
    /** The threads that ran tasks (this one and the workers started). */
    onThreads?: (threads: number) => void;
  },
): Promise<FileResult[]> {
  const tasks: WorkerTask[] = [];
  const taskFile: number[] = [];
  for (let f = 0; f < files.length; f++) {
    const file = files[f];
    const base = {
      path: file.path,
      absPath: file.absPath,
      jsonl: file.jsonl,
      engine: options.engine,
      maxDiagnostics: options.maxDiagnostics,
      maxDepth: options.maxDepth,
    };
    const rangeBytes = options.rangeBytes ?? DEFAULT_RANGE_BYTES;
    if (file.rows) {
      tasks.push({ ...base, id: tasks.length, rows: file.rows });
      taskFile.push(f);
    } else if (file.jsonl && file.size > rangeBytes) {
      const cuts = await lineBoundariesAt(file.absPath, file.size, rangeTargets(file.size, jobs, rangeBytes));
      for (let k = 0; k + 1 < cuts.length; k++) {
        tasks.push({ ...base, id: tasks.length, range: { start: cuts[k], end: cuts[k + 1] } });
        taskFile.push(f);
      }
    } else {
      tasks.push({ ...base, id: tasks.length });
      taskFile.push(f);
    }
  }

  const replies: (WorkerReply & { kind: 'done' })[] = new Array(tasks.length);
  let next = 0;
  let failure: WorkerReply | undefined;
  const accept = (reply: WorkerReply): void => {
    if (reply.kind === 'progress') options.onBytes?.(reply.bytes);
    else if (reply.kind === 'failed') failure ??= reply;
    else replies[reply.id] = reply;
  };
  const more = (): boolean => !failure && next < tasks.length;
  // `jobs` threads in all: this one takes tasks from the same queue as the jobs - 1 workers, so that no core waits
  // while the workers start.
  const workers: Worker[] = [];
  let helpers = Math.min(jobs - 1, tasks.length - 1);
  // Each worker holds the task it runs and the next one (AHEAD), so that it goes on to the next while this thread,
  // reading its own range synchronously, has not yet seen the reply to the last.
  const inWorker = (worker: Worker): Promise<void> =>
    new Promise<void>((resolveWorker, rejectWorker) => {
      let held = 0;
      const feed = (): void => {
        while (held < AHEAD && more()) {
          worker.postMessage(tasks[next++]);
          held++;
        }
        if (held === 0) resolveWorker();
      };
      worker.on('message', (reply: WorkerReply) => {
        accept(reply);
        if (reply.kind !== 'progress') {
          held--;
          feed();
        }
      });
      worker.on('error', rejectWorker);
      feed();
    });
  const inThisThread = async (): Promise<void> => {
    while (more()) accept(await runTask(tasks[next++], accept));
  };
  const taskBytes = (t: WorkerTask): number =>
    t.range ? t.range.end - t.range.start : files[taskFile[t.id]].size;
  if (options.adaptive && helpers > 0 && more()) {
    // The first task warms this thread up (compiling, learning the row shapes: about twice the steady cost per
    // byte); the rate is taken on the second. CPU time, not wall time: what the work costs a core however busy the
    // machine is with other work (no worker runs yet, so the process's CPU time is this thread's).
    accept(await runTask(tasks[next++], accept));
    let done = { bytes: 0, seconds: 0 };
    if (more()) {
      const task = tasks[next++];
      const started = process.cpuUsage();
      accept(await runTask(task, accept));
      const used = process.cpuUsage(started);
      done = { bytes: taskBytes(task), seconds: (used.user + used.system) / 1e6 };
    }
    let remaining = 0;
    for (let t = next; t < tasks.length; t++) remaining += taskBytes(tasks[t]);
    const pay = options.adaptive === true ? workersPay : options.adaptive;
    if (!more() || !pay(done, remaining)) {
      helpers = 0;
      // No worker will come: the rest of each file is one range again (its ranges were cut for them).
      while (more()) {
        const task = tasks[next];
        let end = next + 1;
        if (task.range)
          while (end < tasks.length && taskFile[end] === taskFile[next] && tasks[end].range) end++;
        const whole =
          end - next > 1
            ? { ...task, range: { start: task.range!.start, end: tasks[end - 1].range!.end } }
            : task;
        accept(await runTask(whole, accept));
        for (let t = next + 1; t < end; t++)
          replies[t] = { kind: 'done', id: t, result: emptyFileResult(task.path), lines: 0 };
        next = end;
      }
    }
  }
  options.onThreads?.(1 + helpers);
  await Promise.all([
    ...Array.from({ length: helpers }, () => {
      const worker = startWorker(import.meta.url, 'worker');
      workers.push(worker);
      return inWorker(worker);
    }),
    inThisThread(),
  ]).finally(() => Promise.all(workers.map((w) => w.terminate())));
  if (failure && failure.kind === 'failed') {
    if (failure.name === 'IoError') throw new IoError(failure.code, failure.message);
    throw new Error(failure.message);
  }

  // Reassemble: ranges of one file in order, renumbering their lines.
  const results = files.map((f) => emptyFileResult(f.path));
  const lineBase = new Array<number>(files.length).fill(0);
  for (let t = 0; t < tasks.length; t++) {
    const reply = replies[t];
    const f = taskFile[t];
    const into = results[f];
    const shift = lineBase[f];
    into.documents += reply.result.documents;
    into.invalid += reply.result.invalid;
    into.errors += reply.result.errors;
    into.warnings += reply.result.warnings;
    into.omitted += reply.result.omitted;
    into.unknownTypeRepeats += reply.result.unknownTypeRepeats;
    for (const [k, n] of Object.entries(reply.result.types)) into.types[k] = (into.types[k] ?? 0) + n;
    for (const d of reply.result.diagnostics) {
      if (options.maxDiagnostics !== undefined && into.diagnostics.length >= options.maxDiagnostics) {
        into.omitted++;
        continue;
      }
      into.diagnostics.push({ ...d, line: d.line + shift });
    }
    lineBase[f] += reply.lines;
    if (reply.rows) options.onRows?.(files[f], reply.rows);
  }
  return results;
}
