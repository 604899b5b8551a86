// The real SDKs against the local provider server: answers, usage, and every kind of misbehaviour.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createAnthropicProvider } from '../../src/run/providers/anthropic.js';
import { createOpenAIProvider, usesMaxCompletionTokens } from '../../src/run/providers/openai.js';
import {
  ProviderError,
  retryAfterMs,
  type CompletionRequest,
  type Provider,
} from '../../src/run/providers/provider.js';
import { withRetry, type RetryPolicy } from '../../src/io/net/retry.js';
import { startProviderServer, type Behaviour, type ProviderServer } from '../helpers/provider-server.js';

let server: ProviderServer;
before(async () => {
  server = await startProviderServer();
});
after(() => server.close());

const request = (sampleId: string, model = 'test-model'): CompletionRequest => ({
  model,
  system: 'Answer GOOD or BAD.',
  user: 'Premises: p\nConclusion: q\nVerdict:',
  temperature: 0.5,
  maxTokens: 64,
  stop: ['\n\n'],
  sampleId,
  sampleIndex: 0,
});

const providers = (): [string, Provider][] => [
  ['openai', createOpenAIProvider({ apiKey: 'sk-test-secret', baseURL: server.openaiBaseUrl })],
  ['anthropic', createAnthropicProvider({ apiKey: 'sk-ant-secret', baseURL: server.anthropicBaseUrl })],
];
// An attempt's time limit well above a loaded machine's answer time (a 429 must not turn into a timeout), and well
// below the slow case's delay.
const policy: RetryPolicy = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5, timeoutMs: 600 };
const never = new AbortController().signal;

/** A script that misbehaves `times` times for each sample id, then answers `text`. */
function flaky(bad: Behaviour, times: number, text = 'GOOD'): (ctx: { attempt: number }) => Behaviour {
  return (ctx) => (ctx.attempt <= times ? bad : { text });
}

test('both SDKs get text, finish reason, usage and a request id; the key goes in a header', async () => {
  server.setScript(() => ({ text: 'Verdict: BAD', finishReason: 'length', usage: { input: 11, output: 3 } }));
  for (const [name, provider] of providers()) {
    const before = server.requests.length;
    const c = await provider.complete(request(`${name}-ok`), never);
    assert.equal(c.text, 'Verdict: BAD');
    assert.equal(c.finishReason, 'length');
    assert.deepEqual({ i: c.usage?.input_tokens, o: c.usage?.output_tokens }, { i: 11, o: 3 });
    assert.match(c.requestId ?? '', /^req_\d+$/);
    const seen = server.requests[before];
    assert.equal(seen.sampleId, `${name}-ok`);
    assert.match(seen.authorization ?? '', /secret/);
    if (name === 'openai') {
      assert.equal(seen.body.max_tokens, 64);
      assert.deepEqual(seen.body.stop, ['\n\n']);
      assert.equal(seen.body.messages[0].role, 'system');
    } else {
      assert.equal(seen.body.system, 'Answer GOOD or BAD.');
      assert.deepEqual(seen.body.stop_sequences, ['\n\n']);
      assert.equal(seen.body.temperature, 0.5);
    }
  }
});

test('reasoning model families get max_completion_tokens', async () => {
  assert.equal(usesMaxCompletionTokens('o3-mini'), true);
  assert.equal(usesMaxCompletionTokens('openai/gpt-5-nano'), true);
  assert.equal(usesMaxCompletionTokens('gpt-4o-mini'), false);
  server.setScript(() => ({ text: 'GOOD' }));
  const before = server.requests.length;
  await providers()[0][1].complete(request('o-model', 'o4-mini'), never);
  assert.equal(server.requests[before].body.max_completion_tokens, 64);
  assert.equal(server.requests[before].body.max_tokens, undefined);
});

const transient: [string, Behaviour, string][] = [
  ['429', { status: 429, retryAfterMs: 1 }, 'http-429'],
  ['500', { status: 500 }, 'http-500'],
  ['503', { status: 503 }, 'http-503'],
  ['529', { status: 529 }, 'http-529'],
  ['dropped connection', { drop: true }, 'connection'],
  ['empty body', { empty: true }, 'empty-body'],
  ['malformed JSON', { malformed: true }, 'bad-json'],
  ['slow past the timeout', { text: 'GOOD', delayMs: 1_500 }, 'timeout'],
];

for (const [label, behaviour, kind] of transient) {
  test(`transient: ${label} is retried and then succeeds; failing every time gives a typed error`, async () => {
    for (const [name, provider] of providers()) {
      server.setScript(flaky(behaviour, 2));
      const id = `${name}-${label}-recovers`;
      const ok = await withRetry((s) => provider.complete(request(id), s), policy, never);
      assert.equal(ok.value?.text, 'GOOD', `${name} ${label}: ${ok.error?.message}`);
      assert.equal(ok.attempts, 3);
      assert.equal(server.requests.filter((r) => r.sampleId === id).length, 3, 'our retries, not the SDK’s');

      server.setScript(flaky(behaviour, 99));
      const bad = await withRetry(
        (s) => provider.complete(request(`${name}-${label}-fails`), s),
        policy,
        never,
      );
      assert.ok(bad.error instanceof ProviderError);
      assert.equal(bad.error.transient, true, `${name} ${label} → ${bad.error.kind}`);
      if (kind !== '') assert.equal(bad.error.kind, kind);
      assert.equal(bad.attempts, 3);
    }
  });
}

test('non-transient failures (400, 401, 404) fail at once', async () => {
  for (const status of [400, 401, 404]) {
    for (const [name, provider] of providers()) {
      server.setScript(() => ({ status }));
      const id = `${name}-${status}`;
      const r = await withRetry((s) => provider.complete(request(id), s), policy, never);
      assert.equal(r.error?.kind, `http-${status}`);
      assert.equal(r.error?.transient, false);
      assert.equal(r.attempts, 1);
      assert.equal(server.requests.filter((x) => x.sampleId === id).length, 1);
    }
  }
});

test('Retry-After (seconds) is honoured over the backoff', async () => {
  server.setScript(flaky({ status: 429, retryAfter: '1' }, 1));
  const started = Date.now();
  const delays: number[] = [];
  const r = await withRetry((s) => providers()[0][1].complete(request('retry-after'), s), policy, never, {
    onRetry: (i) => delays.push(i.delayMs),
  });
  assert.equal(r.value?.text, 'GOOD');
  assert.deepEqual(delays, [1000]);
  assert.ok(Date.now() - started >= 950);
});

test('retryAfterMs reads retry-after-ms, seconds and HTTP dates', () => {
  const h = (o: Record<string, string>) => ({ get: (k: string) => o[k] ?? null });
  assert.equal(retryAfterMs(h({ 'retry-after-ms': '250' })), 250);
  assert.equal(retryAfterMs(h({ 'retry-after': '2' })), 2000);
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(retryAfterMs(h({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now), 3000);
  assert.equal(retryAfterMs(h({})), undefined);
});
