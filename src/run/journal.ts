/**
 * The run journal: an append-only JSONL file beside the output. Line 1 names the run and the hash of the
 * configuration that decides what a sample is; every later line is one finished sample. A sample counts only
 * after its line is on disk (written and fdatasync'd; concurrent samples share one write + sync).
 * Re-opening the journal returns the samples already done, so a resumed run sends no request twice.
 */
import { open, mkdir, type FileHandle } from 'node:fs/promises';
import { readFileSync, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { IoError, UsageError } from '../errors.js';
import type { SampleRecord } from './types.js';
import { isObject } from '../io/json-value.js';

export interface JournalHeader {
  type: 'run';
  run_id: string;
  config_hash: string;
  /** The settings the hash is made of (journals written before it was kept have none). */
  config?: Record<string, unknown>;
  started_at: string;
}

/** What a journal line holds: a sample of evaluate (SampleRecord) or of another front end, by its index. */
export interface JournaledSample {
  sample_index: number;
}

interface JournalSampleLine<S extends JournaledSample = SampleRecord> {
  type: 'sample';
  item: string;
  config_hash: string;
  sample: S;
}

export interface OpenedJournal<S extends JournaledSample = SampleRecord> {
  header: JournalHeader;
  /** item id → sample index → record, for the samples already journaled. */
  done: Map<string, Map<number, S>>;
  resumed: boolean;
  append(item: string, sample: S): Promise<void>;
  close(): Promise<void>;
}

export function journalPathFor(outputPath: string): string {
  return `${outputPath}.journal.jsonl`;
}

/** Reads a journal; a torn last line (the process was killed mid-write) is ignored and cut off. */
function readJournal<S extends JournaledSample>(
  path: string,
): {
  header?: JournalHeader;
  lines: JournalSampleLine<S>[];
  validBytes: number;
} {
  const text = readFileSync(path, 'utf8');
  const lines: JournalSampleLine<S>[] = [];
  let header: JournalHeader | undefined;
  let offset = 0;
  let validBytes = 0;
  let lineNo = 0;
  while (offset < text.length) {
    const nl = text.indexOf('\n', offset);
    if (nl < 0) break; // an unterminated last line was never acknowledged
    const line = text.slice(offset, nl);
    lineNo++;
    offset = nl + 1;
    if (line.trim() === '') continue;
    let parsed: JournalHeader | JournalSampleLine<S>;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw new IoError(
        'run.journal-corrupt',
        `${path}:${lineNo}:1 the journal line is not JSON; move the journal away to start over`,
      );
    }
    if (parsed.type === 'run') header ??= parsed;
    else if (parsed.type === 'sample') lines.push(parsed);
    validBytes = Buffer.byteLength(text.slice(0, offset));
  }
  return { header, lines, validBytes };
}

/** Names the settings that differ between the journal's run and this one, with both values where they are short. */
export function changedSettings(
  before: Record<string, unknown> | undefined,
  now: Record<string, unknown> | undefined,
): string {
  if (before === undefined || now === undefined) return 'model, decoding, prompts or benchmark';
  const changed: string[] = [];
  const compare = (x: Record<string, unknown>, y: Record<string, unknown>, prefix: string): void => {
    for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) {
      if (isObject(x[key]) && isObject(y[key])) {
        compare(x[key], y[key], `${prefix}${key}.`);
        continue;
      }
      const a = JSON.stringify(x[key] ?? null);
      const b = JSON.stringify(y[key] ?? null);
      if (a === b) continue;
      const label = key === 'benchmark' ? 'benchmark content' : `${prefix}${key}`;
      changed.push(a.length + b.length <= 160 ? `${label}: was ${a}, now ${b}` : label);
    }
  };
  compare(before, now, '');
  return changed.length > 0 ? `changed: ${changed.join('; ')}` : 'model, decoding, prompts or benchmark';
}

/** How many calls (distinct item and sample index of the run's configuration) a journal holds; 0 when there is none. */
export function journaledCount(path: string): number {
  if (!existsSync(path)) return 0;
  const read = readJournal(path);
  if (read.header === undefined) return 0;
  const seen = new Set<string>();
  for (const line of read.lines)
    if (line.config_hash === read.header.config_hash)
      seen.add(`${line.sample.sample_index}\u0000${line.item}`);
  return seen.size;
}

export async function openJournal<S extends JournaledSample = SampleRecord>(
  path: string,
  fresh: { run_id: string; config_hash: string; config?: Record<string, unknown>; started_at: string },
): Promise<OpenedJournal<S>> {
  const done = new Map<string, Map<number, S>>();
  let header: JournalHeader = { type: 'run', ...fresh };
  let resumed = false;
  let validBytes = 0;
  if (existsSync(path)) {
    const read = readJournal<S>(path);
    if (read.header !== undefined) {
      if (read.header.config_hash !== fresh.config_hash) {
        throw new UsageError(
          'run.config-changed',
          `${path} was written by a run with a different configuration (${changedSettings(read.header.config, fresh.config)}); ` +
            'write the new run elsewhere, or delete the journal to start over',
        );
      }
      header = read.header;
      resumed = true;
      validBytes = read.validBytes;
      for (const line of read.lines) {
        if (line.config_hash !== header.config_hash) continue;
        let byIndex = done.get(line.item);
        if (byIndex === undefined) done.set(line.item, (byIndex = new Map()));
        byIndex.set(line.sample.sample_index, line.sample);
      }
    }
  }

  await mkdir(dirname(path), { recursive: true });
  let handle: FileHandle;
  try {
    handle = await open(path, resumed ? 'r+' : 'w');
    if (resumed) await handle.truncate(validBytes);
    else {
      await handle.write(`${JSON.stringify(header)}\n`);
      await handle.datasync();
    }
  } catch (error) {
    throw new IoError('io.write', `cannot write the journal ${path}: ${(error as Error).message}`);
  }
  let position = resumed ? validBytes : Buffer.byteLength(`${JSON.stringify(header)}\n`);

  // Group commit: lines queued while a write+sync is in flight go out together in the next one.
  let queue: { line: string; resolve: () => void; reject: (e: unknown) => void }[] = [];
  let flushing: Promise<void> | undefined;
  const flush = async (): Promise<void> => {
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      const data = Buffer.from(batch.map((b) => b.line).join(''));
      try {
        await handle.write(data, 0, data.length, position);
        position += data.length;
        await handle.datasync();
        for (const b of batch) b.resolve();
      } catch (error) {
        const wrapped = new IoError(
          'io.write',
          `cannot append to the journal ${path}: ${(error as Error).message}`,
        );
        for (const b of batch) b.reject(wrapped);
      }
    }
    flushing = undefined;
  };

  return {
    header,
    done,
    resumed,
    append(item, sample) {
      const line: JournalSampleLine<S> = { type: 'sample', item, config_hash: header.config_hash, sample };
      return new Promise<void>((resolve, reject) => {
        queue.push({ line: `${JSON.stringify(line)}\n`, resolve, reject });
        flushing ??= flush();
      });
    },
    async close() {
      await flushing;
      await handle.close();
    },
  };
}
