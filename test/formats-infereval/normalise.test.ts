// normaliseBenchmark / normaliseEvaluation do what the reference does on load; the strongest check is the
// benchmark_hash the reference recorded for a real benchmark, which only comes out right when every default of the
// field set is filled exactly as the reference fills it.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import {
  normaliseBenchmark,
  normaliseEvaluation,
  promoteReferenceShorthand,
  sortedSet,
} from '../../src/formats/infereval/index.js';
import { canonicalJson } from '../../src/io/canonical.js';
import { reference, skipWithoutReference } from '../helpers/shared.js';

const readRef = (rel: string): any =>
  JSON.parse(readFileSync(reference(`infereval/${rel}`) as string, 'utf8'));

const dropNulls = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(dropNulls)
    : v !== null && typeof v === 'object'
      ? Object.fromEntries(
          Object.entries(v)
            .filter(([, x]) => x !== null)
            .map(([k, x]) => [k, dropNulls(x)]),
        )
      : v;

/** Key paths of a value (object keys only; array positions collapsed), to compare the shape of two documents. */
function keyPaths(v: unknown, prefix = ''): string[] {
  if (Array.isArray(v)) return v.flatMap((x) => keyPaths(x, `${prefix}[]`));
  if (v === null || typeof v !== 'object') return [];
  return Object.entries(v).flatMap(([k, x]) => [`${prefix}.${k}`, ...keyPaths(x, `${prefix}.${k}`)]);
}

describe('normaliseBenchmark', () => {
  test(
    'reproduces the benchmark_hash the reference recorded for clinical_pilot (golden vector)',
    {
      skip: skipWithoutReference('infereval/golden_vectors.json'),
    },
    () => {
      const vector = readRef('golden_vectors.json').vectors.find((v: any) =>
        v.name.startsWith('benchmark_hash'),
      );
      const normalised = normaliseBenchmark(readRef(vector.input.benchmark_file));
      const hash =
        'sha256:' +
        createHash('sha256')
          .update(canonicalJson(dropNulls(normalised)))
          .digest('hex');
      assert.equal(hash, vector.expected.benchmark_hash);
    },
  );

  test(
    'a full model dump written by the reference is a fixed point',
    {
      skip: skipWithoutReference('infereval/examples/survey_preframe_benchmark.json'),
    },
    () => {
      const dump = readRef('examples/survey_preframe_benchmark.json');
      assert.deepEqual(normaliseBenchmark(dump), dump);
    },
  );

  test(
    'a sparse benchmark gets every field the reference writes',
    {
      skip: skipWithoutReference('infereval/examples/stop_sign/benchmark.json'),
    },
    () => {
      const dump = readRef('examples/survey_preframe_benchmark.json');
      const sparse = readRef('examples/stop_sign/benchmark.json');
      const n = normaliseBenchmark(sparse);
      const have = new Set(keyPaths(n));
      for (const path of new Set(keyPaths(dump))) {
        // Paths under keyed maps (bearers) carry the map key; compare the shape below any bearer.
        const generic = path.replace(/^\.bearers\.[^.]+/, '.bearers.*');
        const found = [...have].some((p) => p.replace(/^\.bearers\.[^.]+/, '.bearers.*') === generic);
        assert.ok(found, `normalised stop_sign lacks ${path}`);
      }
      // Sets sorted: row-2 premises were ["sa", "nr", "n"].
      assert.deepEqual(n.items[2].premises, ['n', 'nr', 'sa']);
      assert.equal(sparse.items[2].premises[0], 'sa', 'input not mutated');
    },
  );

  test(
    'normalising twice changes nothing (every real benchmark and the example)',
    {
      skip: skipWithoutReference('infereval/examples'),
    },
    () => {
      const files = [
        'examples/stop_sign/benchmark.json',
        'examples/survey_preframe_benchmark.json',
        'examples/clinical_pilot/benchmark.json',
        'examples/pulmonary_edema/benchmark.json',
      ];
      for (const f of files) {
        const once = normaliseBenchmark(readRef(f));
        assert.deepEqual(normaliseBenchmark(structuredClone(once)), once, f);
      }
    },
  );

  test('defaults, shorthand and sets', () => {
    const n = normaliseBenchmark({
      id: 'b',
      bearers: { b: { expression: 'B', references: ['Smith 2020'] }, a: { expression: 'A' } },
      analysts: [{ id: 'x' }],
      context_builders: { conclusion: { kind: 'template', template: 'either {expressions}' } },
      references: ['Doe 2021', { citation: 'Roe', doi: '10.1/x' }],
      items: [
        {
          id: 'i',
          premises: ['b', 'a', 'b'],
          conclusions: ['b'],
          analyst_verdicts: ['good'],
          rsr_target: { X: ['b', 'a', 'a'], A: ['b'] },
          monotonicity_step: { family: 'f', tier: 'a', tier_index: 0 },
          construction_metadata: { authored_by: 'me' },
          references: ['Item ref'],
        },
      ],
    });
    assert.equal(n.schema_version, '1.0');
    assert.deepEqual(n.items[0].premises, ['a', 'b']);
    assert.deepEqual(n.items[0].rsr_target, { X: ['a', 'b'], A: ['b'] });
    assert.deepEqual(n.references[0], {
      citation: 'Doe 2021',
      doi: null,
      url: null,
      section: null,
      note: null,
    });
    assert.equal(n.references[1].doi, '10.1/x');
    assert.equal(n.bearers.b.references[0].citation, 'Smith 2020');
    assert.deepEqual(n.bearers.a, { expression: 'A', paraphrases: [], references: [], ordinal_family: null });
    assert.equal(n.items[0].references[0].citation, 'Item ref');
    assert.equal(n.items[0].monotonicity_step?.expected, 'non_decreasing');
    assert.equal(n.items[0].monotonicity_step?.fixed, null);
    assert.deepEqual(n.items[0].construction_metadata, {
      authored_by: 'me',
      authored_on: null,
      authored_blind_to_models: [],
      source: null,
    });
    assert.deepEqual(n.context_builders.premise, {
      kind: 'template',
      template: '{expressions}',
      joiner: ' and ',
    });
    // A template builder given without a joiner joins with " and ", even for the conclusion.
    assert.deepEqual(n.context_builders.conclusion, {
      kind: 'template',
      template: 'either {expressions}',
      joiner: ' and ',
    });
    assert.equal(n.coherence_frame_id, null);
    assert.deepEqual([n.factors, n.factor_kinds, n.ordinal_families, n.targets], [{}, {}, {}, []]);
  });

  test('plugin context builders stay plugins', () => {
    const n = normaliseBenchmark({
      id: 'b',
      bearers: {},
      analysts: [{ id: 'x' }],
      items: [],
      context_builders: { premise: { plugin: 'pkg.mod.fn' } },
    });
    assert.deepEqual(n.context_builders.premise, { kind: 'plugin', plugin: 'pkg.mod.fn' });
    assert.equal((n.context_builders.conclusion as { joiner: string }).joiner, ' or ');
  });

  test('sortedSet orders by code point, as Python sorts str', () => {
    // U+FF21 (fullwidth A) is one UTF-16 unit above the surrogates that encode U+1F600: code points say 😀 last.
    assert.deepEqual(sortedSet(['\u{1F600}', '\uFF21', 'b', 'B', 'b']), ['B', 'b', '\uFF21', '\u{1F600}']);
  });

  test('promoteReferenceShorthand only touches reference lists', () => {
    const doc = {
      references: ['a'],
      bearers: { x: { expression: 'e', references: ['b'] } },
      items: [{ references: ['c'], tags: ['t'] }],
    };
    assert.deepEqual(promoteReferenceShorthand(doc), {
      references: [{ citation: 'a' }],
      bearers: { x: { expression: 'e', references: [{ citation: 'b' }] } },
      items: [{ references: [{ citation: 'c' }], tags: ['t'] }],
    });
    assert.deepEqual(doc.references, ['a'], 'input not mutated');
  });
});

describe('normaliseEvaluation', () => {
  test(
    'fills question_form and coherence_frame_id for a real 0.13 evaluation, keeps everything else',
    {
      skip: skipWithoutReference('infereval/evaluations/stop_sign_haiku_eta0.json'),
    },
    () => {
      const raw = readRef('evaluations/stop_sign_haiku_eta0.json');
      const n = normaliseEvaluation(raw);
      assert.equal(n.endorsement_config.question_form, 'support');
      assert.equal(n.endorsement_config.coherence_frame_id, 'thin-v1');
      assert.equal(n.endorsement_config.n_samples, raw.endorsement_config.n_samples);
      assert.equal(n.model.params.temperature, 0);
      assert.equal(n.model.params.max_tokens, 2048);
      assert.equal(n.model.params.top_p, null);
      assert.equal(n.paraphrase_variant, 0);
      assert.equal(n.items.length, raw.items.length);
      assert.equal(n.items[0].samples[0].raw_response, raw.items[0].samples[0].raw_response);
      assert.equal(n.items[0].samples[0].provider_error, null);
      assert.equal(n.items[0].samples[0].usage?.input_tokens, raw.items[0].samples[0].usage.input_tokens);
      assert.deepEqual(normaliseEvaluation(n), n, 'idempotent');
    },
  );

  test('defaults of a minimal evaluation; extra provider params and usage keys are kept', () => {
    const n = normaliseEvaluation({
      id: 'e',
      benchmark_id: 'b',
      model: { provider: 'openai', model_id: 'm', params: { reasoning_effort: 'low' } },
      items: [
        {
          id: 'i',
          premises: ['a'],
          conclusions: ['b'],
          analyst_verdicts: ['good'],
          model_verdict: 'abstain',
          samples: [
            { sample_index: 0, raw_response: 'hmm', parsed_verdict: 'abstain', usage: { cached: 4 } },
          ],
          majority_vote: { verdict: 'abstain', abstain: 1 },
        },
      ],
    });
    assert.deepEqual(n.model.params, {
      reasoning_effort: 'low',
      temperature: 1.0,
      max_tokens: 1024,
      top_p: null,
      seed: null,
      stop: [],
    });
    assert.deepEqual(n.endorsement_config, {
      n_samples: 5,
      tie_break: 'abstain',
      verification_prompt_id: 'default-v1',
      context_builder_premise_id: 'conjunction-and-v1',
      context_builder_conclusion_id: 'disjunction-or-v1',
      question_form: 'support',
      coherence_frame_id: 'thin-v1',
    });
    assert.equal(n.framework_version, '0.17.6');
    assert.equal(n.benchmark_hash, null);
    assert.deepEqual(n.items[0].majority_vote, {
      good: 0,
      bad: 0,
      abstain: 1,
      verdict: 'abstain',
      tie_broken: false,
    });
    assert.equal(n.items[0].samples[0].parse_status, 'ok');
    assert.deepEqual(n.items[0].samples[0].usage, { cached: 4, input_tokens: null, output_tokens: null });
    assert.deepEqual([n.items[0].tags, n.items[0].references, n.references], [[], [], []]);
  });
});
