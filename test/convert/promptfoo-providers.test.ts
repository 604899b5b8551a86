// promptfoo >= 0.121 writes each test result's provider as {id, label} and names a prompt summary's provider by
// that label: one record per provider, its summary and its rows joined (not a summary-only record and a computed one).
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { assertUpstreamValid, assertValidTree, convertInto, withRoot, type Obj } from './sources-helpers.js';

const PROVIDERS = [
  { id: 'openai:chat:gpt-4o-mini', label: 'GPT-4o mini' },
  { id: 'anthropic:messages:claude-3-5-haiku-20241022', label: 'Claude Haiku' },
];
const PROMPT = { raw: 'Translate to French: {{text}}', label: 'translate', id: 'a41c6d2e9b' };
const TEXTS = ['good morning', 'thank you', 'see you soon'];

function output(): Obj {
  const results: Obj[] = [];
  PROVIDERS.forEach((provider, p) =>
    TEXTS.forEach((text, t) => {
      const pass = !(p === 1 && t === 2);
      results.push({
        id: `r-${p}-${t}`,
        promptIdx: p,
        testIdx: t,
        promptId: PROMPT.id,
        provider,
        prompt: { raw: PROMPT.raw.replace('{{text}}', text), label: PROMPT.label },
        testCase: { vars: { text }, assert: [{ type: 'icontains', value: 'bon' }] },
        vars: { text },
        response: {
          output: pass ? 'bonjour' : 'à bientôt',
          tokenUsage: { prompt: 12, completion: 3, total: 15 },
        },
        success: pass,
        score: pass ? 1 : 0,
        latencyMs: 420 + t,
        namedScores: {},
        failureReason: pass ? 0 : 1,
        gradingResult: {
          pass,
          score: pass ? 1 : 0,
          reason: pass ? 'All assertions passed' : 'Expected output to contain "bon"',
          componentResults: [
            {
              pass,
              score: pass ? 1 : 0,
              reason: 'icontains',
              assertion: { type: 'icontains', value: 'bon' },
            },
          ],
        },
        metadata: {},
      });
    }),
  );
  return {
    evalId: 'eval-Zx9-2025-06-03T08:12:44',
    results: {
      version: 3,
      timestamp: '2025-06-03T08:12:44.512Z',
      prompts: PROVIDERS.map((provider, p) => ({
        ...PROMPT,
        provider: provider.label,
        metrics: {
          score: p === 0 ? 3 : 2,
          testPassCount: p === 0 ? 3 : 2,
          testFailCount: p === 0 ? 0 : 1,
          testErrorCount: 0,
          assertPassCount: p === 0 ? 3 : 2,
          assertFailCount: p === 0 ? 0 : 1,
          totalLatencyMs: 1263,
          tokenUsage: { total: 45, prompt: 36, completion: 9, cached: 0 },
          namedScores: {},
          namedScoresCount: {},
          cost: 0.0001,
        },
      })),
      results,
      stats: { successes: 5, failures: 1, errors: 0, tokenUsage: { total: 90, prompt: 72, completion: 18 } },
    },
    config: {
      description: 'French greetings',
      prompts: [PROMPT.raw],
      providers: PROVIDERS,
      tests: TEXTS.map((text) => ({ vars: { text } })),
    },
    shareableUrl: null,
    metadata: {
      promptfooVersion: '0.121.2',
      exportedAt: '2025-06-03T08:13:01.004Z',
      evaluationCreatedAt: '2025-06-03T08:12:44.512Z',
    },
  };
}

test('promptfoo 0.121: one record per provider, summary and rows joined, rows of both providers pairable', async (t) => {
  await withRoot(async (root) => {
    const path = join(root, 'output.json');
    await writeFile(path, JSON.stringify(output(), null, 2));
    const written = await convertInto(join(root, 'out'), [path]);
    assert.equal(
      written.length,
      2,
      'one record per provider, not a summary-only record beside a computed one',
    );
    for (const w of written) {
      // Three tests of one assertion each: a row per test and one per assertion.
      assert.equal(w.rows.length, 3 + 3, `${w.aggregate.model_info.id}: the provider's rows`);
      const details = JSON.stringify(
        w.aggregate.evaluation_results.map((r: Obj) => r.score_details.details ?? {}),
      );
      assert.ok(
        !/computed/.test(details),
        `${w.aggregate.model_info.id}: figures from promptfoo's own summary`,
      );
      assert.equal(w.aggregate.eval_library.additional_details.source_run_id.startsWith('eval-Zx9-'), true);
    }
    const [a, b] = written;
    const hashes = (w: Obj) => w.rows.map((r: Obj) => r.sample_hash).sort();
    assert.deepEqual(hashes(a), hashes(b), 'the same test cases: compare pairs them');
    assert.deepEqual(written.map((w) => w.aggregate.model_info.id).sort(), [
      'anthropic/claude-3-5-haiku-20241022',
      'openai/gpt-4o-mini',
    ]);
    await assertUpstreamValid(t, written);
    await assertValidTree(join(root, 'out'));
  });
});
