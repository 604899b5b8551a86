// Retrieval evaluation events, Mnemoverse evaluation schemas 0.1 (Draft 2020-12): exactly one of an observation,
// a metric result, or a feedback action, told apart by `type`. Unknown keys are allowed, as in the published schema.
import { Type, type Static } from 'typebox';
import { DateTime, requestFields } from './request.js';

export const EvaluationObservationSchema = Type.Object(
  {
    type: Type.Literal('evaluation_observation'),
    ...requestFields,
    ts: DateTime(),
    latency_ms: Type.Optional(Type.Number()),
    tokens: Type.Optional(Type.Integer()),
    retrieved_ids: Type.Optional(Type.Array(Type.String())),
    outcome: Type.Optional(Type.String()),
  },
  { title: 'evaluation_observation' },
);

export const EvaluationResultEventSchema = Type.Object(
  {
    type: Type.Literal('evaluation_result'),
    request_id: Type.String(),
    metric: Type.String(),
    value: Type.Number(),
    threshold: Type.Optional(Type.Number()),
    pass: Type.Optional(Type.Boolean()),
    observation_ids: Type.Optional(Type.Array(Type.String())),
    ts: DateTime(),
  },
  { title: 'evaluation_result' },
);

export const FEEDBACK_ACTIONS = [
  'rerank_tweak',
  'source_blacklist',
  'tool_blacklist',
  'retry_policy_tune',
] as const;

export const FeedbackActionSchema = Type.Object(
  {
    type: Type.Literal('feedback_action'),
    request_id: Type.String(),
    action: Type.Enum(['rerank_tweak', 'source_blacklist', 'tool_blacklist', 'retry_policy_tune']),
    scope: Type.Object({}, { additionalProperties: true }),
    ttl_ms: Type.Optional(Type.Number()),
    reason: Type.Optional(Type.String()),
    ts: DateTime(),
  },
  { title: 'feedback_action' },
);

export type EvaluationObservation = Static<typeof EvaluationObservationSchema>;
export type EvaluationResultEvent = Static<typeof EvaluationResultEventSchema>;
export type FeedbackAction = Omit<Static<typeof FeedbackActionSchema>, 'scope'> & {
  scope: Record<string, unknown>;
};
export type RetrievalEvent = EvaluationObservation | EvaluationResultEvent | FeedbackAction;
export const RETRIEVAL_EVENT_TYPES = [
  'evaluation_observation',
  'evaluation_result',
  'feedback_action',
] as const;

// The branches exclude each other (each requires its own `type` constant), so oneOf is kept as published.
export const RetrievalEventSchema = Type.Unsafe<RetrievalEvent>({
  type: 'object',
  title: 'EvalEvents',
  description: 'One retrieval evaluation event: an observation, a metric result, or a feedback action.',
  oneOf: [EvaluationObservationSchema, EvaluationResultEventSchema, FeedbackActionSchema],
});
