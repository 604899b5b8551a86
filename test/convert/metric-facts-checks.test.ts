// Declared metric facts and model maps are checked when read (issue 31, item 8): bounds in order and finite, a
// score inside its declared bounds (else the run stops naming the file and the key, nothing written or stored),
// two keys matching one metric a warning naming both; a model-map id with an empty developer or name is refused.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openStore } from '../../src/store/db.js';
import { cli } from '../helpers/cli.js';

const root = mkdtempSync(join(tmpdir(), 'evalkit-facts-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const file = (name: string, content: unknown): string => {
  const path = join(root, `${n++}-${name}`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
};

/** An lm-eval results file with acc 0.75. */
const results = file('results.json', {
  results: { arc: { alias: 'arc', 'acc,none': 0.75, 'acc_stderr,none': 0.01 } },
  versions: { arc: 1.0 },
  config: { model: 'hf', model_args: 'pretrained=EleutherAI/pythia-160m' },
  lm_eval_version: '0.4.3',
  date: 1718000000.0,
});

async function records(db: string): Promise<number> {
  if (!existsSync(db)) return 0;
  const store = await openStore(db, { readOnly: true });
  try {
    return (await store.all<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM records`))[0].n;
  } finally {
    store.close();
  }
}

test('facts that contradict themselves are refused when read, naming the file and the key', async () => {
  const cases: [unknown, RegExp][] = [
    [{ acc: { min_score: 1, max_score: 0 } }, /metric "acc": "min_score" 1 must be below "max_score" 0/],
    [{ acc: { min_score: 0.5, max_score: 0.5 } }, /"min_score" 0.5 must be below "max_score" 0.5/],
    [{ acc: { min_score: 'Infinity' } }, /metric "acc": "min_score" must be a finite number or "-Infinity"/],
    [{ 'acc,none': { max_score: '-Infinity' } }, /metric "acc,none": "max_score" must be a finite number/],
    [{ acc: { score_type: 'ordinal' } }, /"score_type" must be binary, continuous or levels/],
  ];
  for (const [facts, message] of cases) {
    const path = file('facts.json', facts);
    const out = join(root, `out-${n}`);
    const convert = await cli(['convert', '-o', out, '--metric-facts', path, results]);
    assert.equal(convert.code, 2, JSON.stringify(facts));
    assert.ok(convert.stderr.includes(path), convert.stderr);
    assert.match(convert.stderr, message);
    assert.equal(existsSync(out), false);
    const db = join(root, `db-${n}.duckdb`);
    const ingest = await cli(['ingest', '--db', db, '--metric-facts', path, results]);
    assert.equal(ingest.code, 2);
    assert.match(ingest.stderr, message);
    assert.equal(await records(db), 0);
  }
  // A number JSON cannot hold is refused where it stands, not read as Infinity.
  const overflow = file('facts.json', '{"acc": {"min_score": 0, "max_score": 1e999}}');
  const r = await cli(['convert', '-o', join(root, 'o-overflow'), '--metric-facts', overflow, results]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /1e999 overflows/);
});

test('declared bounds that exclude the score stop the run with the file and the key; nothing is written or stored', async () => {
  for (const [key, facts] of [
    ['acc', { score_type: 'binary', min_score: 5, max_score: 7 }],
    ['acc,none', { min_score: 0, max_score: 0.5 }],
    ['ACC', { min_score: 0.9 }],
  ] as const) {
    const path = file('facts.json', { [key]: facts });
    const out = join(root, `out-${n}`);
    const convert = await cli(['convert', '-o', out, '--metric-facts', path, results]);
    assert.equal(convert.code, 2, key);
    assert.match(
      convert.stderr,
      new RegExp(`--metric-facts ${path}: metric "${key}": the score 0.75 of "acc"`),
    );
    assert.equal(existsSync(join(out, 'data')), false);
    const db = join(root, `db-${n}.duckdb`);
    const ingest = await cli(['ingest', '--db', db, '--metric-facts', path, results]);
    assert.equal(ingest.code, 2);
    assert.match(ingest.stderr, /usage\.metric-facts/);
    assert.equal(await records(db), 0);
  }
  // Bounds that hold the score are written as declared.
  const fine = file('facts.json', { acc: { min_score: 0, max_score: 1, score_type: 'continuous' } });
  const ok = await cli(['convert', '-o', join(root, 'fine'), '--metric-facts', fine, results]);
  assert.equal(ok.code, 0, ok.stderr);
});

test('two keys that match one metric are a warning naming both', async () => {
  const path = file('facts.json', {
    acc: { metric_unit: 'share' },
    'acc,none': { metric_unit: 'proportion' },
  });
  const r = await cli(['convert', '-o', join(root, 'overlap'), '--metric-facts', path, results]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stderr,
    /warning usage\.metric-facts-overlap: .*the keys "acc" and "acc,none" match the same metric/,
  );
  const single = file('facts.json', { acc: { metric_unit: 'share' }, f1: { metric_unit: 'share' } });
  const quiet = await cli(['convert', '-o', join(root, 'single'), '--metric-facts', single, results]);
  assert.doesNotMatch(quiet.stderr, /metric-facts-overlap/);
});

test('a model-map id with an empty developer or name is refused', async () => {
  for (const entry of [
    '/abs',
    'acme/ ',
    'acme/',
    ' /m',
    { id: '/abs' },
    { id: 'acme/ ' },
    { id: 'acme/', developer: 'acme' },
  ]) {
    const map = file('map.json', { 'EleutherAI/pythia-160m': entry });
    const r = await cli(['convert', '-o', join(root, `map-${n}`), '--model-map', map, results]);
    assert.equal(r.code, 2, JSON.stringify(entry));
    assert.match(r.stderr, /usage\.bad-option.*--model-map.*"developer\/name"/);
  }
  // Both parts named, or both given apart, is fine.
  for (const entry of ['acme/m-1', { id: 'local-model', developer: 'acme', name: 'm-1' }]) {
    const map = file('map.json', { 'EleutherAI/pythia-160m': entry });
    const r = await cli(['convert', '-o', join(root, `map-${n}`), '--model-map', map, results]);
    assert.equal(r.code, 0, r.stderr);
  }
});
