/**
 * A small WebAssembly module of the project (src/io/wasm/) that works on bytes copied into its memory: instantiated
 * on first use, or null where the runtime cannot (no WebAssembly SIMD: the callers then do the work in JavaScript).
 */

/** Inputs above this size stay in JavaScript, so the WebAssembly memory stays small. */
export const WASM_MAX_BYTES = 16 * 1024 * 1024;
const PAGE = 64 * 1024;

export class WasmScratch<Exports extends { memory: WebAssembly.Memory }> {
  private instance: Exports | null | undefined;
  private view = Buffer.alloc(0);

  constructor(private readonly base64: string) {}

  /** The module's exports, or null. */
  exports(): Exports | null {
    if (this.instance !== undefined) return this.instance;
    try {
      const module = new WebAssembly.Module(Buffer.from(this.base64, 'base64'));
      this.instance = new WebAssembly.Instance(module).exports as unknown as Exports;
      this.view = Buffer.from(this.instance.memory.buffer);
    } catch {
      this.instance = null;
    }
    return this.instance;
  }

  /**
   * Copies `bytes` to offset 0 of the module's memory, with at least `spare` bytes of room after them, and returns
   * the memory's bytes (valid until the next call); null when there is no module or the input is too large.
   */
  copy(bytes: Uint8Array, spare = 0): Buffer | null {
    const wasm = bytes.length <= WASM_MAX_BYTES ? this.exports() : null;
    if (wasm === null) return null;
    const need = bytes.length + spare;
    if (need > this.view.length) {
      wasm.memory.grow(Math.ceil((need - this.view.length) / PAGE));
      this.view = Buffer.from(wasm.memory.buffer);
    }
    this.view.set(bytes, 0);
    return this.view;
  }
}
