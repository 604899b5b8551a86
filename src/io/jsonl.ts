/**
 * Streaming JSONL: splits a byte stream into lines without ever holding more than one chunk plus one partial line.
 * Handles LF and CRLF, a last line without a newline, and numbers lines from 1 (blank lines count but are skipped).
 */
import { readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createRegularReadStream, openRegularFile } from './regular-file.js';
import { startsWithBom } from './utf8.js';

export interface JsonlLine {
  /** 1-based line number in the file (or, for a byte range, within the range). */
  line: number;
  /** The line's bytes without the line break. Valid until the next batch is requested. */
  bytes: Buffer;
  /** Set when the line was longer than `maxLineBytes`; `bytes` is then empty. */
  tooLong?: boolean;
}

export interface LineReaderOptions {
  /** Longest line kept in memory (default 256 MiB); longer lines are reported with `tooLong`. */
  maxLineBytes?: number;
  /** Filled in at the end: the number of lines read, blank ones included (a last line without newline counts). */
  stats?: { lines: number };
  /**
   * Read into this buffer, again and again, instead of a new one per read: a worker that reads range after range
   * leaves no garbage behind. Lines are then valid until the next batch is requested.
   */
  readBuffer?: Buffer;
  /**
   * Drop a UTF-8 byte order mark at the start of the first line (readers of other tools' files: see utf8.ts). Only
   * for a stream that starts at the start of the file.
   */
  dropBom?: boolean;
}

export const DEFAULT_MAX_LINE_BYTES = 256 * 1024 * 1024;

function isBlank(b: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = b[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}

/**
 * Yields batches of non-blank lines from a stream of Buffers (one batch per chunk read). The caller must finish
 * with a batch before asking for the next one only if it keeps `bytes` (they may share the chunk's memory).
 */
export async function* splitLines(
  source: AsyncIterable<Buffer | string>,
  options: LineReaderOptions = {},
): AsyncGenerator<JsonlLine[]> {
  const maxLine = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  let carry: Buffer[] = [];
  let carryBytes = 0;
  let carryTooLong = false;
  let lineNo = 1;

  const finishLine = (out: JsonlLine[], chunk: Buffer, start: number, end: number): void => {
    let bytes: Buffer;
    if (carryTooLong) {
      out.push({ line: lineNo, bytes: Buffer.alloc(0), tooLong: true });
      carryTooLong = false;
      carry = [];
      carryBytes = 0;
      lineNo++;
      return;
    }
    if (carryBytes > 0) {
      bytes = Buffer.concat([...carry, chunk.subarray(start, end)]);
      carry = [];
      carryBytes = 0;
    } else bytes = chunk.subarray(start, end);
    if (lineNo === 1 && options.dropBom && startsWithBom(bytes)) bytes = bytes.subarray(3);
    let stop = bytes.length;
    if (stop > 0 && bytes[stop - 1] === 0x0d) stop--;
    if (!isBlank(bytes, 0, stop))
      out.push({ line: lineNo, bytes: stop === bytes.length ? bytes : bytes.subarray(0, stop) });
    lineNo++;
  };

  for await (const piece of source) {
    const chunk = typeof piece === 'string' ? Buffer.from(piece) : piece;
    const out: JsonlLine[] = [];
    let start = 0;
    let nl = chunk.indexOf(0x0a, start);
    while (nl !== -1) {
      finishLine(out, chunk, start, nl);
      start = nl + 1;
      nl = chunk.indexOf(0x0a, start);
    }
    if (start < chunk.length) {
      if (carryTooLong || carryBytes + chunk.length - start > maxLine) {
        carryTooLong = true;
        carry = [];
        carryBytes = 0;
      } else {
        // Copy: the chunk's memory may be reused by the source.
        carry.push(Buffer.from(chunk.subarray(start)));
        carryBytes += chunk.length - start;
      }
    }
    if (out.length > 0) yield out;
  }
  if (carryBytes > 0 || carryTooLong) {
    const out: JsonlLine[] = [];
    finishLine(out, Buffer.alloc(0), 0, 0);
    if (out.length > 0) yield out;
  }
  if (options.stats) options.stats.lines = lineNo - 1;
}

/** Number of lines in a byte range (for renumbering the lines of a range read by a worker). */
export function countNewlines(b: Buffer): number {
  let n = 0;
  let i = b.indexOf(0x0a);
  while (i !== -1) {
    n++;
    i = b.indexOf(0x0a, i + 1);
  }
  return n;
}

/**
 * The bytes of [start, end) of a file, read into one reused buffer (each piece valid until the next is asked for).
 * Read synchronously: a MiB comes from the page cache in a fraction of a millisecond, while an asynchronous read is a
 * round trip through libuv's thread pool that the converting thread would wait through (about 7% of a one-thread
 * conversion).
 */
async function* readInto(path: string, range: { start?: number; end?: number }, buffer: Buffer) {
  const handle = await openRegularFile(path);
  try {
    let pos = range.start ?? 0;
    const end = range.end ?? Infinity;
    while (pos < end) {
      const bytesRead = readSync(handle.fd, buffer, 0, Math.min(buffer.length, end - pos), pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}

/** Reads a file (or a byte range [start, end) of it) as batches of lines. */
export function readJsonlFile(
  path: string,
  range: { start?: number; end?: number } = {},
  options: LineReaderOptions = {},
): AsyncGenerator<JsonlLine[]> {
  if (options.readBuffer) return splitLines(readInto(path, range, options.readBuffer), options);
  const stream = createRegularReadStream(path, {
    start: range.start,
    end: range.end === undefined ? undefined : range.end - 1,
    highWaterMark: 1024 * 1024,
  });
  return splitLines(stream, options);
}

/**
 * Cut offsets for reading a file as `pieces` byte ranges of whole lines: 0, then the offset just after the first
 * newline at or after each even cut, then the size (fewer pieces when lines are longer than a piece).
 */
export async function lineBoundaries(absPath: string, size: number, pieces: number): Promise<number[]> {
  const targets: number[] = [];
  for (let k = 1; k < pieces; k++) targets.push(Math.floor((size * k) / pieces));
  return lineBoundariesAt(absPath, size, targets);
}

/**
 * Cut offsets for reading a file as byte ranges of whole lines: 0, then the offset just after the first newline at or
 * after each target (ascending), then the size (fewer cuts when lines are longer than the gaps between targets).
 */
export async function lineBoundariesAt(
  absPath: string,
  size: number,
  targets: readonly number[],
): Promise<number[]> {
  const handle = await open(absPath, 'r');
  const cuts = [0];
  try {
    const buf = Buffer.alloc(64 * 1024);
    for (const target of targets) {
      let pos = Math.max(target, cuts[cuts.length - 1]);
      let found = -1;
      while (pos < size) {
        const { bytesRead } = await handle.read(buf, 0, buf.length, pos);
        if (bytesRead === 0) break;
        const nl = buf.subarray(0, bytesRead).indexOf(0x0a);
        if (nl !== -1) {
          found = pos + nl + 1;
          break;
        }
        pos += bytesRead;
      }
      if (found === -1 || found >= size) break;
      if (found > cuts[cuts.length - 1]) cuts.push(found);
    }
  } finally {
    await handle.close();
  }
  cuts.push(size);
  return cuts;
}
