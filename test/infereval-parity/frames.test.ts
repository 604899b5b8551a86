// Coherence frames, the openrouter preset and --seed, against a real local server that speaks the provider
// protocols. The defeasible frame's text is checked against the SHA-256 of the system prompt the reference
// implementation logged in a real run (infereval 0.17.6, clinical pilot cross-model capture, item A0).
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  BUILTIN_COHERENCE_FRAMES,
  DEFEASIBLE_COHERENCE_FRAME,
  THIN_COHERENCE_FRAME,
  UNDERDET_COHERENCE_FRAME,
} from '../../src/formats/infereval/coherence-frames.js';
import { coherencePrompt, planPrompts } from '../../src/formats/infereval/prompts.js';
import { sampleConfigKey } from '../../src/run/runner.js';
import { cli } from '../helpers/cli.js';
import { hashedVerdicts, startProviderServer, type ProviderServer } from '../helpers/provider-server.js';
import { projectRoot } from '../helpers/shared.js';

const sha = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
const bench = join(projectRoot, 'examples/run/birds.benchmark.json');
const options = { questionForm: 'coherence' as const, paraphraseVariant: 0, stripTex: true };
const tiny = {
  id: 'b',
  bearers: {
    a: { expression: 'a is a bird' },
    f: { expression: 'a can fly' },
    p: { expression: 'a is a penguin' },
  },
  analysts: [],
  items: [],
};

describe('coherence frames', () => {
  it('the three built-in frames of the reference, each its own system prompt', () => {
    assert.deepEqual(
      BUILTIN_COHERENCE_FRAMES.map((f) => f.id),
      ['thin-v1', 'defeasible-coherence-explicit-v1', 'defeasible-coherence-underdet-v1'],
    );
    assert.equal(
      sha(DEFEASIBLE_COHERENCE_FRAME.system),
      '0d44d60691de2535450add48e7af0fee1081563f5fd433e77cc55c7cec7b9800',
    );
    assert.ok(
      UNDERDET_COHERENCE_FRAME.system.startsWith(DEFEASIBLE_COHERENCE_FRAME.system.split('UNCLEAR means')[0]),
    );
    assert.match(
      UNDERDET_COHERENCE_FRAME.system,
      /Verdict: UNCLEAR {2}\(the commitments pull in different directions/,
    );
    for (const frame of BUILTIN_COHERENCE_FRAMES) {
      const plan = planPrompts(tiny, { ...options, coherenceFrameId: frame.id });
      const prompt = plan.build({ id: 'i', premises: ['p', 'a'], conclusions: ['f'], analyst_verdicts: [] });
      assert.equal(prompt.system, frame.system);
      assert.equal(plan.promptId, `framework-default-v1:coherence:${frame.id}`);
      // The question line and the parse regex are the library's under every frame.
      assert.equal(
        prompt.user,
        'Consider a position that commits to the following: a is a bird and a is a penguin; and denies: a can fly.\n' +
          'Is this position coherent? Answer COHERENT, INCOHERENT, or UNCLEAR.',
      );
      assert.equal(plan.parseRegex, '\\b(INCOHERENT|COHERENT|UNCLEAR)\\b');
    }
  });

  it('a position that denies nothing (|Δ| = 0) is a coherence question too', () => {
    assert.equal(
      coherencePrompt('a is a bird and a is a penguin', []),
      'Consider a position that commits to the following: a is a bird and a is a penguin.\n' +
        'Is this position coherent? Answer COHERENT, INCOHERENT, or UNCLEAR.',
    );
    const plan = planPrompts(tiny, { ...options, coherenceFrameId: 'thin-v1' });
    assert.equal(
      plan.build({ id: 'i', premises: ['a'], conclusions: [], analyst_verdicts: [] }).system,
      THIN_COHERENCE_FRAME.system,
    );
  });
});

describe('the sample journal key', () => {
  it("includes the coherence frame's system text, so a journal made under other text is not resumed", () => {
    const config = (questionForm: 'support' | 'coherence', coherenceFrameId: string) => ({
      providerName: 'openai',
      model: 'm',
      params: { temperature: 1, max_tokens: 16, stop: [] },
      nSamples: 1,
      tieBreak: 'abstain' as const,
      prompts: { questionForm, coherenceFrameId, paraphraseVariant: 0, stripTex: true },
    });
    const key = (form: 'support' | 'coherence', frame: string) => {
      const c = config(form, frame);
      return sampleConfigKey(tiny, c as never, planPrompts(tiny, c.prompts));
    };
    assert.equal(key('coherence', 'thin-v1').coherence_system, sha(THIN_COHERENCE_FRAME.system));
    assert.equal(
      key('coherence', 'defeasible-coherence-underdet-v1').coherence_system,
      sha(UNDERDET_COHERENCE_FRAME.system),
    );
    assert.equal('coherence_system' in key('support', 'thin-v1'), false);
  });
});

describe('evaluate: frames, openrouter, --seed against a local server', () => {
  let server: ProviderServer;
  let dir: string;
  before(async () => {
    server = await startProviderServer({ script: hashedVerdicts });
    dir = mkdtempSync(join(tmpdir(), 'evalkit-frames-'));
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('--provider openrouter: OpenAI protocol, OPENROUTER_API_KEY, attribution headers, seed sent, recorded as openrouter', async () => {
    const out = join(dir, 'or.json');
    const r = await cli(
      [
        'evaluate',
        bench,
        '--provider',
        'openrouter',
        '--base-url',
        server.openaiBaseUrl,
        '--model',
        'anthropic/claude-x',
        '--n-samples',
        '1',
        '--seed',
        '7',
        '--http-referer',
        'https://example.org/app',
        '--x-title',
        'evalkit test',
        '--question-form',
        'coherence',
        '--coherence-frame',
        'defeasible-coherence-explicit-v1',
        '-o',
        out,
      ],
      { env: { OPENROUTER_API_KEY: 'sk-or-test', OPENAI_API_KEY: '' } },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /warning/);
    const sent = server.requests.filter((q) => q.sampleId.includes(':'));
    assert.equal(sent.length, 6);
    for (const q of sent) {
      assert.equal(q.authorization, 'Bearer sk-or-test');
      assert.equal(q.headers['http-referer'], 'https://example.org/app');
      assert.equal(q.headers['x-title'], 'evalkit test');
      assert.equal(q.body.seed, 7);
      assert.equal(q.body.messages[0].role, 'system');
      assert.equal(q.body.messages[0].content, DEFEASIBLE_COHERENCE_FRAME.system);
    }
    const eta = JSON.parse(readFileSync(out, 'utf8'));
    assert.equal(eta.model.provider, 'openrouter');
    assert.equal(eta.model.params.seed, 7);
    assert.equal(eta.endorsement_config.coherence_frame_id, 'defeasible-coherence-explicit-v1');
    assert.equal(
      eta.endorsement_config.verification_prompt_id,
      'framework-default-v1:coherence:defeasible-coherence-explicit-v1',
    );
  });

  it('--provider anthropic with --seed: warned, recorded, not sent', async () => {
    server.requests.length = 0;
    const out = join(dir, 'an.json');
    const r = await cli(
      [
        'evaluate',
        bench,
        '--provider',
        'anthropic',
        '--base-url',
        server.anthropicBaseUrl,
        '--model',
        'claude-x',
        '--n-samples',
        '1',
        '--seed',
        '7',
        '-o',
        out,
      ],
      { env: { ANTHROPIC_API_KEY: 'sk-ant-test' } },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /warning: --provider anthropic does not accept a sampling seed; --seed 7 is recorded in the η params but not sent/,
    );
    assert.ok(server.requests.length > 0);
    for (const q of server.requests) assert.equal('seed' in q.body, false);
    assert.equal(JSON.parse(readFileSync(out, 'utf8')).model.params.seed, 7);
  });

  it('an unknown frame fails before any request, naming the built-in frames', async () => {
    server.requests.length = 0;
    const r = await cli(
      [
        'evaluate',
        bench,
        '--provider',
        'openai',
        '--base-url',
        server.openaiBaseUrl,
        '--model',
        'm',
        '--question-form',
        'coherence',
        '--coherence-frame',
        'thick-v9',
        '-o',
        join(dir, 'x.json'),
      ],
      { env: { OPENAI_API_KEY: 'sk-x' } },
    );
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /unknown coherence frame "thick-v9" \(built-in: thin-v1, defeasible-coherence-explicit-v1, defeasible-coherence-underdet-v1\)/,
    );
    assert.equal(server.requests.length, 0);
  });

  it('openrouter without its key is a usage error naming OPENROUTER_API_KEY', async () => {
    const r = await cli(
      ['evaluate', bench, '--provider', 'openrouter', '--model', 'x/y', '-o', join(dir, 'y.json')],
      {
        env: { OPENROUTER_API_KEY: '' },
      },
    );
    assert.equal(r.code, 2);
    assert.match(r.stderr, /OPENROUTER_API_KEY/);
  });
});
