// The library: everything the CLI does, without argv, TTYs or exit codes.
export * from './errors.js';
export * from './diagnostics.js';
export * from './formats/types.js';
export * from './formats/registry.js';
export * from './formats/infereval/index.js';
export * from './formats/retrieval/index.js';
export * from './formats/bench-output/index.js';
export * from './formats/eee/index.js';
export * from './metrics/index.js';
export * from './validate/index.js';
export * from './report/index.js';
