import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DataError } from '../../src/errors.js';
import { ZipReader } from '../../src/io/zip.js';
import { inspectSource } from '../../src/convert/sources/inspect.js';
import { probePath } from '../../src/convert/registry.js';
import { buildZip, type ZipMember } from '../helpers/zip-writer.js';
import { reference, skipWithoutReference } from '../helpers/shared.js';
import {
  assertUpstreamValid,
  assertValidTree,
  convertInto,
  filesUnder,
  resultById,
  resultOf,
  withRoot,
  type Obj,
} from './sources-helpers.js';

const REF = 'peers-wild/inspect_ai';

async function referenceLogs(): Promise<string[]> {
  const out = [
    reference('peers/inspect_ai/log_read_sample.eval')!,
    reference('peers/inspect_ai/log_read_sample.json')!,
  ];
  for (const dir of (await readdir(reference(REF)!)).sort())
    for (const f of (await readdir(join(reference(REF)!, dir))).sort())
      out.push(join(reference(REF)!, dir, f));
  return out;
}

/** The log's header, samples and reductions, read here without the converter. */
async function readLogDirectly(path: string): Promise<{ header: Obj; samples: Obj[]; reductions: Obj[] }> {
  if (path.endsWith('.json')) {
    const doc = JSON.parse(await readFile(path, 'utf8'));
    return { header: doc, samples: doc.samples ?? [], reductions: doc.reductions ?? [] };
  }
  const zip = await ZipReader.open(path);
  try {
    const json = async (name: string) => JSON.parse(await zip.readText(zip.entry(name)!));
    const samples = [];
    for (const e of zip.uniqueEntries()) if (e.name.startsWith('samples/')) samples.push(await json(e.name));
    return {
      header: await json('header.json'),
      samples,
      reductions: zip.entry('reductions.json') ? await json('reductions.json') : [],
    };
  } finally {
    await zip.close();
  }
}

test(
  'every Inspect log of the reference converts: valid, scores exact, one row per sample × epoch × scorer, same bytes twice',
  { skip: skipWithoutReference(REF) },
  async (t) => {
    const logs = await referenceLogs();
    assert.equal(logs.length, 8);
    for (const path of logs) {
      const probe = await probePath(path);
      assert.ok(inspectSource.detect(probe), `detected: ${path}`);
      await withRoot(async (root) => {
        const [w, ...more] = await convertInto(root, [path]);
        assert.equal(more.length, 0);
        const { header, samples } = await readLogDirectly(path);
        // Scores: every finite metric of every scorer is a result (or the uncertainty of the scorer's mean).
        const scores: Obj[] = header.results.scores ?? [
          { name: header.results.scorer.name, metrics: header.results.metrics },
        ];
        const multiReducer = new Set(scores.map((s) => s.name)).size < scores.length;
        let scorersWithRows = 0;
        for (const s of scores) {
          const prefix = [s.name, ...(multiReducer && s.reducer ? [s.reducer] : [])].join('/');
          const hasMean = Object.keys(s.metrics).some((k) => k === 'accuracy' || k === 'mean');
          for (const [key, m] of Object.entries<Obj>(s.metrics)) {
            if (['stderr', 'bootstrap_stderr', 'std'].includes(key) && hasMean) {
              const mean = resultById(
                w.aggregate,
                `${prefix}/${Object.keys(s.metrics).find((k) => k === 'accuracy' || k === 'mean')}`,
              );
              if (key === 'stderr')
                assert.equal(mean.score_details.uncertainty.standard_error.value, m.value);
              continue;
            }
            assert.equal(
              resultById(w.aggregate, `${prefix}/${key}`).score_details.score,
              m.value,
              `${path} ${prefix}/${key}`,
            );
          }
          scorersWithRows++;
        }
        // Rows: samples (each one epoch) × scorers.
        assert.equal(w.rows.length, samples.length * scorersWithRows, path);
        assert.equal(w.aggregate.detailed_evaluation_results.total_rows, w.rows.length);
        const ids = new Set(w.rows.map((r) => r.sample_id));
        assert.equal(ids.size, w.rows.length, 'sample_id unique');
        for (const r of w.rows) resultOf(w.aggregate, r);
        // Each row's score is the sample's own (C → 1, I → 0, numbers as they are).
        const sampleBy = new Map(samples.map((s) => [`${s.id}:${s.epoch}`, s]));
        for (const r of w.rows) {
          const s = sampleBy.get(`${r.metadata.inspect_sample_id}:${r.metadata.epoch}`)!;
          const value = (s.scores ?? { x: s.score })[r.metadata.scorer]?.value ?? s.score?.value;
          const expected = value === 'C' ? 1 : value === 'I' ? 0 : value;
          assert.equal(r.evaluation.score, expected, `${path} ${r.sample_id}`);
        }
        await assertUpstreamValid(t, [w]);
        await assertValidTree(root);
        // Deterministic: converting again gives the same bytes at the same place.
        await withRoot(async (root2) => {
          const [again] = await convertInto(root2, [path]);
          assert.equal(again.record.aggregatePath, w.record.aggregatePath);
          assert.equal(again.bytes, w.bytes);
        });
      });
    }
  },
);

const REF2 = 'peers-wild-2/inspect_ai';

/** An R-written log boxes every scalar in a one-element array; the value itself is what the row must carry. */
const unbox = (v: unknown): unknown => (Array.isArray(v) && v.length === 1 ? unbox(v[0]) : v);

test(
  'every Inspect log of peers-wild-2 converts: valid, a row only where a sample has a value, each its own, same bytes twice',
  { skip: skipWithoutReference(REF2) },
  async (t) => {
    const logs: string[] = [];
    for (const dir of (await readdir(reference(REF2)!)).sort())
      for (const f of (await readdir(join(reference(REF2)!, dir))).sort())
        logs.push(join(reference(REF2)!, dir, f));
    assert.equal(logs.length, 6);
    for (const path of logs) {
      await withRoot(async (root) => {
        const [w, ...more] = await convertInto(root, [path]);
        assert.equal(more.length, 0, path);
        const { samples } = await readLogDirectly(path);
        const sampleBy = new Map(samples.map((s) => [`${unbox(s.id)}:${unbox(s.epoch)}`, s]));
        const scorers = new Set(samples.flatMap((s) => Object.keys(s.scores ?? {})));
        // At most one row per sample × epoch × scorer: a sample without a value for a scorer has no row for it.
        assert.ok(w.rows.length <= samples.length * Math.max(scorers.size, 1), path);
        if (scorers.size === 0) assert.equal(w.rows.length, 0, `${path}: a log without scores has no rows`);
        assert.equal(
          new Set(w.rows.map((r) => r.sample_id)).size,
          w.rows.length,
          `${path}: sample_id unique`,
        );
        let checked = 0;
        for (const r of w.rows) {
          resultOf(w.aggregate, r);
          const s = sampleBy.get(`${r.metadata.inspect_sample_id}:${r.metadata.epoch}`);
          assert.ok(s, `${path} ${r.sample_id}: a row of a sample the log holds`);
          const value = unbox((s.scores ?? {})[r.metadata.scorer]?.value);
          // Inspect's grades as numbers (its value_to_float): correct, incorrect, partial, no answer.
          const expected = typeof value === 'string' ? { C: 1, I: 0, P: 0.5, N: 0 }[value] : value;
          assert.equal(
            typeof expected,
            'number',
            `${path} ${r.sample_id}: a row where the sample has a value`,
          );
          assert.equal(r.evaluation.score, expected, `${path} ${r.sample_id}`);
          checked++;
        }
        assert.equal(checked, w.rows.length, path);
        await assertUpstreamValid(t, [w]);
        await assertValidTree(root);
        await withRoot(async (root2) => {
          const [again] = await convertInto(root2, [path]);
          assert.equal(again.bytes, w.bytes, `${path}: the same bytes twice`);
        });
      });
    }
  },
);

test(
  'the cancelled run says it did not finish; epochs, tool calls and grader models come through',
  { skip: skipWithoutReference(REF) },
  async () => {
    await withRoot(async (root) => {
      const written = await convertInto(root, [reference(REF)!]);
      assert.equal(written.length, 6);
      const by = (part: string) => written.find((w) => w.record.sourcePath.includes(part))!;
      const cancelled = by('cancelled');
      assert.match(cancelled.record.notes.join(' '), /did not finish \(status cancelled\)/);
      assert.equal(cancelled.aggregate.source_metadata.additional_details.status, 'cancelled');
      assert.equal(cancelled.aggregate.evaluation_results[0].score_details.details.run_status, 'cancelled');

      const epochs = by('streaming-epochs');
      assert.equal(epochs.rows.length, 4);
      assert.deepEqual(epochs.rows.map((r) => r.sample_id).sort(), [
        '1#epoch1',
        '1#epoch2',
        '2#epoch1',
        '2#epoch2',
      ]);
      // reductions.json: sample 1 reduced to 0.5 over its two epochs (I then C), sample 2 to 1.0.
      const reduced = Object.fromEntries(epochs.rows.map((r) => [r.sample_id, r.metadata.reduced_value]));
      assert.equal(reduced['1#epoch1'], '0.5');
      assert.equal(reduced['2#epoch2'], '1');

      const tools = by('zstd');
      assert.ok(tools.rows.every((r) => r.interaction_type === 'agentic' && r.output === undefined));
      const withCalls = tools.rows[0].messages.filter((m: Obj) => m.tool_calls);
      assert.equal(withCalls[0].tool_calls[0].name, 'fetch_url');
      assert.equal(
        withCalls[0].tool_calls[0].arguments.url,
        'https://eastharbourtruth.org/exclusive-water-scandal',
      );
      assert.ok(tools.rows[0].evaluation.tool_calls_count >= 1);
      assert.equal(tools.rows[0].token_usage.input_tokens, 1903);
      assert.equal(tools.rows[0].token_usage.reasoning_tokens, 585);
      const judge = tools.aggregate.evaluation_results[0].metric_config.llm_scoring.judges[0].model_info;
      assert.equal(judge.id, 'deepseek/deepseek-v4-flash');
      assert.match(
        tools.aggregate.evaluation_results[0].metric_config.llm_scoring.input_prompt,
        /epistemic discipline/,
      );

      const reducers = by('two-reducers');
      assert.deepEqual(
        reducers.aggregate.evaluation_results.map((r: Obj) => r.evaluation_result_id),
        ['dollar_sign_scorer/mean/accuracy', 'dollar_sign_scorer/pass_at_1/accuracy'],
      );
      assert.equal(reducers.rows.length, 60);
    });
  },
);

// ---------------------------------------------------------------------------------------------------------------
// A generated .eval: deflate and zstd members, 2 epochs, 2 scorers, tools, an error, a lost score.

const sampleMessages = (id: number, epoch: number): Obj[] => {
  if (id === 3 && epoch === 1)
    // A call that failed: Inspect leaves the result empty and says why in its error.
    return [
      { role: 'user', content: 'list files' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 'c1', function: 'bash', arguments: { cmd: 'ls' } },
          { id: 'c2', function: 'bash', arguments: { cmd: 'sleep 99' } },
        ],
      },
      { role: 'tool', content: 'a\nb', tool_call_id: 'c1', function: 'bash', error: null },
      {
        role: 'tool',
        content: '',
        tool_call_id: 'c2',
        function: 'bash',
        error: { type: 'timeout', message: 'Command timed out before completing.' },
      },
      { role: 'assistant', content: 'a and b' },
    ];
  if (id === 3)
    return [
      { role: 'user', content: 'list files' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'c1', function: 'bash', arguments: { cmd: 'ls', n: 2 } }],
      },
      { role: 'tool', content: 'a\nb', tool_call_id: 'c1', function: 'bash' },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', reasoning: 'two files' },
          { type: 'text', text: 'a and b' },
        ],
      },
    ];
  if (id === 2)
    return [
      { role: 'user', content: `q${id}` },
      { role: 'assistant', content: 'first' },
      { role: 'user', content: 'are you sure?' },
      { role: 'assistant', content: `final ${epoch}` },
    ];
  return [
    { role: 'user', content: `q${id}` },
    { role: 'assistant', content: `answer ${id}` },
  ];
};

function generatedEval(options: { withHeader?: boolean } = {}): ZipMember[] {
  const spec = {
    eval_id: 'E1',
    run_id: 'R1',
    task_id: 'T1',
    created: '2026-01-02T03:04:05+00:00',
    task: 'demo_task',
    dataset: {
      name: 'demo',
      location: 'https://example.org/demo.jsonl',
      samples: 4,
      sample_ids: [1, 2, 3, 4],
    },
    model: 'anthropic/claude-3-5-haiku',
    model_roles: { grader: { model: 'openai/gpt-4o', config: { temperature: 0 } } },
    config: { epochs: 2, epochs_reducer: ['mean'], message_limit: 10 },
    packages: { inspect_ai: '0.3.150' },
    scorers: [
      { name: 'match', options: {} },
      { name: 'judge', options: { model_role: 'grader', template: 'Grade {answer}' } },
    ],
  };
  const members: ZipMember[] = [
    {
      name: '_journal/start.json',
      data: JSON.stringify({
        version: 2,
        eval: spec,
        plan: {
          name: 'plan',
          steps: [
            { solver: 'use_tools', params: { tools: [{ name: 'bash', params: {} }] } },
            { solver: 'generate', params: {} },
          ],
          config: { temperature: 0.5, max_tokens: 64 },
        },
      }),
      method: 93,
    },
  ];
  const matchValue: Record<string, string> = {
    '1:1': 'C',
    '1:2': 'I',
    '2:1': 'C',
    '2:2': 'C',
    '3:1': 'I',
    '3:2': 'C',
  };
  for (const id of [1, 2, 3])
    for (const epoch of [1, 2]) {
      const sample: Obj = {
        id,
        epoch,
        input: `q${id}`,
        target: id === 3 ? ['a', 'b'] : `t${id}`,
        messages: sampleMessages(id, epoch),
        output: {
          model: 'claude',
          choices: [{ message: { role: 'assistant', content: `answer ${id}` } }],
          completion: `answer ${id}`,
        },
        scores: {
          match: { value: matchValue[`${id}:${epoch}`], answer: `answer ${id}`, explanation: 'matched' },
          // sample 2 epoch 2 has no judge score (scorer error); the others a number
          ...(id === 2 && epoch === 2 ? {} : { judge: { value: 0.25 * id, explanation: 'graded' } }),
        },
        metadata: { difficulty: id, tags: ['x'] },
        model_usage: {
          'anthropic/claude-3-5-haiku': { input_tokens: 10 * id, output_tokens: id, total_tokens: 11 * id },
        },
        total_time: 1.5,
        events: [{ event: 'model' }],
        attachments: {},
        ...(id === 2 && epoch === 2 ? { error: { message: 'grader timed out', traceback: '...' } } : {}),
      };
      members.push({
        name: `samples/${id}_epoch_${epoch}.json`,
        data: JSON.stringify(sample),
        method: epoch === 1 ? 8 : 93,
      });
    }
  // sample 4: scored (reductions) but its transcript is not in the log
  members.push({
    name: 'reductions.json',
    data: JSON.stringify([
      {
        scorer: 'match',
        samples: [
          { sample_id: 1, value: 0.5 },
          { sample_id: 2, value: 1 },
          { sample_id: 3, value: 0.5 },
          { sample_id: 4, value: 1, answer: 'four' },
        ],
      },
      {
        scorer: 'judge',
        samples: [
          { sample_id: 1, value: 0.25 },
          { sample_id: 2, value: 0.5 },
          { sample_id: 3, value: 0.75 },
          { sample_id: 4, value: 1 },
        ],
      },
    ]),
  });
  if (options.withHeader !== false)
    members.push({
      name: 'header.json',
      // Python's json.dumps writes NaN: the std of a single value
      data: JSON.stringify({
        version: 2,
        status: 'success',
        eval: spec,
        plan: { name: 'plan', steps: [], config: {} },
        results: {
          total_samples: 8,
          completed_samples: 8,
          scores: [
            {
              name: 'match',
              scorer: 'match',
              scored_samples: 4,
              metrics: {
                accuracy: { name: 'accuracy', value: 0.75 },
                stderr: { name: 'stderr', value: 0.125 },
                bootstrap_stderr: { name: 'bootstrap_stderr', value: 0.13, params: { num_samples: 1000 } },
              },
            },
            {
              name: 'judge',
              scorer: 'judge',
              metrics: { mean: { name: 'mean', value: 0.625 }, std: { name: 'std', value: '__NAN__' } },
            },
          ],
        },
        stats: { started_at: '2026-01-02T03:04:05+00:00', completed_at: '2026-01-02T03:05:00+00:00' },
      }).replace('"__NAN__"', 'NaN'),
      method: 8,
    });
  return members;
}

test('a generated .eval (deflate + zstd members, epochs, two scorers, tools, an error, a score only in reductions)', async (t) => {
  await withRoot(async (root) => {
    const path = join(root, 'demo.eval');
    await writeFile(path, buildZip(generatedEval()));
    const [w] = await convertInto(join(root, 'out'), [path]);
    const match = resultById(w.aggregate, 'match/accuracy');
    assert.equal(match.score_details.score, 0.75);
    assert.deepEqual(match.score_details.uncertainty.standard_error, {
      value: 0.13,
      method: 'bootstrap (Inspect bootstrap_stderr metric)',
    });
    assert.equal(match.score_details.uncertainty.num_bootstrap_samples, 1000);
    assert.equal(match.score_details.details.inspect_stderr, '0.125');
    const judge = resultById(w.aggregate, 'judge/mean');
    assert.equal(judge.score_details.score, 0.625);
    assert.equal(judge.score_details.uncertainty, undefined, 'NaN std is not an uncertainty');
    assert.equal(judge.metric_config.llm_scoring.judges[0].model_info.id, 'openai/gpt-4o');
    assert.equal(judge.metric_config.llm_scoring.judges[0].temperature, 0);
    assert.equal(judge.metric_config.llm_scoring.input_prompt, 'Grade {answer}');
    assert.equal(w.aggregate.model_info.additional_details.deployment_type, 'externally_managed');
    assert.equal(w.aggregate.model_info.additional_details.model_availability, 'closed_weights');
    assert.equal(match.source_data.source_type, 'url');
    // 3 samples × 2 epochs × 2 scorers, plus sample 4 from the reductions for each scorer, less the one score
    // the grader never gave (no row is made up for it).
    assert.equal(w.rows.length, 3 * 2 * 2 + 2 - 1);
    const row = (id: string) => w.rows.find((r) => r.sample_id === id)!;
    assert.equal(row('1#epoch2@match/accuracy').evaluation.score, 0);
    assert.equal(row('1#epoch2@match/accuracy').metadata.reduced_value, '0.5');
    assert.equal(row('1#epoch1@match/accuracy').interaction_type, 'single_turn');
    assert.deepEqual(row('1#epoch1@match/accuracy').output.raw, ['answer 1']);
    assert.equal(row('2#epoch1@judge/mean').interaction_type, 'multi_turn');
    assert.equal(row('2#epoch1@judge/mean').evaluation.num_turns, 2);
    const agentic = row('3#epoch2@match/accuracy');
    assert.equal(agentic.interaction_type, 'agentic');
    assert.equal(agentic.evaluation.tool_calls_count, 1);
    assert.deepEqual(agentic.messages[1].tool_calls, [
      { id: 'c1', name: 'bash', arguments: { cmd: 'ls', n: '2' } },
    ]);
    assert.deepEqual(agentic.messages[2].tool_call_id, ['c1']);
    assert.equal(agentic.messages[3].reasoning_trace, 'two files');
    assert.equal(agentic.messages[2].error, undefined, 'a result without an error has none');
    // A failed call's result keeps Inspect's error (type: message), as evalkit run's rows keep theirs.
    const failed = row('3#epoch1@match/accuracy');
    assert.equal(failed.evaluation.tool_calls_count, 2);
    assert.deepEqual(failed.messages[2].error, undefined);
    assert.deepEqual(failed.messages[3], {
      turn_idx: 3,
      role: 'tool',
      content: '',
      tool_call_id: ['c2'],
      error: 'timeout: Command timed out before completing.',
    });
    assert.deepEqual(agentic.input.reference, ['a', 'b']);
    assert.equal(row('2#epoch2@judge/mean'), undefined, 'an unscored sample is no row, never a wrong 0');
    assert.equal(row('2#epoch2@match/accuracy').error, 'grader timed out');
    assert.ok(
      w.record.fields.some(
        (f) =>
          f.fate === 'not-mapped' && /1 score\(s\) without a row: the sample holds no score/.test(f.reason!),
      ),
    );
    const lost = row('4#reduced@match/accuracy');
    assert.equal(lost.evaluation.score, 1);
    assert.match(lost.metadata.score_source, /reductions/);
    assert.equal(row('4#reduced@judge/mean').evaluation.score, 1);
    assert.equal(row('3#epoch1@judge/mean').token_usage.total_tokens, 33);
    assert.match(w.record.notes.join(' '), /no numeric value/);
    await assertUpstreamValid(t, [w]);
    await assertValidTree(join(root, 'out'));
  });
});

test('an unfinished .eval (journal only, no header) converts what is there and says so', async (t) => {
  await withRoot(async (root) => {
    const path = join(root, 'running.eval');
    await writeFile(
      path,
      buildZip(generatedEval({ withHeader: false }).filter((m) => m.name !== 'reductions.json')),
    );
    const [w] = await convertInto(join(root, 'out'), [path]);
    assert.match(w.record.notes.join(' '), /did not finish \(status started, no final header/);
    // match: C,I,C,C,I,C → 4/6; judge: 0.25,0.25,0.5,0.75,0.75 (one missing) → 2.5/5
    assert.equal(resultById(w.aggregate, 'match/mean').score_details.score, 4 / 6);
    assert.equal(resultById(w.aggregate, 'judge/mean').score_details.score, 0.5);
    assert.equal(resultById(w.aggregate, 'judge/mean').score_details.details.computed_by, 'evalkit');
    assert.equal(w.rows.length, 11, 'the missing judge score is no row');
    await assertUpstreamValid(t, [w]);
    await assertValidTree(join(root, 'out'));
  });
});

test('a truncated archive, a corrupted member and broken JSON fail with file and member, writing nothing', async () => {
  await withRoot(async (root) => {
    const good = buildZip(generatedEval());
    const out = join(root, 'out');
    const cases: [string, Buffer | string, RegExp][] = [
      [
        'truncated.eval',
        good.subarray(0, good.length - 100),
        /truncated\.eval: .*(end-of-central-directory|truncated)/,
      ],
      [
        'badjson.eval',
        buildZip(
          generatedEval().map((m) =>
            m.name === 'samples/2_epoch_1.json' ? { ...m, data: '{"id": 2, "epoch": 1,' } : m,
          ),
        ),
        /badjson\.eval: member samples\/2_epoch_1\.json: line 1 column \d+/,
      ],
      [
        'broken.json',
        '{"version": 2, "status": "success", "eval": {"run_id": "x", "task": "t"',
        /broken\.json: line 1 column \d+/,
      ],
    ];
    // A corrupted deflate member: flip a byte in its data.
    const corrupt = Buffer.from(good);
    const name = Buffer.from('samples/3_epoch_1.json');
    const at = corrupt.indexOf(name) + name.length + 5;
    corrupt[at] ^= 0xff;
    cases.push(['corrupt.eval', corrupt, /corrupt\.eval: member samples\/3_epoch_1\.json: /]);
    for (const [file, data, pattern] of cases) {
      const path = join(root, file);
      await writeFile(path, data);
      await assert.rejects(
        convertInto(out, [path], { from: 'inspect' }),
        (error: unknown) => {
          assert.ok(error instanceof DataError, `${file}: ${String(error)}`);
          assert.match(error.message, pattern);
          return true;
        },
        file,
      );
    }
    assert.deepEqual(
      await filesUnder(root).then((f) => f.filter((p) => p.startsWith(out))),
      [],
      'no partial record',
    );
  });
});

test('the same run as .eval and as .json in one folder is one record', async () => {
  await withRoot(async (root) => {
    const members = generatedEval();
    const json = (name: string) =>
      JSON.parse(String(members.find((m) => m.name === name)!.data).replace('NaN', 'null'));
    const log = {
      ...json('header.json'),
      samples: members.filter((m) => m.name.startsWith('samples/')).map((m) => JSON.parse(String(m.data))),
      reductions: json('reductions.json'),
    };
    const logs = join(root, 'logs');
    await mkdir(logs);
    await writeFile(join(logs, 'run.eval'), buildZip(members));
    await writeFile(join(logs, 'run.json'), JSON.stringify(log));
    const written = await convertInto(join(root, 'out'), [logs]);
    assert.equal(written.length, 1);
    assert.equal(written[0].rows.length, 13);
  });
});
