// The explanations attached to schema errors: each is produced for the error it is meant for (real Ajv errors of
// our schemas on edited examples), and ordinary errors keep the default message.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { eeeAggregateType, eeeInstanceType } from '../../src/formats/eee/index.js';
import { findVersion } from '../../src/formats/registry.js';
import type { DocumentType } from '../../src/formats/types.js';
import { createAjv } from '../../src/validate/ajv.js';
import { projectRoot } from '../helpers/shared.js';

type Doc = Record<string, any>;
const examples = join(projectRoot, 'examples', 'eee');
const aggregate: Doc = JSON.parse(
  readFileSync(
    join(examples, 'data/demo-bench/acme/tiny-model-1b/7c2f4e1a-93b5-4d6e-8a0f-2b1c3d4e5f60.json'),
    'utf8',
  ),
);
const rows: Doc[] = readFileSync(
  join(examples, 'data/demo-bench/acme/tiny-model-1b/7c2f4e1a-93b5-4d6e-8a0f-2b1c3d4e5f60_samples.jsonl'),
  'utf8',
)
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));
const rows020: Doc[] = readFileSync(join(examples, 'instances-0.2.0.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));

/** The explained messages for a document under a version (undefined entries dropped). */
function explained(type: DocumentType, version: string, doc: Doc): string[] {
  const v = findVersion(type, version)!;
  const validate = createAjv('draft-07').compile(JSON.parse(JSON.stringify(v.schema)));
  assert.equal(validate(doc), false, 'the edited document should be invalid');
  return (validate.errors ?? [])
    .map((e) => v.explainSchemaError!(e))
    .filter((m): m is string => m !== undefined);
}

function edit(doc: Doc, change: (d: Doc) => void): Doc {
  const copy = structuredClone(doc);
  change(copy);
  return copy;
}

const cases: [string, DocumentType, string, Doc, RegExp][] = [
  [
    'missing deployment axes',
    eeeAggregateType,
    '0.3.0',
    edit(aggregate, (d) => delete d.model_info.additional_details),
    /requires model_info\.additional_details with deployment_type and model_availability/,
  ],
  [
    'one missing axis',
    eeeAggregateType,
    '0.3.0',
    edit(aggregate, (d) => delete d.model_info.additional_details.model_availability),
    /requires model_availability in model_info\.additional_details; use "unknown"/,
  ],
  [
    'file_path outside the datastore layout',
    eeeAggregateType,
    '0.3.0',
    edit(aggregate, (d) => (d.detailed_evaluation_results.file_path = 'out/samples.jsonl')),
    /file_path must be data\/<collection>\/<developer>\/<model>\/<uuid4>_samples\.jsonl/,
  ],
  [
    'missing eval_library',
    eeeAggregateType,
    '0.2.1',
    edit(aggregate, (d) => delete d.eval_library),
    /requires eval_library \{name, version\} \(since 0\.2\.1\)/,
  ],
  [
    'eval_library on a 0.2.0 record',
    eeeAggregateType,
    '0.2.0',
    edit(aggregate, (d) => delete d.evaluation_results),
    /eval_library arrived in schema 0\.2\.1/,
  ],
  [
    'levels metric without level names (0.3.0)',
    eeeAggregateType,
    '0.3.0',
    edit(aggregate, (d) => (d.evaluation_results[1].metric_config.score_type = 'levels')),
    /score_type "levels" needs level_names and has_unknown_level/,
  ],
  [
    'continuous metric without bounds',
    eeeAggregateType,
    '0.3.0',
    edit(aggregate, (d) => delete d.evaluation_results[0].metric_config.min_score),
    /score_type "continuous" needs min_score and max_score/,
  ],
  [
    'a number in a string map',
    eeeAggregateType,
    '0.3.0',
    edit(aggregate, (d) => (d.eval_library.additional_details = { seed: 7 })),
    /values of this map must be strings/,
  ],
  [
    'source_data of no kind',
    eeeAggregateType,
    '0.3.0',
    edit(aggregate, (d) => (d.evaluation_results[0].source_data.source_type = 'kaggle')),
    /source_data must match exactly one kind by its source_type/,
  ],
  [
    'interactions in a 0.2.1+ row',
    eeeInstanceType,
    '0.3.0',
    edit(rows[2], (d) => {
      d.interactions = d.messages;
      delete d.messages;
    }),
    /"interactions" was renamed "messages" in schema 0\.2\.1/,
  ],
  [
    'a scalar reference in a 0.3.0 row',
    eeeInstanceType,
    '0.3.0',
    edit(rows[0], (d) => (d.input.reference = '42')),
    /wants a list of strings here: wrap a single string/,
  ],
  [
    'single_turn row without output',
    eeeInstanceType,
    '0.3.0',
    edit(rows[0], (d) => delete d.output),
    /a single_turn row needs an "output" object/,
  ],
  [
    'the dead metrics rule in 0.2.0',
    eeeInstanceType,
    '0.2.0',
    edit(rows020[1], (d) => (d.metrics = {})),
    /top-level "metrics" object.*Remove "metrics"/,
  ],
];

for (const [what, type, version, doc, message] of cases) {
  test(`explains: ${what}`, () => {
    const messages = explained(type, version, doc);
    assert.ok(
      messages.some((m) => message.test(m)),
      JSON.stringify(messages),
    );
  });
}

test('ordinary errors keep the default message', () => {
  const messages = explained(
    eeeAggregateType,
    '0.3.0',
    edit(aggregate, (d) => (d.evaluation_results[0].score_details.score = 'high')),
  );
  assert.deepEqual(messages, []);
});

test('a non-string input.raw is not told to become a list (only reference and output.raw are lists)', () => {
  const row = structuredClone(rows[0]);
  row.input.raw = ['wrapped by mistake'];
  assert.deepEqual(
    explained(eeeInstanceType, '0.3.0', row).filter((m) => m.includes('list of strings')),
    [],
  );
  const listy = structuredClone(rows[0]);
  listy.input.reference = 'A';
  assert.ok(explained(eeeInstanceType, '0.3.0', listy).some((m) => m.includes('list of strings')));
});
