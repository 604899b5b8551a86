// The SurveyMonkey v3 API path of `survey import`, against a real local HTTP server that speaks the protocol
// (test/helpers/surveymonkey-server.ts) and misbehaves on demand: 401, 429 with Retry-After, 500 then success, a
// body that is not JSON, a dropped connection, a slow answer, pagination over several pages, an off-site next link.
import { strict as assert } from 'node:assert';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { EvalkitError } from '../../src/errors.js';
import { importSurvey, type SurveyImportOptions } from '../../src/survey/import/index.js';
import type { RetryInfo } from '../../src/io/net/retry.js';
import {
  startSurveyMonkeyServer,
  surveyDetails,
  surveyResponse,
  type SurveyMonkeyServer,
} from '../helpers/surveymonkey-server.js';
import { ABSTAIN, BAD, benchmarkDoc, GOOD, sidecarRows, tempDir, write } from './import-fixture.js';

const TOKEN = 'sm-token-0123456789abcdef';
const SURVEY = '412345678';
const dir = tempDir();
const benchmark = write(dir, 'bench.json', benchmarkDoc());
const mapping = write(dir, 'survey.mapping.json', sidecarRows());

const responses = [
  surveyResponse('101', 'completed', [1, 2, 3], { expertise: 'Botanist', rationales: { 2: 'the tarp' } }),
  surveyResponse('102', 'completed', [2, 2, 1]),
  surveyResponse('103', 'completed', [3, 1, 1]),
  surveyResponse('104', 'partial', [1, 0, 0]),
  surveyResponse('105', 'completed', [1, 1, 2]),
];

let server: SurveyMonkeyServer;
before(async () => {
  server = await startSurveyMonkeyServer({
    token: TOKEN,
    surveyId: SURVEY,
    details: surveyDetails(SURVEY, 3, [GOOD, BAD, ABSTAIN]),
    responses,
  });
});
after(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.misbehave = () => undefined;
});

const retries: RetryInfo[] = [];
const run = (over: Partial<SurveyImportOptions> = {}, sm: Record<string, unknown> = {}) => {
  retries.length = 0;
  return importSurvey({
    benchmark,
    responses: SURVEY,
    from: 'surveymonkey-api',
    mapping,
    requireComplete: false,
    ...over,
    surveyMonkey: {
      token: TOKEN,
      baseUrl: server.baseUrl,
      perPage: 2,
      retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5, timeoutMs: 2000 },
      retryHooks: { onRetry: (i) => retries.push(i) },
      ...sm,
    },
  });
};

const rejects = async (p: Promise<unknown>, code: string, message: RegExp): Promise<EvalkitError> => {
  let caught: EvalkitError | undefined;
  await assert.rejects(p, (e: EvalkitError) => {
    assert.equal(e.code, code, e.message);
    assert.match(e.message, message);
    assert.ok(!e.message.includes(TOKEN), 'the token is never in a message');
    caught = e;
    return true;
  });
  return caught!;
};

describe('surveymonkey-api', () => {
  it('reads the details and every page of responses, decoding choice ids through the question choices', async () => {
    const pages: [number, number | undefined][] = [];
    const r = await run(
      {},
      { onPage: (read: number, total: number | undefined) => pages.push([read, total]) },
    );
    assert.deepEqual(pages, [
      [2, 5],
      [4, 5],
      [5, 5],
    ]);
    const doc = JSON.parse(r.text);
    assert.deepEqual(
      doc.analysts.map((a: { id: string }) => a.id),
      ['seed', 'clinician-101', 'clinician-102', 'clinician-103', 'clinician-104', 'clinician-105'],
    );
    assert.deepEqual(
      doc.items.map((i: { analyst_verdicts: string[] }) => i.analyst_verdicts.slice(1)),
      [
        ['good', 'bad', 'abstain', 'good', 'good'],
        ['bad', 'bad', 'good', 'abstain', 'good'],
        ['abstain', 'good', 'good', 'abstain', 'bad'],
      ],
    );
    assert.equal(doc.analysts[1].expertise_description, 'Botanist');
    assert.deepEqual(doc.items[1].analyst_rationales, [
      'covered grass stays dry',
      'the tarp',
      '',
      '',
      '',
      '',
    ]);
    const partial = r.summary.added.find((a) => a.responseId === '104')!;
    assert.deepEqual([partial.finished, partial.answered, partial.filledAbstain], [false, 1, 2]);
    // one details request, then pages 1..3 of 2 per page, each with the bearer token
    assert.deepEqual(
      server.requests.map((q) => `${q.path.replace(`/v3/surveys/${SURVEY}`, '')}?${q.query}`),
      [
        '/details?',
        '/responses/bulk?per_page=2&page=1',
        '/responses/bulk?page=2&per_page=2',
        '/responses/bulk?page=3&per_page=2',
      ],
    );
    assert.ok(server.requests.every((q) => q.authorization === `Bearer ${TOKEN}`));
  });

  it('refuses the partial response by default', async () => {
    await rejects(
      run({ requireComplete: true }),
      'survey.incomplete',
      /"104" \(SurveyMonkey survey 412345678, response 104\) did not finish/,
    );
  });

  it('a refused token is an auth error at once, without retries, and the token is not shown', async () => {
    const e = await rejects(
      run({}, { token: 'wrong-token-abcdef' }),
      'survey.surveymonkey-auth',
      /\/details: HTTP 401: Authorization Error: The authorization token provided was invalid\.; the access token was refused/,
    );
    assert.equal(server.requests.length, 1);
    assert.ok(!e.message.includes('wrong-token-abcdef'));
    await rejects(
      run({}, { token: '  ' }),
      'survey.surveymonkey-token-missing',
      /no SurveyMonkey access token given/,
    );
  });

  it('waits as long as Retry-After asks on a 429, then goes on', async () => {
    server.misbehave = (i) => (i === 1 ? { status: 429, retryAfter: '1' } : undefined);
    const r = await run();
    assert.equal(r.summary.added.length, 5);
    assert.equal(retries.length, 1);
    assert.equal(retries[0].delayMs, 1000);
    assert.equal(retries[0].error.status, 429);
    const gap = server.requests[2].at - server.requests[1].at;
    assert.ok(gap >= 950, `waited ${gap} ms`);
  });

  it('retries a 500 and succeeds', async () => {
    server.misbehave = (i) => (i === 0 ? { status: 500 } : undefined);
    const r = await run();
    assert.equal(r.summary.added.length, 5);
    assert.equal(server.requests.length, 5);
    assert.equal(retries[0].error.kind, 'http-500');
  });

  it('retries a dropped connection and succeeds', async () => {
    server.misbehave = (i) => (i === 2 ? { drop: true } : undefined);
    const r = await run();
    assert.equal(r.summary.added.length, 5);
    assert.equal(retries[0].error.kind, 'connection');
  });

  it('a body that is never JSON fails after the attempts, saying so', async () => {
    server.misbehave = (i) => (i >= 1 ? { garbage: '<html>maintenance</html>' } : undefined);
    await rejects(
      run(),
      'survey.surveymonkey-api',
      /responses\/bulk\?per_page=2&page=1: the body is not JSON .*"<html>maintenance<\/html>".* \(after 3 attempts\)/,
    );
    assert.equal(server.requests.length, 4);
  });

  it('a persistent 503 fails after the attempts with the server’s message', async () => {
    server.misbehave = () => ({ status: 503 });
    await rejects(
      run(),
      'survey.surveymonkey-api',
      /\/details: HTTP 503: Server Error: scripted failure \(after 3 attempts\)/,
    );
  });

  it('times out a slow answer and retries it', async () => {
    // A time limit a loaded machine's answers stay well under, and a slow answer well over it.
    server.misbehave = (i) => (i === 0 ? { delayMs: 3_000 } : undefined);
    const r = await run({}, { retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5, timeoutMs: 1_000 } });
    assert.equal(r.summary.added.length, 5);
    assert.equal(retries[0].error.kind, 'timeout');
  });

  it('an unknown survey is a not-found error', async () => {
    await rejects(
      run({ responses: '999' }),
      'survey.surveymonkey-not-found',
      /\/surveys\/999\/details: HTTP 404/,
    );
  });

  it('does not follow links.next to another host (the token would go with it)', async () => {
    server.misbehave = (i) => (i === 1 ? { nextOffsite: 'http://127.0.0.2:9' } : undefined);
    await rejects(
      run(),
      'survey.surveymonkey-bad-response',
      /refusing to send the token to http:\/\/127\.0\.0\.2:9/,
    );
    assert.equal(server.requests.length, 2);
  });

  it('caps the size of a response', async () => {
    await rejects(run({}, { maxResponseBytes: 200 }), 'survey.surveymonkey-api', /limit of 200 bytes/);
  });

  it('redacts the token when the server echoes it', async () => {
    server.misbehave = () => ({
      status: 400,
      body: JSON.stringify({ error: { name: 'Bad Request', message: `token ${TOKEN} not allowed` } }),
    });
    const e = await rejects(
      run(),
      'survey.surveymonkey-api',
      /HTTP 400: Bad Request: token \[redacted\] not allowed/,
    );
    assert.equal(server.requests.length, 1, 'a 400 is not retried');
    assert.ok(!e.message.includes(TOKEN));
  });
});
