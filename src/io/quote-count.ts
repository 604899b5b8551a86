/**
 * Counts the double quotes of a JSON text that are not escaped (not preceded by an odd run of backslashes), for the
 * duplicate-key check of strict-json.ts. On UTF-8 bytes it runs a small SIMD WebAssembly routine
 * (wasm/quote-count.wat), several times faster than scanning the decoded string; the string scan below is the
 * fallback and the reference the tests compare the WebAssembly with.
 */
import { QUOTE_COUNT_WASM } from './wasm/quote-count-bytes.js';

/** Inputs above this size are counted on the string, so the WebAssembly memory stays small. */
const WASM_MAX_BYTES = 16 * 1024 * 1024;
const PAGE = 64 * 1024;

interface QuoteCounter {
  memory: WebAssembly.Memory;
  countQuotes: (ptr: number, len: number) => number;
}

let counter: QuoteCounter | null | undefined;
let view = new Uint8Array(0);

function wasmCounter(): QuoteCounter | null {
  if (counter !== undefined) return counter;
  try {
    const module = new WebAssembly.Module(Buffer.from(QUOTE_COUNT_WASM, 'base64'));
    counter = new WebAssembly.Instance(module).exports as unknown as QuoteCounter;
    view = new Uint8Array(counter.memory.buffer);
  } catch {
    // A runtime without WebAssembly SIMD: the string scan does the work.
    counter = null;
  }
  return counter;
}

/** The string scan: every quote, unless an odd run of backslashes stands right before it. */
export function countQuotesInText(text: string): number {
  let n = 0;
  let i = text.indexOf('"');
  while (i !== -1) {
    if (text.charCodeAt(i - 1) !== 0x5c) n++;
    else {
      let run = 1;
      while (i - run - 1 >= 0 && text.charCodeAt(i - run - 1) === 0x5c) run++;
      if (run % 2 === 0) n++;
    }
    i = text.indexOf('"', i + 1);
  }
  return n;
}

/** Unescaped quotes of a JSON text, counted on its UTF-8 bytes when given (the faster way), else on the string. */
export function countUnescapedQuotes(text: string, bytes?: Uint8Array): number {
  const wasm = bytes !== undefined && bytes.length <= WASM_MAX_BYTES ? wasmCounter() : null;
  if (wasm === null || bytes === undefined) return countQuotesInText(text);
  if (bytes.length > view.length) {
    wasm.memory.grow(Math.ceil((bytes.length - view.length) / PAGE));
    view = new Uint8Array(wasm.memory.buffer);
  }
  view.set(bytes, 0);
  return wasm.countQuotes(0, bytes.length);
}
