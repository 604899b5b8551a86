// lm-evaluation-harness → EEE 0.3.0: every real results file converts; scores and standard errors equal the source
// numbers exactly; one row per samples line; the same bytes twice; valid under our checks and the upstream
// schemas; broken inputs fail with file and line and leave nothing behind. Own fixtures cover groups/subtasks,
// "N/A" stderr, filters and lower-is-better metrics.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { test } from 'node:test';
import { reference, skipWithoutReference, wildRunFolders } from '../helpers/shared.js';
import { writeFixture } from './lm-eval-fixture.js';
import {
  assertUpstreamValid,
  assertValidTree,
  convertInto,
  lineCount,
  load,
  tempRoot,
  treeBytes,
} from './helpers.js';

const skip = skipWithoutReference('peers-wild/MANIFEST.json');

/** Every lm-eval results file of the reference data (peers and peers-wild). */
function referenceResults(): string[] {
  const manifest = JSON.parse(readFileSync(reference('peers-wild/MANIFEST.json')!, 'utf8'));
  const wild = (manifest.files as any[])
    .filter((f) => f.tool === 'lm-eval-harness' && f.details?.kind === 'results')
    .map((f) => reference(`peers-wild/${f.file}`))
    .filter((p): p is string => p !== undefined);
  const peers = readdirSync(reference('peers/lm-eval-harness')!)
    .filter((n) => n.startsWith('results_'))
    .map((n) => join(reference('peers/lm-eval-harness')!, n));
  // peers-wild-2 (no JSON manifest): its lm-eval results files; the run whose only headline is Infinity has a test
  // of its own (wild-2-shapes.test.ts), its file not being JSON.
  const wild2 = wildRunFolders('lm-eval-harness')
    .filter((d) => d.includes('peers-wild-2'))
    .flatMap((d) => readdirSync(d).map((n) => join(d, n)))
    .filter((p) => p.endsWith('.json') && !/Infinity|NaN/.test(readFileSync(p, 'utf8')));
  return [...peers, ...wild, ...wild2];
}

/** The source's metrics, read independently: (task, key) → score and stderr, from results and groups. */
function sourceMetrics(doc: any): Map<string, { score: number; stderr: unknown }> {
  const out = new Map<string, { score: number; stderr: unknown }>();
  for (const section of [doc.groups ?? {}, doc.results]) {
    for (const [task, entry] of Object.entries<any>(section)) {
      for (const [key, value] of Object.entries(entry)) {
        if (typeof value !== 'number' || key === 'sample_len' || key.split(',')[0].endsWith('_stderr'))
          continue;
        const [m, f] = key.split(',');
        out.set(`${task}/${key}`, {
          score: value,
          stderr: entry[f === undefined ? `${m}_stderr` : `${m}_stderr,${f}`],
        });
      }
    }
  }
  return out;
}

test(
  'every lm-eval results file of the reference data converts, with the exact source numbers',
  { skip },
  async (t) => {
    const files = referenceResults();
    assert.ok(files.length >= 6, `expected the reference lm-eval files, found ${files.length}`);
    for (const file of files) {
      const converted = await convertInto([file]);
      assert.deepEqual(
        converted.failures.map((f) => f.error.message),
        [],
        file,
      );
      assert.equal(converted.written.length, 1, file);
      const { record } = converted.written[0];
      const { aggregate, rows } = load(converted.root, record);
      const source = JSON.parse(readFileSync(file, 'utf8'));
      const expected = sourceMetrics(source);
      const results = new Map<string, any>(
        aggregate.evaluation_results.map((r: any) => [r.evaluation_result_id, r]),
      );
      assert.equal(results.size, expected.size, `${basename(file)}: one result per source metric`);
      for (const [id, { score, stderr }] of expected) {
        const r = results.get(id);
        assert.ok(r, `${basename(file)}: result ${id}`);
        assert.equal(r.score_details.score, score, id);
        assert.equal(r.evaluation_name, id.slice(0, id.indexOf('/')));
        if (typeof stderr === 'number') {
          assert.equal(r.score_details.uncertainty.standard_error.value, stderr, `${id} stderr`);
          assert.match(r.score_details.uncertainty.standard_error.method, /lm-eval/);
        } else
          assert.equal(
            r.score_details.uncertainty?.standard_error,
            undefined,
            `${id}: ${String(stderr)} is no stderr`,
          );
        assert.ok(r.metric_config.metric_id && r.metric_config.metric_name, id);
      }
      // Rows: one per samples line of this run.
      const ts = /_(\d{4}-[\d-]+T[\d.-]+)\.json$/.exec(basename(file))?.[1];
      const samples = ts
        ? readdirSync(dirname(file)).filter((n) => n.startsWith('samples_') && n.includes(ts))
        : [];
      const expectedRows = samples.reduce((n, s) => n + lineCount(join(dirname(file), s)), 0);
      assert.equal(rows.length, expectedRows, `${basename(file)}: rows`);
      if (rows.length > 0) assert.equal(aggregate.detailed_evaluation_results.total_rows, rows.length);
      for (const row of rows) assert.ok(results.has(row.evaluation_result_id), row.evaluation_result_id);
      await assertUpstreamValid(t, aggregate, rows);
      await assertValidTree(converted.root);
    }
  },
);

test(
  'a second conversion gives the same bytes, and the same run twice in a folder is one record',
  { skip },
  async () => {
    const dir = reference('peers-wild/lm-eval-harness')!;
    const a = await convertInto([dir]);
    const b = await convertInto([dir, dir]);
    assert.equal(a.failures.length, 0);
    assert.deepEqual([...treeBytes(a.root).keys()], [...treeBytes(b.root).keys()]);
    for (const [path, bytes] of treeBytes(a.root))
      assert.ok(bytes.equals(treeBytes(b.root).get(path)!), path);
    assert.equal(a.written.length, b.written.length);
    // Into the same root again: nothing changes.
    const again = await convertInto([dir], { root: a.root });
    assert.deepEqual(
      again.written.map((w) => w.outcome.status),
      a.written.map(() => 'unchanged'),
    );
  },
);

test('samples rows keep the harness ids and score the first metric', { skip }, async () => {
  const file = reference(
    'peers-wild/lm-eval-harness/harness-negotiationtom-qwen3/results_2026-07-08T16-04-34.219874.json',
  )!;
  const { root, written } = await convertInto([file]);
  const { aggregate, rows } = load(root, written[0].record);
  const samplesFile = join(
    dirname(file),
    'samples_negotiationtom_intention_2026-07-08T16-04-34.219874.jsonl',
  );
  const lines = readFileSync(samplesFile, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const intention = rows.filter((r) => r.evaluation_name === 'negotiationtom_intention');
  assert.equal(intention.length, lines.length);
  lines.forEach((line, i) => {
    const row = intention[i];
    assert.equal(row.sample_id, `negotiationtom_intention/${line.doc_id}`);
    // micro_f1 per sample is a pair of label lists (corpus input), so exact_match scores the row.
    assert.equal(row.evaluation.score, line.exact_match);
    assert.equal(row.evaluation_result_id, 'negotiationtom_intention/exact_match,none');
    assert.equal(row.metadata.doc_hash, line.doc_hash);
    assert.equal(row.metadata['metric.micro_f1'], JSON.stringify(line.micro_f1));
    assert.deepEqual(row.input.reference, [line.target]);
    assert.equal(row.input.raw, line.arguments.gen_args_0.arg_0);
  });
  // Multiple choice: choices from the continuations, the answer is the highest loglikelihood.
  const desire = rows.filter((r) => r.evaluation_name === 'negotiationtom_desire');
  assert.equal(desire[0].input.choices.length, 4);
  assert.equal(desire[0].answer_attribution[0].extracted_value, desire[0].input.choices[0]);
  // The group: its subtasks named, its N/A stderr reported as not mapped.
  const group = aggregate.evaluation_results.find(
    (r: any) => r.evaluation_result_id === 'negotiationtom/micro_f1,none',
  );
  assert.equal(
    group.source_data.additional_details.subtasks,
    'negotiationtom_belief,negotiationtom_desire,negotiationtom_intention',
  );
  assert.equal(group.score_details.uncertainty.standard_error, undefined);
  const fates = written[0].record.fields;
  assert.ok(
    fates.some((f) => f.field === 'results.negotiationtom.micro_f1_stderr,none' && f.fate === 'not-mapped'),
  );
  assert.ok(
    fates.some(
      (f) =>
        f.to === '/model_info/additional_details/deployment_type' &&
        f.fate === 'inferred' &&
        /hf/.test(f.reason!),
    ),
  );
  assert.equal(aggregate.model_info.additional_details.deployment_type, 'self_deployed');
  assert.equal(aggregate.model_info.additional_details.model_availability, 'open_weights');
});

test('own fixture: groups and subtasks, filters, lower-is-better and unknown metrics, N/A stderr', async (t) => {
  const dir = join(tempRoot(), 'run');
  const file = writeFixture(dir);
  const { root, written, failures } = await convertInto([dir]);
  assert.deepEqual(failures, []);
  assert.equal(written.length, 1, 'the samples files join the results file: one record');
  const { record } = written[0];
  const { aggregate, rows } = load(root, record);
  const byId = new Map<string, any>(
    aggregate.evaluation_results.map((r: any) => [r.evaluation_result_id, r]),
  );
  assert.deepEqual([...byId.keys()].sort(), [
    'sub_a/acc,none',
    'sub_a/word_perplexity,none',
    'sub_b/exact_match,flexible-extract',
    'sub_b/exact_match,strict-match',
    'sub_b/toxicity,none',
    'suite/acc,none',
  ]);
  const ppl = byId.get('sub_a/word_perplexity,none').metric_config;
  assert.equal(ppl.lower_is_better, true);
  assert.equal(ppl.min_score, 1);
  assert.equal(ppl.max_score, 'Infinity');
  assert.equal(byId.get('sub_a/word_perplexity,none').score_details.uncertainty?.standard_error, undefined);
  const tox = byId.get('sub_b/toxicity,none').metric_config;
  assert.equal(tox.lower_is_better, true, 'higher_is_better false in the file');
  // toxicity is a safety metric of the facts table: lower is better, a proportion.
  assert.equal(tox.min_score, 0);
  assert.equal(tox.max_score, 1);
  assert.equal(tox.additional_details, undefined, 'direction and bounds known: nothing assumed');
  const strict = byId.get('sub_b/exact_match,strict-match');
  assert.deepEqual(strict.metric_config.metric_parameters, { filter: 'strict-match' });
  assert.equal(strict.metric_config.metric_id, 'exact_match');
  assert.equal(strict.generation_config.generation_args.max_tokens, 64);
  assert.equal(strict.generation_config.additional_details.n_shot, '5');
  assert.equal(byId.get('sub_a/acc,none').score_details.details.group, 'suite');
  assert.equal(byId.get('sub_a/acc,none').source_data.hf_repo, 'org/data-a');
  assert.equal(byId.get('sub_a/acc,none').score_details.uncertainty.num_samples, 4);
  assert.match(byId.get('suite/acc,none').score_details.uncertainty.standard_error.method, /pooled/);
  assert.match(byId.get('sub_a/acc,none').score_details.uncertainty.standard_error.method, /sqrt\(n\)/);
  assert.equal(aggregate.retrieved_timestamp, '1735787045.5');
  assert.equal(aggregate.eval_library.version, '0.4.8');
  assert.equal(aggregate.model_info.inference_engine.name, 'vllm');
  assert.equal(aggregate.model_info.additional_details.model_args, 'pretrained=org/tiny-model,dtype=auto');
  // Rows: 4 + 4 (two filters per doc), filters in the sample ids, each row on its filter's result.
  assert.equal(rows.length, 8);
  const b = rows.filter((r) => r.evaluation_name === 'sub_b');
  assert.deepEqual(
    b.map((r) => r.sample_id),
    ['sub_b/0/strict-match', 'sub_b/0/flexible-extract', 'sub_b/1/strict-match', 'sub_b/1/flexible-extract'],
  );
  assert.deepEqual(
    b.map((r) => r.evaluation_result_id),
    [
      'sub_b/exact_match,strict-match',
      'sub_b/exact_match,flexible-extract',
      'sub_b/exact_match,strict-match',
      'sub_b/exact_match,flexible-extract',
    ],
  );
  assert.deepEqual(
    b.map((r) => r.evaluation.score),
    [0, 1, 1, 0],
  );
  const a = rows.filter((r) => r.evaluation_name === 'sub_a');
  assert.deepEqual(
    a.map((r) => r.evaluation.is_correct),
    [false, true, false, true],
  );
  assert.deepEqual(a[0].input.choices, [' yes', ' no']);
  assert.equal(a[0].answer_attribution[0].extracted_value, ' no');
  assert.equal(a[0].metadata['metric.word_perplexity'], '[3.5,7]');
  await assertUpstreamValid(t, aggregate, rows);
  await assertValidTree(root);
  assert.ok(existsSync(file));
});

test('a truncated samples file fails with file and line, and nothing is written', async () => {
  const dir = join(tempRoot(), 'run');
  writeFixture(dir);
  const samples = join(dir, 'samples_sub_a_2025-01-02T03-04-05.678901.jsonl');
  const text = readFileSync(samples, 'utf8');
  writeFileSync(samples, text.slice(0, text.length - 40));
  const { root, written, failures } = await convertInto([dir]);
  assert.equal(written.length, 0);
  assert.equal(failures.length, 1);
  assert.match(
    failures[0].error.message,
    /samples_sub_a_2025-01-02T03-04-05\.678901\.jsonl:4: not valid JSON/,
  );
  assert.deepEqual([...treeBytes(root).keys()], [], 'no partial record, no temporary file');
});

test('a corrupted results file fails with file, line and column', async () => {
  const dir = join(tempRoot(), 'run');
  const file = writeFixture(dir);
  writeFileSync(file, readFileSync(file, 'utf8').replace('"acc,none": 0.75', '"acc,none": 0.75,,'));
  const { written, failures } = await convertInto([file]);
  assert.equal(written.length, 0);
  assert.equal(failures.length, 1);
  assert.match(failures[0].error.message, new RegExp(`${basename(file).replace(/\./g, '\\.')}:\\d+:\\d+: `));
});

test('overrides win over the source and are recorded as mapped; they change the id', async () => {
  const dir = join(tempRoot(), 'run');
  writeFixture(dir);
  const plain = await convertInto([dir]);
  const over = await convertInto([dir], {
    overrides: {
      modelId: 'acme/renamed',
      deploymentType: 'externally_managed',
      modelAvailability: 'closed_weights',
      sourceOrganizationName: 'Acme Evals',
      evaluatorRelationship: 'first_party',
      collection: 'acme',
      retrievedTimestamp: '1767225600',
    },
  });
  const { aggregate } = load(over.root, over.written[0].record);
  assert.equal(aggregate.model_info.id, 'acme/renamed');
  assert.equal(aggregate.model_info.additional_details.deployment_type, 'externally_managed');
  assert.equal(aggregate.source_metadata.source_organization_name, 'Acme Evals');
  assert.equal(aggregate.retrieved_timestamp, '1767225600');
  assert.match(over.written[0].record.aggregatePath, /^data\/acme\/acme\/renamed\/[0-9a-f-]{36}\.json$/);
  assert.notEqual(
    basename(over.written[0].record.aggregatePath),
    basename(plain.written[0].record.aggregatePath),
  );
  assert.ok(over.written[0].record.fields.some((f) => f.field === '--model-id' && f.fate === 'mapped'));
  await assertValidTree(over.root);
});
