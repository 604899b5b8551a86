import type { CrossFieldRule, DocumentType } from '../types.js';
import { realTimeRule } from './date-time.js';
import { RetrievalEventSchema, RETRIEVAL_EVENT_TYPES } from './event.js';
import { RetrievalGoldSchema } from './gold.js';
import { RetrievalResultSchema } from './result.js';

export * from './gold.js';
export * from './result.js';
export * from './event.js';
export * from './date-time.js';

export function looksLikeRetrievalGold(doc: Record<string, unknown>): boolean {
  return 'expected_ids' in doc || ('query' in doc && 'layers' in doc && !('type' in doc));
}

export function looksLikeRetrievalResult(doc: Record<string, unknown>): boolean {
  return 'request_id' in doc && 'metrics' in doc && !('type' in doc);
}

export function looksLikeRetrievalEvent(doc: Record<string, unknown>): boolean {
  return typeof doc.type === 'string' && (RETRIEVAL_EVENT_TYPES as readonly string[]).includes(doc.type);
}

const version = (
  schema: DocumentType['versions'][number]['schema'],
  schemaVersionValues: string[],
  rules: CrossFieldRule[] = [],
) => ({
  version: '0.1',
  dialect: '2020-12' as const,
  schema,
  schemaVersionValues,
  rules,
});

export const retrievalGoldType: DocumentType = {
  id: 'retrieval.gold',
  family: 'retrieval',
  title: 'retrieval gold row (gold.jsonl)',
  looksLike: looksLikeRetrievalGold,
  versions: [version(RetrievalGoldSchema, ['0.1'])],
};

export const retrievalResultType: DocumentType = {
  id: 'retrieval.result',
  family: 'retrieval',
  title: 'retrieval result row (results.jsonl)',
  looksLike: looksLikeRetrievalResult,
  versions: [version(RetrievalResultSchema, ['0.1'], [realTimeRule])],
};

// Events carry no schema_version field; "0.1" names the only version.
export const retrievalEventType: DocumentType = {
  id: 'retrieval.event',
  family: 'retrieval',
  title: 'retrieval evaluation event (observation, result, feedback action)',
  looksLike: looksLikeRetrievalEvent,
  versions: [version(RetrievalEventSchema, ['0.1'], [realTimeRule])],
};

/** The retrieval document types, each with every version. */
export const retrievalTypes: DocumentType[] = [retrievalGoldType, retrievalResultType, retrievalEventType];
