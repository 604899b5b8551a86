/**
 * Worker thread of the chunked conversion (row-blocks.ts): for each task, reads its byte range of a JSONL file,
 * maps and serialises the rows, and posts back the blocks (their memory transferred, not copied) and the number of
 * lines read, or the failure with its line counted within the range.
 */
import { parentPort } from 'node:worker_threads';
import {
  encodeRange,
  failedReply,
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
const spares: ArrayBuffer[] = [];
const readBuffer = Buffer.allocUnsafe(1 << 20);

/**
 * A worker serves the chunks of one file (see inWorkers), so its mapper is built once and reused: a new mapper per
 * chunk would also start its functions' type feedback afresh.
 */
let current: { key: string; map: LineMapper } | undefined;
function mapperFor(job: RowJob): LineMapper {
  const key = JSON.stringify(job);
  if (current?.key !== key) current = { key, map: lineMapperFor(job) };
  return current.map;
}

async function runChunk(task: ChunkTask): Promise<{ reply: ChunkReply; transfer: ArrayBuffer[] }> {
  for (const spare of task.spares ?? []) if (spares.length < 4) spares.push(spare);
  try {
    const map = mapperFor(task.job);
    const stats = { lines: 0 };
    const blocks: (ChunkReply & { kind: 'done' })['blocks'] = [];
    const transfer: ArrayBuffer[] = [];
    for await (const block of encodeRange(task.job.path, map, task.range, stats, { spares, readBuffer })) {
      // Blocks own their memory from offset 0 (see BlockEncoder); anything else is copied before the transfer.
      const bytes = block.bytes.byteOffset === 0 ? block.bytes : Uint8Array.prototype.slice.call(block.bytes);
      const buffer = bytes.buffer as ArrayBuffer;
      blocks.push({ buffer, length: bytes.length, rows: block.rows });
      transfer.push(buffer);
    }
    return { reply: { kind: 'done', id: task.id, blocks, lines: stats.lines }, transfer };
  } catch (error) {
    return { reply: failedReply(task.id, error), transfer: [] };
  }
}

parentPort!.on('message', (task: ChunkTask) => {
  void runChunk(task).then(({ reply, transfer }) => parentPort!.postMessage(reply, transfer));
});
