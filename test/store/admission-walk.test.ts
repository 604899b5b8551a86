// The store's check for numbers JSON cannot hold walks with its own stack, so no document is too deep for it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nonFiniteNumbers } from '../../src/store/admission.js';

test('the non-finite walk keeps its own stack: a value nested 1,000,000 deep is walked', () => {
  let value: unknown = NaN;
  for (let i = 0; i < 1_000_000; i++) value = { a: value };
  const [pointer] = nonFiniteNumbers({ ok: 1, deep: value, list: [0, Infinity] }, 2);
  assert.equal(pointer.split('/').length, 1_000_002);
  assert.deepEqual(nonFiniteNumbers({ x: [1, 'NaN', { y: -Infinity }] }), ['/x/2/y']);
});
