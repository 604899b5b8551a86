// evalkit/validate — validating documents and trees: values, files, streams, paths; detection; strict JSON.
export {
  validateValue,
  validateFile,
  validateStream,
  validatePaths,
  type ValidateOptions,
  type ValidationResult,
  type ValidationSummary,
  type ValueResult,
  type FileResult,
} from '../validate/index.js';
export { Detector, type DetectOptions, type Detection } from '../validate/detect.js';
export { describeDocument } from '../validate/expect-kind.js';
export { publishedSchema } from '../validate/schemas.js';
export {
  parseStrictJson,
  locatePointers,
  type StrictParseResult,
  type JsonIssue,
} from '../io/strict-json.js';
export { benchmarkMismatches, type BenchmarkMismatch } from '../checks/benchmark-hash.js';
