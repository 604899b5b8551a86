/**
 * Writes an evaluation (η) item by item to a temporary file, in benchmark order, then flushes and renames it
 * over the target: constant memory however many items, and never a half-written η at the target path.
 */
import { chmod, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { prepareOutput, writeError } from '../io/output-target.js';

function indent(json: string, spaces: number): string {
  const pad = ' '.repeat(spaces);
  return json.replace(/\n/g, `\n${pad}`);
}

export interface EtaWriter {
  /** Adds item `index` (0-based); items may arrive out of order and are written in order. */
  add(index: number, item: unknown): Promise<void>;
  /** Writes the remaining fields and renames the file into place. */
  finish(tail: Record<string, unknown>): Promise<void>;
  abort(): Promise<void>;
}

export async function openEtaWriter(path: string, head: Record<string, unknown>): Promise<EtaWriter> {
  const { target, tmp, mode } = await prepareOutput(path);
  let handle: FileHandle;
  try {
    handle = await open(tmp, 'w', mode ?? 0o666);
    if (mode !== undefined) await chmod(tmp, mode);
  } catch (error) {
    throw writeError(path, error);
  }
  const headJson = JSON.stringify(head, null, 2);
  let chain: Promise<unknown> = handle.write(`${headJson.slice(0, -2)},\n  "items": [`);
  let next = 0;
  const waiting = new Map<number, string>();
  const write = (text: string): Promise<unknown> => (chain = chain.then(() => handle.write(text)));
  // Items in order are gathered into writes of about 64 KiB: the file is renamed into place only at the end, so
  // nothing is gained by a write (a thread-pool round trip) per item.
  let buffered: string[] = [];
  let bufferedLength = 0;
  const flush = (): Promise<unknown> => {
    const text = buffered.join('');
    buffered = [];
    bufferedLength = 0;
    return write(text);
  };

  return {
    add(index, item) {
      waiting.set(index, indent(JSON.stringify(item, null, 2), 4));
      while (waiting.has(next)) {
        const part = `${next === 0 ? '' : ','}\n    ${waiting.get(next)}`;
        buffered.push(part);
        bufferedLength += part.length;
        waiting.delete(next);
        next++;
      }
      return bufferedLength >= 65_536 ? flush().then(() => undefined) : Promise.resolve();
    },
    async finish(tail) {
      const tailJson = JSON.stringify(tail, null, 2);
      const rest = tailJson === '{}' ? '\n}\n' : `,\n${tailJson.slice(2)}\n`;
      try {
        buffered.push(`${next === 0 ? '' : '\n  '}]${rest}`);
        await flush();
        await handle.sync();
        await handle.close();
        await rename(tmp, target);
      } catch (error) {
        await rm(tmp, { force: true });
        throw writeError(path, error);
      }
    },
    async abort() {
      await chain.catch(() => undefined);
      await handle.close().catch(() => undefined);
      await rm(tmp, { force: true });
    },
  };
}
