// Assembles each src/io/wasm/*.wat of scripts/wasm.ts into its *-bytes.ts module (`npm run wasm`).
// test/io/quote-count.test.ts and test/validate/row-shape.test.ts check that the committed bytes equal this output.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileAtomic } from '../src/io/atomic.js';
import { assembleWasm, WASM_MODULES, wasmModuleText } from './wasm.js';

const root = join(fileURLToPath(import.meta.url), '..', '..');
for (const module of WASM_MODULES) {
  const bytes = await assembleWasm(root, module);
  await writeFileAtomic(join(root, module.bytesFile), wasmModuleText(module, bytes));
  console.log(`wasm: wrote ${module.bytesFile} (${bytes.length} bytes of WebAssembly)`);
}
