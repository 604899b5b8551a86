// evalkit — the library: everything the CLI does, without argv, TTYs or exit codes. The public API, by area:
//   evalkit/validate, evalkit/formats, evalkit/migrate, evalkit/run, evalkit/metrics, evalkit/report, evalkit/convert,
//   evalkit/store, evalkit/view, evalkit/survey
// (one file each under src/api/; this root re-exports them all, plus the errors and diagnostics every area uses).
// Adding an area: src/api/<area>.ts, one line in package.json "exports", one line below.
export { EvalkitError, UsageError, IoError, DataError } from './errors.js';
export { formatDiagnosticText, type Diagnostic } from './diagnostics.js';
export * from './api/validate.js';
export * from './api/formats.js';
export * from './api/migrate.js';
export * from './api/run.js';
export * from './api/metrics.js';
export * from './api/report.js';
export * from './api/convert.js';
// evalkit/store, evalkit/view and evalkit/survey are subpaths only: the root stays free of the store's and the
// server's modules, and under its size budget.
