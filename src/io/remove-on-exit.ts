/**
 * A temporary file or folder that goes when the process goes: at `release()`, at 'exit', or on SIGINT, SIGTERM or
 * SIGHUP. When nothing else listens for the signal, the path is removed and the signal raised again, so the process
 * ends as it would have; when the program has its own handler (a graceful stop), that handler decides and the path
 * goes at 'exit' at the latest. kill -9 cannot be caught: what it leaves is for the next run to sweep (see
 * `isLeftover`).
 */
import { rmSync } from 'node:fs';
import { isProcessAlive } from './process-alive.js';

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export interface RemovedOnExit {
  readonly path: string;
  /** Removes the path now (recursively) and stops watching. Safe to call more than once. */
  remove(): void;
  /** Stops watching without removing (the path was renamed into place, or removed by other means). */
  keep(): void;
}

/** The paths to remove, watched by one listener per signal (so that two paths never wait for each other). */
const watched = new Set<string>();

function removeAll(): void {
  for (const path of watched) rmSync(path, { recursive: true, force: true });
  watched.clear();
  unwatch();
}

const onSignal = Object.fromEntries(
  SIGNALS.map((signal) => [
    signal,
    () => {
      if (process.listenerCount(signal) > 1) return;
      removeAll();
      process.kill(process.pid, signal);
    },
  ]),
) as Record<NodeJS.Signals, () => void>;

function watch(): void {
  if (process.listeners('exit').includes(removeAll)) return;
  process.on('exit', removeAll);
  for (const signal of SIGNALS) process.on(signal, onSignal[signal]);
}

function unwatch(): void {
  process.removeListener('exit', removeAll);
  for (const signal of SIGNALS) process.removeListener(signal, onSignal[signal]);
}

export function removeOnExit(path: string): RemovedOnExit {
  watched.add(path);
  watch();
  const keep = () => {
    watched.delete(path);
    if (watched.size === 0) unwatch();
  };
  return {
    path,
    remove() {
      if (!watched.has(path)) return;
      keep();
      rmSync(path, { recursive: true, force: true });
    },
    keep,
  };
}

/**
 * A temporary name carries the pid of the process that made it: `<prefix><pid>-<random>`. It is a leftover when
 * that process no longer runs on this machine.
 */
export function temporaryName(prefix: string): string {
  return `${prefix}${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
}

export function isLeftover(name: string, prefix: string): boolean {
  if (!name.startsWith(prefix)) return false;
  const pid = Number(/^(\d+)-/.exec(name.slice(prefix.length))?.[1]);
  return Number.isSafeInteger(pid) && pid > 0 && !isProcessAlive(pid);
}
