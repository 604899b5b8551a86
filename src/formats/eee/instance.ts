// EEE instance-level row (one sample of one evaluation run; a line of `<uuid>_samples.jsonl`), 0.2.0 → 0.3.0.
// One builder driven by a per-version list of changes (INSTANCE_CHANGES at the bottom). Upstream quirks kept:
//   - the root carries an unknown `version` keyword;
//   - the multi-turn/agentic branch constrains a top-level `metrics` property (requires `num_turns` in it) that the
//     schema never defines. From 0.2.1 the root is closed, so the rule is dead; in 0.2.0 (open root) a row carrying
//     a top-level `metrics` object without `num_turns` fails;
//   - with `interaction_type` absent both branches apply and contradict each other (output object vs null).
import { Type } from 'typebox';
import {
  Bool,
  choose,
  Int,
  NullableStrList,
  OneOf,
  OrNull,
  Root,
  Str,
  StrEnum,
  Types,
  unless,
  when,
} from './common.js';

const Opt = Type.Optional;

export interface InstanceChanges {
  /** The upstream `version` keyword. */
  version: string;
  /** 0.2.1: closed root; `interactions` renamed `messages`; string sample_id; list-only reference/raw; many nullables. */
  v021: boolean;
  /** 0.2.2: `evaluation_result_id`. */
  evaluationResultId: boolean;
}

const strings = () => Type.Array(Type.String());
const stringOrList = (description: string) => OneOf([strings(), Type.String()], description);

export function buildInstance<const C extends InstanceChanges>(c: C) {
  const turns = c.v021 ? 'messages' : 'interactions';
  const nullableStr = (description: string) =>
    choose(
      c,
      'v021',
      () => Types(['string', 'null'], description),
      () => Str(description),
    );

  const toolCall = Type.Object({
    id: Str('Id of the tool call.'),
    name: Str('Name of the tool called.'),
    arguments: Opt(
      choose(
        c,
        'v021',
        () =>
          Type.Unsafe<Record<string, string> | null>({
            type: ['object', 'null'],
            description: 'Arguments of the call (string values).',
            additionalProperties: { type: 'string' },
          }),
        () =>
          Type.Unsafe<Record<string, unknown>>({
            type: 'object',
            description: 'Arguments of the call.',
            additionalProperties: true,
          }),
      ),
    ),
  });
  const turn = Type.Object({
    turn_idx: Int('Position in the conversation, from 0.', { minimum: 0 }),
    role: Str('Speaker: user, assistant, system, tool, ...'),
    content: Opt(Types(['string', 'null'], 'Text of the turn (null when empty).')),
    reasoning_trace: Opt(Types(['string', 'null'], 'Reasoning trace of the turn, if any.')),
    tool_calls: Opt(OrNull(Type.Array(toolCall, { description: 'Tool calls made in this turn.' }))),
    tool_call_id: Opt(
      choose(
        c,
        'v021',
        () => NullableStrList('Id(s) of the tool call(s) this turn answers.'),
        () => OneOf([Type.String(), strings()], 'Id(s) of the tool call(s) this turn answers.'),
      ),
    ),
  });
  const turnsSchema = OrNull(
    Type.Array(turn, { description: 'The conversation (multi_turn and agentic); null for single_turn.' }),
  );

  const input = Type.Object(
    {
      raw: Str('The raw input as the evaluation defines it.'),
      formatted: Opt(
        nullableStr('What the model saw: chat template, CoT prompt and all, before tokenization.'),
      ),
      reference: choose(
        c,
        'v021',
        () => Type.Array(Type.String(), { description: 'Reference answer(s) used for scoring.' }),
        () => stringOrList('Reference answer(s) used for scoring.'),
      ),
      choices: Opt(
        choose(
          c,
          'v021',
          () => NullableStrList('Choices of a multiple-choice question.'),
          () => Type.Array(Type.String(), { description: 'Choices of a multiple-choice question.' }),
        ),
      ),
    },
    { description: 'The sample as given to the model.' },
  );
  const outputProps = {
    raw: choose(
      c,
      'v021',
      () => Type.Array(Type.String(), { description: 'Complete model response(s).' }),
      () => stringOrList('Complete model response(s).'),
    ),
    reasoning_trace: Opt(
      choose(
        c,
        'v021',
        () => NullableStrList('Reasoning trace, if any.'),
        () => stringOrList('Reasoning trace, if any.'),
      ),
    ),
  };
  const output = OrNull(
    Type.Object(outputProps, {
      description: 'The model output (single_turn); null for multi_turn and agentic.',
    }),
  );

  const attribution = Type.Object({
    turn_idx: Int(`Turn index in ${turns} (0 for single_turn).`, { minimum: 0 }),
    source: Str(`Where the value was extracted from, e.g. output.raw or ${turns}[i].content.`),
    extracted_value: Str('The extracted answer.'),
    extraction_method: Str('How it was extracted.'),
    is_terminal: Bool('True when this is the final answer.'),
  });

  const nullableInt = (description: string, minimum: number) =>
    choose(
      c,
      'v021',
      () => Types(['integer', 'null'], description, { minimum }),
      () => Int(description, { minimum }),
    );
  const evaluation = Type.Object(
    {
      score: choose(
        c,
        'v021',
        () => Type.Number({ description: 'Score of this sample.' }),
        () => Types(['number', 'boolean'], 'Score of this sample.'),
      ),
      is_correct: Bool('True when the answer is correct.'),
      num_turns: Opt(nullableInt('Number of turns.', 1)),
      tool_calls_count: Opt(nullableInt(`Number of tool calls across all ${turns}.`, 0)),
    },
    { description: 'How this sample was scored.' },
  );

  const tokenCount = (description: string) => Int(description, { minimum: 0 });
  const optionalTokens = (description: string) => Types(['integer', 'null'], description, { minimum: 0 });
  const tokenUsageProps = {
    input_tokens: tokenCount('Input tokens.'),
    output_tokens: tokenCount('Output tokens.'),
    total_tokens: tokenCount('Input plus output tokens.'),
    input_tokens_cache_write: Opt(optionalTokens('Input tokens written to the cache.')),
    input_tokens_cache_read: Opt(optionalTokens('Input tokens read from the cache.')),
    reasoning_tokens: Opt(optionalTokens('Reasoning tokens.')),
  };
  const tokenUsage = OrNull(Type.Object(tokenUsageProps, { description: 'Token counts.' }));
  const ms = (description: string) => Types(['number', 'null'], description, { minimum: 0 });
  const performanceProps = {
    latency_ms: Opt(ms('Total latency, ms.')),
    time_to_first_token_ms: Opt(ms('Time to first token, ms.')),
    generation_time_ms: Opt(ms('Generation time, ms.')),
    ...when(c, 'v021', () => ({
      additional_details: Opt(
        Type.Unsafe<Record<string, string> | null>({
          type: ['object', 'null'],
          description: 'Other performance figures (string values).',
          additionalProperties: { type: 'string' },
        }),
      ),
    })),
  };
  const performance = OrNull(
    Type.Object(performanceProps, {
      description: 'Latency figures.',
      ...(c.v021 ? {} : { additionalProperties: true }),
    }),
  );

  const body = Type.Object(
    {
      schema_version: Str('Schema version of this row.'),
      evaluation_id: Str("Foreign key: the aggregate record's evaluation_id."),
      model_id: Str('Model id in Hugging Face style.'),
      evaluation_name: Str('Name of the evaluation, e.g. GSM8K.'),
      ...when(c, 'evaluationResultId', () => ({
        evaluation_result_id: Opt(
          Str('Foreign key: the evaluation_result_id of exactly one aggregate result.'),
        ),
      })),
      sample_id: choose(
        c,
        'v021',
        () => Str('Id of the sample in the dataset.'),
        () => Types(['integer', 'string'], 'Id of the sample in the dataset.'),
      ),
      sample_hash: Opt(nullableStr('Hash of the input and reference, to match samples across models.')),
      interaction_type: StrEnum(
        ['single_turn', 'multi_turn', 'agentic'],
        'single_turn, multi_turn or agentic.',
      ),
      input,
      output: Opt(output),
      ...unless(c, 'v021', () => ({ interactions: Opt(turnsSchema) })),
      ...when(c, 'v021', () => ({ messages: Opt(turnsSchema) })),
      answer_attribution: Type.Array(attribution, { description: 'Where the answer was found.' }),
      evaluation,
      token_usage: Opt(tokenUsage),
      performance: Opt(performance),
      error: Opt(Types(['string', 'null'], 'Error message, if the sample failed.')),
      metadata: Opt(
        choose(
          c,
          'v021',
          () =>
            Type.Unsafe<Record<string, string> | null>({
              type: ['object', 'null'],
              description: 'Other details (string values).',
              additionalProperties: { type: 'string' },
            }),
          () =>
            Type.Unsafe<Record<string, unknown>>({
              type: 'object',
              description: 'Other details.',
              additionalProperties: true,
            }),
        ),
      ),
    },
    {
      description: 'One sample of an evaluation run: input, output or conversation, and its score.',
      additionalProperties: !c.v021,
      allOf: [
        {
          if: { properties: { interaction_type: { const: 'single_turn' } } },
          then: {
            required: ['output'],
            properties: { output: { type: 'object', not: { type: 'null' } }, [turns]: { type: 'null' } },
          },
        },
        {
          if: { properties: { interaction_type: { enum: ['multi_turn', 'agentic'] } } },
          then: {
            required: [turns],
            properties: {
              output: { type: 'null' },
              [turns]: { type: 'array', not: { type: 'null' } },
              // Upstream quirk kept: `metrics` is no property of the row (num_turns lives in `evaluation`).
              metrics: { required: ['num_turns'] },
            },
          },
        },
      ],
    },
  );
  return Root(c.version, body);
}

const V020 = {
  version: 'instance_level_eval_0.2.0',
  v021: false,
  evaluationResultId: false,
} as const satisfies InstanceChanges;
const V021 = { ...V020, version: 'instance_level_eval_0.2.1', v021: true } as const satisfies InstanceChanges;
const V022 = {
  ...V021,
  version: 'instance_level_eval_0.2.2',
  evaluationResultId: true,
} as const satisfies InstanceChanges;
const V030 = { ...V022, version: '0.3.0' } as const satisfies InstanceChanges;

/** Each version as the previous one plus its changes. */
export const INSTANCE_CHANGES: readonly InstanceChanges[] = [V020, V021, V022, V030];

export const EeeInstanceSchema020 = buildInstance(V020);
export const EeeInstanceSchema021 = buildInstance(V021);
export const EeeInstanceSchema022 = buildInstance(V022);
export const EeeInstanceSchema030 = buildInstance(V030);
