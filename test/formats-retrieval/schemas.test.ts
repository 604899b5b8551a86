// Retrieval gold / result / event 0.1: our TypeBox schemas give the verdict of the published Mnemoverse schemas
// (read from the seed document in ../shared/seeds when present) on the examples and thousands of mutated rows;
// detection; the examples and invalid examples.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { createAjv } from '../../src/validate/ajv.js';
import { documentTypes } from '../../src/formats/registry.js';
import {
  retrievalEventType,
  retrievalGoldType,
  retrievalResultType,
  RetrievalEventSchema,
  RetrievalGoldSchema,
  RetrievalResultSchema,
} from '../../src/formats/retrieval/index.js';
import { mutations } from '../helpers/mutate.js';
import { projectRoot } from '../helpers/shared.js';

const seedPath = resolve(projectRoot, '..', 'shared', 'seeds', '003_87f872f4a9fad340.txt');
const skipSeed = existsSync(seedPath) ? false : `seed document not found at ${seedPath}`;
const dir = join(projectRoot, 'examples', 'retrieval');
const rows = (name: string): any[] =>
  readFileSync(join(dir, name), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));

/** The JSON Schema objects embedded in the seed page, in order (gold, result, events). */
function seedSchemas(): object[] {
  const text = readFileSync(seedPath, 'utf8');
  const out: object[] = [];
  let at = text.indexOf('{\n  "$schema"');
  while (at >= 0) {
    let depth = 0;
    let end = at;
    let inString = false;
    for (; end < text.length; end++) {
      const ch = text[end];
      if (inString) {
        if (ch === '\\') end++;
        else if (ch === '"') inString = false;
      } else if (ch === '"') inString = true;
      else if (ch === '{') depth++;
      else if (ch === '}' && --depth === 0) break;
    }
    out.push(JSON.parse(text.slice(at, end + 1)));
    at = text.indexOf('{\n  "$schema"', end);
  }
  return out;
}

describe('retrieval schemas agree with the published 0.1 schemas', { skip: skipSeed }, () => {
  const kinds = [
    { name: 'gold', files: ['gold.jsonl', 'loop/gold.jsonl'], ours: RetrievalGoldSchema },
    { name: 'result', files: ['results.jsonl', 'loop/results.jsonl'], ours: RetrievalResultSchema },
    { name: 'event', files: ['events.jsonl', 'loop/events.jsonl'], ours: RetrievalEventSchema },
  ];

  test('examples and mutated variants: same verdict', (t) => {
    const published = skipSeed ? [] : seedSchemas();
    assert.equal(published.length, 3);
    let total = 0;
    let invalid = 0;
    const bad: string[] = [];
    kinds.forEach((k, n) => {
      const theirs = createAjv('2020-12').compile(published[n]);
      const ours = createAjv('2020-12').compile(k.ours);
      const docs = k.files.flatMap((f) => rows(f).map((doc, line) => ({ doc, where: `${f}:${line + 1}` })));
      docs.forEach(({ doc, where }, i) => {
        assert.ok(theirs(doc) && ours(doc), `${where} is valid`);
        for (const v of mutations(doc, {
          seed: 1000 * n + i,
          count: k.name === 'event' ? 30 : 100,
          schema: published[n],
          maxStack: 2,
        })) {
          total++;
          const verdict = theirs(v.doc);
          if (!verdict) invalid++;
          if (verdict !== ours(v.doc)) bad.push(`${where} ${v.label}: published ${verdict}`);
        }
      });
      for (const file of [
        'invalid/gold-missing-fields.jsonl',
        'invalid/results-bad-metrics.jsonl',
        'invalid/events-bad.jsonl',
      ]) {
        for (const doc of rows(file)) if (theirs(doc) !== ours(doc)) bad.push(`${file} as ${k.name}`);
      }
    });
    t.diagnostic(`${total} mutated rows (${invalid} invalid), ${bad.length} disagreements`);
    assert.deepEqual(bad.slice(0, 10), []);
    assert.ok(total >= 2000 && invalid > total / 5);
  });
});

describe('retrieval detection and examples', () => {
  test('each example row is claimed by exactly its own type', () => {
    for (const [file, id] of [
      ['gold.jsonl', 'retrieval.gold'],
      ['results.jsonl', 'retrieval.result'],
      ['events.jsonl', 'retrieval.event'],
      ['loop/gold.jsonl', 'retrieval.gold'],
      ['loop/results.jsonl', 'retrieval.result'],
      ['loop/events.jsonl', 'retrieval.event'],
    ]) {
      for (const doc of rows(file)) {
        assert.deepEqual(
          documentTypes.filter((t) => t.looksLike(doc)).map((t) => t.id),
          [id],
          `${file}: ${JSON.stringify(doc).slice(0, 80)}`,
        );
      }
    }
  });

  test('detection holds for invalid rows', () => {
    assert.ok(retrievalGoldType.looksLike({ expected_ids: 'x' }));
    assert.ok(retrievalGoldType.looksLike({ query: 'q', layers: [] }));
    assert.ok(retrievalResultType.looksLike({ request_id: 1, metrics: null }));
    assert.ok(!retrievalResultType.looksLike({ type: 'evaluation_result', request_id: 'r', metrics: {} }));
    assert.ok(retrievalEventType.looksLike({ type: 'feedback_action' }));
    assert.ok(!retrievalEventType.looksLike({ type: 'something_else', request_id: 'r' }));
  });

  test('versions: 0.1, 2020-12', () => {
    for (const t of [retrievalGoldType, retrievalResultType, retrievalEventType]) {
      assert.equal(t.family, 'retrieval');
      assert.deepEqual(
        t.versions.map((v) => [v.version, v.dialect, v.schemaVersionValues]),
        [['0.1', '2020-12', ['0.1']]],
      );
    }
  });

  test('invalid examples fail where they say, valid lines pass', () => {
    const gold = createAjv('2020-12').compile(RetrievalGoldSchema);
    assert.deepEqual(
      rows('invalid/gold-missing-fields.jsonl').map((d) => gold(d)),
      [true, false, false],
    );
    const result = createAjv('2020-12').compile(RetrievalResultSchema);
    const r = rows('invalid/results-bad-metrics.jsonl');
    assert.equal(result(r[0]), false);
    assert.deepEqual((result.errors ?? []).map((e) => e.instancePath).sort(), [
      '/metrics/errors',
      '/metrics/p_at_5',
      '/metrics/privacy_leak',
    ]);
    assert.equal(result(r[1]), false);
    assert.deepEqual(
      result.errors?.map((e) => [e.instancePath, e.keyword]),
      [['/verdicts/0', 'required']],
    );
    const event = createAjv('2020-12').compile(RetrievalEventSchema);
    assert.deepEqual(
      rows('invalid/events-bad.jsonl').map((d) => event(d)),
      [false, false, false],
    );
  });

  test('result metrics are consistent with gold and retrieved ids (binary relevance, K = 5 and 10)', () => {
    const gold = new Map(rows('loop/gold.jsonl').map((g) => [g.id, g]));
    for (const r of rows('loop/results.jsonl')) {
      const expected = new Set<string>(gold.get(r.id).expected_ids);
      const ranked = [...new Set<string>(r.retrieved_ids)];
      const hits = (k: number) => ranked.slice(0, k).filter((x) => expected.has(x)).length;
      assert.equal(r.metrics.p_at_5, hits(5) / 5, r.id);
      assert.equal(r.metrics.p_at_10, hits(10) / 10, r.id);
      const first = ranked.slice(0, 10).findIndex((x) => expected.has(x));
      assert.equal(r.metrics.mrr_10, first < 0 ? 0 : 1 / (first + 1), r.id);
      for (const v of r.verdicts)
        assert.equal(
          v.value,
          typeof r.metrics[v.metric] === 'boolean' ? Number(r.metrics[v.metric]) : r.metrics[v.metric],
        );
    }
  });
});
