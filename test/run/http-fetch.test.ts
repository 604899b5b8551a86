// The fetch handed to the SDKs: the response it builds behaves like a WHATWG Response where the SDKs look.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { nodeHttpFetch } from '../../src/io/net/http-fetch.js';

let server: Server;
let base: string;
before(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/empty') return void res.writeHead(204).end();
      res.setHeader('content-type', 'application/json');
      res.setHeader('x-multi', ['a', 'b']);
      res.writeHead(req.url === '/missing' ? 404 : 200, { 'X-Request-Id': 'req-7' });
      res.end(
        JSON.stringify({
          method: req.method,
          echo: Buffer.concat(chunks).toString('utf8'),
          sample: req.headers['x-sample'] ?? null,
          length: req.headers['content-length'] ?? null,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

test('status, headers (case-insensitive, repeated values joined) and the JSON body of a POST', async () => {
  const body = JSON.stringify({ q: 'é' });
  const response = await nodeHttpFetch(`${base}/echo`, {
    method: 'POST',
    headers: new Headers({ 'X-Sample': 's-1' }),
    body,
  });
  assert.equal(response.status, 200);
  assert.equal(response.ok, true);
  assert.equal(response.url, `${base}/echo`);
  assert.equal(response.headers.get('x-request-id'), 'req-7');
  assert.equal(response.headers.get('X-REQUEST-ID'), 'req-7');
  assert.equal(response.headers.get('x-multi'), 'a, b');
  assert.equal(response.headers.get('absent'), null);
  assert.ok(
    [...response.headers.entries()].some(([k, v]) => k === 'content-type' && v === 'application/json'),
  );
  assert.deepEqual(await response.json(), {
    method: 'POST',
    echo: body,
    sample: 's-1',
    length: String(Buffer.byteLength(body)),
  });
  await assert.rejects(response.text(), TypeError, 'a body is read once');
});

test('looking at body does not consume it; clone reads independently; reading the stream does consume it', async () => {
  const response = await nodeHttpFetch(`${base}/missing`);
  assert.equal(response.status, 404);
  assert.equal(response.ok, false);
  assert.equal(response.body?.locked, false);
  const copy = response.clone();
  assert.equal(JSON.parse(await copy.text()).method, 'GET');
  assert.equal(JSON.parse(await response.text()).method, 'GET');

  const streamed = await nodeHttpFetch(`${base}/missing`);
  const read = await new Response(streamed.body).text();
  assert.equal(JSON.parse(read).method, 'GET');
  await assert.rejects(streamed.json(), TypeError);
});

test('a 204 has no body; an aborted request rejects', async () => {
  const empty = await nodeHttpFetch(`${base}/empty`);
  assert.equal(empty.status, 204);
  assert.equal(empty.body, null);
  assert.equal(await empty.text(), '');
  const controller = new AbortController();
  controller.abort(new Error('stop'));
  await assert.rejects(nodeHttpFetch(`${base}/echo`, { signal: controller.signal }), /stop/);
});
