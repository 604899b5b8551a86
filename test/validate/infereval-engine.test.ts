// Loading an infereval document validates it through the one Engine `evalkit validate` uses: a cross-field rule
// that throws becomes a finding with the rule's code, as it does in `evalkit validate`, not a crash of the loader.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { inferevalBenchmarkType } from '../../src/formats/infereval/document-types.js';
import type { CrossFieldRule } from '../../src/formats/types.js';
import { validateValue } from '../../src/validate/index.js';
import { checkInfereval, parseInfereval } from '../../src/validate/infereval.js';

const benchmark = JSON.parse(readFileSync('examples/infereval/benchmark.json', 'utf8'));

test('a rule that throws is one error finding for the loader, the same as for validate', () => {
  const rules = inferevalBenchmarkType.versions[0].rules as CrossFieldRule[];
  const broken: CrossFieldRule = {
    code: 'infereval.test-broken-rule',
    description: 'a rule that cannot run',
    check: () => {
      throw new Error('boom');
    },
  };
  rules.push(broken);
  try {
    const issues = checkInfereval(benchmark, 'benchmark');
    assert.deepEqual(
      issues.map((i) => [i.code, i.severity, i.message]),
      [['infereval.test-broken-rule', 'error', 'rule "a rule that cannot run" could not run: boom']],
    );
    const viaValidate = validateValue(benchmark, { type: 'infereval.benchmark' }).diagnostics;
    assert.deepEqual(
      viaValidate.map((d) => [d.code, d.message]),
      issues.map((i) => [i.code, i.message]),
    );
    assert.throws(() => parseInfereval(benchmark, 'benchmark', 'b.json'), {
      code: 'infereval.test-broken-rule',
    });
  } finally {
    rules.splice(rules.indexOf(broken), 1);
  }
  assert.deepEqual(checkInfereval(benchmark, 'benchmark'), []);
});
