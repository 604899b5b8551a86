// The exported static types follow their version exactly (checked by the type checker: `npm test` runs tsc, and
// each @ts-expect-error fails the build if the line it marks stops being an error), and a value typed with them is
// accepted by the runtime validator of the same version.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  EeeAggregateSchema030,
  EeeInstanceSchema020,
  EeeInstanceSchema030,
  type EeeAggregate020,
  type EeeAggregate030,
  type EeeInstance020,
  type EeeInstance030,
} from '../../src/formats/eee/index.js';
import { createAjv } from '../../src/validate/ajv.js';

const aggregate: EeeAggregate030 = {
  schema_version: '0.3.0',
  evaluation_id: 'demo/1',
  retrieved_timestamp: '1700000000',
  source_metadata: {
    source_type: 'evaluation_run',
    source_organization_name: 'Acme',
    evaluator_relationship: 'first_party',
  },
  eval_library: { name: 'evalkit', version: '0.1.0' },
  model_info: {
    name: 'Tiny',
    id: 'acme/tiny',
    additional_details: { deployment_type: 'self_deployed', model_availability: 'open_weights' },
  },
  evaluation_results: [
    {
      evaluation_name: 'demo',
      source_data: { dataset_name: 'demo', source_type: 'other' },
      metric_config: {
        lower_is_better: false,
        score_type: 'continuous',
        min_score: 0,
        max_score: '-Infinity',
      },
      score_details: { score: 0.5 },
    },
  ],
};

const row030: EeeInstance030 = {
  schema_version: '0.3.0',
  evaluation_id: 'demo/1',
  model_id: 'acme/tiny',
  evaluation_name: 'demo',
  sample_id: 's1',
  interaction_type: 'multi_turn',
  input: { raw: 'hi', reference: ['hello'] },
  output: null,
  messages: [{ turn_idx: 0, role: 'user', content: 'hi' }],
  answer_attribution: [],
  evaluation: { score: 1, is_correct: true, num_turns: null },
};

const row020: EeeInstance020 = {
  schema_version: 'instance_level_eval_0.2.0',
  evaluation_id: 'demo/1',
  model_id: 'acme/tiny',
  evaluation_name: 'demo',
  sample_id: 7,
  interaction_type: 'single_turn',
  input: { raw: 'hi', reference: 'hello' },
  output: { raw: 'hello' },
  answer_attribution: [],
  evaluation: { score: true, is_correct: true },
};

test('values typed with the static types pass the runtime validator of the same version', () => {
  const ajv = createAjv('draft-07');
  assert.equal(
    ajv.validate(JSON.parse(JSON.stringify(EeeAggregateSchema030)), aggregate),
    true,
    ajv.errorsText(),
  );
  assert.equal(
    ajv.validate(JSON.parse(JSON.stringify(EeeInstanceSchema030)), row030),
    true,
    ajv.errorsText(),
  );
  assert.equal(
    ajv.validate(JSON.parse(JSON.stringify(EeeInstanceSchema020)), row020),
    true,
    ajv.errorsText(),
  );
});

test('the static types reject what the version rejects', () => {
  const bad030: Partial<EeeAggregate030>[] = [
    {
      model_info: {
        name: 'x',
        id: 'x',
        // @ts-expect-error deployment_type is an enum
        additional_details: { deployment_type: 'cloud', model_availability: 'unknown' },
      },
    },
    // @ts-expect-error 0.3.0 requires the deployment axes
    { model_info: { name: 'x', id: 'x', additional_details: {} } },
    // @ts-expect-error eval_library needs a version
    { eval_library: { name: 'x' } },
  ];
  // @ts-expect-error 0.2.0 has no eval_library
  const bad020: Partial<EeeAggregate020> = { eval_library: { name: 'x', version: '1' } };
  // @ts-expect-error 0.2.1+ rows have messages, not interactions
  const badRow: Partial<EeeInstance030> = { interactions: [] };
  // @ts-expect-error 0.2.1+ sample ids are strings
  const badId: Partial<EeeInstance030> = { sample_id: 7 };
  // @ts-expect-error 0.2.0 rows have interactions, not messages
  const badRow020: Partial<EeeInstance020> = { messages: [] };
  assert.equal(bad030.length + [bad020, badRow, badId, badRow020].length, 7);
});
