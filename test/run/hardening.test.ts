// A run leaks no secret, reads no unbounded body, trusts no usage count, and stops
// when every sample fails the same way — against the real local provider server, through the real CLI.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cli } from '../helpers/cli.js';
import {
  hashedVerdicts,
  startProviderServer,
  evaluateAgainst,
  type ProviderServer,
} from '../helpers/provider-server.js';
import { projectRoot } from '../helpers/shared.js';
import { createRedactor, redactUrl } from '../../src/io/net/redact.js';
import { checkUsage } from '../../src/run/usage.js';

const bench = join(projectRoot, 'examples/run/birds.benchmark.json');
const KEY = 'sk-test-7f3a9c2e11b84d0f9a6e5c4b3a291807';
let server: ProviderServer;
let dir: string;
before(async () => {
  server = await startProviderServer({ script: hashedVerdicts });
  dir = mkdtempSync(join(tmpdir(), 'evalkit-harden-run-'));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every file under a folder, recursively, as text. */
function allText(folder: string): string {
  let out = '';
  for (const name of readdirSync(folder, { recursive: true }) as string[]) {
    const path = join(folder, name);
    if (statSync(path).isFile()) out += readFileSync(path, 'utf8');
  }
  return out;
}

test('a server that echoes the key: the key is in no file written and nowhere printed', async () => {
  server.setScript((ctx) =>
    ctx.attempt === 1 && ctx.sampleId.endsWith('sample-0')
      ? { status: 401, message: `Incorrect API key provided: ${ctx.authorization?.replace(/^Bearer /, '')}` }
      : { text: `GOOD — your key was ${ctx.authorization}` },
  );
  const out = join(dir, 'leak', 'eta.json');
  const base = new URL(server.openaiBaseUrl);
  base.username = 'alice';
  base.password = 'hunter2-password';
  const r = await cli(
    [
      'evaluate',
      bench,
      '--provider',
      'openai',
      '--model',
      'm',
      '--base-url',
      base.href,
      '--api-key-env',
      'MY_KEY',
      '--n-samples',
      '2',
      '-o',
      out,
      '--log',
      join(dir, 'leak', 'run.jsonl'),
      '--eee-out',
      join(dir, 'leak', 'eee'),
    ],
    { env: { MY_KEY: KEY } },
  );
  assert.equal(r.code, 1, r.stderr); // the 401s fail their samples
  assert.ok(
    server.requests.some((q) => q.authorization === `Bearer ${KEY}`),
    'the key was sent',
  );
  const written = allText(join(dir, 'leak'));
  assert.match(written, /Incorrect API key provided: \[redacted\]/, 'the echo is kept, redacted');
  assert.match(written, /your key was Bearer \[redacted\]/);
  for (const secret of [KEY, 'hunter2-password', 'alice:'])
    assert.ok(!written.includes(secret) && !(r.stdout + r.stderr).includes(secret), `${secret} leaked`);
  const runEvent = JSON.parse(readFileSync(join(dir, 'leak', 'run.jsonl'), 'utf8').split('\n')[0]);
  assert.equal(runEvent.base_url, `http://[redacted]@${base.host}/v1`);
  server.setScript(hashedVerdicts);
});

test('--api-key-env given the key itself does not echo it', async () => {
  const r = await cli([
    'evaluate',
    bench,
    '--provider',
    'anthropic',
    '--model',
    'm',
    '--api-key-env',
    KEY,
    '-o',
    join(dir, 'k.json'),
  ]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /run\.api-key-env-name/);
  assert.ok(!r.stderr.includes(KEY) && !r.stdout.includes(KEY));
});

test('the redactor: known secrets, URL user-info and key-shaped tokens', () => {
  const red = createRedactor(['s3cret-value', 'none']);
  assert.equal(red.text('a s3cret-value b none'), 'a [redacted] b none');
  assert.equal(
    red.text('see https://u:p@h.example/x and ftp://tok@h/'),
    'see https://[redacted]@h.example/x and ftp://[redacted]@h/',
  );
  assert.equal(red.text('key sk-ant-api03-abcdefghijklmnop1234 end'), 'key [redacted] end');
  assert.equal(redactUrl('http://localhost:8000/v1'), 'http://localhost:8000/v1');
});

test('an endless chunked body fails its sample (response-too-large) without growing memory', async () => {
  server.setScript(() => ({ endless: true }));
  const out = join(dir, 'endless.json');
  const r = await cli(
    [
      ...evaluateAgainst(server, bench),
      '--n-samples',
      '1',
      '--max-response-bytes',
      '1048576',
      '--max-consecutive-failures',
      '0',
      '-o',
      out,
      '--format',
      'json',
    ],
    { timeoutMs: 60_000 },
  );
  server.setScript(hashedVerdicts);
  assert.equal(r.code, 1, r.stderr);
  const summary = JSON.parse(r.stdout);
  assert.deepEqual(summary.failuresByKind, { 'response-too-large': 6 });
  const eta = JSON.parse(readFileSync(out, 'utf8'));
  const sample = eta.items[0].samples[0];
  assert.equal(sample.parse_status, 'sample_failed');
  assert.match(sample.provider_error, /^response-too-large: .*1048576 bytes/);
});

test('Retry-After is capped by --max-retry-after-ms and the run log says so', async () => {
  server.setScript((ctx) => (ctx.attempt === 1 ? { status: 429, retryAfter: '3600' } : hashedVerdicts(ctx)));
  const log = join(dir, 'retry-after.jsonl');
  const r = await cli([
    ...evaluateAgainst(server, bench),
    '--n-samples',
    '1',
    '--max-retry-after-ms',
    '20',
    '-o',
    join(dir, 'retry-after.json'),
    '--log',
    log,
  ]);
  server.setScript(hashedVerdicts);
  assert.equal(r.code, 0, r.stderr);
  // (An hour-long wait honoured would have run into the call's time limit and failed the test.)
  const retries = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((e) => e.event === 'retry');
  assert.equal(retries.length, 6);
  for (const e of retries) {
    assert.equal(e.retry_after_ms, 3_600_000);
    assert.equal(e.retry_after_capped, true);
    assert.equal(e.delay_ms, 20);
  }
});

test('usage counts that are not non-negative integers are dropped and noted', async () => {
  assert.deepEqual(checkUsage({ input_tokens: 12, output_tokens: 'abc', reasoning_tokens: -5 }), {
    usage: { input_tokens: 12, output_tokens: null, reasoning_tokens: null },
    dropped: [
      'output_tokens "abc" is not a non-negative integer',
      'reasoning_tokens -5 is not a non-negative integer',
    ],
  });
  assert.equal(checkUsage({ input_tokens: 1e308, output_tokens: 2.5 }).dropped.length, 2);

  const bad = [
    { prompt_tokens: 7, completion_tokens: 'abc' },
    { prompt_tokens: -5, completion_tokens: 1e308 },
  ];
  let k = 0;
  server.setScript((ctx) => ({ ...(hashedVerdicts(ctx) as { text: string }), rawUsage: bad[k++ % 2] }));
  const out = join(dir, 'usage.json');
  const log = join(dir, 'usage.jsonl');
  const r = await cli([
    ...evaluateAgainst(server, bench),
    '--n-samples',
    '2',
    '--concurrency',
    '1',
    '-o',
    out,
    '--log',
    log,
    '--format',
    'json',
  ]);
  server.setScript(hashedVerdicts);
  assert.equal(r.code, 0, r.stderr);
  const summary = JSON.parse(r.stdout);
  assert.equal(summary.usageDropped, 12);
  assert.equal(summary.inputTokens, 7 * 6, 'only the sane prompt_tokens count');
  assert.equal(summary.outputTokens, 0);
  const eta = JSON.parse(readFileSync(out, 'utf8'));
  for (const item of eta.items)
    for (const s of item.samples) {
      assert.ok(s.usage.input_tokens === null || s.usage.input_tokens === 7);
      assert.equal(s.usage.output_tokens, null);
    }
  const v = await cli(['validate', out]);
  assert.equal(v.code, 0, v.stdout + v.stderr);
  const notes = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((e) => e.event === 'sample' && e.usage_dropped);
  assert.equal(notes.length, 12);
});

test('a dead server stops the run early, says why, and keeps the journal', async () => {
  const dead = await startProviderServer();
  const deadUrl = dead.openaiBaseUrl;
  await dead.close();
  const out = join(dir, 'dead.json');
  const r = await cli([
    'evaluate',
    bench,
    '--provider',
    'openai',
    '--model',
    'm',
    '--base-url',
    deadUrl,
    '--n-samples',
    '5',
    '--concurrency',
    '1',
    '--max-attempts',
    '2',
    '--retry-base-ms',
    '1',
    '--max-consecutive-failures',
    '3',
    '-o',
    out,
  ]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /run\.stopped-early: stopped after 3 samples in a row failed the same way \(connection: /,
  );
  assert.match(r.stderr, /--retry-failed/);
  assert.equal(existsSync(out), false, 'no η of failures');
  const journal = readFileSync(`${out}.journal.jsonl`, 'utf8').trim().split('\n');
  // The header, the three failed samples, and at most the few already in flight when the run stopped (of 30):
  // a worker takes its next sample while the journal syncs, up to four syncs behind.
  const journaled = journal.length - 1;
  assert.ok(journaled >= 3 && journaled <= 3 + 4, `${journaled} samples journaled`);
});

test('the summary counts items whose samples all failed apart from abstentions', async () => {
  server.setScript((ctx) => (ctx.user.includes('penguin') ? { status: 400 } : hashedVerdicts(ctx)));
  const args = [...evaluateAgainst(server, bench), '--n-samples', '2', '-o', join(dir, 'some-failed.json')];
  const r = await cli([...args, '--format', 'json']);
  const summary = JSON.parse(r.stdout);
  assert.equal(summary.itemsAllFailed, 1);
  assert.equal(summary.failed, 2);
  rmSync(join(dir, 'some-failed.json'));
  const text = await cli(args);
  server.setScript(hashedVerdicts);
  const abstain = summary.verdicts.abstain - 1;
  assert.match(
    text.stdout,
    new RegExp(`abstain ${abstain}; 1 item without an answer \\(every sample failed\\)`),
  );
});

test('run.config-changed names the setting that changed', async () => {
  const out = join(dir, 'changed.json');
  const args = (t: string): string[] => [
    ...evaluateAgainst(server, bench),
    '--n-samples',
    '1',
    '--temperature',
    t,
    '-o',
    out,
  ];
  assert.equal((await cli(args('1'))).code, 0);
  rmSync(out);
  const r = await cli(args('0.5'));
  assert.equal(r.code, 2);
  assert.match(r.stderr, /run\.config-changed: .*changed: params\.temperature: was 1, now 0\.5/);
});
