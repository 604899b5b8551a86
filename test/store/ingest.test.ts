// evalkit ingest into a real DuckDB file: the repository's examples and the reference records, idempotence,
// duplicates (EEE check 10), invalid documents rejected with the validator's diagnostics, and every stored row
// rebuilt exactly (sampleRow and the view sample_rows) from the compact samples layout.
// test-runner: own process (long: as a job of its own it keeps the batches short).
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openStore, type Store } from '../../src/store/db.js';
import { ingestPaths } from '../../src/store/ingest.js';
import { convertPaths, isConvertFailure, writeConverted } from '../../src/convert/index.js';
import { INSERT_SAMPLES_FROM_JSONL_SQL, sampleRow, splitSampleRow } from '../../src/store/sample-row.js';
import { STORE_TABLES, tableColumns } from '../../src/store/schema.js';
import { recordFingerprint } from '../../src/checks/eee-tree.js';
import { createHash } from 'node:crypto';
import { projectRoot, reference, skipWithoutReference } from '../helpers/shared.js';
import { diagnosticLine } from '../../src/cli/output/diagnostics.js';

const temp = mkdtempSync(join(tmpdir(), 'evalkit-store-'));
after(() => rmSync(temp, { recursive: true, force: true }));
let n = 0;
const freshDb = (): string => join(temp, `s${n++}.duckdb`);
const examples = join(projectRoot, 'examples');
const eeePair = join(examples, 'eee', 'data', 'demo-bench', 'acme', 'tiny-model-1b');
const UUID = '7c2f4e1a-93b5-4d6e-8a0f-2b1c3d4e5f60';

const lines = (path: string): unknown[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));

async function withStore<T>(db: string, fn: (s: Store) => Promise<T>, readOnly = false): Promise<T> {
  const store = await openStore(db, { readOnly });
  try {
    return await fn(store);
  } finally {
    store.close();
  }
}

async function tableCounts(db: string): Promise<Record<string, number>> {
  return withStore(
    db,
    async (s) =>
      (
        await s.all<Record<string, number>>(
          `SELECT (SELECT count(*) FROM records) AS records, (SELECT count(*) FROM results) AS results,
                  (SELECT count(*) FROM samples) AS samples, (SELECT count(*) FROM documents) AS documents`,
        )
      )[0],
    true,
  );
}

test('the examples: valid records stored with all their rows, invalid ones rejected with diagnostics', async () => {
  const db = freshDb();
  const result = await withStore(db, (s) => ingestPaths(s, ['examples'], { cwd: projectRoot }));
  const added = result.items.filter((i) => i.status === 'added').map((i) => i.source);
  // The EEE records among the examples (other folders hold inputs for the converters, which grow over time).
  assert.deepEqual(
    result.items
      .filter(
        (i) =>
          i.status === 'added' && i.origin_kind === 'eee' && /^examples\/(eee|datastore)\//.test(i.source),
      )
      .map((i) => i.source)
      .sort(),
    [
      'examples/datastore/current/data/demo-bench/acme/tiny-model/3f6c1b2a-9d4e-4f7a-8b1c-2d3e4f5a6b7c.json',
      'examples/datastore/legacy/data/demo-bench/acme/tiny-model/7a1e5c3d-2b4f-4a6e-9c8d-0e1f2a3b4c5d.json',
      'examples/eee/aggregate-0.2.0.json',
      `examples/eee/data/demo-bench/acme/tiny-model-1b/${UUID}.json`,
    ],
  );
  // Benchmark output v1 and infereval η go through the converters (src/convert).
  for (const path of [
    'examples/bench-output/outputs/mmlu/2026-02-10T08-00-00Z_001.json',
    'examples/infereval/evaluation.json',
  ])
    assert.ok(added.includes(path), `${path} not stored`);
  const rejected = result.items.filter((i) => i.status === 'rejected').map((i) => i.source);
  // Invalid inputs are rejected by the validator, whether EEE or a document a converter would read; nothing else is.
  for (const path of [
    'examples/bench-output/invalid/error-without-message.json',
    'examples/bench-output/invalid/missing-and-wrong-fields.json',
    'examples/eee/invalid/aggregate-0.2.2-quirk-no-score-type-needs-level-names.json',
    'examples/eee/invalid/aggregate-0.3.0-missing-required-fields.json',
    'examples/eee/invalid/aggregate-0.3.0-out-of-enum-values.json',
  ])
    assert.ok(rejected.includes(path), `${path} not rejected`);
  assert.deepEqual(
    rejected.filter((path) => !path.includes('/invalid/')),
    [],
  );
  // The validator's own diagnostics, with positions, for each rejected file.
  for (const file of rejected)
    assert.ok(
      result.diagnostics.some((d) => d.file === file && d.severity === 'error' && d.line > 0),
      `no positioned error for ${file}`,
    );
  assert.equal(result.summary.records, added.length);
  assert.equal(result.summary.rejected, rejected.length);

  // Every stored record has exactly the rows of its samples file, and each row comes back equal to its line.
  const samplesFile = join(eeePair, `${UUID}_samples.jsonl`);
  const expected = lines(samplesFile);
  await withStore(
    db,
    async (s) => {
      const records = await s.all<{ record_key: string; sample_count: number; n: number }>(
        `SELECT r.record_key, r.sample_count, (SELECT count(*) FROM samples x WHERE x.record_key = r.record_key) AS n
           FROM records r`,
      );
      for (const r of records) assert.equal(r.n, r.sample_count);
      const ours = await s.all<{ sample_count: number }>(
        `SELECT sample_count FROM records WHERE origin_path LIKE 'examples/eee/%' OR origin_path LIKE 'examples/datastore/%/data/%'`,
      );
      assert.deepEqual(
        ours.map((r) => r.sample_count).sort(),
        [0, 2, 3, 3],
        'rows per record: the 0.2.0 aggregate has none, the legacy pair 2, the two current pairs 3 each',
      );
      const key = (
        await s.all<{ record_key: string }>(`SELECT record_key FROM records WHERE evaluation_id = $1`, [
          'demo-bench/acme/tiny-model-1b/2026-05-01',
        ])
      )[0].record_key;
      const viaView = await s.all<{ raw: string }>(
        'SELECT raw FROM sample_rows WHERE record_key = $1 ORDER BY row_index',
        [key],
      );
      assert.deepEqual(
        viaView.map((r) => JSON.parse(r.raw)),
        expected,
      );
      const stored = await s.all<Record<string, unknown>>(
        'SELECT * FROM samples WHERE record_key = $1 ORDER BY row_index',
        [key],
      );
      assert.deepEqual(
        stored.map((r) => sampleRow(r)),
        expected,
      );
      // The columns hold what the row says.
      assert.deepEqual(
        stored.map((r) => [r.sample_id, r.score, r.is_correct, r.input_text]),
        expected.map((e: any) => [e.sample_id, e.evaluation.score, e.evaluation.is_correct, e.input.raw]),
      );
      // The 0.2.x records are stored migrated to 0.3.0, rows too.
      const versions = await s.all<{ v: string }>(
        `SELECT DISTINCT schema_version AS v FROM records UNION SELECT DISTINCT schema_version FROM samples`,
      );
      assert.deepEqual(
        versions.map((v) => v.v),
        ['0.3.0'],
      );
      // record_key is EEE check 10's fingerprint of the stored record.
      const raw = await s.all<{ record_key: string; raw: string }>('SELECT record_key, raw FROM records');
      for (const r of raw) assert.equal(r.record_key, recordFingerprint(JSON.parse(r.raw)));
      // Each η is kept beside its EEE mapping.
      const etas = await s.all<{ kind: string; origin_kind: string; n: number }>(
        `SELECT kind, origin_kind, count(*) AS n FROM documents JOIN records USING (record_key) GROUP BY ALL`,
      );
      assert.equal(etas.length, 1);
      assert.deepEqual(
        { kind: etas[0].kind, origin_kind: etas[0].origin_kind },
        { kind: 'infereval.evaluation', origin_kind: 'infereval' },
      );
      assert.equal(
        etas[0].n,
        result.items.filter((i) => i.status === 'added' && i.origin_kind === 'infereval').length,
      );
      const [{ rows: etaRows }] = await s.all<{ rows: number }>(
        `SELECT sum(sample_count)::INTEGER AS rows FROM records WHERE origin_kind = 'infereval'`,
      );
      assert.ok(etaRows > 0);
      // The views answer: models has one row per model_id with its count of records.
      const models = await s.all<{ model_id: string; records: number }>(
        'SELECT model_id, records FROM models ORDER BY model_id',
      );
      const direct = await s.all<{ model_id: string; records: number }>(
        'SELECT model_id, count(*) AS records FROM records GROUP BY model_id ORDER BY model_id',
      );
      assert.deepEqual(models, direct);
      assert.ok(models.some((m) => m.model_id === 'acme/tiny-model' && m.records === 2));
    },
    true,
  );

  // Idempotent: the same inputs again change nothing.
  const before = await tableCounts(db);
  const again = await withStore(db, (s) => ingestPaths(s, ['examples'], { cwd: projectRoot }));
  assert.equal(again.summary.records, 0);
  assert.equal(again.summary.skipped, added.length);
  assert.equal(again.summary.duplicates, 0);
  assert.deepEqual(await tableCounts(db), before);
});

test('splitting a row and rebuilding it gives the row back (nulls, several references and outputs, epochs)', () => {
  const row = {
    schema_version: '0.3.0',
    evaluation_id: 'e',
    model_id: 'm',
    evaluation_name: 'b',
    evaluation_result_id: null,
    sample_id: 's1',
    sample_hash: null,
    interaction_type: 'single_turn',
    input: { raw: 'q', reference: ['a', 'b'], formatted: null },
    output: { raw: ['x\ny', 'z'], reasoning_trace: null },
    answer_attribution: [],
    evaluation: { score: 0.25, is_correct: false },
    metadata: { epoch: '3' },
  };
  const c = splitSampleRow(row);
  assert.equal(c.reference_text, 'a\nb');
  assert.equal(c.output_text, 'x\ny\nz');
  assert.equal(c.epoch, 3);
  assert.equal(c.sample_hash, null);
  assert.deepEqual(sampleRow(c), row);
  const moved = splitSampleRow({ ...row, input: { raw: 'q', reference: ['a'] }, output: { raw: ['o'] } });
  assert.deepEqual(JSON.parse(moved.raw).input, {}, 'input.raw and a single reference move to columns');
  assert.deepEqual(JSON.parse(moved.raw).output, {});
});

test('a duplicate under another evaluation_id is reported and skipped, or stored with --allow-duplicates', async () => {
  const dir = join(temp, 'dup');
  cpSync(eeePair, dir, { recursive: true });
  const aggregate = JSON.parse(readFileSync(join(dir, `${UUID}.json`), 'utf8'));
  aggregate.evaluation_id = 'another-id';
  aggregate.retrieved_timestamp = '1800000000';
  writeFileSync(join(dir, `${UUID}.json`), JSON.stringify(aggregate, null, 2));
  const db = freshDb();
  await withStore(db, (s) => ingestPaths(s, [eeePair]));
  const dup = await withStore(db, (s) => ingestPaths(s, [dir]));
  assert.equal(dup.summary.records, 0);
  assert.equal(dup.summary.duplicates, 1);
  assert.equal(dup.items[0].duplicate_of, 'demo-bench/acme/tiny-model-1b/2026-05-01');
  const warning = dup.diagnostics.find(
    (d) => d.code === 'store.duplicate-record' && d.severity === 'warning',
  );
  assert.ok(warning);
  // The library names no flag; the CLI's line adds the one that acts on it.
  assert.doesNotMatch(warning.message, /--/);
  assert.match(diagnosticLine(warning), /skipped \(--allow-duplicates stores it\)/);

  const allowed = await withStore(db, (s) => ingestPaths(s, [dir], { allowDuplicates: true }));
  assert.equal(allowed.summary.records, 1);
  assert.equal(allowed.summary.rows, 3);
  const content = recordFingerprint(aggregate);
  const expectedKey = createHash('sha256').update(`${content}\nanother-id`).digest('hex');
  await withStore(
    db,
    async (s) => {
      const rows = await s.all<{ record_key: string; content_hash: string; evaluation_id: string }>(
        'SELECT record_key, content_hash, evaluation_id FROM records ORDER BY evaluation_id',
      );
      assert.deepEqual(rows, [
        { record_key: expectedKey, content_hash: content, evaluation_id: 'another-id' },
        {
          record_key: content,
          content_hash: content,
          evaluation_id: 'demo-bench/acme/tiny-model-1b/2026-05-01',
        },
      ]);
    },
    true,
  );
  // And the allowed duplicate is itself idempotent.
  const third = await withStore(db, (s) => ingestPaths(s, [dir], { allowDuplicates: true }));
  assert.equal(third.summary.records, 0);
  assert.equal(third.summary.skipped, 1);
});

test('a record whose rows are invalid is rejected whole: no record, no rows, diagnostics with line numbers', async () => {
  const dir = join(temp, 'bad-rows', 'data', 'demo-bench', 'acme', 'tiny-model-1b');
  cpSync(eeePair, dir, { recursive: true });
  const samples = join(dir, `${UUID}_samples.jsonl`);
  const rows = readFileSync(samples, 'utf8').split('\n');
  rows[1] = rows[1].replace('"score":0', '"score":"zero"');
  writeFileSync(samples, rows.join('\n'));
  const db = freshDb();
  const result = await withStore(db, (s) => ingestPaths(s, [join(temp, 'bad-rows')]));
  assert.equal(result.summary.rejected, 1);
  assert.equal(result.summary.records, 0);
  const errors = result.diagnostics.filter((d) => d.severity === 'error');
  assert.ok(
    errors.some(
      (d) => d.file.endsWith('_samples.jsonl') && d.line === 2 && d.pointer === '/evaluation/score',
    ),
  );
  // The checksum no longer matches either (a datastore check): reported too.
  assert.ok(
    errors.some((d) => d.code === 'eee.checksum'),
    JSON.stringify(errors.map((d) => d.code)),
  );
  assert.deepEqual(await tableCounts(db), { records: 0, results: 0, samples: 0, documents: 0 });
});

test(
  'the reference EEE records: every valid one stored, each with all of its rows',
  { skip: skipWithoutReference('eee/records') },
  async () => {
    const db = freshDb();
    const result = await withStore(db, (s) => ingestPaths(s, [reference('eee/records')!]));
    assert.ok(result.summary.records > 300, `only ${result.summary.records} records`);
    // Every rejected record has an error diagnostic or a reason; every stored one has no error.
    for (const item of result.items.filter((i) => i.status === 'rejected'))
      assert.ok(
        item.reason || result.diagnostics.some((d) => d.severity === 'error' && d.file === item.source),
      );
    const stored = new Set(result.items.filter((i) => i.status === 'added').map((i) => i.source));
    assert.ok(!result.diagnostics.some((d) => d.severity === 'error' && stored.has(d.file)));
    await withStore(
      db,
      async (s) => {
        const bad = await s.all(
          `SELECT record_key FROM records r WHERE sample_count <> (SELECT count(*) FROM samples x WHERE x.record_key = r.record_key)`,
        );
        assert.deepEqual(bad, []);
        const [{ n }] = await s.all<{ n: number }>(
          'SELECT count(*) AS n FROM results WHERE record_key NOT IN (SELECT record_key FROM records)',
        );
        assert.equal(n, 0);
      },
      true,
    );
    const again = await withStore(db, (s) => ingestPaths(s, [reference('eee/records')!]));
    assert.equal(again.summary.records, 0);
    assert.equal(again.summary.skipped, result.summary.records);
  },
);

test('docs/store.md documents every column of every table, as the schema does', () => {
  const readme = readFileSync(join(projectRoot, 'docs', 'store.md'), 'utf8');
  for (const table of STORE_TABLES) {
    const at = readme.indexOf(`**${table}**\n`);
    assert.ok(at >= 0, `docs/store.md has no table ${table}`);
    for (const c of tableColumns(table)) {
      assert.ok(c.description !== '', `${table}.${c.name} has no description in schema.ts`);
      const row = `| \`${c.name}\` | ${c.type} | ${c.description.replace(/\|/g, '\\|')} |`;
      assert.ok(readme.indexOf(row, at) > at, `docs/store.md lacks ${row}`);
    }
  }
});

test(
  'other tools’ outputs through the converters: stored with their rows, idempotent',
  { skip: skipWithoutReference('peers/lm-eval-harness') },
  async () => {
    const db = freshDb();
    const path = reference('peers/lm-eval-harness')!;
    const first = await withStore(db, (s) => ingestPaths(s, [path]));
    assert.equal(first.summary.rejected, 0, JSON.stringify(first.items));
    assert.equal(first.summary.records, 1);
    const samplesFile = readdirSync(path).find((f) => f.startsWith('samples_'))!;
    assert.equal(first.summary.rows, lines(join(path, samplesFile)).length);
    await withStore(
      db,
      async (s) => {
        const [r] = await s.all<{ origin_kind: string; raw: string; sample_count: number }>(
          'SELECT origin_kind, raw, sample_count FROM records',
        );
        assert.equal(r.origin_kind, 'lm-eval');
        // The aggregate is completed as `evalkit convert` writes it: total_rows and the rows' checksum.
        const der = JSON.parse(r.raw).detailed_evaluation_results;
        assert.equal(der.total_rows, r.sample_count);
        // The same record written to files by `evalkit convert`'s writer has the same checksum and row count.
        const root = join(temp, 'converted');
        for await (const item of convertPaths([path])) {
          if (isConvertFailure(item)) throw item.error;
          const written = await writeConverted(item, root);
          assert.equal(written.checksum, der.checksum);
          assert.equal(written.totalRows, der.total_rows);
        }
      },
      true,
    );
    const again = await withStore(db, (s) => ingestPaths(s, [path]));
    assert.equal(again.summary.records, 0);
    assert.equal(again.summary.skipped, 1);
  },
);

test('DuckDB splits a JSONL file into the samples columns exactly as splitSampleRow does', async () => {
  const base = {
    schema_version: '0.3.0',
    evaluation_id: 'e',
    model_id: 'm',
    evaluation_name: 'b',
    sample_id: 's',
    interaction_type: 'single_turn',
    answer_attribution: [],
    evaluation: { score: 1, is_correct: true },
  };
  const rows: Record<string, unknown>[] = [
    {
      ...base,
      input: { raw: 'q', reference: ['a'] },
      output: { raw: ['o'] },
      sample_hash: 'h',
      evaluation_result_id: 'r',
    },
    {
      ...base,
      input: { raw: 'q', reference: ['a', 'b\nc'], formatted: null },
      output: { raw: ['x', 'y'], reasoning_trace: null },
      sample_hash: null,
      evaluation_result_id: null,
      metadata: { epoch: '7' },
    },
    {
      ...base,
      input: { raw: 'q', reference: [] },
      output: null,
      messages: [
        { turn_idx: 0, role: 'user', content: 'u' },
        { turn_idx: 1, role: 'assistant', content: 'first' },
        { turn_idx: 2, role: 'assistant', content: null },
        { turn_idx: 3, role: 'assistant', content: 'last "quoted" ünï 数学' },
      ],
      evaluation: { score: 0.125, is_correct: false, num_turns: 4 },
      metadata: { epoch: 'x' },
    },
    // An agent that ended with submit: its answer is the stated final answer, not the empty last message.
    {
      ...base,
      interaction_type: 'agentic',
      input: { raw: 'q', reference: ['42'] },
      output: null,
      messages: [
        { turn_idx: 0, role: 'user', content: 'u' },
        { turn_idx: 1, role: 'assistant', content: 'thinking' },
        {
          turn_idx: 2,
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'c', name: 'submit', arguments: '{}' }],
        },
      ],
      metadata: { final_answer: '42' },
    },
    // Without it: the last assistant message with text.
    {
      ...base,
      interaction_type: 'agentic',
      input: { raw: 'q' },
      output: null,
      messages: [
        { turn_idx: 0, role: 'assistant', content: 'thinking' },
        { turn_idx: 1, role: 'assistant', content: '' },
      ],
      metadata: { final_answer: 7 },
    },
    {
      ...base,
      input: { raw: 'q', reference: ['a'], choices: ['1', '2'] },
      output: { raw: [] },
      evaluation: { score: -2.5e-7, is_correct: false },
      token_usage: { input_tokens: 10 },
    },
    // A row that says its value is missing keeps its placeholder evaluation in the rest: no score column.
    {
      ...base,
      input: { raw: 'q' },
      evaluation: { score: 0, is_correct: false },
      metadata: { score_missing: 'true' },
    },
    // Only the string "true" says so.
    {
      ...base,
      input: { raw: 'q' },
      evaluation: { score: 0, is_correct: false },
      metadata: { score_missing: true },
    },
    // A reference of one string and a null is no one-string array; numeric epochs (whole, fractional, too large); a
    // score beyond 64-bit integers; an output whose raw is a string, not an array.
    {
      ...base,
      input: { raw: 'q', reference: ['a', null] },
      output: { raw: 'o' },
      evaluation: { score: 12345678901234567890, is_correct: true },
      metadata: { epoch: 4 },
    },
    { ...base, input: { raw: 'q', reference: [['a']] }, metadata: { epoch: 2.5 } },
    { ...base, input: { raw: 'q', reference: ['a'] }, metadata: { epoch: 1e10 } },
  ];
  const file = join(temp, 'tricky.jsonl');
  writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  await withStore(freshDb(), async (s) => {
    await s.connection.run(INSERT_SAMPLES_FROM_JSONL_SQL, ['k', file]);
    const got = await s.all<Record<string, unknown>>('SELECT * FROM samples ORDER BY row_index');
    const whole = await s.all<{ raw: string }>('SELECT raw FROM sample_rows ORDER BY row_index');
    rows.forEach((row, i) => {
      const expected = splitSampleRow(row);
      const { raw, ...columns } = got[i];
      assert.deepEqual(JSON.parse(raw as string), JSON.parse(expected.raw), `rest of row ${i}`);
      for (const [k, v] of Object.entries(expected))
        if (k !== 'raw') assert.deepEqual(columns[k], v, `${k} of row ${i}`);
      assert.equal(columns.row_index, i);
      assert.deepEqual(JSON.parse(whole[i].raw), row);
    });
    assert.deepEqual(
      got.slice(-5, -3).map((r) => [r.score, r.is_correct]),
      [
        [null, null],
        [0, false],
      ],
    );
  });
});

test("an agentic row's answer (output null): metadata.final_answer, else the last assistant text; the row rebuilds", () => {
  const messages = [
    { turn_idx: 0, role: 'user', content: 'What is 6 × 7?' },
    {
      turn_idx: 1,
      role: 'assistant',
      content: 'Let me compute.',
      tool_calls: [{ id: 'c1', name: 'calculator', arguments: '{}' }],
    },
    { turn_idx: 2, role: 'tool', content: '42', tool_call_id: 'c1' },
    {
      turn_idx: 3,
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'c2', name: 'submit', arguments: '{"answer":"42"}' }],
    },
  ];
  const row = {
    schema_version: '0.3.0',
    evaluation_id: 'e',
    model_id: 'm',
    evaluation_name: 'b',
    sample_id: 's1',
    interaction_type: 'agentic',
    input: { raw: 'What is 6 × 7?', reference: ['42'] },
    output: null,
    messages,
    evaluation: { score: 1, is_correct: true },
    metadata: { final_answer: '42' },
  };
  const c = splitSampleRow(row);
  assert.equal(c.output_text, '42', 'the answer submit was given');
  assert.deepEqual(sampleRow(c), row);
  // Without the stated answer: the last assistant message that has text (the submit turn has none).
  assert.equal(splitSampleRow({ ...row, metadata: {} }).output_text, 'Let me compute.');
});
