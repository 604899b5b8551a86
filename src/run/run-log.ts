/** The structured run log: one JSON object per line (run, sample, retry, item, finish events). Never holds keys. */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';

export interface RunLog {
  event(type: 'run' | 'item' | 'sample' | 'retry' | 'finish', fields: Record<string, unknown>): void;
  close(): Promise<void>;
}

export const nullRunLog: RunLog = { event() {}, close: async () => {} };

export function openRunLog(path: string | undefined): RunLog {
  if (path === undefined) return nullRunLog;
  mkdirSync(dirname(path), { recursive: true });
  const out: WriteStream = createWriteStream(path, { flags: 'a' });
  return {
    event(type, fields) {
      out.write(`${JSON.stringify({ event: type, t: new Date().toISOString(), ...fields })}\n`);
    },
    close: () => new Promise<void>((resolve) => out.end(resolve)),
  };
}
