// Prompt building, parsing and voting beyond the golden vectors: paraphrases, TeX, overrides, coherence with
// several conclusions, budget clipping, Unicode word boundaries, failed samples.
import { THIN_COHERENCE_FRAME } from '../../src/formats/infereval/coherence-frames.js';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DEFAULT_SYSTEM_PROMPT,
  paraphraseVariantCount,
  planPrompts,
  stripTex,
} from '../../src/formats/infereval/prompts.js';
import { parseCoherence, parseVerdict } from '../../src/run/parse.js';
import { majorityVote } from '../../src/run/vote.js';
import type { BenchmarkLike } from '../../src/run/types.js';

const bench: BenchmarkLike = {
  id: 'b',
  bearers: {
    z: { expression: '$z$ is last', paraphrases: ['Z comes last', 'z is final'] },
    a: { expression: '$a$ is first', paraphrases: ['A leads'] },
    c: { expression: 'c holds' },
    d: { expression: 'd holds' },
  },
  analysts: [{ id: 'x' }],
  items: [],
};
const item = { id: 'i', premises: ['z', 'a'], conclusions: ['c'], analyst_verdicts: [] as never[] };
const opts = {
  questionForm: 'support' as const,
  coherenceFrameId: 'thin-v1',
  paraphraseVariant: 0,
  stripTex: true,
};

test('paraphrase variants fall back to the expression; count = 1 + the longest paraphrase list', () => {
  assert.equal(paraphraseVariantCount(bench), 3);
  const user = (k: number) => planPrompts(bench, { ...opts, paraphraseVariant: k }).build(item).user;
  assert.equal(user(0), 'Premises: a is first and z is last\nConclusion: c holds\nVerdict:');
  assert.equal(user(1), 'Premises: A leads and Z comes last\nConclusion: c holds\nVerdict:');
  assert.equal(user(2), 'Premises: a is first and z is final\nConclusion: c holds\nVerdict:');
  assert.throws(() => planPrompts(bench, { ...opts, paraphraseVariant: 3 }), /variants 0\.\.2/);
});

test('TeX stripping can be turned off', () => {
  assert.equal(stripTex('$a$ and $b_1$ but not $'), 'a and b_1 but not $');
  const user = planPrompts(bench, { ...opts, stripTex: false }).build(item).user;
  assert.ok(user.startsWith('Premises: $a$ is first and $z$ is last'));
});

test('a benchmark override replaces template, system, regex and the prompt id; builders set the joiners', () => {
  const custom: BenchmarkLike = {
    ...bench,
    verification_prompt: {
      template: 'Given {premise_context}, is {conclusion_context}?',
      system: null,
      parse_regex: '\\[(GOOD|BAD)\\]',
      id: 'mine-v2',
    },
    context_builders: { premise: { kind: 'template', template: '[{expressions}]', joiner: '; ' } },
  };
  const plan = planPrompts(custom, opts);
  assert.deepEqual(plan.build(item), {
    system: DEFAULT_SYSTEM_PROMPT,
    user: 'Given [a is first; z is last], is c holds?',
  });
  assert.equal(plan.promptId, 'mine-v2');
  assert.equal(plan.premiseBuilderId, 'template-v1');
  assert.equal(plan.conclusionBuilderId, 'disjunction-or-v1');
  assert.equal(plan.parseRegex, '\\[(GOOD|BAD)\\]');
  assert.throws(
    () => planPrompts({ ...bench, context_builders: { premise: { kind: 'plugin', plugin: 'x.y' } } }, opts),
    /Python plugin/,
  );
});

test('support needs one conclusion; coherence denies every one of several', () => {
  const two = { ...item, conclusions: ['d', 'c'] };
  assert.throws(
    () => planPrompts(bench, opts).build(two),
    (e: any) => e.code === 'run.support-needs-one-conclusion',
  );
  const plan = planPrompts(bench, { ...opts, questionForm: 'coherence' });
  assert.deepEqual(plan.build(two), {
    system: THIN_COHERENCE_FRAME.system, // the reference sends the frame's system prompt
    user:
      'Consider a position that commits to the following: a is first and z is last; and denies every one of: c holds; d holds.\n' +
      'Is this position coherent? Answer COHERENT, INCOHERENT, or UNCLEAR.',
  });
  assert.throws(
    () => planPrompts(bench, { ...opts, questionForm: 'coherence', coherenceFrameId: 'thick-v9' }),
    /unknown coherence frame/,
  );
});

test('no verdict + a length stop is budget_clipped; a verdict with a length stop is still ok', () => {
  const re = '\\b(GOOD|BAD|ABSTAIN)\\b';
  assert.deepEqual(parseVerdict('Let me think about th', re, 'length'), {
    verdict: 'abstain',
    status: 'budget_clipped',
  });
  assert.deepEqual(parseVerdict('Let me think', re, 'max_tokens'), {
    verdict: 'abstain',
    status: 'budget_clipped',
  });
  assert.deepEqual(parseVerdict('Let me think', re, 'stop'), { verdict: 'abstain', status: 'unparseable' });
  assert.deepEqual(parseVerdict('GOOD, I think, but', re, 'length'), { verdict: 'good', status: 'ok' });
  assert.deepEqual(parseCoherence('hmm', '\\b(INCOHERENT|COHERENT|UNCLEAR)\\b', 'length'), {
    verdict: 'abstain',
    status: 'budget_clipped',
  });
});

test('word boundaries are Unicode-aware like Python’s', () => {
  const re = '\\b(GOOD|BAD|ABSTAIN)\\b';
  assert.equal(parseVerdict('éGOOD', re).status, 'unparseable');
  assert.equal(parseVerdict('«GOOD»', re).verdict, 'good');
  assert.equal(parseVerdict('Verdict: bad\n', re).verdict, 'bad');
  assert.equal(parseVerdict('GOOD\n\n  \n', re).verdict, 'good');
});

test('failed samples do not vote; all failed gives abstain, not tie-broken', () => {
  const failed = {
    parsed_verdict: 'abstain' as const,
    parse_status: 'sample_failed' as const,
    provider_error: 'http-503: x',
  };
  const ok = (v: 'good' | 'bad' | 'abstain') => ({ parsed_verdict: v, parse_status: 'ok' as const });
  assert.deepEqual(majorityVote([failed, failed, ok('bad')], 'abstain'), {
    good: 0,
    bad: 1,
    abstain: 0,
    verdict: 'bad',
    tie_broken: false,
  });
  assert.deepEqual(majorityVote([failed, failed], 'good'), {
    good: 0,
    bad: 0,
    abstain: 0,
    verdict: 'abstain',
    tie_broken: false,
  });
  assert.deepEqual(majorityVote([ok('bad'), failed, ok('good')], 'first'), {
    good: 1,
    bad: 1,
    abstain: 0,
    verdict: 'bad',
    tie_broken: true,
  });
});

test("a benchmark's verdict regex that backtracks without end leaves the answer unparseable, not the run hung", () => {
  // (a+)+$ on many a's followed by another character takes exponential time in a backtracking engine.
  const answer = `${'a'.repeat(40)}!`;
  assert.deepEqual(parseVerdict(answer, '(a+)+$'), { verdict: 'abstain', status: 'unparseable' });
  assert.deepEqual(parseCoherence(answer, '(a+)+$'), { verdict: 'abstain', status: 'unparseable' });
  // The same regex still parses an answer it matches at once.
  assert.deepEqual(parseVerdict('SUPPORTED', '(SUPPORTED)'), parseVerdict('SUPPORTED', 'SUPPORTED'));
});
