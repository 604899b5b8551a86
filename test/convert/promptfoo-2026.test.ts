// promptfoo results version 3 as 0.120–0.121 write them: the two real files of peers-wild-3 (read from
// ../shared/reference, skipped when absent) and variants written here from them: named metrics as results, a run
// whose every test errored (rate limit) is a run with errors and no result scores it as wrong, credentials in the
// provider config never copied (redacted ones stay redacted), per-test cost and latency kept.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliFromSource as cli } from '../helpers/cli.js';
import { reference, skipWithoutReference } from '../helpers/shared.js';
import { readRows, tempRoot, treeBytes } from './helpers.js';

const NAMED =
  'peers-wild-3/promptfoo/reDreamAI__measure-ai-drift__named-metrics-18-per-assertion/promptfoo-results.json';
const HTTP =
  'peers-wild-3/promptfoo/SuhaasNv__VoyageAI-v1__78-tests-http-provider-redacted-headers/promptfoo-results.json';

async function convertJson(path: string, out: string): Promise<any> {
  const r = await cli(['convert', path, '-o', out, '-f', 'json']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  return JSON.parse(r.stdout);
}
const aggregateOf = (out: string, record: any) =>
  JSON.parse(readFileSync(join(out, record.aggregatePath), 'utf8'));

test(
  'the real files: 18 named metrics are 18 results; redacted headers stay redacted; cost and latency kept; same bytes twice',
  { skip: skipWithoutReference(NAMED) || skipWithoutReference(HTTP) },
  async () => {
    const out = join(tempRoot(), 'out');
    const named = await convertJson(reference(NAMED)!, out);
    const agg = aggregateOf(out, named.records[0]);
    const namedIds = agg.evaluation_results.filter((r: any) => r.evaluation_result_id.startsWith('named/'));
    assert.equal(namedIds.length, 18);
    const rows = readRows(join(out, named.records[0].samplesPath));
    assert.ok(rows.every((r) => typeof r.performance?.latency_ms === 'number'));
    assert.ok(rows.every((r) => r.metadata.cost !== undefined));
    const http = await convertJson(reference(HTTP)!, out);
    for (const record of http.records) {
      const text = readFileSync(join(out, record.aggregatePath), 'utf8');
      assert.match(text, /\\"Authorization\\":\\"\[REDACTED\]\\"/);
    }
    assert.equal((await cli(['validate', out])).code, 0);
    const again = join(tempRoot(), 'out');
    await convertJson(reference(NAMED)!, again);
    await convertJson(reference(HTTP)!, again);
    assert.deepEqual(treeBytes(again), treeBytes(out));
  },
);

test(
  'variant: credentials that the file did not redact are never copied',
  { skip: skipWithoutReference(NAMED) },
  async () => {
    const doc = JSON.parse(readFileSync(reference(NAMED)!, 'utf8'));
    doc.config.providers = [
      {
        id: 'https',
        config: {
          url: 'https://user:hunter22@api.example.org/v1',
          headers: {
            Authorization: 'Bearer live-token-123456',
            'x-api-key': 'abcdef123456',
            'Content-Type': 'json',
          },
          max_tokens: 512,
          openaiApiKey: 'sk-proj-abcdefghijklmnopqrstu',
        },
      },
    ];
    const dir = tempRoot();
    const path = join(dir, 'results.json');
    writeFileSync(path, JSON.stringify(doc));
    const out = join(dir, 'out');
    const report = await convertJson(path, out);
    const text = readFileSync(join(out, report.records[0].aggregatePath), 'utf8');
    for (const secret of ['live-token-123456', 'abcdef123456', 'hunter22', 'sk-proj-abcdefghijklmnopqrstu'])
      assert.equal(text.includes(secret), false, secret);
    assert.match(text, /max_tokens\\":512/); // a number named like a token count is no secret
    assert.match(text, /Content-Type\\":\\"json/);
    const hidden = report.records[0].fields.filter((f: any) => /REDACTED/.test(f.reason ?? ''));
    assert.ok(hidden.some((f: any) => /headers\.Authorization$/.test(f.field)));
  },
);

test(
  'variant: every test errored (rate limit): a run with errors, nothing scored as wrong',
  { skip: skipWithoutReference(NAMED) },
  async () => {
    const doc = JSON.parse(readFileSync(reference(NAMED)!, 'utf8'));
    for (const r of doc.results.results) {
      r.success = false;
      r.score = 0;
      r.failureReason = 2;
      r.error = 'API error: 429 Too Many Requests (rate limit)';
      r.namedScores = {};
      delete r.gradingResult;
      r.response = { error: r.error };
    }
    for (const p of doc.results.prompts) {
      const m = p.metrics;
      m.score = 0;
      m.testPassCount = 0;
      m.testFailCount = 0;
      m.testErrorCount = doc.results.results.length;
      m.assertPassCount = 0;
      m.assertFailCount = 0;
      m.namedScores = {};
      m.namedScoresCount = {};
    }
    const dir = tempRoot();
    const path = join(dir, 'results.json');
    writeFileSync(path, JSON.stringify(doc));
    const out = join(dir, 'out');
    const report = await convertJson(path, out);
    const record = report.records[0];
    const agg = aggregateOf(out, record);
    // No pass rate of 0 over tests that never ran, no row that says a test failed; the errors are in the notes.
    assert.deepEqual(agg.evaluation_results, []);
    assert.equal(record.samplesPath, undefined);
    assert.ok(
      record.notes.some((n: string) => /every test errored \(8; e\.g\. "API error: 429/.test(n)),
      JSON.stringify(record.notes),
    );
    const ingested = await cli(['ingest', out, '--db', join(dir, 'store.duckdb')]);
    assert.equal(ingested.code, 0, ingested.stdout + ingested.stderr);
    assert.equal((await cli(['validate', out])).code, 0);
  },
);
