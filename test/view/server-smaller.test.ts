// The viewer's smaller guards: the Host header a browser sends on port 80 and on a wildcard host is accepted (a
// foreign one still refused), a cookie that is not valid percent-encoding is no token (401, not 500), and a token of
// spaces is refused before the server starts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../src/store/db.js';
import { startViewServer, type ViewServer } from '../../src/view/server.js';
import { buildFixtureStore } from './fixture.js';
import { cli } from './inproc.js';

/** A raw GET with our own Host and Cookie headers (fetch cannot set Host). */
function get(port: number, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

async function withStore(use: (store: Store, db: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'evalkit-view-smaller-'));
  const db = join(dir, 'fixture.duckdb');
  await buildFixtureStore(db);
  const store = await openStore(db, { readOnly: true });
  try {
    await use(store, db);
  } finally {
    store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function tryStart(options: Parameters<typeof startViewServer>[0]): Promise<ViewServer | string> {
  try {
    return await startViewServer(options);
  } catch (error) {
    return (error as Error).message;
  }
}

test('on port 80 the Host header without a port is ours', async (t) => {
  await withStore(async (store) => {
    const server = await tryStart({ store, port: 80 });
    if (typeof server === 'string') {
      t.skip(`cannot listen on port 80 here: ${server}`);
      return;
    }
    try {
      assert.equal(await get(80, '/api/overview', { Host: '127.0.0.1' }), 200);
      assert.equal(await get(80, '/api/overview', { Host: 'localhost' }), 200);
      assert.equal(await get(80, '/api/overview', { Host: 'localhost:80' }), 200);
      assert.equal(await get(80, '/api/overview', { Host: 'evil.example' }), 421);
    } finally {
      await server.close();
    }
  });
});

test('on --host 0 and 0.0.0.0 the machine names and addresses are ours, others are refused', async () => {
  await withStore(async (store) => {
    for (const host of ['0', '0.0.0.0']) {
      const server = await startViewServer({ store, host, port: 0, token: 'sesame-sesame' });
      try {
        const auth = { Authorization: 'Bearer sesame-sesame' };
        for (const name of [host, '127.0.0.1', 'localhost', hostname()]) {
          assert.equal(
            await get(server.port, '/api/overview', { ...auth, Host: `${name}:${server.port}` }),
            200,
            `${host}: Host ${name}`,
          );
        }
        assert.equal(
          await get(server.port, '/api/overview', { ...auth, Host: `evil.example:${server.port}` }),
          421,
        );
        // A cookie that is not valid percent-encoding is no token.
        assert.equal(
          await get(server.port, '/api/overview', {
            Host: `127.0.0.1:${server.port}`,
            Cookie: 'evalkit_token=%ZZ',
          }),
          401,
        );
      } finally {
        await server.close();
      }
    }
  });
});

test('a huge row number is a bad request, not a server error', async () => {
  await withStore(async (store) => {
    const server = await startViewServer({ store, port: 0 });
    try {
      const r = await fetch(`${server.url}api/sample?record=x&row=99999999999999999999`);
      assert.equal(r.status, 400);
      assert.match(await r.text(), /view\.bad-parameter/);
    } finally {
      await server.close();
    }
  });
});

test('a token of spaces (or with spaces) is refused before anything starts', async () => {
  await withStore(async (store, db) => {
    await assert.rejects(
      startViewServer({ store, port: 0, token: '        ' }),
      /--token must be at least 8 characters/,
    );
    for (const token of ['        ', ' \t sesame  ', 'sesame sesame']) {
      const run = await cli(['view', '--db', db, '--token', token, '--no-open']);
      assert.equal(run.code, 2, JSON.stringify(token));
      assert.match(run.stderr, /--token must be at least 8 characters, without spaces or control characters/);
    }
  });
});
