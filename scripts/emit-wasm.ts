// Assembles src/io/wasm/quote-count.wat into src/io/wasm/quote-count-bytes.ts (`npm run wasm`).
// test/io/quote-count.test.ts checks that the committed bytes equal this output.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileAtomic } from '../src/io/atomic.js';
import { assembleQuoteCount, QUOTE_COUNT_BYTES_FILE, quoteCountModuleText } from './wasm.js';

const root = join(fileURLToPath(import.meta.url), '..', '..');
const bytes = await assembleQuoteCount(root);
await writeFileAtomic(join(root, QUOTE_COUNT_BYTES_FILE), quoteCountModuleText(bytes));
console.log(`wasm: wrote ${QUOTE_COUNT_BYTES_FILE} (${bytes.length} bytes of WebAssembly)`);
