// A retrieval gold row (gold.jsonl), Mnemoverse evaluation schemas 0.1 (Draft 2020-12): one query with the ids a
// perfect retriever returns. Unknown keys are allowed, as in the published schema.
import { Type, type Static } from 'typebox';

export const RetrievalGoldSchema = Type.Object(
  {
    schema_version: Type.Literal('0.1'),
    id: Type.String(),
    query: Type.String(),
    expected_ids: Type.Array(Type.String(), {
      description: 'Ids of the relevant fragments (binary relevance).',
    }),
    entities: Type.Optional(
      Type.Array(Type.String(), { description: 'Entities a good context should cover.' }),
    ),
    layers: Type.Array(Type.String()),
    tags: Type.Optional(Type.Array(Type.String())),
  },
  { title: 'EvalGoldItem', description: 'One query of a retrieval gold set (gold.jsonl row).' },
);
export type RetrievalGold = Static<typeof RetrievalGoldSchema>;
