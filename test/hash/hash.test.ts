import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { benchmarkCanonicalJson, benchmarkHash } from '../../src/formats/infereval/hash.js';
import { canonicalJson } from '../../src/io/canonical.js';
import {
  fastCanonical,
  SAMPLE_HASH_RECIPES,
  matchingSampleHashRecipe,
  sampleHash,
} from '../../src/formats/eee/sample-hash.js';
import { cli as runCli } from '../helpers/cli.js';
import { reference, skipWithoutReference } from '../helpers/shared.js';

const GOLDEN = 'infereval/golden_vectors.json';
const CLINICAL = 'infereval/examples/clinical_pilot/benchmark.json';

function goldenHash(): { file: string; expected: string } {
  const vectors = JSON.parse(readFileSync(reference(GOLDEN) as string, 'utf8')).vectors as any[];
  const v = vectors.find((x) => String(x.name).startsWith('benchmark_hash_clinical_pilot'));
  assert.ok(v, 'the golden vectors hold a benchmark_hash_clinical_pilot vector');
  return { file: v.input.benchmark_file, expected: v.expected.benchmark_hash };
}

test(
  'benchmark_hash reproduces the recorded golden vector (clinical pilot)',
  { skip: skipWithoutReference(GOLDEN) },
  () => {
    const { file, expected } = goldenHash();
    const doc = JSON.parse(readFileSync(reference(join('infereval', file)) as string, 'utf8'));
    assert.equal(benchmarkHash(doc), expected);
  },
);

const minimal = () => ({
  id: 'tiny',
  bearers: { p: { expression: 'it rains' }, q: { expression: 'the street is wet' } },
  analysts: [{ id: 'a1' }],
  items: [{ id: 'i1', premises: ['p'], conclusions: ['q'], analyst_verdicts: ['good'] }],
});

test('benchmark_hash fills defaults: omitted defaults hash like explicit ones, a changed default does not', () => {
  const explicit = {
    ...minimal(),
    schema_version: '1.0',
    title: null,
    factors: {},
    references: [],
    context_builders: {
      premise: { kind: 'template', template: '{expressions}', joiner: ' and ' },
      conclusion: { kind: 'template', template: '{expressions}', joiner: ' or ' },
    },
  };
  assert.equal(benchmarkHash(minimal()), benchmarkHash(explicit));
  const changed = structuredClone(explicit);
  changed.context_builders.conclusion.joiner = ' and ';
  assert.notEqual(benchmarkHash(minimal()), benchmarkHash(changed));
  const canonical = benchmarkCanonicalJson(minimal());
  assert.match(canonical, /"paraphrases":\[\]/);
  assert.match(canonical, /"tags":\[\]/);
  assert.doesNotMatch(canonical, /null/);
  assert.doesNotMatch(canonical, /": /);
});

test('benchmark_hash normalises premises and references, escapes non-ASCII like Python', () => {
  const a = minimal();
  const b = minimal();
  b.items[0].premises = ['p', 'p'];
  assert.equal(benchmarkHash(a), benchmarkHash(b));
  const withRef = { ...minimal(), references: ['Smith 2020'] };
  const withObj = { ...minimal(), references: [{ citation: 'Smith 2020' }] };
  assert.equal(benchmarkHash(withRef), benchmarkHash(withObj));
  const accented = { ...minimal(), title: 'Café 🌧' };
  assert.match(benchmarkCanonicalJson(accented), /"title":"Caf\\u00e9 \\ud83c\\udf27"/);
  assert.match(benchmarkHash(accented), /^sha256:[0-9a-f]{64}$/);
});

test('canonical sample_hash text is sorted compact JSON with ASCII escapes, [] when no reference', () => {
  assert.equal(SAMPLE_HASH_RECIPES[0].text('é?', []), '{"raw":"\\u00e9?","reference":[]}');
  assert.equal(sampleHash({ raw: 'x' }), sampleHash({ raw: 'x', reference: [] }));
  assert.equal(sampleHash({ raw: 'x', reference: 'y' }), sampleHash({ raw: 'x', reference: ['y'] }));
  assert.equal(sampleHash({ raw: 'x', reference: ['y'] }, 'md5').length, 32);
});

const SKILL =
  'eee/records/fixtures/skill_reference_conversion/data/demo-source/demo-org/demo-model/f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40_samples.jsonl';
const OLD = 'eee/records/instances-0.2.1/mmlu_gpt2_samples.jsonl';
const rowsOf = (rel: string) =>
  readFileSync(reference(rel) as string, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

test('sample_hash agrees with the upstream 0.3.0 fixture', { skip: skipWithoutReference(SKILL) }, () => {
  const rows = rowsOf(SKILL);
  assert.equal(rows.length, 1, "the fixture's one row");
  for (const row of rows) assert.equal(sampleHash(row.input), row.sample_hash);
});

// Vectors computed outside the project, with Python's json and hashlib (Python 3.11), so that they hold in a clone
// without ../shared. benchmark_hash: FULL below (every default written out, as the reference implementation fills
// them) saved as full.json, then
//   python3 -c 'import hashlib,json,sys; d=json.load(sys.stdin); print("sha256:"+hashlib.sha256(json.dumps(d,sort_keys=True,separators=(",",":")).encode()).hexdigest())' < full.json
// sample_hash: the [raw, reference] pairs of SAMPLE_VECTORS (as JSON) on stdin of
//   python3 -c 'import hashlib,json,sys; [print(hashlib.sha256(json.dumps({"raw":r,"reference":f},sort_keys=True,separators=(",",":")).encode()).hexdigest()) for r,f in json.load(sys.stdin)]'
// json.dumps escapes every non-ASCII character (ensure_ascii), lone surrogates included.
const FULL = {
  id: 'tiny',
  schema_version: '1.0',
  title: 'Café 🌧',
  bearers: {
    p: { expression: 'it rains', paraphrases: [], references: [] },
    q: { expression: 'the street is wet', paraphrases: [], references: [] },
  },
  analysts: [{ id: 'a1' }],
  items: [
    {
      id: 'i1',
      premises: ['p'],
      conclusions: ['q'],
      analyst_verdicts: ['good'],
      factor_levels: {},
      references: [],
      tags: [],
    },
  ],
  context_builders: {
    premise: { kind: 'template', template: '{expressions}', joiner: ' and ' },
    conclusion: { kind: 'template', template: '{expressions}', joiner: ' or ' },
  },
  copresence_rules: [],
  entailment_rules: [],
  factor_kinds: {},
  factors: {},
  ordinal_families: {},
  references: [],
  regularities: [],
  targets: [],
};
const FULL_HASH = 'sha256:bf96e154380a1569d3418f5d52ac19bacc162bbf7f65d6cd8598dc43699e0ce3';

const SAMPLE_VECTORS: [string, string[], string][] = [
  ['What is 2+2?', ['4'], '6430bdf4ecab06106502a212ca0177f3943411518b7a4ff7d9385ae2bd6ef093'],
  ['Café 🌧 "q"\n\t', ['\u0000x', '€'], 'd481c08ee80a26da3d2c909bb1e92af5dfc490c44eecc809fe2d57c9916d2cd2'],
  ['no reference', [], 'f9c16be6693d761fda0f7cd71b711694cd96396a55f66d45114aa8b303efc328'],
  [
    '\ud800 lone \udfff ~\u007f',
    ['a', 'b'],
    'e2c90115faf3e346cb84097023a887d4ee7c61a28a4f2da282d19d089a9014fc',
  ],
];

test('benchmark_hash equals the value Python computes over the benchmark with its defaults written out', () => {
  assert.equal(benchmarkHash(FULL), FULL_HASH);
  assert.equal(
    benchmarkHash({ ...minimal(), title: 'Café 🌧' }),
    FULL_HASH,
    'the defaults are filled as written',
  );
});

test('sample_hash equals the values Python computes (non-ASCII, controls, quotes, lone surrogates, no reference)', () => {
  assert.equal(SAMPLE_VECTORS.length, 4);
  for (const [raw, reference, expected] of SAMPLE_VECTORS) {
    assert.equal(sampleHash({ raw, reference }), expected, JSON.stringify(raw));
  }
  assert.equal(sampleHash({ raw: 'no reference' }), SAMPLE_VECTORS[2][2], 'no reference hashes as []');
});

test(
  'older 0.2.1 sample_hash values are recognised as the concat recipe',
  { skip: skipWithoutReference(OLD) },
  () => {
    const rows = rowsOf(OLD);
    assert.ok(rows.length > 0);
    for (const row of rows) {
      assert.notEqual(sampleHash(row.input), row.sample_hash);
      assert.equal(matchingSampleHashRecipe(row.input, row.sample_hash)?.id, 'concat-raw-reference');
    }
    assert.equal(matchingSampleHashRecipe(rows[0].input, '0'.repeat(64)), undefined);
  },
);

test(
  'evalkit hash prints the golden benchmark_hash; --format json; exit codes',
  { skip: skipWithoutReference(GOLDEN) },
  async () => {
    const { expected } = goldenHash();
    const text = await runCli(['hash', reference(CLINICAL) as string]);
    assert.equal(text.code, 0, text.stderr);
    assert.ok(text.stdout.startsWith(`${expected}  `));
    const json = await runCli([
      'hash',
      '--format',
      'json',
      reference(CLINICAL) as string,
      reference(OLD) as string,
    ]);
    assert.equal(json.code, 1, 'stored hashes made by an older recipe differ from the canonical one');
    const out = JSON.parse(json.stdout);
    assert.equal(out.files[0].benchmark_hash, expected);
    assert.equal(out.files[1].type, 'eee.instance');
    assert.equal(out.files[1].rows[0].recipe, 'concat-raw-reference');
    const unknown = await runCli([
      'hash',
      reference('eee/records/fixtures/98ea850e-7019-4728-a558-8b1819ec47c2.json') as string,
    ]);
    assert.equal(unknown.code, 2);
    // The kind is named: "this is an X; this command takes a Y".
    assert.match(
      unknown.stderr,
      /this is an Every Eval Ever aggregate record \(eee\.aggregate 0\.2\.0\); this command takes an infereval benchmark/,
    );
  },
);

test('the fast canonical text equals canonicalJson on random strings (controls, quotes, non-ASCII, surrogates)', () => {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pool = [
    'a',
    'Z',
    ' ',
    '"',
    '\\',
    '\n',
    '\t',
    '\u0000',
    '\u001f',
    '\u007f',
    'é',
    '€',
    '\ud83c\udf27',
    '\ud800',
    '\udfff',
    '~',
    '/',
  ];
  for (let i = 0; i < 2000; i++) {
    const str = () =>
      Array.from({ length: Math.floor(next() * 12) }, () => pool[Math.floor(next() * pool.length)]).join('');
    const raw = str();
    const reference = Array.from({ length: Math.floor(next() * 3) }, str);
    assert.equal(
      fastCanonical(raw, reference),
      canonicalJson({ raw, reference }),
      JSON.stringify({ raw, reference }),
    );
  }
});

test('sample_hash is the digest of the canonical text, for long, non-ASCII and controlled raw inputs (sha256, md5)', () => {
  let seed = 11;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pool = ['a', '"', '\\', '\n', '\u0000', '\u007f', 'é', '\ud83c\udf27', '\ud800', 'word '];
  const digestOf = (text: string, algorithm: 'sha256' | 'md5') =>
    createHash(algorithm).update(text, 'utf8').digest('hex');
  for (let i = 0; i < 300; i++) {
    // Some inputs longer than the hash's 64 KiB scratch buffer.
    const length = i % 50 === 0 ? 70_000 + Math.floor(next() * 70_000) : Math.floor(next() * 40);
    const str = (n: number) =>
      Array.from({ length: n }, () => pool[Math.floor(next() * pool.length)]).join('');
    const raw = str(length);
    const reference = Array.from({ length: Math.floor(next() * 3) }, () => str(Math.floor(next() * 20)));
    const algorithm = i % 2 === 0 ? 'sha256' : 'md5';
    const expected = digestOf(fastCanonical(raw, reference), algorithm);
    assert.equal(sampleHash({ raw, reference }, algorithm), expected, `input ${i}`);
    assert.equal(
      sampleHash({ raw, reference }, algorithm, JSON.stringify(raw)),
      expected,
      `input ${i}, rawJson`,
    );
  }
});
