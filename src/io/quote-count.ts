/**
 * Counts the double quotes of a JSON text that are not escaped (not preceded by an odd run of backslashes), for the
 * duplicate-key check of strict-json.ts. On UTF-8 bytes it runs a small SIMD WebAssembly routine
 * (wasm/quote-count.wat), several times faster than scanning the decoded string; the string scan below is the
 * fallback and the reference the tests compare the WebAssembly with.
 */
import { QUOTE_COUNT_WASM } from './wasm/quote-count-bytes.js';
import { WasmScratch } from './wasm-scratch.js';

interface QuoteCounter {
  memory: WebAssembly.Memory;
  countQuotes: (ptr: number, len: number) => number;
}

const counter = new WasmScratch<QuoteCounter>(QUOTE_COUNT_WASM);

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
  if (bytes === undefined || counter.copy(bytes) === null) return countQuotesInText(text);
  return counter.exports()!.countQuotes(0, bytes.length);
}
