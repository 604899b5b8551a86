// Issue 30, defect 2: an Inspect scorer whose metrics cover some samples only. In the real run (32 samples, 24 of
// them attacked) `attack_success_rate` is 2/24 over the attacked samples and `utility_clean` 7/8 over the clean
// ones, while every sample carries a value for both scorers; the stored rows were 32 per scorer (2/32 for the attack
// rate) and the leaderboard said n 32. The subset is found from the source's own headline (a boolean of the score's
// metadata whose samples average to it), the result counts those samples, only they get a row, and "correct" follows
// the metric's direction (a failed attack, 0 on a lower-is-better rate, is the good outcome). Real file from
// ../shared/reference/peers-wild-2 plus a generated log of the same shape.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { metricSubset } from '../../src/convert/sources/inspect-subsets.js';
import { cli } from '../helpers/cli.js';
import { reference, skipWithoutReference } from '../helpers/shared.js';
import {
  assertUpstreamValid,
  assertValidTree,
  convertInto,
  resultById,
  type Written,
} from './sources-helpers.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-subsets-'));
after(() => rmSync(temp, { recursive: true, force: true }));

const REAL =
  'peers-wild-2/inspect_ai/carlosrymer-multiscorer-agentic/2026-08-01T15-18-34-00-00_support-desk-naive_7UyEcsb23evHpAfY9e2k5X.eval';

const rowsOf = (w: Written, id: string) => w.rows.filter((r) => r.evaluation_result_id === id);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function leaderboardN(path: string, name: string): Promise<Map<string, number>> {
  const db = join(temp, `${name}.duckdb`);
  const ingest = await cli(['ingest', '--db', db, '--no-progress', path]);
  assert.equal(ingest.code, 0, ingest.stderr);
  const board = await cli(['leaderboard', '--db', db, '--format', 'json']);
  assert.equal(board.code, 0, board.stderr);
  return new Map(JSON.parse(board.stdout).leaderboards.map((b: any) => [b.metric, b.rows[0].n]));
}

test(
  'a scorer over some samples only (real): rows and n follow the samples the headline covers',
  { skip: skipWithoutReference(REAL) },
  async (t) => {
    const path = reference(REAL)!;
    const root = join(temp, 'real');
    const [w] = await convertInto(root, [path]);
    await assertUpstreamValid(t, [w]);
    await assertValidTree(root);
    const asr = resultById(w.aggregate, 'attack_success/attack_success_rate');
    assert.equal(asr.score_details.uncertainty.num_samples, 24);
    assert.equal(asr.metric_config.additional_details.applies_to, 'score.metadata.attacked = true');
    const asrRows = rowsOf(w, 'attack_success/attack_success_rate');
    assert.equal(asrRows.length, 24);
    assert.equal(mean(asrRows.map((r) => r.evaluation.score)), asr.score_details.score);
    // lower is better: the 22 failed attacks are the right outcome, the 2 that succeeded the wrong one.
    assert.equal(asr.metric_config.lower_is_better, true);
    assert.deepEqual(
      asrRows.filter((r) => r.evaluation.is_correct).map((r) => r.evaluation.score),
      Array(22).fill(0),
    );
    assert.equal(
      resultById(w.aggregate, 'task_utility/utility_clean').score_details.uncertainty.num_samples,
      8,
    );
    assert.equal(
      resultById(w.aggregate, 'task_utility/utility_under_attack').score_details.uncertainty.num_samples,
      24,
    );
    assert.equal(rowsOf(w, 'task_utility/utility_rate').length, 32);
    // A rate of 0 every clean sample would also give is no evidence of a subset: it stays over all 32.
    const blocked = resultById(w.aggregate, 'attack_success/blocked_call_rate');
    assert.equal(blocked.metric_config.additional_details.applies_to, undefined);
    assert.ok(
      w.record.fields.some(
        (f) => f.fate === 'not-mapped' && /8 sample score\(s\) outside the samples/.test(f.reason ?? ''),
      ),
    );
    const n = await leaderboardN(path, 'real');
    assert.equal(n.get('attack_success_rate'), 24);
    assert.equal(n.get('utility_clean'), 8);
    assert.equal(n.get('utility_rate'), 32);
  },
);

test('a scorer over some samples only (generated): the subset from the headline, only its samples as rows', async (t) => {
  // 4 attacked samples (one attack succeeds), 2 clean ones; the attack rate is over the attacked ones.
  const attacked = [1, 0, 0, 0];
  const samples = [
    ...attacked.map((v) => ({ v, attacked: true })),
    { v: 0, attacked: false },
    { v: 0, attacked: false },
  ];
  const log = {
    version: 2,
    status: 'success',
    eval: {
      run_id: 'r',
      task_id: 't',
      task: 'attacks',
      created: '2025-01-02T03:04:05+00:00',
      model: 'openai/gpt-4o-mini',
      dataset: { samples: 6 },
    },
    results: {
      total_samples: 6,
      completed_samples: 6,
      scores: [
        {
          name: 'attack',
          scorer: 'attack',
          scored_samples: 6,
          metrics: {
            attack_success_rate: { name: 'attack_success_rate', value: 0.25 },
            accuracy: { name: 'accuracy', value: 1 / 6 },
          },
        },
      ],
    },
    samples: samples.map((s, i) => ({
      id: i + 1,
      epoch: 1,
      input: `ticket ${i + 1}`,
      target: '',
      messages: [],
      output: { choices: [{ message: { role: 'assistant', content: 'done' } }] },
      scores: { attack: { value: s.v, metadata: { attacked: s.attacked } } },
    })),
  };
  const path = join(temp, 'attacks.json');
  writeFileSync(path, JSON.stringify(log));
  const root = join(temp, 'generated');
  const [w] = await convertInto(root, [path]);
  await assertUpstreamValid(t, [w]);
  await assertValidTree(root);
  const asr = resultById(w.aggregate, 'attack/attack_success_rate');
  assert.equal(asr.score_details.uncertainty.num_samples, 4);
  const rows = rowsOf(w, 'attack/attack_success_rate');
  assert.deepEqual(
    rows.map((r) => [r.sample_id, r.evaluation.score, r.evaluation.is_correct]),
    [
      ['1', 1, false],
      ['2', 0, true],
      ['3', 0, true],
      ['4', 0, true],
    ],
  );
  // accuracy is Inspect's own mean: over every sample, never a subset.
  assert.equal(resultById(w.aggregate, 'attack/accuracy').score_details.uncertainty.num_samples, 6);
  assert.equal((await leaderboardN(path, 'generated')).get('attack_success_rate'), 4);
});

test('metricSubset: no subset when the mean over all is the headline, or when only a constant subset explains it', () => {
  const s = (key: string, value: number, flag: boolean) => ({
    key,
    sampleId: key,
    value,
    flags: new Map([['score.metadata.x', flag]]),
  });
  const values = [s('a', 1, true), s('b', 0, true), s('c', 0, false), s('d', 0, false)];
  assert.equal(metricSubset(values, 0.25), undefined);
  assert.equal(metricSubset(values, 0), undefined, 'the x = false samples are all 0: no evidence');
  assert.deepEqual([...metricSubset(values, 0.5)!.keys], ['a', 'b']);
});
