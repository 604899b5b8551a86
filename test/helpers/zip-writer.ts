/**
 * Writes ZIP archives for tests and benches: stored, deflate, and zstd members (zstd as "raw block" frames, which
 * any zstd decoder reads, since nothing here compresses zstd), optionally with the ZIP64 end records Python's
 * zipfile writes for archives of more than 65,535 members.
 */
import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipMember {
  name: string;
  data: string | Uint8Array;
  /** 0 stored, 8 deflate (default), 93 zstd. */
  method?: 0 | 8 | 93;
}

/** A zstd frame holding `data` in raw (uncompressed) blocks, with its content size. */
export function zstdRawFrame(data: Uint8Array): Buffer {
  const parts: Buffer[] = [];
  const head = Buffer.alloc(9);
  head.writeUInt32LE(0xfd2fb528, 0);
  head[4] = 0xa0; // single segment, 4-byte frame content size, no checksum
  head.writeUInt32LE(data.length, 5);
  parts.push(head);
  const MAX = 128 * 1024;
  let pos = 0;
  do {
    const size = Math.min(MAX, data.length - pos);
    const last = pos + size >= data.length ? 1 : 0;
    const h = (size << 3) | last; // block type 0: raw
    parts.push(
      Buffer.from([h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff]),
      Buffer.from(data.subarray(pos, pos + size)),
    );
    pos += size;
  } while (pos < data.length);
  return Buffer.concat(parts);
}

function compress(method: number, raw: Buffer): Buffer {
  if (method === 0) return raw;
  if (method === 93) return zstdRawFrame(raw);
  return deflateRawSync(raw);
}

/** Builds a ZIP archive incrementally (members are compressed as they are added; only compressed bytes are kept). */
export class ZipBuilder {
  private readonly chunks: Buffer[] = [];
  private readonly central: Buffer[] = [];
  private offset = 0;
  private count = 0;

  constructor(private readonly options: { zip64?: boolean } = {}) {}

  add(member: ZipMember): this {
    const method = member.method ?? 8;
    const raw = typeof member.data === 'string' ? Buffer.from(member.data, 'utf8') : Buffer.from(member.data);
    const body = compress(method, raw);
    const name = Buffer.from(member.name, 'utf8');
    const crc = crc32(raw) >>> 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(method === 93 ? 63 : 20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(raw.length, 22);
    local.writeUInt16LE(name.length, 26);
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE(63, 4);
    cd.writeUInt16LE(method === 93 ? 63 : 20, 6);
    cd.writeUInt16LE(0x0800, 8);
    cd.writeUInt16LE(method, 10);
    cd.writeUInt32LE(crc, 16);
    cd.writeUInt32LE(body.length, 20);
    cd.writeUInt32LE(raw.length, 24);
    cd.writeUInt16LE(name.length, 28);
    cd.writeUInt32LE(this.offset, 42);
    this.chunks.push(local, name, body);
    this.central.push(cd, name);
    this.offset += local.length + name.length + body.length;
    this.count++;
    return this;
  }

  finish(): Buffer {
    const cd = Buffer.concat(this.central);
    const tail: Buffer[] = [];
    const zip64 = this.options.zip64 || this.count > 0xffff;
    if (zip64) {
      const rec = Buffer.alloc(56);
      rec.writeUInt32LE(0x06064b50, 0);
      rec.writeBigUInt64LE(44n, 4);
      rec.writeUInt16LE(45, 12);
      rec.writeUInt16LE(45, 14);
      rec.writeBigUInt64LE(BigInt(this.count), 24);
      rec.writeBigUInt64LE(BigInt(this.count), 32);
      rec.writeBigUInt64LE(BigInt(cd.length), 40);
      rec.writeBigUInt64LE(BigInt(this.offset), 48);
      const loc = Buffer.alloc(20);
      loc.writeUInt32LE(0x07064b50, 0);
      loc.writeBigUInt64LE(BigInt(this.offset + cd.length), 8);
      loc.writeUInt32LE(1, 16);
      tail.push(rec, loc);
    }
    const eocd = Buffer.alloc(22);
    eocd.writeUInt32LE(0x06054b50, 0);
    eocd.writeUInt16LE(zip64 ? 0xffff : this.count, 8);
    eocd.writeUInt16LE(zip64 ? 0xffff : this.count, 10);
    eocd.writeUInt32LE(cd.length, 12);
    eocd.writeUInt32LE(zip64 ? 0xffffffff : this.offset, 16);
    return Buffer.concat([...this.chunks, cd, ...tail, eocd]);
  }
}

/** A whole archive from a list of members. */
export function buildZip(members: ZipMember[], options: { zip64?: boolean } = {}): Buffer {
  const b = new ZipBuilder(options);
  for (const m of members) b.add(m);
  return b.finish();
}
