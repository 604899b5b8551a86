// Conformance: for every real infereval file in ../shared/reference and thousands of mutated variants of them, our
// TypeBox schemas give the same verdict as the reference implementation's committed schemas (both compiled by the
// project's Ajv 2020-12 configuration).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import type { ValidateFunction } from 'ajv';
import { createAjv } from '../../src/validate/ajv.js';
import {
  BenchmarkSchema,
  EvaluationSchema,
  normaliseBenchmark,
  normaliseEvaluation,
} from '../../src/formats/infereval/index.js';
import { mutations } from '../helpers/mutate.js';
import { projectRoot, reference, skipWithoutReference } from '../helpers/shared.js';

const root = reference('infereval');
const skip = skipWithoutReference('infereval/schemas');

function jsonFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return jsonFiles(path);
      return name.endsWith('.json') ? [path] : [];
    });
}

interface Pair {
  kind: 'benchmark' | 'evaluation';
  upstreamSchema: unknown;
  upstream: ValidateFunction;
  ours: ValidateFunction;
  /** Our schema as the emitted JSON file holds it (TypeBox's own markers gone). */
  emitted: ValidateFunction;
}

let cached: Pair[] | undefined;
function pairs(): Pair[] {
  cached ??= compilePairs();
  return cached;
}

function compilePairs(): Pair[] {
  const load = (name: string) =>
    JSON.parse(readFileSync(join(root as string, 'schemas', name), 'utf8')) as object;
  const bench = load('benchmark.schema.json');
  const evaluation = load('evaluation.schema.json');
  return [
    {
      kind: 'benchmark',
      upstreamSchema: bench,
      upstream: createAjv('2020-12').compile(bench),
      ours: createAjv('2020-12').compile(BenchmarkSchema),
      emitted: createAjv('2020-12').compile(JSON.parse(JSON.stringify(BenchmarkSchema))),
    },
    {
      kind: 'evaluation',
      upstreamSchema: evaluation,
      upstream: createAjv('2020-12').compile(evaluation),
      ours: createAjv('2020-12').compile(EvaluationSchema),
      emitted: createAjv('2020-12').compile(JSON.parse(JSON.stringify(EvaluationSchema))),
    },
  ];
}

/** Compares verdicts; returns the labels of disagreements (empty = full agreement). */
function disagreements(
  pair: Pair,
  variants: Iterable<{ label: string; doc: unknown }>,
): { n: number; bad: string[] } {
  let n = 0;
  const bad: string[] = [];
  for (const { label, doc } of variants) {
    n++;
    const theirs = pair.upstream(doc);
    const ours = pair.ours(doc);
    const emitted = pair.emitted(doc);
    if (theirs !== ours || theirs !== emitted)
      bad.push(`${label}: upstream ${theirs}, ours ${ours}, emitted ${emitted}`);
  }
  return { n, bad };
}

describe('infereval schemas agree with the upstream schemas', { skip }, () => {
  const files = root ? [...jsonFiles(join(root, 'examples')), ...jsonFiles(join(root, 'evaluations'))] : [];
  const docs = files.map((f) => ({
    name: relative(root ?? '', f),
    doc: JSON.parse(readFileSync(f, 'utf8')),
  }));

  test('every real file gets the same verdict under both schemas of both kinds', () => {
    assert.ok(docs.length >= 5, 'expected the reference examples and evaluation');
    let valid = 0;
    for (const pair of pairs()) {
      const { n, bad } = disagreements(
        pair,
        docs.map((d) => ({ label: d.name, doc: d.doc })),
      );
      assert.equal(n, docs.length);
      assert.deepEqual(bad, []);
      valid += docs.filter((d) => pair.upstream(d.doc)).length;
    }
    // Sanity: the set is not trivially all-invalid (4 benchmarks + 1 evaluation are valid upstream).
    assert.ok(valid >= 5, `only ${valid} files valid upstream`);
  });

  test('mutated variants of every real file: same verdict (thousands of documents)', (t) => {
    let total = 0;
    let invalid = 0;
    const failures: string[] = [];
    for (const pair of pairs()) {
      // Seeds: the real files of this kind plus their normalised form (every optional field present, nulls
      // included), so that mutations also reach fields the real files leave out.
      // The project's own examples join as seeds: they carry fields the real files do not (panels, ladders,
      // failed samples).
      const own = [
        join(projectRoot, 'examples/infereval/benchmark.json'),
        join(projectRoot, 'examples/infereval/evaluation.json'),
      ];
      const seeds = [
        ...docs,
        ...own.map((f) => ({ name: relative(projectRoot, f), doc: JSON.parse(readFileSync(f, 'utf8')) })),
      ]
        .filter((d) => pair.upstream(d.doc))
        .flatMap((d) => [
          d,
          {
            name: `${d.name} (normalised)`,
            doc: pair.kind === 'benchmark' ? normaliseBenchmark(d.doc) : normaliseEvaluation(d.doc),
          },
        ]);
      assert.ok(seeds.length > 0);
      const perSeed = pair.kind === 'benchmark' ? 120 : 450;
      seeds.forEach((s, i) => {
        for (const maxStack of [1, 3]) {
          const variants = [
            ...mutations(s.doc, {
              seed: 1000 * i + maxStack,
              count: perSeed / 2,
              schema: pair.upstreamSchema,
              maxStack,
            }),
          ];
          const { n, bad } = disagreements(
            pair,
            variants.map((v) => ({ label: `${s.name}: ${v.label}`, doc: v.doc })),
          );
          total += n;
          invalid += variants.filter((v) => !pair.upstream(v.doc)).length;
          failures.push(...bad);
        }
      });
    }
    t.diagnostic(`${total} mutated variants (${invalid} invalid upstream), ${failures.length} disagreements`);
    assert.deepEqual(failures.slice(0, 10), [], `${failures.length} disagreements of ${total}`);
    assert.ok(total >= 3000, `only ${total} variants`);
    // Sanity: mutations mostly break documents, but not all of them (e.g. dropping an optional key keeps it valid).
    assert.ok(invalid > total / 4 && invalid < total, `${invalid} of ${total} invalid`);
  });

  test('hand-made edge cases: same verdict', () => {
    const stop = docs.find((d) => d.name.includes('stop_sign'))?.doc as Record<string, unknown>;
    const evaluation = docs.find((d) => d.name.includes('evaluations'))?.doc as Record<string, unknown>;
    assert.ok(stop && evaluation);
    const b = (patch: (d: any) => void) => {
      const d = structuredClone(normaliseBenchmark(stop)) as any;
      patch(d);
      return d;
    };
    const e = (patch: (d: any) => void) => {
      const d = structuredClone(evaluation) as any;
      patch(d);
      return d;
    };
    const cases: [string, 'benchmark' | 'evaluation', unknown][] = [
      ['bare-string reference', 'benchmark', b((d) => (d.references = ['Allen 2026']))],
      [
        'bearer key with a line break, invalid value',
        'benchmark',
        b((d) => (d.bearers['a\nb'] = { expression: 1 })),
      ],
      [
        'bearer key with a line break, valid value',
        'benchmark',
        b((d) => (d.bearers['a\nb'] = { expression: 'x' })),
      ],
      ['factor key with a line break', 'benchmark', b((d) => (d.factors = { 'f\n': 'x' }))],
      ['factor_levels value number', 'benchmark', b((d) => (d.items[0].factor_levels = { f: 1 }))],
      [
        'context builder without kind',
        'benchmark',
        b((d) => (d.context_builders.premise = { joiner: ', ' })),
      ],
      [
        'context builder plugin without kind',
        'benchmark',
        b((d) => (d.context_builders.premise = { plugin: 'm.f' })),
      ],
      [
        'context builder kind plugin, no plugin',
        'benchmark',
        b((d) => (d.context_builders.premise = { kind: 'plugin' })),
      ],
      [
        'context builder template with plugin key',
        'benchmark',
        b((d) => (d.context_builders.premise = { kind: 'template', plugin: 'm.f' })),
      ],
      ['context builder empty object', 'benchmark', b((d) => (d.context_builders.conclusion = {}))],
      ['context_builders null', 'benchmark', b((d) => (d.context_builders = null))],
      [
        'tier_index 1.5',
        'benchmark',
        b((d) => (d.items[0].monotonicity_step = { family: 'f', tier: 't', tier_index: 1.5 })),
      ],
      [
        'tier_index 2.0',
        'benchmark',
        b((d) => (d.items[0].monotonicity_step = { family: 'f', tier: 't', tier_index: 2.0 })),
      ],
      ['copresence with one family', 'benchmark', b((d) => (d.copresence_rules = [{ families: ['a'] }]))],
      ['analysts empty', 'benchmark', b((d) => (d.analysts = []))],
      ['schema_version 1', 'benchmark', b((d) => (d.schema_version = 1))],
      ['schema_version absent', 'benchmark', b((d) => delete d.schema_version)],
      [
        'authored_on not a date',
        'benchmark',
        b((d) => (d.items[0].construction_metadata = { authored_on: 'yesterday' })),
      ],
      ['factor_kinds bad value', 'benchmark', b((d) => (d.factor_kinds = { f: 'other' }))],
      ['array as root', 'benchmark', []],
      ['string as root', 'evaluation', 'x'],
      ['provider params extra key', 'evaluation', e((d) => (d.model.params.reasoning_effort = 'low'))],
      ['usage extra key', 'evaluation', e((d) => (d.items[0].samples[0].usage.cache_read = 3))],
      ['sample extra key', 'evaluation', e((d) => (d.items[0].samples[0].extra = 3))],
      ['temperature string', 'evaluation', e((d) => (d.model.params.temperature = '0'))],
      ['paraphrase_variant null', 'evaluation', e((d) => (d.paraphrase_variant = null))],
      ['paraphrase_variant 1', 'evaluation', e((d) => (d.paraphrase_variant = 1))],
      ['started_at not a date-time', 'evaluation', e((d) => (d.started_at = 'soon'))],
      [
        'endorsement_config question_form coherence',
        'evaluation',
        e((d) => (d.endorsement_config.question_form = 'coherence')),
      ],
      ['endorsement_config null', 'evaluation', e((d) => (d.endorsement_config = null))],
      ['majority_vote without verdict', 'evaluation', e((d) => delete d.items[0].majority_vote.verdict)],
      ['parse_status unknown', 'evaluation', e((d) => (d.items[0].samples[0].parse_status = 'timeout'))],
    ];
    const [benchPair, evalPair] = pairs();
    for (const [label, kind, doc] of cases) {
      const pair = kind === 'benchmark' ? benchPair : evalPair;
      assert.equal(pair.ours(doc), pair.upstream(doc), label);
      assert.equal(pair.emitted(doc), pair.upstream(doc), `${label} (emitted schema)`);
    }
    // The edge cases are not all on one side.
    const verdicts = cases.map(([, kind, doc]) =>
      (kind === 'benchmark' ? benchPair : evalPair).upstream(doc),
    );
    assert.ok(verdicts.includes(true) && verdicts.includes(false));
  });
});
