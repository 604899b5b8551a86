/**
 * One task of `--jobs N` (a byte range of a JSONL file, or a whole file), run the same way in a worker thread and in
 * the main thread: diagnostics and counts come back, never documents.
 */
import { SamplesRowChecks, type RowCheckContext, type RowCheckResult } from '../checks/eee-tree.js';
import { readJsonlFile } from '../io/jsonl.js';
import { Engine, type EngineOptions } from './engine.js';
import { FileAccumulator, readOptions, validateFileAt, validateLines, type FileResult } from './file.js';

export interface WorkerTask {
  id: number;
  path: string;
  absPath: string;
  jsonl: boolean;
  /** A byte range [start, end) of a JSONL file; absent for a whole file. */
  range?: { start: number; end: number };
  engine: Omit<EngineOptions, 'types'>;
  maxDiagnostics?: number;
  maxDepth?: number;
  /** An EEE samples file (read whole): run its datastore row checks during the read and send back what they found. */
  rows?: RowCheckContext;
}

export type WorkerReply =
  | { kind: 'done'; id: number; result: FileResult; lines: number; rows?: RowCheckResult }
  | { kind: 'failed'; id: number; name: string; code: string; message: string }
  | { kind: 'progress'; id: number; bytes: number };

const engines = new Map<string, Engine>();
/** Progress is sent in steps of a few MiB: one message per batch of lines costs more than it tells. */
const PROGRESS_STEP = 8 * 1024 * 1024;

function engineFor(task: WorkerTask): Engine {
  const key = JSON.stringify(task.engine);
  let e = engines.get(key);
  if (!e) {
    e = new Engine(task.engine);
    engines.set(key, e);
  }
  return e;
}

/**
 * Runs a task; `send` receives the progress replies (the final reply is returned, not sent). `streamed`: read through
 * a stream, for the thread that also answers its workers (see ReadOptions).
 */
export async function runTask(
  task: WorkerTask,
  send: (reply: WorkerReply) => void,
  streamed = false,
): Promise<WorkerReply> {
  const engine = engineFor(task);
  let pending = 0;
  const flush = (): void => {
    if (pending > 0) send({ kind: 'progress', id: task.id, bytes: pending });
    pending = 0;
  };
  const onBytes = (n: number): void => {
    pending += n;
    if (pending >= PROGRESS_STEP) flush();
  };
  try {
    if (task.range) {
      const acc = new FileAccumulator(task.path, task.maxDiagnostics);
      const stats = { lines: 0 };
      await validateLines(
        acc,
        engine,
        readJsonlFile(task.absPath, task.range, { stats, ...readOptions({ streamed }) }),
        {
          maxDepth: task.maxDepth,
          onBytes,
        },
      );
      flush();
      return { kind: 'done', id: task.id, result: acc.result, lines: stats.lines };
    }
    const rows = task.rows ? new SamplesRowChecks(task.rows) : undefined;
    const result = await validateFileAt(task.path, task.absPath, task.jsonl, engine, {
      maxDiagnostics: task.maxDiagnostics,
      maxDepth: task.maxDepth,
      onBytes,
      rows,
      streamed,
    });
    flush();
    return { kind: 'done', id: task.id, result, lines: 0, rows: rows?.result() };
  } catch (error) {
    const e = error as Error & { code?: string };
    return { kind: 'failed', id: task.id, name: e.name, code: e.code ?? 'internal', message: e.message };
  }
}
