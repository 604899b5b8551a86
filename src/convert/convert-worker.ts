/**
 * Worker thread of the chunked conversion (row-blocks.ts): for each task, converts its byte range of a JSONL file
 * (convertChunk) and posts back the blocks (their memory transferred, not copied) and the number of lines read, or
 * the failure with its line counted within the range.
 */
import { parentPort } from 'node:worker_threads';
import {
  chunkMemory,
  convertChunk,
  type ChunkReply,
  type ChunkTask,
  type LineMapper,
  type RowJob,
} from './row-blocks.js';
import { lineMapperFor } from './row-mappers.js';

/**
 * Memory used again from task to task (one task runs at a time): block buffers handed back by the main thread, and
 * the buffer ranges are read into. Left to the garbage collector, they pile up to tens of MB per thread.
 */
const memory = chunkMemory();

/**
 * A worker serves the chunks of one file (see inPool), so its mapper is built once and reused: a new mapper per
 * chunk would also start its functions' type feedback afresh.
 */
let current: { key: string; map: LineMapper } | undefined;
function mapperFor(job: RowJob): LineMapper {
  const key = JSON.stringify(job);
  if (current?.key !== key) current = { key, map: lineMapperFor(job) };
  return current.map;
}

async function runChunk(task: ChunkTask): Promise<{ reply: ChunkReply; transfer: ArrayBuffer[] }> {
  for (const spare of task.spares ?? []) if (memory.spares.length < 4) memory.spares.push(spare);
  return convertChunk(task, mapperFor(task.job), memory);
}

// Tasks run one after another (a second one may be queued while the first runs; see inPool).
let queue: Promise<void> = Promise.resolve();
parentPort!.on('message', (task: ChunkTask) => {
  queue = queue.then(() =>
    runChunk(task).then(({ reply, transfer }) => parentPort!.postMessage(reply, transfer)),
  );
});
