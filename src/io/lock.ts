/**
 * An exclusive lock beside a file a long command writes (`<target>.lock`), so that two runs never write the same
 * output at once. The lock file is created with O_EXCL and holds who owns it: {pid, host, started_at, purpose,
 * argv}. A lock left by a process that is gone (same host, pid no longer alive), or a lock file that cannot be read
 * and is older than a few seconds, is taken over; any other is refused with an IoError `io.locked` naming its owner.
 * The lock is released by `release()` (idempotent), and at the latest when the process exits or is ended by
 * SIGINT/SIGTERM/SIGHUP.
 */
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  linkSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import { IoError } from '../errors.js';
import { isProcessAlive } from './process-alive.js';

export interface LockOwner {
  pid: number;
  host: string;
  started_at: string;
  purpose: string;
  argv?: string[];
  token?: string;
}

export interface Lock {
  /** The lock file's path. */
  readonly path: string;
  readonly owner: LockOwner;
  /** True when a lock left by a dead process was taken over. */
  readonly recoveredStale: LockOwner | undefined;
  /** Removes the lock file if it is still ours. Safe to call more than once. */
  release(): void;
}

/** A lock file that cannot be read as an owner and is older than this is taken to be debris of a crash. */
const CORRUPT_LOCK_AGE_MS = 5_000;

export function lockPathFor(target: string): string {
  return `${target}.lock`;
}

function readOwner(path: string): { text: string; owner?: LockOwner; ageMs: number } | undefined {
  let text: string;
  let ageMs: number;
  try {
    text = readFileSync(path, 'utf8');
    ageMs = Date.now() - statSync(path).mtimeMs;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new IoError('io.lock', `cannot read the lock ${path}: ${(error as Error).message}`);
  }
  try {
    const owner = JSON.parse(text) as LockOwner;
    if (typeof owner?.pid === 'number' && typeof owner.host === 'string') return { text, owner, ageMs };
  } catch {
    // corrupt: handled by the caller through its age
  }
  return { text, ageMs };
}

/** Moves a stale lock aside and removes it, unless another process replaced it meanwhile (then it is put back). */
function removeStale(path: string, seenText: string): void {
  const aside = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.stale`;
  try {
    renameSync(path, aside);
  } catch {
    return; // already gone: someone else removed it
  }
  let now = '';
  try {
    now = readFileSync(aside, 'utf8');
  } catch {
    // unreadable: treat as the stale one
  }
  if (now !== seenText) {
    try {
      linkSync(aside, path); // a fresh lock taken meanwhile: put it back (fails if yet another one exists)
    } catch {
      // a newer lock is there already
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // nothing left to remove
  }
}

function describeOwner(owner: LockOwner): string {
  return `process ${owner.pid} on ${owner.host}, started ${owner.started_at}${owner.purpose ? ` (${owner.purpose})` : ''}`;
}

/**
 * The owner of the lock beside `target` when it is stale (same host, process gone: a run ended by kill -9), which
 * acquireLock takes over; undefined when there is no lock, or a live or foreign one. For the one-line note a
 * command gives before it takes the lock over.
 */
export function staleLockOwner(target: string): LockOwner | undefined {
  let held: ReturnType<typeof readOwner>;
  try {
    held = readOwner(lockPathFor(target));
  } catch {
    return undefined; // unreadable: acquireLock says what is wrong
  }
  const owner = held?.owner;
  return owner && owner.host === hostname() && !isProcessAlive(owner.pid) ? owner : undefined;
}

/** Runs `work` holding the lock beside `target` (acquireLock), and releases it however `work` ends. */
export async function withLock<T>(target: string, purpose: string, work: () => Promise<T>): Promise<T> {
  const lock = await acquireLock(target, purpose);
  try {
    return await work();
  } finally {
    lock.release();
  }
}

/**
 * Takes the lock beside `target`. `purpose` says what holds it (shown to whoever is refused), e.g. "evaluate".
 */
export async function acquireLock(target: string, purpose: string, argv?: string[]): Promise<Lock> {
  const path = lockPathFor(target);
  const owner: LockOwner = {
    pid: process.pid,
    host: hostname(),
    started_at: new Date().toISOString(),
    purpose,
    ...(argv ? { argv } : {}),
    token: randomBytes(8).toString('hex'),
  };
  const text = `${JSON.stringify(owner, null, 2)}\n`;
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (error) {
    throw new IoError('io.lock', `cannot create the lock ${path}: ${(error as Error).message}`);
  }
  let recoveredStale: LockOwner | undefined;
  for (let attempt = 0; ; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o644);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST')
        throw new IoError('io.lock', `cannot create the lock ${path}: ${(error as Error).message}`);
      const held = readOwner(path);
      if (held === undefined) continue; // released between our open and our read: try again
      const stale = held.owner
        ? held.owner.host === owner.host && !isProcessAlive(held.owner.pid)
        : held.ageMs > CORRUPT_LOCK_AGE_MS;
      if (stale && attempt < 5) {
        recoveredStale = held.owner ?? recoveredStale;
        removeStale(path, held.text);
        continue;
      }
      const who = held.owner
        ? describeOwner(held.owner)
        : 'an unknown process (the lock file is not readable as an owner and is recent)';
      throw new IoError(
        'io.locked',
        `${target} is in use by ${who}; wait for it to finish, or if that process is gone delete ${path}`,
      );
    }
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    break;
  }

  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    process.removeListener('exit', release);
    for (const signal of SIGNALS) process.removeListener(signal, onSignal[signal]);
    try {
      if (readFileSync(path, 'utf8') === text) unlinkSync(path);
    } catch {
      // already gone
    }
  };
  // A signal with no other listener would end the process without 'exit' handlers: release, then let the signal
  // do what it would have done. When the program has its own handler (a graceful stop), that handler decides and
  // the lock goes at 'exit'.
  const onSignal = Object.fromEntries(
    SIGNALS.map((signal) => [
      signal,
      () => {
        if (process.listenerCount(signal) > 1) return;
        release();
        process.kill(process.pid, signal);
      },
    ]),
  ) as Record<NodeJS.Signals, () => void>;
  process.once('exit', release);
  for (const signal of SIGNALS) process.on(signal, onSignal[signal]);
  return { path, owner, recoveredStale, release };
}

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
