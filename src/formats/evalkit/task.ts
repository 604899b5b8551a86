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
  'tool_used',
  'tool_sequence',
  'tool_args_match',
  'step_count',
  'tool_call_f1',
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
  scorer(
    'tool_used',
    {
      name: Type.String({ pattern: NON_BLANK, description: 'The tool that must be called.' }),
      metric: Name,
      min: Type.Integer({ minimum: 0, description: 'Fewest calls (default 1).' }),
      max: Type.Integer({ minimum: 0, description: 'Most calls (default no bound).' }),
    },
    ['name'],
  ),
  scorer('tool_sequence', {
    name: Name,
    names: Type.Array(Type.String({ pattern: NON_BLANK }), {
      minItems: 1,
      description: "The expected tool names; default each row's expected_tools.",
    }),
    mode: Type.Union([Type.Literal('exact'), Type.Literal('in_order'), Type.Literal('any_order')], {
      description:
        'exact: the calls are these names; in_order: they occur in this order (default); any_order: all occur.',
    }),
  }),
  scorer(
    'tool_args_match',
    {
      name: Type.String({ pattern: NON_BLANK, description: 'The tool whose call is checked.' }),
      metric: Name,
      args: Type.Record(Type.String(), Type.Unknown(), {
        description: "The expected arguments; default each row's expected_args.",
      }),
      mode: Type.Union([Type.Literal('exact'), Type.Literal('partial')], {
        description: 'exact: the arguments are these; partial: they include these (default).',
      }),
    },
    ['name'],
  ),
  scorer(
    'step_count',
    {
      name: Name,
      max: Type.Integer({ minimum: 1, description: 'Most model turns: 1 within, 0 over.' }),
    },
    ['max'],
  ),
  scorer('tool_call_f1', {
    name: Name,
    expected: Type.Array(Type.String({ pattern: NON_BLANK }), {
      description: "The tool names expected to be called; default each row's expected_tools.",
    }),
  }),
]);

const ToolName = Type.String({
  pattern: '^[A-Za-z0-9_-]{1,64}$',
  description: 'The tool name the model calls.',
});

export const TaskToolSchema = Type.Object(
  {
    name: ToolName,
    description: Type.Optional(Type.String({ description: 'What the tool does, as the model reads it.' })),
    parameters: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'JSON Schema of the arguments (an object schema); a call is checked against it before it runs.',
      }),
    ),
    table: Type.Optional(
      Type.String({
        pattern: NON_BLANK,
        description:
          'A JSONL file of {arguments, result} (relative to the task file): the result of each call.',
      }),
    ),
    command: Type.Optional(
      Type.Array(Type.String({ pattern: NON_BLANK }), {
        minItems: 1,
        description:
          'An executable inside the task folder and its arguments, run without a shell: the call arguments as JSON on stdin, the result from stdout.',
      }),
    ),
    timeout_ms: Type.Optional(
      Type.Integer({ minimum: 1, description: 'A command tool is stopped after this long (default 10000).' }),
    ),
    max_output_bytes: Type.Optional(
      Type.Integer({ minimum: 1, description: 'A command tool printing more is stopped (default 65536).' }),
    ),
    builtin: Type.Optional(
      Type.Union([Type.Literal('calculator'), Type.Literal('submit')], {
        description:
          'calculator: + - * / ^ and parentheses on numbers; submit: ends the sample with its answer.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const TaskLimitsSchema = Type.Object(
  {
    max_turns: Type.Optional(
      Type.Integer({ minimum: 1, description: 'Most model turns per sample (default 10).' }),
    ),
    max_tool_calls: Type.Optional(Type.Integer({ minimum: 0, description: 'Most tool calls per sample.' })),
    token_limit: Type.Optional(
      Type.Integer({ minimum: 1, description: 'Most input + output tokens per sample, summed over turns.' }),
    ),
    time_limit_s: Type.Optional(
      Type.Integer({ minimum: 1, description: 'Most seconds per sample (model latency and tool time).' }),
    ),
    cost_limit_usd: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        description: "Most US dollars per sample, at the model's price in --prices, summed over turns.",
      }),
    ),
  },
  { additionalProperties: false },
);

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
    tools: Type.Optional(
      Type.Array(TaskToolSchema, {
        minItems: 1,
        description: 'Tools the model may call (an agent task): each a table or a built-in.',
      }),
    ),
    limits: Type.Optional(TaskLimitsSchema),
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
