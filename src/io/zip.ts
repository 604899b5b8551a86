/**
 * A small ZIP reader for archives such as Inspect AI `.eval` logs: the central directory is read once (ZIP64
 * included), then each member is read on its own, as a stream of decompressed chunks, so an archive of thousands of
 * members never sits in memory. Methods: stored (0), deflate (8) and zstd (93, as Inspect writes it). Each member's
 * CRC-32 and size are checked; every error names the archive and the member.
 *
 * Expanded sizes are capped (a "zip bomb" of a few MiB can expand to GiBs): per member and per archive (the sum of
 * what one reader decompresses). A member whose declared size is over the cap is refused before any byte is
 * decompressed; a member that decompresses to more than it declares is stopped at its declared size; a zstd frame
 * whose header asks for a window or content larger than that is refused before the decoder allocates it. Memory
 * therefore stays within the largest member read whole, itself within the cap.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { createInflateRaw, crc32, inflateRawSync } from 'node:zlib';
import { Decompress as ZstdDecompress, decompress as zstdDecompress } from 'fzstd';
import { DataError, IoError, UsageError } from '../errors.js';
import { decodeUtf8 } from './utf8.js';

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflate, 93 zstd. */
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  crc32: number;
  localHeaderOffset: number;
}

const SIG_EOCD = 0x06054b50;
const SIG_EOCD64_LOCATOR = 0x07064b50;
const SIG_EOCD64 = 0x06064b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_LOCAL = 0x04034b50;
const EOCD_MIN = 22;
const MAX_COMMENT = 0xffff;
/** Members up to this compressed size are read in one go; larger ones are read in chunks of this size. */
const CHUNK = 1 << 20;
/** Compressed bytes handed to the decoder at a time (deflate expands at most ~1032×: ≤ 64 MiB of output per slice). */
const SLICE = 64 * 1024;
/** The read window of `readMany` (small: windows already read wait for a GC as external memory). */
const WINDOW = 1 << 20;

export interface ZipLimits {
  /** Largest expanded size of one member, in bytes. */
  maxMemberBytes: number;
  /** Largest expanded size of all members one reader decompresses, in bytes. */
  maxArchiveBytes: number;
}

const GiB = 1024 ** 3;
/**
 * Real Inspect logs hold members of KiBs to tens of MiBs (a sample with a long transcript) and archives of up to
 * a few GiB expanded; the caps leave room for those and stop a bomb well before memory runs out.
 */
export const DEFAULT_ZIP_LIMITS: Readonly<ZipLimits> = { maxMemberBytes: 1 * GiB, maxArchiveBytes: 4 * GiB };
let processLimits: ZipLimits = { ...DEFAULT_ZIP_LIMITS };

/**
 * The ceiling of the per-member cap: a member is read whole, into one buffer that is then decoded as one text, and
 * a buffer of more than 2 GiB - 1 byte (V8's kMaxInt) cannot be made into a string: V8 stops the process with a
 * fatal error rather than throw. So no cap may allow more, and a larger member is refused before it is read.
 */
export const MAX_MEMBER_CEILING = 2 ** 31 - 1;

/** Why a per-member cap cannot be used, or undefined when it can. */
export function memberLimitProblem(bytes: number): string | undefined {
  if (bytes <= MAX_MEMBER_CEILING) return undefined;
  return (
    `${formatBytes(bytes)} is above the ceiling of ${formatBytes(MAX_MEMBER_CEILING)} (2 GiB - 1 byte): a member is ` +
    'read whole and decoded as one text, and V8 cannot hold a larger one (it would end the process)'
  );
}

/** The caps readers opened without explicit limits use (a command sets them once from its options). */
export function setDefaultZipLimits(limits: Partial<ZipLimits>): void {
  const problem = limits.maxMemberBytes === undefined ? undefined : memberLimitProblem(limits.maxMemberBytes);
  if (problem) throw new UsageError('usage.bad-option', `zip member limit: ${problem}`);
  processLimits = { ...processLimits, ...limits };
}

/** The caps in force for readers opened without explicit limits. */
export function defaultZipLimits(): ZipLimits {
  return { ...processLimits };
}

/** Bytes as a short figure: 1 GiB, 512 MiB, 1,000 bytes. */
export function formatBytes(n: number): string {
  for (const [unit, size] of [
    ['GiB', GiB],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const)
    if (n >= size) return `${Number((n / size).toFixed(2))} ${unit}`;
  return `${n.toLocaleString('en')} bytes`;
}

export const ZIP_METHODS: Record<number, string> = { 0: 'stored', 8: 'deflate', 93: 'zstd' };

function zipError(path: string, member: string | undefined, what: string): DataError {
  return new DataError('zip.invalid', `${path}${member !== undefined ? `: member ${member}` : ''}: ${what}`);
}

export class ZipReader {
  /** Bytes decompressed so far by this reader (counted against `limits.maxArchiveBytes`). */
  private expanded = 0;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    readonly size: number,
    /** Every member in central-directory order (a name written twice appears twice). */
    readonly entries: ZipEntry[],
    readonly limits: ZipLimits,
  ) {}

  /**
   * Opens an archive and reads its central directory. A file that is not a whole ZIP archive is a DataError.
   * `limits`: the expansion caps (default: the process's, see setDefaultZipLimits).
   */
  static async open(path: string, limits: ZipLimits = defaultZipLimits()): Promise<ZipReader> {
    let handle: FileHandle;
    try {
      handle = await open(path, 'r');
    } catch (error) {
      throw new IoError('io.read', `cannot read ${path}: ${(error as Error).message}`);
    }
    try {
      const { size } = await handle.stat();
      const entries = await readCentralDirectory(path, handle, size);
      return new ZipReader(path, handle, size, entries, limits);
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.handle.close();
  }

  /** The member of that name (the last one when the name was written more than once, as Python's zipfile reads). */
  entry(name: string): ZipEntry | undefined {
    for (let i = this.entries.length - 1; i >= 0; i--)
      if (this.entries[i].name === name) return this.entries[i];
    return undefined;
  }

  /** Each name once (its last member), in the order the names first appear. */
  uniqueEntries(): ZipEntry[] {
    const last = new Map<string, ZipEntry>();
    for (const e of this.entries) last.set(e.name, e);
    return [...last.values()];
  }

  /**
   * Refuses a member whose declared expanded size is over the per-member cap, or would take this reader past the
   * per-archive cap; counts it against the latter.
   */
  private admit(entry: ZipEntry): void {
    const { maxMemberBytes, maxArchiveBytes } = this.limits;
    if (entry.uncompressedSize > maxMemberBytes)
      throw tooLarge(
        this.path,
        entry.name,
        `expands to ${formatBytes(entry.uncompressedSize)}, more than the limit of ${formatBytes(maxMemberBytes)} per member`,
      );
    // Caps given to the reader directly are not checked against the ceiling; the member is.
    if (entry.uncompressedSize > MAX_MEMBER_CEILING)
      throw tooLarge(
        this.path,
        entry.name,
        `expands to ${formatBytes(entry.uncompressedSize)}: ${memberLimitProblem(entry.uncompressedSize)}`,
      );
    if (this.expanded + entry.uncompressedSize > maxArchiveBytes)
      throw tooLarge(
        this.path,
        entry.name,
        `takes the archive past the limit of ${formatBytes(maxArchiveBytes)} expanded in all (${formatBytes(this.expanded)} read before it, ${formatBytes(entry.uncompressedSize)} in it)`,
      );
    this.expanded += entry.uncompressedSize;
  }

  /** The member's decompressed bytes, checked against its CRC-32 and size. */
  async read(entry: ZipEntry): Promise<Buffer> {
    if (entry.compressedSize <= CHUNK && entry.method in ZIP_METHODS) return this.readSmall(entry);
    // One buffer of the declared size (within the cap), filled as the member decompresses: no second copy.
    const whole = Buffer.allocUnsafe(entry.uncompressedSize);
    let at = 0;
    for await (const _ of this.decode(entry, (chunk) => (at += chunk.copy(whole, at))));
    return whole;
  }

  /** The member as UTF-8 text. */
  async readText(entry: ZipEntry): Promise<string> {
    return decodeUtf8(await this.read(entry), `${this.path}: member ${entry.name}`);
  }

  /** The member's decompressed bytes as a stream of chunks; the CRC-32 and size are checked at its end. */
  async *stream(entry: ZipEntry): AsyncGenerator<Buffer> {
    let pending: Buffer[] = [];
    for await (const _ of this.decode(entry, (chunk) => pending.push(chunk))) {
      const ready = pending;
      pending = [];
      yield* ready;
    }
    yield* pending;
  }

  /**
   * Decompresses a member into `sink`, one slice of compressed data at a time (yielding after each, so a stream's
   * reader takes the output as it comes). Every output chunk is counted as it is produced: past the declared size
   * the decoder is stopped at once, so a member that lies about its size costs no more memory than it declared.
   */
  private async *decode(entry: ZipEntry, sink: (chunk: Buffer) => void): AsyncGenerator<void> {
    const fail = (what: string) => zipError(this.path, entry.name, what);
    if (!(entry.method in ZIP_METHODS))
      throw fail(`compression method ${entry.method} is not supported (expected stored, deflate or zstd)`);
    this.admit(entry);
    const dataStart = await this.dataOffset(entry);
    const end = dataStart + entry.compressedSize;
    if (end > this.size) throw fail(`its data runs past the end of the archive (truncated file?)`);
    let crc = 0;
    let total = 0;
    const take = (chunk: Buffer): void => {
      if (chunk.length === 0) return;
      total += chunk.length;
      if (total > entry.uncompressedSize)
        throw fail(`decompresses to more than the ${entry.uncompressedSize} bytes the directory declares`);
      crc = crc32(chunk, crc); // (zlib's crc32 of an empty buffer is 0, not its seed: empty chunks are skipped)
      sink(chunk);
    };
    const decoder = decoderFor(entry.method, fail, entry.uncompressedSize, take);
    for (let pos = dataStart; pos < end;) {
      const length = Math.min(CHUNK, end - pos);
      const buf = Buffer.allocUnsafe(length);
      const { bytesRead } = await this.handle.read(buf, 0, length, pos);
      if (bytesRead !== length) throw fail('unexpected end of file while reading its data');
      pos += length;
      for (let at = 0; at < length; at += SLICE) {
        await decoder.push(
          buf.subarray(at, Math.min(length, at + SLICE)),
          pos >= end && at + SLICE >= length,
        );
        yield;
      }
    }
    if (entry.compressedSize === 0) await decoder.push(Buffer.alloc(0), true);
    if (total !== entry.uncompressedSize)
      throw fail(
        `decompressed to ${total} bytes, the directory declares ${entry.uncompressedSize} (truncated member?)`,
      );
    if (crc >>> 0 !== entry.crc32 >>> 0)
      throw fail(
        `CRC-32 mismatch (data ${hex(crc)}, directory ${hex(entry.crc32)}): the member is corrupted`,
      );
  }

  /** A small member in one read and one synchronous decompression (the common case, and the fast one). */
  private async readSmall(entry: ZipEntry): Promise<Buffer> {
    this.admit(entry);
    const dataStart = await this.dataOffset(entry);
    if (dataStart + entry.compressedSize > this.size)
      throw zipError(this.path, entry.name, `its data runs past the end of the archive (truncated file?)`);
    const raw = Buffer.allocUnsafe(entry.compressedSize);
    const { bytesRead } = await this.handle.read(raw, 0, entry.compressedSize, dataStart);
    if (bytesRead !== entry.compressedSize)
      throw zipError(this.path, entry.name, 'unexpected end of file while reading its data');
    return this.decodeWhole(entry, raw);
  }

  /** Decompresses a whole member's data at once and checks its size and CRC-32. */
  private decodeWhole(entry: ZipEntry, raw: Buffer): Buffer {
    const fail = (what: string) => zipError(this.path, entry.name, what);
    let out: Buffer;
    try {
      if (entry.method === 0) out = raw;
      else if (entry.method === 8)
        // Never more than the declared size (+1 to tell "more" from "exactly"): a lying member stops there.
        out = inflateRawSync(raw, { maxOutputLength: Math.max(1, entry.uncompressedSize + 1) });
      else {
        checkZstdFrame(raw, entry.uncompressedSize, fail);
        const u8 = zstdDecompress(raw, new Uint8Array(entry.uncompressedSize));
        out = Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength);
      }
    } catch (error) {
      if (error instanceof DataError) throw error;
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
        throw fail(`decompresses to more than the ${entry.uncompressedSize} bytes the directory declares`);
      throw fail(`${ZIP_METHODS[entry.method]} data is invalid: ${(error as Error).message}`);
    }
    if (out.length !== entry.uncompressedSize)
      throw fail(
        `decompressed to ${out.length} bytes, the directory declares ${entry.uncompressedSize} (truncated member?)`,
      );
    const crc = out.length > 0 ? crc32(out) : 0;
    if (crc >>> 0 !== entry.crc32 >>> 0)
      throw fail(
        `CRC-32 mismatch (data ${hex(crc)}, directory ${hex(entry.crc32)}): the member is corrupted`,
      );
    return out;
  }

  /**
   * Many members, in the order they lie in the file, read through a window of a few MiB: one read serves many small
   * members (thousands of per-member reads were the cost). Members larger than the window are read on their own.
   */
  async *readMany(entries: ZipEntry[]): AsyncGenerator<{ entry: ZipEntry; data: Buffer }> {
    const sorted = [...entries].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
    let window = Buffer.alloc(0);
    let windowStart = 0;
    const ensure = async (start: number, end: number, entry: ZipEntry): Promise<void> => {
      if (start >= windowStart && end <= windowStart + window.length) return;
      if (end > this.size)
        throw zipError(this.path, entry.name, 'its data runs past the end of the archive (truncated file?)');
      const length = Math.min(Math.max(WINDOW, end - start), this.size - start);
      const buf = Buffer.allocUnsafe(length);
      const { bytesRead } = await this.handle.read(buf, 0, length, start);
      window = buf.subarray(0, bytesRead);
      windowStart = start;
      if (end > windowStart + window.length)
        throw zipError(this.path, entry.name, 'unexpected end of file while reading it');
    };
    for (const entry of sorted) {
      if (!(entry.method in ZIP_METHODS))
        throw zipError(
          this.path,
          entry.name,
          `compression method ${entry.method} is not supported (expected stored, deflate or zstd)`,
        );
      if (entry.compressedSize > WINDOW / 2) {
        yield { entry, data: await this.read(entry) };
        continue;
      }
      this.admit(entry);
      const off = entry.localHeaderOffset;
      await ensure(off, off + 30, entry);
      const h = off - windowStart;
      if (window.readUInt32LE(h) !== SIG_LOCAL)
        throw zipError(this.path, entry.name, `no local file header at offset ${off}`);
      const dataStart = off + 30 + window.readUInt16LE(h + 26) + window.readUInt16LE(h + 28);
      await ensure(off, dataStart + entry.compressedSize, entry);
      const raw = window.subarray(dataStart - windowStart, dataStart - windowStart + entry.compressedSize);
      yield { entry, data: this.decodeWhole(entry, raw) };
    }
  }

  private async dataOffset(entry: ZipEntry): Promise<number> {
    const header = Buffer.alloc(30);
    const { bytesRead } = await this.handle.read(header, 0, 30, entry.localHeaderOffset);
    if (bytesRead !== 30 || header.readUInt32LE(0) !== SIG_LOCAL)
      throw zipError(this.path, entry.name, `no local file header at offset ${entry.localHeaderOffset}`);
    return entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  }
}

const hex = (n: number): string => (n >>> 0).toString(16).padStart(8, '0');

function tooLarge(path: string, member: string, what: string): DataError {
  return new DataError('zip.too-large', `${path}: member ${member} ${what}`);
}

/**
 * zstd's largest window for ordinary levels is 8 MiB, and 128 MiB with --long; more than that and than the content
 * is a decoder allocation no real archive needs.
 */
const MAX_ZSTD_WINDOW = 128 * 1024 ** 2;

/**
 * Refuses a zstd frame whose header asks for more than `declared` bytes of content, or for a window larger than
 * both that and MAX_ZSTD_WINDOW (the decoder allocates the window up front). Only the first frame's header is read.
 */
function checkZstdFrame(data: Uint8Array, declared: number, fail: (what: string) => DataError): void {
  if (data.length < 6 || data[0] !== 0x28 || data[1] !== 0xb5 || data[2] !== 0x2f || data[3] !== 0xfd) return;
  const flags = data[4];
  const singleSegment = (flags >> 5) & 1;
  const dictBytes = [0, 1, 2, 4][flags & 3];
  const fcsFlag = flags >> 6;
  const fcsBytes = fcsFlag ? 1 << fcsFlag : singleSegment;
  const at = 5 + (singleSegment ? 0 : 1) + dictBytes;
  let contentSize = -1;
  if (fcsBytes > 0 && at + fcsBytes <= data.length) {
    contentSize = 0;
    for (let i = fcsBytes - 1; i >= 0; i--) contentSize = contentSize * 256 + data[at + i];
    if (fcsBytes === 2) contentSize += 256;
  }
  let window = contentSize;
  if (!singleSegment) {
    const base = 2 ** (10 + (data[5] >> 3));
    window = base + (base / 8) * (data[5] & 7);
  }
  if (contentSize > declared)
    throw fail(
      `its zstd frame declares ${contentSize} bytes, more than the ${declared} the directory declares`,
    );
  if (window > Math.max(declared, MAX_ZSTD_WINDOW))
    throw fail(
      `its zstd frame asks for a ${formatBytes(window)} window, more than its ${formatBytes(declared)} of content`,
    );
}

interface Decoder {
  /** Feeds compressed bytes; the output goes to the sink as it is produced. */
  push(chunk: Buffer, final: boolean): Promise<void>;
}

/** `sink` receives every output chunk; an error it throws stops the decoder and is what push rejects with. */
function decoderFor(
  method: number,
  fail: (what: string) => DataError,
  declared: number,
  sink: (chunk: Buffer) => void,
): Decoder {
  if (method === 0) return { push: async (chunk) => sink(chunk) };
  if (method === 93) {
    let first = true;
    const z = new ZstdDecompress((data) => sink(Buffer.from(data.buffer, data.byteOffset, data.byteLength)));
    return {
      async push(chunk, final) {
        if (first) {
          checkZstdFrame(chunk, declared, fail);
          first = false;
        }
        try {
          z.push(chunk, final);
        } catch (error) {
          if (error instanceof DataError) throw error;
          throw fail(`zstd data is invalid: ${(error as Error).message}`);
        }
      },
    };
  }
  // deflate: one zlib stream per member, fed slice by slice; output is handed over chunk by chunk as zlib makes it.
  const inflate = createInflateRaw();
  let error: Error | undefined;
  let stopped: Error | undefined;
  let ended = false;
  inflate.on('data', (d: Buffer) => {
    if (stopped) return;
    try {
      sink(d);
    } catch (e) {
      stopped = e as Error;
      inflate.destroy();
    }
  });
  inflate.on('error', (e) => (error ??= e));
  const closed = new Promise<void>((resolve) => inflate.on('close', () => resolve()));
  const endPromise = new Promise<void>((resolve) => {
    inflate.on('end', () => {
      ended = true;
      resolve();
    });
  });
  return {
    async push(chunk, final) {
      if (!stopped && !error) {
        if (final) {
          inflate.end(chunk);
          await Promise.race([endPromise, closed]);
        } else {
          await Promise.race([new Promise<void>((resolve) => inflate.write(chunk, () => resolve())), closed]);
        }
      }
      if (stopped) throw stopped;
      if (error) throw fail(`deflate data is invalid: ${error.message}`);
      if (final && !ended) throw fail('deflate data ends early (truncated member?)');
    },
  };
}

async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buf, 0, length, position);
  return buf.subarray(0, bytesRead);
}

async function readCentralDirectory(path: string, handle: FileHandle, size: number): Promise<ZipEntry[]> {
  const notZip = (what: string) => zipError(path, undefined, what);
  if (size < EOCD_MIN) throw notZip(`${size} bytes is too short for a ZIP archive (truncated file?)`);
  const tailStart = Math.max(0, size - (EOCD_MIN + MAX_COMMENT));
  const tail = await readAt(handle, tailStart, size - tailStart);
  let eocd = -1;
  for (let i = tail.length - EOCD_MIN; i >= 0; i--) {
    if (tail.readUInt32LE(i) === SIG_EOCD && i + EOCD_MIN + tail.readUInt16LE(i + 20) === tail.length) {
      eocd = i;
      break;
    }
  }
  if (eocd === -1) throw notZip('no end-of-central-directory record: not a ZIP archive, or a truncated one');
  let count = tail.readUInt16LE(eocd + 10);
  let cdSize = tail.readUInt32LE(eocd + 12);
  let cdOffset = tail.readUInt32LE(eocd + 16);
  const locator = eocd - 20;
  if (locator >= 0 && tail.readUInt32LE(locator) === SIG_EOCD64_LOCATOR) {
    const eocd64Offset = Number(tail.readBigUInt64LE(locator + 8));
    const rec = await readAt(handle, eocd64Offset, 56);
    if (rec.length < 56 || rec.readUInt32LE(0) !== SIG_EOCD64)
      throw notZip('the ZIP64 end record is missing');
    count = Number(rec.readBigUInt64LE(32));
    cdSize = Number(rec.readBigUInt64LE(40));
    cdOffset = Number(rec.readBigUInt64LE(48));
  }
  if (cdOffset + cdSize > size)
    throw notZip('the central directory lies past the end of the file (truncated?)');
  const cd = await readAt(handle, cdOffset, cdSize);
  const entries: ZipEntry[] = [];
  let p = 0;
  for (let i = 0; i < count; i++) {
    if (p + 46 > cd.length || cd.readUInt32LE(p) !== SIG_CENTRAL)
      throw notZip(`central directory entry ${i + 1} of ${count} is damaged`);
    const nameLength = cd.readUInt16LE(p + 28);
    const extraLength = cd.readUInt16LE(p + 30);
    const commentLength = cd.readUInt16LE(p + 32);
    const name = cd.toString('utf8', p + 46, p + 46 + nameLength);
    let uncompressedSize = cd.readUInt32LE(p + 24);
    let compressedSize = cd.readUInt32LE(p + 20);
    let localHeaderOffset = cd.readUInt32LE(p + 42);
    // ZIP64 extended information: the fields that overflowed, in this order.
    let x = p + 46 + nameLength;
    const extraEnd = x + extraLength;
    while (x + 4 <= extraEnd) {
      const id = cd.readUInt16LE(x);
      const len = cd.readUInt16LE(x + 2);
      if (id === 0x0001) {
        let q = x + 4;
        if (uncompressedSize === 0xffffffff) ((uncompressedSize = Number(cd.readBigUInt64LE(q))), (q += 8));
        if (compressedSize === 0xffffffff) ((compressedSize = Number(cd.readBigUInt64LE(q))), (q += 8));
        if (localHeaderOffset === 0xffffffff) localHeaderOffset = Number(cd.readBigUInt64LE(q));
      }
      x += 4 + len;
    }
    entries.push({
      name,
      method: cd.readUInt16LE(p + 10),
      compressedSize,
      uncompressedSize,
      crc32: cd.readUInt32LE(p + 16),
      localHeaderOffset,
    });
    p = extraEnd + commentLength;
  }
  return entries;
}
