// The prompt, parse and vote rules against the reference's golden vectors (skipped when the reference is absent).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { coherencePrompt, planPrompts } from '../../src/formats/infereval/prompts.js';
import { parseCoherence, parseVerdict } from '../../src/run/parse.js';
import { majorityVote } from '../../src/run/vote.js';
import type { Verdict } from '../../src/run/types.js';
import { reference, skipWithoutReference } from '../helpers/shared.js';

const REL = 'infereval/golden_vectors.json';
interface Vector {
  name: string;
  input: Record<string, any>;
  expected: Record<string, any>;
}
const vectors = (): Vector[] => JSON.parse(readFileSync(reference(REL) as string, 'utf8')).vectors;

test('parse vectors: verdict and status', { skip: skipWithoutReference(REL) }, () => {
  const cases = vectors().filter((v) => v.name.startsWith('parse_verdict'));
  assert.ok(cases.length >= 15);
  for (const v of cases) {
    const got = parseVerdict(v.input.text, v.input.parse_regex);
    assert.deepEqual(
      { verdict: got.verdict, parse_status: got.status },
      v.expected,
      JSON.stringify(v.input.text),
    );
  }
});

test('coherence decode vectors', { skip: skipWithoutReference(REL) }, () => {
  const cases = vectors().filter((v) => v.name === 'coherence_decode');
  assert.ok(cases.length >= 3);
  for (const v of cases) {
    const got = parseCoherence(v.input.text, v.input.parse_regex);
    assert.deepEqual({ verdict: got.verdict, parse_status: got.status }, v.expected);
  }
});

test('majority vote vectors', { skip: skipWithoutReference(REL) }, () => {
  const cases = vectors().filter((v) => v.name === 'majority_vote');
  assert.ok(cases.length >= 7);
  for (const v of cases) {
    const samples = (v.input.verdicts as Verdict[]).map((parsed_verdict) => ({
      parsed_verdict,
      parse_status: 'ok' as const,
    }));
    const got = majorityVote(samples, v.input.tie_break);
    assert.deepEqual(
      { verdict: got.verdict, tie_broken: got.tie_broken },
      v.expected,
      JSON.stringify(v.input),
    );
  }
});

test('support prompt vector (sorted bearer ids, TeX stripped)', { skip: skipWithoutReference(REL) }, () => {
  const v = vectors().find((x) => x.name.startsWith('support_prompt'))!;
  const bearers: Record<string, { expression: string }> = {};
  for (const [id, expression] of Object.entries({ ...v.input.premises, ...v.input.conclusions })) {
    bearers[id] = { expression: expression as string };
  }
  const item = {
    id: 'x',
    premises: Object.keys(v.input.premises).reverse(),
    conclusions: Object.keys(v.input.conclusions),
    analyst_verdicts: [],
  };
  const plan = planPrompts(
    { id: 'b', bearers, analysts: [], items: [item] },
    {
      questionForm: 'support',
      coherenceFrameId: 'thin-v1',
      paraphraseVariant: 0,
      stripTex: v.input.strip_tex,
    },
  );
  assert.deepEqual(plan.build(item), { system: v.expected.system, user: v.expected.user });
});

test('coherence prompt vector', { skip: skipWithoutReference(REL) }, () => {
  const v = vectors().find((x) => x.name.startsWith('coherence_prompt'))!;
  assert.equal(coherencePrompt(v.input.premise_context, v.input.conclusion_exprs), v.expected.user);
  const plan = planPrompts(
    { id: 'b', bearers: { a: { expression: 'x' } }, analysts: [], items: [] },
    { questionForm: 'coherence', coherenceFrameId: 'thin-v1', paraphraseVariant: 0, stripTex: true },
  );
  assert.equal(plan.promptId, v.expected.prompt_id);
});
