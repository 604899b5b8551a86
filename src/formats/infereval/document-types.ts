// The two infereval document types as registry data: schema, rules, detection, upstream schema for conformance.
import type { DocumentType } from '../types.js';
import { BenchmarkSchema } from './benchmark-schema.js';
import { looksLikeInferevalBenchmark, looksLikeInferevalEvaluation } from './detect.js';
import { EvaluationSchema } from './evaluation-schema.js';
import { benchmarkRules, evaluationRules } from './rules.js';

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
