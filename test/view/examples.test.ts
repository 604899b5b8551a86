// evalkit view over a store ingested from the project's examples (through the ingest library) and through
// `evalkit view PATH...`: every page of every record renders cleanly in Chromium.
// test-runner: own process (long: as a job of its own it keeps the batches short).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skipWithoutChromium } from '../helpers/browser.js';
import { cliCommand } from '../helpers/cli.js';
import { projectRoot } from '../helpers/shared.js';
import { openStore } from '../../src/store/db.js';
import { ingestPaths } from '../../src/store/ingest.js';
import { startViewServer } from '../../src/view/server.js';
import { checkPagesRender } from './checks.js';
import { withBrowser } from './harness.js';

const EXAMPLES = [
  'examples/eee/data',
  'examples/eee/aggregate-0.2.0.json',
  'examples/datastore/current',
  'examples/infereval/evaluation.json',
  'examples/bench-output/outputs',
];

test(
  'a store ingested from examples/: every record, result, sample and η page renders without console errors',
  { skip: skipWithoutChromium(), timeout: 300_000 },
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'evalkit-view-examples-'));
    try {
      const path = join(dir, 'examples.duckdb');
      const writer = await openStore(path, { readOnly: false });
      const ingested = await ingestPaths(writer, EXAMPLES, { cwd: projectRoot });
      writer.close();
      assert.ok(ingested.summary.records >= 6, JSON.stringify(ingested.summary));
      const store = await openStore(path, { readOnly: true });
      const server = await startViewServer({ store, port: 0 });
      try {
        const pages: [string, string][] = [
          ['overview', '#/overview'],
          ['leaderboard', '#/leaderboard?composite=1'],
          ['infereval', '#/infereval'],
        ];
        const records = await store.all<{ record_key: string; model_id: string }>(
          `SELECT record_key, model_id FROM records ORDER BY record_key`,
        );
        for (const [i, r] of records.entries()) {
          pages.push([`record-${i}`, `#/record?key=${r.record_key}`]);
          pages.push([`model-${i}`, `#/model?id=${encodeURIComponent(r.model_id)}`]);
        }
        const results = await store.all<{ record_key: string; result_index: number }>(
          `SELECT DISTINCT r.record_key, r.result_index FROM results r JOIN samples s USING (record_key)
           ORDER BY 1, 2`,
        );
        for (const [i, r] of results.entries()) {
          pages.push([`samples-${i}`, `#/samples?record=${r.record_key}&result=${r.result_index}`]);
        }
        const rows = await store.all<{ record_key: string; row_index: number }>(
          `SELECT record_key, row_index FROM samples ORDER BY 1, 2 LIMIT 6`,
        );
        for (const [i, r] of rows.entries())
          pages.push([`sample-${i}`, `#/sample?record=${r.record_key}&row=${r.row_index}`]);
        const etas = await store.all<{ record_key: string }>(
          `SELECT record_key FROM documents WHERE kind = 'infereval.evaluation'`,
        );
        for (const [i, e] of etas.entries())
          pages.push([`infereval-${i}`, `#/infereval?key=${e.record_key}`]);
        const pair = await store.all<{ a: string; b: string }>(
          `SELECT min(model_id) AS a, max(model_id) AS b FROM result_rows GROUP BY evaluation_name, metric_name
           HAVING count(DISTINCT model_id) >= 2 LIMIT 1`,
        );
        if (pair[0])
          pages.push([
            'compare',
            `#/compare?a=${encodeURIComponent(pair[0].a)}&b=${encodeURIComponent(pair[0].b)}`,
          ]);
        await withBrowser((context) =>
          checkPagesRender(context, server.url, join(tmpdir(), 'evalkit-view-shots'), 'examples-', pages),
        );
      } finally {
        await server.close();
        store.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
);

test('evalkit view PATH... ingests into a temporary store and serves it', { timeout: 120_000 }, async () => {
  const child = spawn(
    process.execPath,
    [
      ...(await cliCommand()),
      'view',
      'examples/eee/data',
      'examples/infereval/evaluation.json',
      '--port',
      '0',
      '--no-open',
    ],
    { cwd: projectRoot, env: { ...process.env, NO_COLOR: '1', DISPLAY: '' } },
  );
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c) => {
        out += c;
        if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
      });
      child.on('close', (code) => reject(new Error(`exited ${code}`)));
    });
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const overview = (await (await fetch(`${url}api/overview`)).json()) as { counts: { records: number } };
    assert.equal(overview.counts.records, 2);
    const etas = (await (await fetch(`${url}api/infereval`)).json()) as { evaluations: unknown[] };
    assert.equal(etas.evaluations.length, 1);
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0);
});
