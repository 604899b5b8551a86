// Upstream's newer validator warnings on metric_config.metric_id (aggregates of every version): missing, generic, or equal to
// the evaluation_name is a warning (the record stays valid); a specific metric_id gives none.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Engine } from '../../src/validate/engine.js';
import { projectRoot } from '../helpers/shared.js';

const example = JSON.parse(
  readFileSync(
    join(
      projectRoot,
      'examples/compare/data/arith-40/acme/tiny-model-1b/0b6f3c52-1d7e-4a8b-9c0d-1e2f3a4b5c61.json',
    ),
    'utf8',
  ),
) as { evaluation_results: { evaluation_name: string; metric_config: Record<string, unknown> }[] };

function metricIdIssues(edit: (config: Record<string, unknown>, name: string) => void) {
  const doc = structuredClone(example);
  edit(doc.evaluation_results[0]!.metric_config, doc.evaluation_results[0]!.evaluation_name);
  const verdict = new Engine().check(doc);
  return verdict.issues.filter((i) => i.code === 'eee.metric-id');
}

test('a specific metric_id gives no warning', () => {
  assert.deepEqual(
    metricIdIssues(() => {}),
    [],
  );
});

for (const [what, edit] of [
  ['missing', (c: Record<string, unknown>) => delete c.metric_id],
  ['generic "score"', (c: Record<string, unknown>) => (c.metric_id = 'score')],
  ['generic "Elo"', (c: Record<string, unknown>) => (c.metric_id = 'Elo')],
  ['generic "overall"', (c: Record<string, unknown>) => (c.metric_id = 'overall')],
  ['the evaluation_name', (c: Record<string, unknown>, name: string) => (c.metric_id = name)],
] as const)
  test(`a metric_id ${what} is a warning, not an error`, () => {
    const issues = metricIdIssues(edit);
    assert.equal(issues.length, 1);
    assert.equal(issues[0]!.severity, 'warning');
    assert.match(issues[0]!.pointer, /^\/evaluation_results\/0\/metric_config/);
  });
