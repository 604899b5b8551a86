import type { DocumentType } from '../types.js';
import { inferevalBenchmarkType, inferevalEvaluationType } from './document-types.js';

export { VerdictSchema, VERDICTS, ReferenceSchema, type ReferenceDocument } from './common.js';
export * from './benchmark-schema.js';
export * from './evaluation-schema.js';
export * from './types.js';
export * from './normalise.js';
export * from './rules.js';
export * from './detect.js';
export * from './document-types.js';

/** The infereval document types, each with every version. */
export const inferevalTypes: DocumentType[] = [inferevalBenchmarkType, inferevalEvaluationType];
