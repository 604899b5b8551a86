/**
 * JSON string tokens read without decoding them: where a token ends, and whether its escapes and raw bytes are JSON's
 * (UTF-8 is checked separately). In JavaScript (`stringEnd`), or by a small SIMD WebAssembly routine
 * (wasm/string-scan.wat), sixteen bytes at a time, in a copy of the text in its memory (`stageBytes`,
 * `stagedStringEnd`): the row-shape fast path of validation reads every string of every row this way. The tests
 * compare the two.
 */
import { STRING_SCAN_WASM } from './wasm/string-scan-bytes.js';
import { WasmScratch } from './wasm-scratch.js';

interface Scanner {
  memory: WebAssembly.Memory;
  stringEnd: (contentStart: number, end: number) => number;
}

const scanner = new WasmScratch<Scanner>(STRING_SCAN_WASM);

/**
 * A copy of `bytes` in the scanner's memory, at offset 0 and followed by one 0x00 byte (which no JSON token accepts,
 * so a reader that stops at the end of the text never reads what an earlier copy left there); null when there is no
 * scanner or the text is too large. Valid until the next call.
 */
export function stageBytes(bytes: Uint8Array): Buffer | null {
  const staged = scanner.copy(bytes, 1);
  if (staged !== null) staged[bytes.length] = 0;
  return staged;
}

/** As stringEnd, in the staged copy (`b`, from stageBytes), by the WebAssembly routine. */
export function stagedStringEnd(b: Uint8Array, i: number, n: number): number {
  return b[i] === 0x22 ? scanner.exports()!.stringEnd(i + 1, n) : -1;
}

/** Bytes inside a string: 0 plain, 1 a control character (not allowed raw), 2 the closing quote, 3 a backslash. */
const IN_STRING = new Uint8Array(256);
IN_STRING.fill(1, 0, 0x20);
IN_STRING[0x22] = 2;
IN_STRING[0x5c] = 3;

/** The offset after the JSON string token at `i` (the text ends at `n`), or -1 when there is none. */
export function stringEnd(b: Uint8Array, i: number, n: number): number {
  if (b[i] !== 0x22) return -1;
  i++;
  while (i < n) {
    const k = IN_STRING[b[i]];
    if (k === 0) i++;
    else if (k === 2) return i + 1;
    else if (k === 1) return -1;
    else {
      i = escapeEnd(b, i, n);
      if (i < 0) return -1;
    }
  }
  return -1;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** The offset after the escape sequence whose backslash is at `i` (within `n`), or -1 when it is not one of JSON's. */
function escapeEnd(b: Uint8Array, i: number, n: number): number {
  if (i + 2 > n) return -1;
  const e = b[i + 1];
  if (e === 0x75)
    return i + 6 <= n && isHex(b[i + 2]) && isHex(b[i + 3]) && isHex(b[i + 4]) && isHex(b[i + 5])
      ? i + 6
      : -1;
  // " \ / b f n r t
  return e === 0x22 ||
    e === 0x5c ||
    e === 0x2f ||
    e === 0x62 ||
    e === 0x66 ||
    e === 0x6e ||
    e === 0x72 ||
    e === 0x74
    ? i + 2
    : -1;
}
