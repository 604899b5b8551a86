/**
 * The server's answers, kept as the JSON bytes it sent, per state of the store: the state is the size and
 * modification time of the store file and of its write-ahead log, so an answer is served again only while the store
 * is as it was when the answer was made. Bounded in bytes (least recently used answers go first); an answer larger
 * than `maxEntryBytes` is not kept.
 *
 * `once` makes one answer for requests that ask the same thing at the same time; the work is abandoned only when
 * every request waiting for it has been.
 */
import { statSync } from 'node:fs';
import { RequestAbandoned } from './pool.js';

export interface AnswerCache {
  /** The store's state now (part of every key). */
  state(): string;
  get(key: string): Buffer | undefined;
  set(key: string, body: Buffer): void;
  once(key: string, signal: AbortSignal, make: (signal: AbortSignal) => Promise<Buffer>): Promise<Buffer>;
  readonly bytes: number;
}

function fileState(path: string): string {
  try {
    const s = statSync(path);
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return '-';
  }
}

export function createAnswerCache(
  storePath: string,
  options: { maxBytes?: number; maxEntryBytes?: number } = {},
): AnswerCache {
  const maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
  const maxEntryBytes = options.maxEntryBytes ?? 1024 * 1024;
  const kept = new Map<string, Buffer>();
  let bytes = 0;
  const inflight = new Map<
    string,
    { promise: Promise<Buffer>; users: number; controller: AbortController }
  >();

  return {
    state: () => `${fileState(storePath)}/${fileState(`${storePath}.wal`)}`,
    get(key) {
      const body = kept.get(key);
      if (body) {
        kept.delete(key);
        kept.set(key, body);
      }
      return body;
    },
    set(key, body) {
      if (body.length > maxEntryBytes || kept.has(key)) return;
      kept.set(key, body);
      bytes += body.length;
      for (const [oldKey, old] of kept) {
        if (bytes <= maxBytes) break;
        kept.delete(oldKey);
        bytes -= old.length;
      }
    },
    get bytes() {
      return bytes;
    },
    async once(key, signal, make) {
      if (signal.aborted) throw new RequestAbandoned();
      let entry = inflight.get(key);
      if (!entry) {
        const controller = new AbortController();
        const made = make(controller.signal);
        const created = { promise: made, users: 0, controller };
        inflight.set(key, created);
        void made.then(
          () => inflight.get(key) === created && inflight.delete(key),
          () => inflight.get(key) === created && inflight.delete(key),
        );
        entry = created;
      }
      const shared = entry;
      shared.users++;
      return new Promise<Buffer>((resolve, reject) => {
        const onAbort = () => {
          reject(new RequestAbandoned());
          if (--shared.users === 0) {
            if (inflight.get(key) === shared) inflight.delete(key);
            shared.controller.abort();
          }
        };
        signal.addEventListener('abort', onAbort, { once: true });
        shared.promise.then(
          (body) => {
            signal.removeEventListener('abort', onAbort);
            resolve(body);
          },
          (error: unknown) => {
            signal.removeEventListener('abort', onAbort);
            reject(error);
          },
        );
      });
    },
  };
}
