import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DataError } from '../../src/errors.js';
import { promptfooSource } from '../../src/convert/sources/promptfoo.js';
import { probePath } from '../../src/convert/registry.js';
import { reference, skipWithoutReference, wildRunFolders } from '../helpers/shared.js';
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

async function referenceFiles(): Promise<string[]> {
  const out = [reference('peers/promptfoo/sample-export.trimmed.json')!];
  for (const d of wildRunFolders('promptfoo')) for (const f of await readdir(d)) out.push(join(d, f));
  return out;
}

/** A row per test result (under the test pass rate) and one per assertion. */
const rowsExpected = (results: Obj[]) =>
  results.reduce((n, r) => n + 1 + (r.gradingResult?.componentResults?.length ?? 0), 0);

test(
  'every promptfoo file of the reference converts: one record per provider and prompt, figures from its summaries, rows per test × assertion',
  { skip: skipWithoutReference('peers-wild/promptfoo') },
  async (t) => {
    for (const path of await referenceFiles()) {
      assert.ok(promptfooSource.detect(await probePath(path)), path);
      await withRoot(async (root) => {
        const written = await convertInto(root, [path]);
        const file = JSON.parse(await readFile(path, 'utf8'));
        // The Node API's output is the results object itself.
        const doc = Array.isArray(file.results) ? { results: file } : file;
        const summaries: Obj[] = doc.results.prompts ?? doc.results.table?.head?.prompts ?? [];
        // A summary names its provider by id or label, or (early v2) only in its display "[provider] prompt".
        const providerOf = (p: Obj, r: Obj[]) =>
          p.provider === undefined
            ? /^\[([^\]]+)\] /.exec(p.display)?.[1]
            : (r.find((x) => x.provider?.label === p.provider)?.provider.id ?? p.provider);
        for (const p of summaries) {
          const w = written.find(
            (x) =>
              x.aggregate.source_metadata.additional_details.provider ===
                providerOf(p, doc.results.results) &&
              x.aggregate.source_metadata.additional_details.prompt === (p.label ?? p.display ?? p.raw),
          )!;
          assert.ok(w, `record for ${p.provider}`);
          const m = p.metrics;
          const tests = m.testPassCount + m.testFailCount + (m.testErrorCount ?? 0);
          if ((m.testErrorCount ?? 0) === tests) {
            // Every test errored (rate limits, a dead provider): nothing was scored, so no rate and no mean is
            // given, and no row counts as a wrong answer (issue 40).
            const ids = w.aggregate.evaluation_results.map((r: Obj) => r.evaluation_result_id);
            assert.ok(!ids.includes('test_pass_rate') && !ids.includes('mean_score'), `${path}: ${ids}`);
            continue;
          }
          assert.equal(
            resultById(w.aggregate, 'test_pass_rate').score_details.score,
            m.testPassCount / tests,
          );
          assert.equal(resultById(w.aggregate, 'mean_score').score_details.score, m.score / tests);
          // No assertion at all: no assertion pass rate (0 / 0 is no score).
          if (m.assertPassCount + m.assertFailCount > 0)
            assert.equal(
              resultById(w.aggregate, 'assertion_pass_rate').score_details.score,
              m.assertPassCount / (m.assertPassCount + m.assertFailCount),
            );
          else
            assert.ok(
              !w.aggregate.evaluation_results.some(
                (r: Obj) => r.evaluation_result_id === 'assertion_pass_rate',
              ),
            );
          for (const [name, sum] of Object.entries<number>(m.namedScores ?? {}))
            assert.equal(
              resultById(w.aggregate, `named/${name}`).score_details.score,
              sum / m.namedScoresCount[name],
            );
        }
        // Every test result lands in exactly one record, as a row of its own and one per assertion.
        const total = written.reduce((n, w) => n + w.rows.length, 0);
        // A run whose every test errored has no rows: no answer was scored (issue 40).
        const allErrored =
          summaries.length > 0 &&
          summaries.every(
            (p) =>
              (p.metrics.testErrorCount ?? 0) ===
              p.metrics.testPassCount + p.metrics.testFailCount + (p.metrics.testErrorCount ?? 0),
          );
        assert.equal(total, allErrored ? 0 : rowsExpected(doc.results.results), path);
        for (const w of written) for (const r of w.rows) resultOf(w.aggregate, r);
        await assertUpstreamValid(t, written);
        await assertValidTree(root);
        await withRoot(async (root2) => {
          const again = await convertInto(root2, [path]);
          assert.deepEqual(
            again.map((w) => w.bytes),
            written.map((w) => w.bytes),
          );
        });
      });
    }
  },
);

test(
  'the trimmed export: a provider with a summary and no results, another with results and no summary',
  { skip: skipWithoutReference('peers/promptfoo') },
  async () => {
    await withRoot(async (root) => {
      const written = await convertInto(root, [reference('peers/promptfoo/sample-export.trimmed.json')!]);
      assert.equal(written.length, 2);
      const mini = written.find((w) => w.aggregate.model_info.id === 'openai/gpt-5-mini')!;
      // Its one test: a row of the test and one per each of its 4 assertions.
      assert.equal(mini.rows.length, 1 + 4);
      assert.deepEqual(
        mini.rows.filter((r) => r.evaluation_result_id === 'test_pass_rate').map((r) => r.sample_id),
        ['test0'],
      );
      assert.equal(resultById(mini.aggregate, 'mean_score').score_details.score, 0.75);
      assert.equal(resultById(mini.aggregate, 'mean_score').score_details.details.computed_by, 'evalkit');
      assert.match(mini.record.notes[0], /no promptfoo summary/);
      const latency = mini.rows.find((r) => r.metadata.assertion_type === 'latency')!;
      assert.equal(latency.evaluation.is_correct, false);
      assert.equal(latency.metadata.assertion_threshold, '3000');
      assert.equal(latency.token_usage.reasoning_tokens, 192);
      const gpt5 = written.find((w) => w.aggregate.model_info.id === 'openai/gpt-5')!;
      assert.equal(gpt5.rows.length, 0);
      assert.equal(gpt5.aggregate.detailed_evaluation_results, undefined);
      assert.equal(gpt5.aggregate.eval_library.version, '0.118.10');
      assert.ok(gpt5.record.fields.some((f) => f.field === '_note' && f.fate === 'not-mapped'));
    });
  },
);

// A version-3 file of our own: two providers × two prompts, named scores, an error, a test without assertions.
function ownV3(): Obj {
  const providers = ['openai:chat:gpt-4o-mini', 'ollama:chat:llama3'];
  const prompts = [
    { id: 'p-short', raw: 'Answer: {{q}}', label: 'short' },
    { id: 'p-long', raw: 'Think, then answer: {{q}}', label: 'long' },
  ];
  const questions = ['2+2', 'capital of France', 'colour of the sky'];
  const results: Obj[] = [];
  const summaries: Obj[] = [];
  providers.forEach((provider, pi) =>
    prompts.forEach((prompt, qi) => {
      const m = {
        score: 0,
        testPassCount: 0,
        testFailCount: 0,
        testErrorCount: 0,
        assertPassCount: 0,
        assertFailCount: 0,
        namedScores: {} as Obj,
        namedScoresCount: {} as Obj,
      };
      questions.forEach((q, ti) => {
        const errored = pi === 1 && qi === 1 && ti === 2;
        const noAsserts = ti === 1;
        const comps =
          noAsserts || errored
            ? []
            : [
                {
                  pass: (pi + ti) % 2 === 0,
                  score: (pi + ti) % 2 === 0 ? 1 : 0,
                  reason: 'r',
                  assertion: { type: 'contains', value: 'x', metric: 'Correctness' },
                },
                {
                  pass: true,
                  score: 0.5 + 0.1 * qi,
                  reason: 'ok',
                  assertion: { type: 'llm-rubric', value: 'polite' },
                },
              ];
        const score = errored ? 0 : noAsserts ? 1 : comps.reduce((a, c) => a + c.score, 0) / comps.length;
        const success = !errored && comps.every((c) => c.pass);
        results.push({
          id: `r-${pi}-${qi}-${ti}`,
          promptIdx: qi,
          testIdx: ti,
          promptId: prompt.id,
          prompt: { raw: prompt.raw.replace('{{q}}', q), label: prompt.label },
          provider: { id: provider, label: '' },
          vars: { q },
          response: errored
            ? { error: 'connection refused' }
            : { output: `answer to ${q}`, tokenUsage: { prompt: 10, completion: 3, total: 13 } },
          success,
          score,
          latencyMs: 100 + ti,
          namedScores: comps.length > 0 ? { Correctness: comps[0].score } : {},
          ...(errored
            ? { error: 'connection refused', failureReason: 2 }
            : success
              ? {}
              : { failureReason: 1 }),
          gradingResult: errored ? null : { pass: success, score, componentResults: comps },
          testCase: { vars: { q }, description: `q${ti}` },
        });
        m.score += score;
        if (errored) m.testErrorCount++;
        else if (success) m.testPassCount++;
        else m.testFailCount++;
        for (const c of comps) c.pass ? m.assertPassCount++ : m.assertFailCount++;
        if (comps.length > 0) {
          m.namedScores.Correctness = (m.namedScores.Correctness ?? 0) + comps[0].score;
          m.namedScoresCount.Correctness = (m.namedScoresCount.Correctness ?? 0) + 1;
        }
      });
      summaries.push({ ...prompt, provider, metrics: m });
    }),
  );
  return {
    evalId: 'eval-own-2026-01-01T00:00:00',
    results: {
      version: 3,
      timestamp: '2026-01-01T00:00:00.000Z',
      prompts: summaries,
      results,
      stats: { successes: 1 },
    },
    config: {
      description: 'own riddles',
      providers,
      prompts: prompts.map((p) => p.raw),
      tests: questions.map((q) => ({ vars: { q } })),
    },
    shareableUrl: null,
    metadata: { promptfooVersion: '0.120.0', exportedAt: '2026-01-01T00:01:00.000Z' },
  };
}

test('a version-3 file with two providers × two prompts: four records, exact figures, errors and tests without assertions', async (t) => {
  await withRoot(async (root) => {
    const path = join(root, 'own.json');
    const doc = ownV3();
    await writeFile(path, JSON.stringify(doc, null, 2));
    const written = await convertInto(join(root, 'out'), [path]);
    assert.equal(written.length, 4);
    assert.equal(new Set(written.map((w) => w.aggregate.evaluation_id)).size, 4);
    for (const s of doc.results.prompts) {
      const w = written.find(
        (x) =>
          x.aggregate.source_metadata.additional_details.provider === s.provider &&
          x.aggregate.source_metadata.additional_details.prompt === s.label,
      )!;
      const tests = 3;
      assert.equal(
        resultById(w.aggregate, 'test_pass_rate').score_details.score,
        s.metrics.testPassCount / tests,
      );
      assert.equal(
        resultById(w.aggregate, 'named/Correctness').score_details.score,
        s.metrics.namedScores.Correctness / s.metrics.namedScoresCount.Correctness,
      );
      assert.equal(resultById(w.aggregate, 'test_pass_rate').metric_config.min_score, 0);
      // 3 tests, a row each: two with 2 assertions (one of them errored in one record), one without
      const expected = doc.results.results.filter(
        (r: Obj) => r.provider.id === s.provider && r.promptId === s.id,
      );
      assert.equal(w.rows.length, rowsExpected(expected));
      assert.ok(w.rows.every((r) => r.evaluation_name === 'own riddles'));
      const correctness = w.rows.filter((r) => r.metadata.assertion_metric === 'Correctness');
      assert.ok(correctness.every((r) => r.evaluation_result_id === 'named/Correctness'));
      const rubric = w.rows.filter((r) => r.metadata.assertion_type === 'llm-rubric');
      assert.ok(rubric.every((r) => r.evaluation_result_id === 'assertion_pass_rate'));
      const plain = w.rows.find((r) => r.sample_id === 'test1')!;
      assert.equal(plain.evaluation_result_id, 'test_pass_rate');
      assert.equal(plain.evaluation.score, 1);
      assert.equal(plain.metadata['var.q'], 'capital of France');
    }
    const llama = written.find(
      (w) =>
        w.aggregate.model_info.name === 'llama3' &&
        w.aggregate.source_metadata.additional_details.prompt === 'long',
    )!;
    assert.equal(llama.aggregate.model_info.additional_details.deployment_type, 'self_deployed');
    const errored = llama.rows.find((r) => r.sample_id === 'test2')!;
    assert.equal(errored.error, 'connection refused');
    assert.equal(errored.metadata.failure_reason, 'error');
    const gpt = written.find((w) => w.aggregate.model_info.id === 'openai/gpt-4o-mini')!;
    assert.equal(gpt.aggregate.model_info.additional_details.model_availability, 'closed_weights');
    assert.equal(gpt.aggregate.retrieved_timestamp, '1767225660');
    await assertUpstreamValid(t, written);
    await assertValidTree(join(root, 'out'));
  });
});

test('broken promptfoo files fail with file and line and write nothing', async () => {
  await withRoot(async (root) => {
    const out = join(root, 'out');
    const broken = join(root, 'broken.json');
    await writeFile(broken, '{"evalId": "x",\n "results": {"version": 3, "results": [\n {"provider": }');
    await assert.rejects(convertInto(out, [broken], { from: 'promptfoo' }), (error: unknown) => {
      assert.ok(error instanceof DataError);
      assert.match(error.message, /broken\.json: line 3 column \d+/);
      return true;
    });
    const v1 = join(root, 'v1.json');
    await writeFile(v1, JSON.stringify({ evalId: 'x', results: { version: 1, results: [] } }));
    await assert.rejects(convertInto(out, [v1], { from: 'promptfoo' }), /results version 1 is not supported/);
    assert.deepEqual(
      (await filesUnder(root)).filter((f) => f.startsWith(out)),
      [],
    );
  });
});
