// Targeted cases for the upstream quirks and version differences: the expected verdict is written down here, our
// schema must give it, and (when the reference data is present) so must the upstream schema. Plus: the emitted
// schemas are valid draft-07 documents, and the comparison harness does notice a schema that differs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { eeeAggregateType, eeeInstanceType } from '../../src/formats/eee/index.js';
import { findVersion } from '../../src/formats/registry.js';
import type { DocumentType } from '../../src/formats/types.js';
import { createAjv } from '../../src/validate/ajv.js';
import { mutations } from '../helpers/mutate.js';
import {
  projectRoot,
  reference,
  skipWithoutReference,
  UPSTREAM_EEE_SCHEMAS,
  withReference,
} from '../helpers/shared.js';

type Doc = Record<string, any>;
const examples = join(projectRoot, 'examples', 'eee');
const readJson = (rel: string): Doc => JSON.parse(readFileSync(join(examples, rel), 'utf8'));
const readJsonl = (rel: string): Doc[] =>
  readFileSync(join(examples, rel), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

const aggregate030 = readJson('data/demo-bench/acme/tiny-model-1b/7c2f4e1a-93b5-4d6e-8a0f-2b1c3d4e5f60.json');
const rows030 = readJsonl(
  'data/demo-bench/acme/tiny-model-1b/7c2f4e1a-93b5-4d6e-8a0f-2b1c3d4e5f60_samples.jsonl',
);
const aggregate020 = readJson('aggregate-0.2.0.json');
const rows020 = readJsonl('instances-0.2.0.jsonl');

function edit(doc: Doc, change: (d: Doc) => void): Doc {
  const copy = structuredClone(doc);
  change(copy);
  return copy;
}

function verdicts(type: DocumentType, version: string, doc: unknown): { ours: boolean; upstream?: boolean } {
  const v = findVersion(type, version)!;
  const ours = createAjv('draft-07').validate(JSON.parse(JSON.stringify(v.schema)), doc) as boolean;
  const path = reference(v.upstreamSchema!);
  const upstream = path
    ? (createAjv('draft-07').validate(JSON.parse(readFileSync(path, 'utf8')), doc) as boolean)
    : undefined;
  return { ours, upstream };
}

interface Case {
  what: string;
  type: DocumentType;
  doc: Doc;
  /** Expected verdict per version. */
  expect: Record<string, boolean>;
}

const noScoreType = (d: Doc) => delete d.evaluation_results[1].metric_config.score_type;
const cases: Case[] = [
  {
    what: 'the 0.3.0 example aggregate (0.2.0 has no eval_library)',
    type: eeeAggregateType,
    doc: aggregate030,
    expect: { '0.2.0': false, '0.2.1': true, '0.2.2': true, '0.3.0': true },
  },
  {
    what: 'a metric without score_type: 0.2.x takes the "levels" branch (quirk), 0.3.0 does not',
    type: eeeAggregateType,
    doc: edit(aggregate030, noScoreType),
    expect: { '0.2.1': false, '0.2.2': false, '0.3.0': true },
  },
  {
    what: 'same quirk on the 0.2.0 example',
    type: eeeAggregateType,
    doc: edit(aggregate020, (d) => delete d.evaluation_results[0].metric_config.score_type),
    expect: { '0.2.0': false },
  },
  {
    what: 'no score_type but level_names and has_unknown_level: fine everywhere',
    type: eeeAggregateType,
    doc: edit(aggregate030, (d) => {
      noScoreType(d);
      Object.assign(d.evaluation_results[1].metric_config, {
        level_names: ['fail', 'pass'],
        has_unknown_level: false,
      });
    }),
    expect: { '0.2.1': true, '0.2.2': true, '0.3.0': true },
  },
  {
    what: 'continuous without bounds fails in every version',
    type: eeeAggregateType,
    doc: edit(aggregate030, (d) => delete d.evaluation_results[0].metric_config.max_score),
    expect: { '0.2.1': false, '0.2.2': false, '0.3.0': false },
  },
  {
    what: 'min_score "-Infinity" is 0.3.0 only',
    type: eeeAggregateType,
    doc: edit(aggregate030, (d) => (d.evaluation_results[0].metric_config.min_score = '-Infinity')),
    expect: { '0.2.2': false, '0.3.0': true },
  },
  {
    what: 'max_score null is 0.3.0 only (and satisfies "required" there)',
    type: eeeAggregateType,
    doc: edit(aggregate030, (d) => (d.evaluation_results[0].metric_config.max_score = null)),
    expect: { '0.2.2': false, '0.3.0': true },
  },
  {
    what: '0.2.0 detailed_evaluation_results has no type: a string passes',
    type: eeeAggregateType,
    doc: edit(aggregate020, (d) => (d.detailed_evaluation_results = 'see samples.jsonl')),
    expect: { '0.2.0': true },
  },
  {
    what: '… while 0.2.1+ reject a string there',
    type: eeeAggregateType,
    doc: edit(aggregate030, (d) => (d.detailed_evaluation_results = 'see samples.jsonl')),
    expect: { '0.2.1': false, '0.2.2': false, '0.3.0': false },
  },
  {
    what: '0.2.0 eval_plan steps accept anything; 0.2.1+ want strings',
    type: eeeAggregateType,
    doc: edit(
      aggregate030,
      (d) => (d.evaluation_results[0].generation_config.generation_args.eval_plan = { steps: [42] }),
    ),
    expect: { '0.2.1': false, '0.3.0': false },
  },
  {
    what: '… and on 0.2.0 the same steps pass',
    type: eeeAggregateType,
    doc: edit(
      aggregate020,
      (d) => (d.evaluation_results[0].generation_config.generation_args.eval_plan = { steps: [42, null] }),
    ),
    expect: { '0.2.0': true },
  },
  {
    what: '0.3.0 file_path must follow the datastore layout',
    type: eeeAggregateType,
    doc: edit(aggregate030, (d) => (d.detailed_evaluation_results.file_path = 'samples.jsonl')),
    expect: { '0.2.2': true, '0.3.0': false },
  },
  {
    what: '0.3.0 format "json" is gone',
    type: eeeAggregateType,
    doc: edit(aggregate030, (d) => (d.detailed_evaluation_results.format = 'json')),
    expect: { '0.2.2': true, '0.3.0': false },
  },
  {
    what: '0.3.0 judges need the deployment axes too',
    type: eeeAggregateType,
    doc: edit(aggregate030, (d) => {
      d.evaluation_results[1].metric_config.llm_scoring = {
        judges: [{ model_info: { name: 'J', id: 'acme/judge' } }],
        input_prompt: 'Rate: {answer}',
      };
    }),
    expect: { '0.2.2': true, '0.3.0': false },
  },
  {
    what: 'a non-string value in a free-form map is fine in 0.2.0',
    type: eeeAggregateType,
    doc: edit(aggregate020, (d) => (d.model_info.additional_details = { size: 7 })),
    expect: { '0.2.0': true },
  },
  {
    what: '… but not in the string maps of 0.2.1+',
    type: eeeAggregateType,
    doc: edit(aggregate030, (d) => (d.evaluation_results[0].score_details.details = { n_correct: 1 })),
    expect: { '0.2.1': false, '0.2.2': false, '0.3.0': false },
  },
  {
    what: 'multi_turn row with a top-level metrics object lacking num_turns: the dead rule bites in 0.2.0',
    type: eeeInstanceType,
    doc: edit(rows020[1], (d) => (d.metrics = { accuracy: 1 })),
    expect: { '0.2.0': false },
  },
  {
    what: '… it passes with num_turns inside metrics',
    type: eeeInstanceType,
    doc: edit(rows020[1], (d) => (d.metrics = { num_turns: 2 })),
    expect: { '0.2.0': true },
  },
  {
    what: '… and a single_turn row may carry any metrics in 0.2.0 (open root)',
    type: eeeInstanceType,
    doc: edit(rows020[0], (d) => (d.metrics = {})),
    expect: { '0.2.0': true },
  },
  {
    what: 'from 0.2.1 the root is closed, so metrics is rejected as an extra key',
    type: eeeInstanceType,
    doc: edit(rows030[2], (d) => (d.metrics = { num_turns: 4 })),
    expect: { '0.2.1': false, '0.2.2': false, '0.3.0': false },
  },
  {
    what: 'interaction_type absent: both branches apply and contradict',
    type: eeeInstanceType,
    doc: edit(rows030[0], (d) => delete d.interaction_type),
    expect: { '0.2.1': false, '0.2.2': false, '0.3.0': false },
  },
  {
    what: 'the 0.3.0 rows are valid 0.2.2 rows, and 0.2.1 rejects evaluation_result_id',
    type: eeeInstanceType,
    doc: rows030[0],
    expect: { '0.2.1': false, '0.2.2': true, '0.3.0': true },
  },
  {
    what: 'integer sample_id: 0.2.0 only',
    type: eeeInstanceType,
    doc: edit(rows030[0], (d) => {
      d.sample_id = 7;
      delete d.evaluation_result_id;
    }),
    expect: { '0.2.0': true, '0.2.1': false },
  },
  {
    what: 'the 0.2.0 rows (interactions, scalar reference) fail 0.3.0',
    type: eeeInstanceType,
    doc: rows020[1],
    expect: { '0.2.0': true, '0.3.0': false },
  },
];

for (const c of cases) {
  test(`quirk: ${c.what}`, async (t) => {
    const all = Object.entries(c.expect).map(([version, expected]) => ({
      version,
      expected,
      ...verdicts(c.type, version, c.doc),
    }));
    for (const { version, expected, ours } of all) assert.equal(ours, expected, `ours under ${version}`);
    await withReference(t, UPSTREAM_EEE_SCHEMAS, 'the upstream schemas give the same verdicts', () => {
      for (const { version, expected, upstream } of all)
        assert.equal(upstream, expected, `upstream under ${version}`);
    });
  });
}

test('both spellings of the instance schema_version select the same version', () => {
  for (const v of ['0.2.0', '0.2.1', '0.2.2']) {
    assert.equal(findVersion(eeeInstanceType, `instance_level_eval_${v}`)?.version, v);
    assert.equal(findVersion(eeeInstanceType, v)?.version, v);
  }
  assert.equal(findVersion(eeeInstanceType, '0.3.0')?.version, '0.3.0');
  assert.equal(findVersion(eeeAggregateType, '0.3.0')?.version, '0.3.0');
});

test('emitted schemas are valid draft-07 with the upstream keywords kept and descriptions present', () => {
  const ajv = createAjv('draft-07');
  for (const type of [eeeAggregateType, eeeInstanceType]) {
    for (const v of type.versions) {
      const emitted = JSON.parse(JSON.stringify(v.schema));
      assert.equal(v.dialect, 'draft-07');
      assert.equal(emitted.$schema, 'http://json-schema.org/draft-07/schema#');
      assert.equal(
        ajv.validateSchema(emitted),
        true,
        `${type.id} ${v.version}: ${ajv.errorsText(ajv.errors)}`,
      );
      assert.equal(typeof emitted.version, 'string', 'the unknown top-level version keyword is kept');
      // Upstream 0.1.0 has no $defs (its model_info is inline, src/formats/eee/aggregate-010.ts); later versions do.
      if (type === eeeAggregateType)
        assert.ok(
          v.version === '0.1.0'
            ? emitted.properties?.model_info && !emitted.$defs
            : emitted.$defs?.model_info,
          `${v.version}: $defs kept as upstream has them`,
        );
      const descriptions = JSON.stringify(emitted).match(/"description":/g)?.length ?? 0;
      assert.ok(descriptions > 40, `${type.id} ${v.version}: ${descriptions} descriptions`);
    }
  }
});

test(
  'the comparison harness notices a schema that differs (0.3.0 schema judged against upstream 0.2.2)',
  {
    skip: skipWithoutReference('eee/schemas'),
  },
  () => {
    const upstream = createAjv('draft-07').compile(
      JSON.parse(readFileSync(reference('eee/schemas/v0.2.2/eval.schema.json')!, 'utf8')),
    );
    const ours030 = createAjv('draft-07').compile(
      JSON.parse(JSON.stringify(findVersion(eeeAggregateType, '0.3.0')!.schema)),
    );
    const base = edit(aggregate030, (d) => (d.schema_version = '0.2.2'));
    let differences = 0;
    for (const m of mutations(base, { seed: 11, count: 300, schema: upstream.schema, maxStack: 2 }))
      if (upstream(m.doc) !== ours030(m.doc)) differences++;
    assert.ok(differences > 0, 'mutations should expose the 0.2.2 / 0.3.0 differences');
  },
);
