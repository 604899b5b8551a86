// lm-eval 0.4.10–0.4.13 as written now: a task's `sample_len` and a group's per-metric `sample_count` are counts the
// rows reconcile against (when `n-samples` gives none), "N/A" stderr is no standard error. The real 0.4.13.dev0 runs
// of peers-wild-3 (skipped when ../shared/reference is absent) and variants written here from our own fixture.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliFromSource as cli } from '../helpers/cli.js';
import { reference, skipWithoutReference } from '../helpers/shared.js';
import { tempRoot, treeBytes } from './helpers.js';
import { writeFixture } from './lm-eval-fixture.js';

const NEGOTIATION =
  'peers-wild-3/lm-eval-harness/EleutherAI__lm-evaluation-harness__PR-branch-negotiationtom-0.4.13dev-4-runs';

async function convertJson(path: string, out: string): Promise<any> {
  const r = await cli(['convert', path, '-o', out, '-f', 'json']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  return JSON.parse(r.stdout);
}
const outcomes = (record: any) =>
  Object.fromEntries(record.reconciliation.map((r: any) => [r.evaluation_result_id, r]));

test(
  'the real 0.4.13 runs: every task reconciles, the group declares its per-metric sample_count; same bytes twice',
  { skip: skipWithoutReference(NEGOTIATION) },
  async () => {
    const dir = reference(NEGOTIATION)!;
    const out = join(tempRoot(), 'out');
    const report = await convertJson(dir, out);
    assert.equal(report.records.length, 4);
    for (const record of report.records) {
      const by = outcomes(record);
      assert.equal(by['negotiationtom_belief/acc,none'].outcome, 'reconciled');
      assert.equal(by['negotiationtom_intention/exact_match,none'].outcome, 'reconciled');
      // The group's acc counts the 40 samples of the two subtasks that have acc (sample_count), not sample_len 60.
      assert.match(by['negotiationtom/acc,none'].note, /40 declared/);
      assert.match(by['negotiationtom/micro_f1,none'].note, /20 declared/);
      const stderrNA = record.fields.filter(
        (f: any) => f.fate === 'not-mapped' && /_stderr,none$/.test(f.field),
      );
      assert.ok(stderrNA.every((f: any) => /N\/A/.test(f.reason)));
    }
    assert.equal((await cli(['validate', out])).code, 0);
    const again = join(tempRoot(), 'out');
    await convertJson(dir, again);
    assert.deepEqual(treeBytes(again), treeBytes(out));
  },
);

/** Our fixture rewritten as 0.4.10+ writes it, without n-samples: sample_len per task, sample_count per group metric. */
function fixture2026(sampleLenA: number, sampleLenB = 2): string {
  const path = writeFixture(join(tempRoot(), 'run'));
  const doc = JSON.parse(readFileSync(path, 'utf8'));
  delete doc['n-samples'];
  doc.results.sub_a.sample_len = sampleLenA;
  doc.results.sub_b.sample_len = sampleLenB;
  doc.results.suite.sample_len = sampleLenA + sampleLenB;
  doc.results.suite.sample_count = { 'acc,none': sampleLenA };
  doc.groups.suite = doc.results.suite;
  writeFileSync(path, JSON.stringify(doc, null, 2));
  return path;
}

test('variant: without n-samples, sample_len is the count the rows reconcile against (and a wrong one disagrees)', async () => {
  const good = await convertJson(fixture2026(4), join(tempRoot(), 'out'));
  const by = outcomes(good.records[0]);
  assert.equal(by['sub_b/exact_match,flexible-extract'].outcome, 'reconciled');
  assert.match(by['sub_b/exact_match,flexible-extract'].note, /n 2 stored = 2 declared/);
  assert.match(by['suite/acc,none'].note, /4 declared/);
  const bad = await convertJson(fixture2026(4, 3), join(tempRoot(), 'out'));
  assert.equal(outcomes(bad.records[0])['sub_b/exact_match,flexible-extract'].outcome, 'count_mismatch');
});

test(
  'author-renamed results files convert with the samples beside them (the real runs, two in one folder)',
  { skip: skipWithoutReference(NEGOTIATION) },
  async () => {
    const src = join(reference(NEGOTIATION)!, 'outputs/qwen3-8b/negotiationtom/Qwen__Qwen3-8B');
    const dir = join(tempRoot(), 'in');
    mkdirSync(dir, { recursive: true });
    // One run renamed by its author, one kept as lm-eval named it: each pairs with its own samples.
    const renamed = '2026-07-08T16-04-34.219874';
    const kept = '2026-07-08T17-38-51.316967';
    copyFileSync(join(src, `results_${renamed}.json`), join(dir, 'qwen3_negotiationtom.json'));
    copyFileSync(join(src, `results_${kept}.json`), join(dir, `results_${kept}.json`));
    for (const name of readdirSync(src))
      if (name.startsWith('samples_') && (name.includes(renamed) || name.includes(kept)))
        copyFileSync(join(src, name), join(dir, name));
    const report = await convertJson(dir, join(tempRoot(), 'out'));
    assert.equal(report.failures.length, 0);
    assert.equal(report.records.length, 2);
    for (const record of report.records) {
      assert.equal(record.rows, 60, record.sourcePath);
      assert.equal(outcomes(record)['negotiationtom_belief/acc,none'].outcome, 'reconciled');
    }
    const inferred = report.records
      .find((r: any) => r.sourcePath.endsWith('qwen3_negotiationtom.json'))
      .fields.find((f: any) => f.field === 'qwen3_negotiationtom.json');
    assert.match(inferred.reason, new RegExp(`run ${renamed.replace('.', '\\.')}`));
    // A samples file given alone finds its renamed results file.
    const alone = await convertJson(
      join(dir, `samples_negotiationtom_belief_${renamed}.jsonl`),
      join(tempRoot(), 'out'),
    );
    assert.equal(alone.records[0].rows, 60);
  },
);
