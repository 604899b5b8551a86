// The evalkit task file (`evalkit run TASK`): a dataset, a prompt, one or more scorers, epochs and a reducer.
// Written in YAML or JSON; this schema checks both (YAML is read into the same JSON value first).
import { Type, type Static, type TSchema } from 'typebox';

// A pattern, not minLength: Ajv's standalone code for minLength needs a runtime require (the validators are ESM).
const NON_BLANK = '\\S';
const Name = Type.String({
  pattern: NON_BLANK,
  description: 'The metric name (metric_config.metric_name); default the scorer type.',
});
const Normalize = Type.Boolean({
  description: 'Compare after trimming, lower-casing and removing surrounding punctuation (default true).',
});

/** A scorer written as `{type: {options}}`; its options object is closed. */
const scorer = (type: string, options: Record<string, TSchema>, required: string[] = []) =>
  Type.Object(
    {
      [type]: Type.Object(
        Object.fromEntries(
          Object.entries(options).map(([k, v]) => [k, required.includes(k) ? v : Type.Optional(v)]),
        ),
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false },
  );

export const SCORER_TYPES = [
  'match',
  'includes',
  'pattern',
  'numeric',
  'choice',
  'json',
  'model_graded',
] as const;
export type ScorerType = (typeof SCORER_TYPES)[number];

export const JudgeSchema = Type.Object(
  {
    provider: Type.Optional(
      Type.Union([
        Type.Literal('openai'),
        Type.Literal('anthropic'),
        Type.Literal('openrouter'),
        Type.Literal('replay'),
      ]),
    ),
    model: Type.Optional(Type.String({ pattern: NON_BLANK })),
    base_url: Type.Optional(Type.Union([Type.String({ pattern: NON_BLANK }), Type.Null()])),
    api_key_env: Type.Optional(Type.String({ pattern: NON_BLANK })),
  },
  {
    additionalProperties: false,
    description: 'The judge model; --judge-provider / --judge-model fill what is absent.',
  },
);

export const TaskScorerSchema = Type.Union([
  Type.Union(
    SCORER_TYPES.map((t) => Type.Literal(t)),
    { description: 'A scorer with its default options.' },
  ),
  scorer('match', { name: Name, normalize: Normalize }),
  scorer('includes', { name: Name, normalize: Normalize }),
  scorer(
    'pattern',
    {
      regex: Type.String({
        pattern: NON_BLANK,
        description:
          'JavaScript regular expression; its first capture group (else the whole match) is compared.',
      }),
      flags: Type.Optional(Type.String({ pattern: '^[imsu]*$' })),
      name: Name,
      normalize: Normalize,
    },
    ['regex'],
  ),
  scorer('numeric', {
    tolerance: Type.Number({ minimum: 0, description: 'Largest accepted difference (default 0).' }),
    relative: Type.Boolean({ description: 'The tolerance is relative to |target| (default false).' }),
    name: Name,
  }),
  scorer('choice', { name: Name }),
  scorer('json', {
    schema: Type.String({
      pattern: NON_BLANK,
      description: 'A JSON Schema file (relative to the task file) the answer must satisfy.',
    }),
    name: Name,
  }),
  scorer('model_graded', {
    judge: JudgeSchema,
    template: Type.String({
      pattern: NON_BLANK,
      description:
        'The judge prompt template file (relative to the task file); default a built-in grader prompt.',
    }),
    grades: Type.Record(Type.String({ pattern: NON_BLANK }), Type.Number({ minimum: 0, maximum: 1 }), {
      description: 'GRADE letter → value (default C: 1, P: 0.5, I: 0).',
    }),
    name: Name,
  }),
]);

export const TaskMessageSchema = Type.Object(
  {
    role: Type.Union([Type.Literal('system'), Type.Literal('user'), Type.Literal('assistant')]),
    content: Type.String({ description: 'A template: {{field}} from the dataset row.' }),
  },
  { additionalProperties: false },
);

export const TaskSchema = Type.Object(
  {
    name: Type.String({
      pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
      description: "The benchmark: every result's evaluation_name and source_data.dataset_name.",
    }),
    description: Type.Optional(Type.String()),
    dataset: Type.Object(
      {
        path: Type.String({
          pattern: NON_BLANK,
          description: '.jsonl, .json (an array of objects) or .csv, relative to the task file.',
        }),
        id: Type.Optional(
          Type.String({
            pattern: NON_BLANK,
            description: 'Field holding the sample id (default "id"; absent: the 1-based row number).',
          }),
        ),
        input: Type.Optional(
          Type.String({ pattern: NON_BLANK, description: 'Field holding the input (default "input").' }),
        ),
        target: Type.Optional(
          Type.String({
            pattern: NON_BLANK,
            description:
              'Field holding the reference (default "target"): a string, a number or a list of accepted answers.',
          }),
        ),
        choices: Type.Optional(
          Type.String({
            pattern: NON_BLANK,
            description: 'Field holding the choices (a list) for multiple choice.',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    system: Type.Optional(Type.String({ description: 'System message (a template).' })),
    messages: Type.Optional(
      Type.Array(TaskMessageSchema, {
        minItems: 1,
        description: 'The prompt instead of the default single user message "{{input}}".',
      }),
    ),
    scorers: Type.Array(TaskScorerSchema, { minItems: 1 }),
    epochs: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, description: 'Samples drawn per item (default 1).' }),
    ),
    reducer: Type.Optional(
      Type.Union(
        [
          Type.Literal('mean'),
          Type.Literal('mode'),
          Type.Literal('max'),
          Type.Literal('min'),
          Type.Literal('pass_at_k'),
        ],
        {
          description: 'How the epochs of one item reduce to its value (default mean).',
        },
      ),
    ),
    k: Type.Optional(Type.Integer({ minimum: 1, description: 'The k of pass_at_k (at most epochs).' })),
    generation: Type.Optional(
      Type.Object(
        {
          temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
          max_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
          top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
          seed: Type.Optional(Type.Integer({ minimum: 0 })),
          stop: Type.Optional(Type.Array(Type.String())),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    additionalProperties: false,
    title: 'evalkit task',
    description:
      'A task for `evalkit run`: a dataset, a prompt, scorers, epochs and a reducer (YAML or JSON).',
  },
);
export type TaskFile = Static<typeof TaskSchema>;
