import type { DocumentType } from '../types.js';
import { BenchmarkSchema } from './benchmark-schema.js';
import { EvaluationSchema } from './evaluation-schema.js';
import { benchmarkRules, evaluationRules } from './rules.js';

export { VerdictSchema, VERDICTS, ReferenceSchema, type ReferenceDocument } from './common.js';
export * from './benchmark-schema.js';
export * from './evaluation-schema.js';
export * from './types.js';
export * from './normalise.js';
export * from './rules.js';
export * from './load.js';

/** Evaluation-shaped keys (an η also has `items`, so it is told apart first). */
export function looksLikeInferevalEvaluation(doc: Record<string, unknown>): boolean {
  return (
    'endorsement_config' in doc || 'benchmark_id' in doc || ('model' in doc && 'items' in doc && 'id' in doc)
  );
}

export function looksLikeInferevalBenchmark(doc: Record<string, unknown>): boolean {
  if (looksLikeInferevalEvaluation(doc)) return false;
  if ('bearers' in doc || 'analysts' in doc) return true;
  // A benchmark that lost its bearers/analysts: items whose first entry has analyst_verdicts but no model_verdict.
  const first = Array.isArray(doc.items) ? (doc.items[0] as Record<string, unknown> | undefined) : undefined;
  return (
    first !== undefined &&
    first !== null &&
    typeof first === 'object' &&
    'analyst_verdicts' in first &&
    !('model_verdict' in first) &&
    'id' in doc
  );
}

const UPSTREAM = 'infereval/schemas';

/** An explanation for the one place where the infereval loader is laxer than its published schema. */
function explainBareReference(error: { instancePath: string; keyword: string }): string | undefined {
  if (error.keyword === 'type' && /\/references\/\d+$/.test(error.instancePath)) {
    return (
      'must be an object {"citation": …}; the infereval loader promotes a bare string to {"citation": string}, ' +
      'but the published schema (and so this validator) requires the object form'
    );
  }
  return undefined;
}

export const inferevalBenchmarkType: DocumentType = {
  id: 'infereval.benchmark',
  family: 'infereval',
  title: 'infereval benchmark (β)',
  looksLike: looksLikeInferevalBenchmark,
  versions: [
    {
      version: '1.0',
      dialect: '2020-12',
      schema: BenchmarkSchema,
      schemaVersionValues: ['1.0'],
      rules: benchmarkRules,
      explainSchemaError: explainBareReference,
      upstreamSchema: `${UPSTREAM}/benchmark.schema.json`,
    },
  ],
};

export const inferevalEvaluationType: DocumentType = {
  id: 'infereval.evaluation',
  family: 'infereval',
  title: 'infereval evaluation (η)',
  looksLike: looksLikeInferevalEvaluation,
  versions: [
    {
      version: '1.0',
      dialect: '2020-12',
      schema: EvaluationSchema,
      schemaVersionValues: ['1.0'],
      rules: evaluationRules,
      explainSchemaError: explainBareReference,
      upstreamSchema: `${UPSTREAM}/evaluation.schema.json`,
    },
  ],
};

/** The infereval document types, each with every version. */
export const inferevalTypes: DocumentType[] = [inferevalBenchmarkType, inferevalEvaluationType];
