import type { DocumentType } from '../types.js';
import { hasLegacyKeys } from './migrate.js';
import { benchOutputRules } from './rules.js';
import { BenchOutputSchema } from './schema.js';

export * from './schema.js';
export * from './rules.js';

/** Keys of a v1 document: `$schema` with metadata or results, or both metadata and results. */
export function looksLikeBenchOutput(doc: Record<string, unknown>): boolean {
  const hasBody = 'metadata' in doc || 'results' in doc;
  return ('$schema' in doc && hasBody) || ('metadata' in doc && 'results' in doc);
}

export const benchOutputType: DocumentType = {
  id: 'bench.output',
  family: 'bench',
  title: 'benchmark output v1',
  looksLike: looksLikeBenchOutput,
  legacyHint: (doc) =>
    hasLegacyKeys(doc)
      ? `it has the keys of a legacy benchmark output (${Object.keys(doc).sort().join(', ')}); \`evalkit migrate FILE\` turns it into bench.output v1`
      : undefined,
  versions: [
    {
      version: 'v1',
      dialect: '2020-12',
      schema: BenchOutputSchema,
      schemaVersionValues: ['v1'],
      rules: benchOutputRules,
    },
  ],
};

/** The bench-output document types, each with every version. */
export const benchOutputTypes: DocumentType[] = [benchOutputType];
