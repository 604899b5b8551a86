// Benchmark output v1: one JSON document per run (metadata: what was run and how; results: status and metrics).
// Written from the published description (the original validator is not public): the four top-level keys are
// required and the only ones allowed ("reserved for future versions"); nested objects accept further keys.
import { Type, type Static } from 'typebox';

export const BENCH_OUTPUT_SCHEMA_URI = 'outputs/schemas/benchmark_schema.json';

const DateTime = (description: string) => Type.String({ format: 'date-time', description });

export const BenchMetadataSchema = Type.Object(
  {
    benchmark: Type.Object(
      {
        name: Type.String({ description: 'Benchmark name, e.g. "mmlu".' }),
        suite: Type.Optional(Type.String()),
        version: Type.Optional(Type.String()),
        task: Type.Optional(Type.String()),
      },
      { title: 'Benchmark identity' },
    ),
    model: Type.Object(
      {
        name: Type.String({ description: 'Model identifier.' }),
        provider: Type.String({ description: 'Provider or runtime, e.g. "openai", "vllm".' }),
        parameters: Type.Optional(Type.Object({}, { additionalProperties: true })),
        revision: Type.Optional(Type.String()),
      },
      { title: 'Model identity' },
    ),
    run: Type.Object(
      {
        id: Type.String({ description: 'Unique run id within the repository.' }),
        started_at: DateTime('ISO-8601 start time.'),
        finished_at: Type.Optional(DateTime('ISO-8601 end time.')),
        git: Type.Optional(
          Type.Object({ commit: Type.Optional(Type.String()), dirty: Type.Optional(Type.Boolean()) }),
        ),
        command: Type.Optional(Type.String()),
        host: Type.Optional(
          Type.Object({
            os: Type.Optional(Type.String()),
            python: Type.Optional(Type.String()),
            hostname: Type.Optional(Type.String()),
          }),
        ),
      },
      { title: 'Run identity and provenance' },
    ),
    tags: Type.Optional(Type.Array(Type.String())),
    notes: Type.Optional(Type.String()),
  },
  { title: 'metadata' },
);

export const BenchErrorSchema = Type.Object(
  { message: Type.String(), type: Type.Optional(Type.String()), traceback: Type.Optional(Type.String()) },
  { title: 'error' },
);

export const BenchArtifactSchema = Type.Object(
  {
    role: Type.Optional(Type.String()),
    path: Type.Optional(Type.String()),
    uri: Type.Optional(Type.String()),
  },
  { title: 'artifact', description: 'A reference to an external file (path or URI) and its role.' },
);

export const BenchResultsSchema = Type.Object(
  {
    status: Type.Enum(['ok', 'error']),
    metrics: Type.Unsafe<Record<string, number>>({
      type: 'object',
      additionalProperties: { type: 'number' },
      description: 'Metric name → numeric value.',
    }),
    error: Type.Optional(BenchErrorSchema),
    details: Type.Optional(Type.Object({}, { additionalProperties: true })),
    cases: Type.Optional(Type.Array(Type.Unknown())),
    artifacts: Type.Optional(Type.Array(BenchArtifactSchema)),
  },
  { title: 'results' },
);

export const BenchOutputSchema = Type.Object(
  {
    $schema: Type.String({ description: 'URI or path of the JSON Schema this file follows.' }),
    schema_version: Type.Literal('v1'),
    metadata: BenchMetadataSchema,
    results: BenchResultsSchema,
  },
  {
    additionalProperties: false,
    title: 'benchmark output v1',
    description: 'The output of one benchmark run: what was run (metadata) and what was measured (results).',
  },
);

export type BenchOutput = Static<typeof BenchOutputSchema>;
export type BenchMetadata = Static<typeof BenchMetadataSchema>;
export type BenchResults = Static<typeof BenchResultsSchema>;
