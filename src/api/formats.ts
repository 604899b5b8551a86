// evalkit/formats — the document types (each version as data), reading infereval documents, canonical hashes.
export { documentTypes, findType, findVersion } from '../formats/registry.js';
export type { DocumentType, FormatVersion } from '../formats/types.js';
export { eeeAggregateType, eeeInstanceType } from '../formats/eee/index.js';
export type {
  EeeAggregate020,
  EeeAggregate021,
  EeeAggregate022,
  EeeAggregate030,
  EeeInstance020,
  EeeInstance021,
  EeeInstance022,
  EeeInstance030,
} from '../formats/eee/index.js';
export { inferevalBenchmarkType, inferevalEvaluationType } from '../formats/infereval/index.js';
export { loadInfereval, parseInfereval, checkInfereval } from '../validate/infereval.js';
export { normaliseBenchmark, normaliseEvaluation } from '../formats/infereval/normalise.js';
export type * from '../formats/infereval/types.js';
export { retrievalGoldType, retrievalResultType, retrievalEventType } from '../formats/retrieval/index.js';
export { benchOutputType } from '../formats/bench-output/index.js';
export { benchmarkHash, BENCHMARK_FIELD_SET } from '../formats/infereval/hash.js';
export { sampleHash, matchingSampleHashRecipe, SAMPLE_HASH_RECIPES } from '../formats/eee/sample-hash.js';
// bearers-import: a bearers file + an items document → an infereval benchmark, with the constraint compiler.
export { bearersImport } from '../validate/infereval.js';
export type { BearersImportResult } from '../formats/infereval/bearers/build.js';
export type { BearersDoc, FamilyDecl } from '../formats/infereval/bearers/parse.js';
export type { CompiledConstraints, Sequent } from '../formats/infereval/bearers/compile.js';
