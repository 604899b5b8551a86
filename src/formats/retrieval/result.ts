// A retrieval result row (results.jsonl), Mnemoverse evaluation schemas 0.1 (Draft 2020-12): the metrics of one
// request, with optional threshold verdicts. Unknown keys and metrics are allowed, as in the published schema.
import { Type, type Static } from 'typebox';
import { DateTime, requestFields } from './request.js';

export const RetrievalVerdictSchema = Type.Object(
  { metric: Type.String(), value: Type.Number(), threshold: Type.Number(), pass: Type.Boolean() },
  { title: 'MetricVerdict' },
);

export const RetrievalMetricsSchema = Type.Object(
  {
    p_at_5: Type.Optional(Type.Number()),
    p_at_10: Type.Optional(Type.Number()),
    ndcg_10: Type.Optional(Type.Number()),
    mrr_10: Type.Optional(Type.Number()),
    cov_entities: Type.Optional(Type.Number()),
    p50_ms: Type.Optional(Type.Number()),
    p95_ms: Type.Optional(Type.Number()),
    errors: Type.Optional(Type.Integer()),
    privacy_leak: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true, title: 'RetrievalMetrics' },
);

export const RetrievalResultSchema = Type.Object(
  {
    schema_version: Type.Literal('0.1'),
    id: Type.String(),
    ...requestFields,
    ts: Type.Optional(DateTime()),
    retrieved_ids: Type.Optional(Type.Array(Type.String())),
    metrics: RetrievalMetricsSchema,
    verdicts: Type.Optional(Type.Array(RetrievalVerdictSchema)),
  },
  { title: 'EvalResultItem', description: 'The retrieval metrics of one request (results.jsonl row).' },
);
export type RetrievalVerdict = Static<typeof RetrievalVerdictSchema>;
/** Named metrics plus any other metric (numbers, integers, booleans). */
export type RetrievalMetrics = Static<typeof RetrievalMetricsSchema> & { [metric: string]: unknown };
export type RetrievalResult = Omit<Static<typeof RetrievalResultSchema>, 'metrics'> & {
  metrics: RetrievalMetrics;
};
