// The SurveyMonkey importer against the real local server (test/helpers/surveymonkey-server.ts): a token echoed
// back base64- or URL-encoded is redacted; an endless links.next chain is stopped with a clear message (sooner
// when the server's own total says the chain is too long) and shows progress; a base URL with its own ?query
// builds correct URLs; a long Retry-After wait is said on standard error.
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { EvalkitError } from '../../src/errors.js';
import { createRedactor, encodedForms } from '../../src/io/net/redact.js';
import { importSurvey } from '../../src/survey/import/index.js';
import { cli } from '../checks/cli-inproc.js';
import {
  startSurveyMonkeyServer,
  surveyDetails,
  surveyResponse,
  type SurveyMonkeyServer,
} from '../helpers/surveymonkey-server.js';
import { ABSTAIN, BAD, benchmarkDoc, GOOD, sidecarRows, tempDir, write } from './import-fixture.js';

const TOKEN = 'sm+tok/en=0123456789?&abc';
const SURVEY = '55501';
const dir = tempDir();
const benchmark = write(dir, 'bench.json', benchmarkDoc());
const mapping = write(dir, 'survey.mapping.json', sidecarRows());

let server: SurveyMonkeyServer;
before(async () => {
  server = await startSurveyMonkeyServer({
    token: TOKEN,
    surveyId: SURVEY,
    details: surveyDetails(SURVEY, 3, [GOOD, BAD, ABSTAIN]),
    responses: [
      surveyResponse('1', 'completed', [1, 2, 3]),
      surveyResponse('2', 'completed', [2, 2, 1]),
      surveyResponse('3', 'completed', [3, 1, 1]),
    ],
  });
});
after(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.misbehave = () => undefined;
});

const run = (sm: Record<string, unknown> = {}) =>
  importSurvey({
    benchmark,
    responses: SURVEY,
    from: 'surveymonkey-api',
    mapping,
    requireComplete: false,
    surveyMonkey: {
      token: TOKEN,
      baseUrl: server.baseUrl,
      perPage: 1,
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5, timeoutMs: 2000 },
      ...sm,
    },
  });

const caught = async (p: Promise<unknown>): Promise<EvalkitError> => {
  try {
    await p;
  } catch (e) {
    return e as EvalkitError;
  }
  assert.fail('expected an error');
};

describe('SurveyMonkey import hardening', () => {
  it('redacts the token echoed base64-encoded (alone, in a header, in Basic auth) and URL-encoded', async () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const echoes = [
      b64(TOKEN),
      b64(`Bearer ${TOKEN}`),
      b64(`user:${TOKEN}`),
      b64(`x${TOKEN}`).replace(/\+/g, '-').replace(/\//g, '_'),
      encodeURIComponent(TOKEN),
      encodeURIComponent(TOKEN).toLowerCase(),
    ];
    server.misbehave = () => ({
      status: 400,
      body: JSON.stringify({ error: { name: 'Bad Request', message: `echo ${echoes.join(' | ')}` } }),
    });
    const e = await caught(run());
    assert.equal(e.code, 'survey.surveymonkey-api');
    assert.match(e.message, /HTTP 400: Bad Request: echo \[redacted\]/);
    for (const form of [TOKEN, ...encodedForms(TOKEN)]) assert.ok(!e.message.includes(form), form);
    for (const echo of echoes)
      assert.ok(!e.message.includes(echo), `the echo ${echo} is not printed whole: ${e.message}`);
  });

  it('the redactor leaves ordinary text alone', () => {
    const r = createRedactor([TOKEN]);
    const text = 'page 2 of 5: 100 responses, base64 aGVsbG8gd29ybGQ= and 50%20off';
    assert.equal(r.text(text), text);
  });

  it('stops a links.next chain that goes past the total the server announced', async () => {
    server.misbehave = () => ({ endlessNext: true });
    const pages: number[] = [];
    const e = await caught(run({ onPage: (_r: number, _t: number, p: number) => pages.push(p) }));
    assert.equal(e.code, 'survey.surveymonkey-bad-response');
    assert.match(
      e.message,
      /links\.next goes on past page 5, more than the 3 responses the server announced need at 1 a page \(3 read\); stopped/,
    );
    assert.deepEqual(pages, [1, 2, 3, 4, 5]);
  });

  it('stops an endless chain without a total at the page cap, saying how far it got', async () => {
    server.misbehave = () => ({ endlessNext: true, total: false });
    const e = await caught(run({ maxPages: 12 }));
    assert.equal(e.code, 'survey.surveymonkey-too-many-pages');
    assert.match(e.message, /links\.next goes on past 12 pages \(3 responses read\); stopped/);
    assert.equal(server.requests.filter((r) => r.path.endsWith('/responses/bulk')).length, 12);
  });

  it('a base URL with its own ?query builds correct URLs (the query kept, ours added)', async () => {
    const r = await run({ baseUrl: `${server.baseUrl}/?tenant=eu&x=1#frag` });
    assert.equal(r.summary.added.length, 3);
    const [details, firstPage] = server.requests;
    assert.equal(details.path, `/v3/surveys/${SURVEY}/details`);
    assert.equal(details.query.get('tenant'), 'eu');
    assert.equal(firstPage.path, `/v3/surveys/${SURVEY}/responses/bulk`);
    assert.deepEqual(
      [...firstPage.query.entries()],
      [
        ['tenant', 'eu'],
        ['x', '1'],
        ['per_page', '1'],
        ['page', '1'],
      ],
    );
  });

  describe('CLI', () => {
    const args = (out: string, ...more: string[]) => [
      'survey',
      'import',
      benchmark,
      SURVEY,
      '--from',
      'surveymonkey-api',
      '--mapping',
      mapping,
      '--surveymonkey-base-url',
      server.baseUrl,
      '--surveymonkey-token',
      TOKEN,
      '-o',
      join(dir, out),
      ...more,
    ];

    it('says how long it waits when the server asks for a long Retry-After', async () => {
      server.misbehave = (i) => (i === 1 ? { status: 429, retryAfter: '5' } : undefined);
      const r = await cli(args('wait.json'));
      assert.equal(r.code, 0, r.stderr);
      assert.match(
        r.stderr,
        /SurveyMonkey answered HTTP 429: Server Error: scripted failure; waiting 5 s before trying again \(as its Retry-After asks\)/,
      );
    });

    it('an endless chain prints progress lines and stops at --surveymonkey-max-pages with the remedy', async () => {
      server.misbehave = () => ({ endlessNext: true, total: false });
      const r = await cli(args('endless.json', '--surveymonkey-max-pages', '45'));
      assert.equal(r.code, 2, r.stdout);
      assert.match(r.stderr, /SurveyMonkey: 20 pages read, 3 responses\n/);
      assert.match(r.stderr, /SurveyMonkey: 40 pages read, 3 responses\n/);
      assert.match(
        r.stderr,
        /survey\.surveymonkey-too-many-pages: .*past 45 pages.*raise --surveymonkey-max-pages/,
      );
      assert.ok(!r.stderr.includes(TOKEN));
    });
  });
});
