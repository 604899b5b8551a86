// Inspect logs as 0.3.18x–0.3.26x write them: the real 2026 logs of peers-wild-3 (read from ../shared/reference,
// skipped when absent) convert, validate and give the same bytes twice; variants written here from one of them: a
// ci() metric flattened into a lower/upper group (one interval, not two metrics), per-sample cost, retries and the
// newer sample fields kept, and a viewer bundle's logs.json recognised as a listing, never taken for a log.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliFromSource as cli } from '../helpers/cli.js';
import { reference, skipWithoutReference } from '../helpers/shared.js';
import { readRows, tempRoot, treeBytes } from './helpers.js';

const ROOT = 'peers-wild-3/inspect_ai';
const JSON_LOGS = `${ROOT}/evaleval__every_eval_ever__inspect-0.3.180-limit5-json-logs-2026/tests/data/inspect/inspect_shortened`;

async function convertJson(args: string[]): Promise<any> {
  const r = await cli(['convert', ...args, '-f', 'json']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  return JSON.parse(r.stdout);
}

test(
  'the real 2026 Inspect logs (.json 0.3.180, zstd .eval 0.3.208) convert, validate, same bytes twice',
  { skip: skipWithoutReference(ROOT) },
  async () => {
    const out = join(tempRoot(), 'out');
    const report = await convertJson([reference(ROOT)!, '-o', out]);
    assert.equal(report.failures.length, 0);
    assert.equal(report.records.length, 7);
    for (const record of report.records)
      for (const r of record.reconciliation ?? [])
        assert.ok(typeof r.note === 'string' && r.note.length > 0, 'every outcome says why');
    assert.equal((await cli(['validate', out])).code, 0);
    const again = join(tempRoot(), 'out');
    await convertJson([reference(ROOT)!, '-o', again]);
    assert.deepEqual(treeBytes(again), treeBytes(out));
  },
);

/** The real gpqa-diamond log (5 samples), rewritten as a 0.3.2xx log would be written. */
function variantLog(dir: string): string {
  const log = JSON.parse(readFileSync(join(reference(JSON_LOGS)!, 'gpqa-diamond.json'), 'utf8'));
  const metrics = log.results.scores[0].metrics;
  metrics.lower = { name: 'lower', value: 0.31, params: { level: 0.9 }, group: 'ci' };
  metrics.upper = { name: 'upper', value: 0.69, params: { level: 0.9 }, group: 'ci' };
  log.samples.forEach((s: any, i: number) => {
    for (const usage of Object.values(s.model_usage) as any[]) usage.total_cost = 0.001 * (i + 1);
    s.role_usage = { grader: { input_tokens: 10, output_tokens: 2, total_tokens: 12, total_cost: 0.0001 } };
    s.turn_count = 2;
    s.model_fallbacks = [{ from: 'hf/a', to: 'hf/b', reason: 'rate limit' }];
    s.token_limit_reached = false;
    if (i === 0) s.error_retries = [{ message: 'RateLimitError', traceback: '', traceback_ansi: '' }];
  });
  mkdirSync(dir, { recursive: true });
  const path = join(dir, '2026-05-06T18-00-11+00-00_gpqa-diamond_abc.json');
  writeFileSync(path, JSON.stringify(log));
  return path;
}

test(
  'variant: a ci() group is one interval on its metric; cost, retries and the newer sample fields are kept',
  { skip: skipWithoutReference(JSON_LOGS) },
  async () => {
    const dir = tempRoot();
    const path = variantLog(join(dir, 'logs'));
    const out = join(dir, 'out');
    const report = await convertJson([path, '-o', out]);
    const record = report.records[0];
    const agg = JSON.parse(readFileSync(join(out, record.aggregatePath), 'utf8'));
    const names = agg.evaluation_results.map((r: any) => r.metric_config.metric_id);
    assert.deepEqual(names, ['accuracy']); // not lower / upper as metrics of their own
    assert.deepEqual(agg.evaluation_results[0].score_details.uncertainty.confidence_interval, {
      lower: 0.31,
      upper: 0.69,
      confidence_level: 0.9,
      method: 'Inspect metric group "ci" (lower, upper)',
    });
    const rows = readRows(join(out, record.samplesPath));
    assert.equal(rows[0].metadata.cost, '0.001');
    assert.equal(rows[0].metadata.error_retries, '1');
    assert.match(rows[0].metadata.error_retry_messages, /RateLimitError/);
    assert.equal(rows[1].metadata.turn_count, '2');
    assert.match(rows[1].metadata.model_fallbacks, /rate limit/);
    assert.equal(rows[1].metadata.token_limit_reached, 'false');
    assert.match(rows[1].metadata.role_usage, /grader/);
    assert.equal((await cli(['validate', out])).code, 0);
  },
);

test(
  "variant: a viewer bundle's logs.json is a listing, skipped with a note; the logs it lists are read",
  { skip: skipWithoutReference(JSON_LOGS) },
  async () => {
    const dir = tempRoot();
    const logs = join(dir, 'bundle', 'logs');
    const path = variantLog(logs);
    copyFileSync(join(reference(JSON_LOGS)!, 'DS-1000.json'), join(logs, '2026-05-07_ds1000_def.json'));
    const header = (p: string) => {
      const { samples: _s, ...rest } = JSON.parse(readFileSync(p, 'utf8'));
      return rest;
    };
    const listing = {
      '2026-05-06T18-00-11+00-00_gpqa-diamond_abc.json': header(path),
      '2026-05-07_ds1000_def.json': header(join(logs, '2026-05-07_ds1000_def.json')),
    };
    writeFileSync(join(logs, 'logs.json'), JSON.stringify(listing));
    // The folder: both logs converted once, the listing skipped with its note.
    const walked = await convertJson([join(dir, 'bundle'), '-o', join(dir, 'out1')]);
    assert.equal(walked.records.length, 2);
    const skipped = walked.skipped.find((s: any) => s.path.endsWith('logs.json'));
    assert.match(skipped.reason, /Inspect log listing \(the headers of 2 log\(s\)\), not a log/);
    // logs.json by name: the logs it lists are read.
    const named = await convertJson([join(logs, 'logs.json'), '-o', join(dir, 'out2')]);
    assert.equal(named.records.length, 2);
    assert.deepEqual(treeBytes(join(dir, 'out2')), treeBytes(join(dir, 'out1')));
    // A listing whose logs are not beside it: a clear error, exit 1.
    const lone = join(dir, 'lone');
    mkdirSync(lone);
    writeFileSync(join(lone, 'logs.json'), JSON.stringify(listing));
    const r = await cli(['convert', join(lone, 'logs.json'), '-o', join(dir, 'out3')]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr + r.stdout, /Inspect log listing whose 2 log\(s\) are not beside it/);
  },
);

test(
  'a log shortened to fewer epochs than the run had: the headline is not checked against its rows, and says why',
  { skip: skipWithoutReference(JSON_LOGS) },
  async () => {
    // The real gpqa-diamond log: 4 epochs run, epoch 1 kept (the rows average 0.6, the reduced headline is 0.5).
    const real = await convertJson([
      join(reference(JSON_LOGS)!, 'gpqa-diamond.json'),
      '-o',
      join(tempRoot(), 'out'),
    ]);
    const [outcome] = real.records[0].reconciliation;
    assert.equal(outcome.outcome, 'reconciled');
    assert.match(outcome.note, /epoch-reduced scores of 4 epochs, and the log holds epoch 1 only/);
    // A variant: DS-1000 (1 epoch, reconciled) declared as a 3-epoch run.
    const log = JSON.parse(readFileSync(join(reference(JSON_LOGS)!, 'DS-1000.json'), 'utf8'));
    log.eval.config.epochs = 3;
    const dir = tempRoot();
    writeFileSync(join(dir, 'ds.json'), JSON.stringify(log));
    const variant = await convertJson([join(dir, 'ds.json'), '-o', join(dir, 'out')]);
    assert.match(variant.records[0].reconciliation[0].note, /of 3 epochs, and the log holds epoch 1 only/);
  },
);
