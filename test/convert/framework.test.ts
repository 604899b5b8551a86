// The converter framework: recognition (and the "expected one of" error), the writer (atomic pair, unchanged /
// exists / force), deduplication, the metric facts, and the CLI (report, dry run, exit codes).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { detectSource, SOURCES } from '../../src/convert/registry.js';
import { metricFacts, METRIC_FACTS } from '../../src/convert/metric-facts.js';
import { writeConverted } from '../../src/convert/write.js';
import { FieldReport, ResultsBuilder } from '../../src/convert/record.js';
import type { ConvertedRecord } from '../../src/convert/types.js';
import { DataError } from '../../src/errors.js';
import { cli } from '../helpers/cli.js';
import { projectRoot } from '../helpers/shared.js';
import { tempRoot, treeBytes } from './helpers.js';

const benchDoc = join(projectRoot, 'examples/bench-output/outputs/mmlu/2026-02-10T08-00-00Z_001.json');

test('an unrecognised file is a DataError naming every source it could have been', async () => {
  const dir = tempRoot();
  const file = join(dir, 'notes.json');
  writeFileSync(file, '{"hello": "world"}');
  await assert.rejects(detectSource(file), (e: any) => {
    assert.ok(e instanceof DataError);
    assert.equal(e.code, 'convert.unrecognised');
    for (const s of SOURCES) assert.ok(e.message.includes(s.description), s.id);
    return true;
  });
  assert.equal((await detectSource(benchDoc)).id, 'bench');
});

test('the metric facts table: known bounds, unknown metrics get none', () => {
  assert.deepEqual([metricFacts('acc,none')!.min, metricFacts('acc,none')!.max], [0, 1]);
  assert.equal(metricFacts('bleu')!.max, 100);
  assert.equal(metricFacts('word_perplexity')!.min, 1);
  assert.equal(metricFacts('word_perplexity')!.max, 'Infinity');
  assert.equal(metricFacts('bits_per_byte')!.lowerIsBetter, true);
  assert.equal(metricFacts('brier_score')!.lowerIsBetter, true);
  assert.equal(metricFacts('mcc')!.min, -1);
  assert.equal(metricFacts('my_custom_score'), undefined);
  const names = METRIC_FACTS.flatMap((f) => f.names);
  assert.equal(new Set(names).size, names.length, 'no name in two rows');
});

test("a score outside the facts table's bounds gets no bounds or unit, and a fractional count is not a num_samples", () => {
  const report = new FieldReport();
  const results = new ResultsBuilder(report);
  const common = { evaluationName: 't', sourceData: { dataset_name: 't', source_type: 'other' } };
  // accuracy reported as a percentage: the table says [0, 1], so the record must not claim those bounds
  const pct = results.add({
    ...common,
    metric: 'accuracy',
    resultId: 'pct',
    field: 'acc',
    score: 87.5,
  }) as any;
  assert.equal(pct.metric_config.min_score, undefined);
  assert.equal(pct.metric_config.max_score, undefined);
  assert.equal(pct.metric_config.metric_unit, undefined);
  assert.equal(pct.metric_config.metric_kind, 'accuracy');
  assert.equal(pct.metric_config.lower_is_better, false);
  assert.ok(
    report.fates.some((f) => f.field === 'acc (bounds)' && /87\.5 lies outside \[0, 1\]/.test(f.reason!)),
  );
  const ok = results.add({
    ...common,
    metric: 'accuracy',
    resultId: 'ok',
    field: 'acc2',
    score: 0.875,
    standardError: { value: 0.01, method: 'm' },
    numSamples: 2.5,
  }) as any;
  assert.deepEqual([ok.metric_config.min_score, ok.metric_config.max_score], [0, 1]);
  assert.equal(ok.score_details.uncertainty.num_samples, undefined);
  assert.equal(ok.score_details.uncertainty.standard_error.value, 0.01);
  assert.ok(report.fates.some((f) => f.field === 'acc2 (num_samples)' && f.fate === 'not-mapped'));
});

function fakeRecord(rows: () => AsyncIterable<Record<string, unknown>>, tag = 'a'): ConvertedRecord {
  return {
    source: 'bench',
    sourcePath: 'memory',
    aggregate: {
      schema_version: '0.3.0',
      evaluation_id: `x/${tag}`,
      detailed_evaluation_results: { format: 'jsonl' },
    },
    aggregatePath: 'data/c/d/m/00000000-0000-4000-8000-000000000000.json',
    samplesPath: 'data/c/d/m/00000000-0000-4000-8000-000000000000_samples.jsonl',
    rows,
    fields: [],
    notes: [],
  };
}

test('the writer fills total_rows and checksum, and a failing row stream leaves nothing', async () => {
  const root = tempRoot();
  const ok = await writeConverted(
    fakeRecord(async function* () {
      yield { n: 1 };
      yield { n: 2 };
    }),
    root,
  );
  assert.equal(ok.status, 'written');
  const samples = readFileSync(ok.samplesPath!, 'utf8');
  assert.equal(samples, '{"n":1}\n{"n":2}\n');
  const aggregate = JSON.parse(readFileSync(ok.aggregatePath, 'utf8'));
  assert.equal(aggregate.detailed_evaluation_results.total_rows, 2);
  const { createHash } = await import('node:crypto');
  assert.equal(
    aggregate.detailed_evaluation_results.checksum,
    createHash('sha256').update(samples).digest('hex'),
  );
  assert.equal(
    aggregate.detailed_evaluation_results.file_path,
    'data/c/d/m/00000000-0000-4000-8000-000000000000_samples.jsonl',
  );

  const again = await writeConverted(
    fakeRecord(async function* () {
      yield { n: 1 };
      yield { n: 2 };
    }),
    root,
  );
  assert.equal(again.status, 'unchanged');
  const different = () =>
    fakeRecord(async function* () {
      yield { n: 3 };
    }, 'b');
  await assert.rejects(writeConverted(different(), root), (e: any) => e.code === 'convert.exists');
  assert.equal(readFileSync(ok.samplesPath!, 'utf8'), samples, 'kept without --force');
  assert.equal((await writeConverted(different(), root, { force: true })).status, 'overwritten');

  const broken = tempRoot();
  await assert.rejects(
    writeConverted(
      fakeRecord(async function* () {
        yield { n: 1 };
        throw new DataError('x.broken', 'source.jsonl:2: not valid JSON');
      }),
      broken,
    ),
    /source\.jsonl:2/,
  );
  assert.deepEqual([...treeBytes(broken).keys()], [], 'no partial pair, no temp file');
  const planned = await writeConverted(
    fakeRecord(async function* () {
      yield { n: 1 };
    }),
    tempRoot(),
    { dryRun: true },
  );
  assert.equal(planned.status, 'planned');
  assert.equal(planned.totalRows, 1);
  assert.equal(existsSync(planned.aggregatePath), false);
});

test('CLI: report as JSON, dry run writes nothing, exit codes 0 / 1 / 2', async () => {
  const dir = tempRoot();
  const out = join(dir, 'store');
  const dry = await cli(['convert', benchDoc, '-o', out, '--dry-run']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /would write: data\/bench\/openai\/gpt-4\.1-mini\/[0-9a-f-]{36}\.json/);
  assert.equal(existsSync(out), false);

  const r = await cli(['convert', benchDoc, '-o', out, '--format', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.equal(report.summary.records, 1);
  assert.equal(report.records[0].source, 'bench');
  assert.equal(report.records[0].status, 'written');
  assert.ok(report.records[0].fields.some((f: any) => f.fate === 'inferred' && f.reason));
  assert.ok(existsSync(join(out, report.records[0].aggregatePath)));
  const second = JSON.parse((await cli(['convert', benchDoc, '-o', out, '--format', 'json'])).stdout);
  assert.equal(second.records[0].status, 'unchanged');

  // One good file and one no source knows: the good one is written, exit 1.
  const junk = join(dir, 'junk.json');
  writeFileSync(junk, '[1, 2, 3]');
  const mixed = await cli(['convert', benchDoc, junk, '-o', join(dir, 'store2')]);
  assert.equal(mixed.code, 1);
  assert.match(mixed.stderr, /junk\.json: error convert\.unrecognised .*expected one of: lm-eval/);
  assert.match(mixed.stdout, /1 record\(s\)/);

  // A different file already at the target: exit 1 without --force, 0 with it.
  const target = join(out, report.records[0].aggregatePath);
  writeFileSync(target, '{}\n');
  assert.equal((await cli(['convert', benchDoc, '-o', out])).code, 1);
  assert.equal((await cli(['convert', benchDoc, '-o', out, '--force'])).code, 0);
  assert.notEqual(readFileSync(target, 'utf8'), '{}\n');

  const missing = await cli(['convert', join(dir, 'nope.json'), '-o', out]);
  assert.equal(missing.code, 2);
  const badTime = await cli(['convert', benchDoc, '-o', out, '--retrieved-timestamp', 'yesterday']);
  assert.equal(badTime.code, 2);
  assert.match(badTime.stderr, /--retrieved-timestamp/);
  const noOut = await cli(['convert', benchDoc]);
  assert.equal(noOut.code, 2);
});

test('a folder with the same run twice gives one record', async () => {
  const dir = tempRoot();
  mkdirSync(join(dir, 'a'));
  mkdirSync(join(dir, 'b'));
  writeFileSync(join(dir, 'a', 'run.json'), readFileSync(benchDoc));
  writeFileSync(join(dir, 'b', 'copy.json'), readFileSync(benchDoc));
  const r = await cli(['convert', dir, '-o', join(dir, 'out'), '--format', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.equal(report.summary.records, 1);
  assert.equal(report.skipped.length, 1);
  assert.match(report.skipped[0].reason, /the same record/);
});

test('docs/convert.md carries the metric facts table as the code has it', async () => {
  const { metricFactsMarkdown } = await import('../../src/convert/metric-facts.js');
  const readme = readFileSync(join(projectRoot, 'docs', 'convert.md'), 'utf8');
  assert.ok(
    readme.includes(metricFactsMarkdown()),
    'regenerate the docs/convert.md table from metricFactsMarkdown()',
  );
});
