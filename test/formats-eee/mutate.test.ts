import assert from 'node:assert/strict';
import { test } from 'node:test';
import { enumsOf, MUTATION_KINDS, mutations } from '../helpers/mutate.js';

const doc = {
  kind: 'levels',
  nested: { list: [1, 2, { deep: 'a' }], flag: true },
  name: 'x',
};
const schema = { properties: { kind: { enum: ['levels', 'binary', 'continuous'] } } };

test('mutations are deterministic for a seed and differ across seeds', () => {
  const a = [...mutations(doc, { seed: 7, count: 50, schema })];
  const b = [...mutations(doc, { seed: 7, count: 50, schema })];
  const c = [...mutations(doc, { seed: 8, count: 50, schema })];
  assert.equal(a.length, 50);
  assert.deepEqual(a, b);
  assert.notDeepEqual(
    a.map((m) => m.label),
    c.map((m) => m.label),
  );
});

test('every mutation is a clone that differs from the input and leaves the input untouched', () => {
  const before = structuredClone(doc);
  for (const m of mutations(doc, { seed: 1, count: 200, schema })) {
    assert.notDeepEqual(m.doc, doc, m.label);
  }
  assert.deepEqual(doc, before);
});

test('all kinds appear, and enum mutations use the schema', () => {
  const labels = [...mutations(doc, { seed: 3, count: 80, schema })].map((m) => m.label);
  for (const kind of MUTATION_KINDS)
    assert.ok(
      labels.some((l) => l.startsWith(kind)),
      kind,
    );
  assert.ok(labels.some((l) => /^other-enum\((binary|continuous)\) \/kind$/.test(l)));
  assert.deepEqual(enumsOf(schema), [['levels', 'binary', 'continuous']]);
});

test('drop-key reaches deep keys', () => {
  const labels = [...mutations(doc, { seed: 5, count: 200, kinds: ['drop-key'] })].map((m) => m.label);
  assert.ok(labels.includes('drop-key /nested/list/2/deep'));
});

test('byDepth spreads mutations over depths; the default keeps every node equally likely', () => {
  const wide = { top: 'x', list: Array.from({ length: 200 }, (_, i) => ({ v: i })) };
  const topLevel = (byDepth: boolean) =>
    [...mutations(wide, { seed: 9, count: 300, kinds: ['drop-key', 'null'], byDepth })].filter((m) =>
      / \/(top|list)$/.test(m.label),
    ).length;
  assert.ok(topLevel(true) > 50, `byDepth: ${topLevel(true)}`);
  assert.ok(topLevel(false) < 20, `default: ${topLevel(false)}`);
});
