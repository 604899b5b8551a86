// Small things a new user trips on: aligned columns, labels that say what they count, -f for --format, one
// name per record type, help wrapped once, no escape codes where there is no terminal.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, runNode } from '../helpers/cli.js';
import { projectRoot } from '../helpers/shared.js';

const loop = join(projectRoot, 'examples/retrieval/loop');

test('retrieval score: latencies without float noise, columns aligned', async () => {
  const r = await cli([
    'retrieval',
    'score',
    '--gold',
    join(loop, 'gold.jsonl'),
    '--results',
    join(loop, 'results.jsonl'),
    '--events',
    join(loop, 'events.jsonl'),
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /p95 2227\.1 ms/);
  assert.doesNotMatch(r.stdout, /\d\.\d{5,} ms/);
  const lines = r.stdout.split('\n');
  const header = lines.findIndex((l) => l.startsWith('metric'));
  const table = lines.slice(header, header + 13);
  const meanEnd = table[0].indexOf('mean') + 'mean'.length;
  for (const line of table.slice(1)) {
    const mean = /(\d+\.\d{4})\s+\[/.exec(line)!;
    assert.equal(mean.index + mean[1].length, meanEnd, `"${line}": the mean column ends under its header`);
  }
});

test('metrics labels its verdict counts as substantive pairs only', async () => {
  const r = await cli(['metrics', join(projectRoot, 'test/fixtures/metrics/eta-run1.json')]);
  assert.match(r.stdout, /M verdicts \(substantive pairs\)\s+: good 19 \/ bad 12 \/ abstain 0/);
});

test('-f is --format on hash, paths, evaluate and sweep', async () => {
  const bench = join(projectRoot, 'examples/run/birds.benchmark.json');
  const h = await cli(['hash', bench, '-f', 'json']);
  assert.equal(JSON.parse(h.stdout).files[0].type, 'infereval.benchmark');
  for (const command of ['paths', 'evaluate', 'sweep']) {
    const help = await cli([command, '--help']);
    assert.match(help.stdout, /-f, --format <format>/, command);
  }
});

test('hash and migrate call instance rows eee.instance, as the registry does', async () => {
  const r = await cli(['hash', join(projectRoot, 'examples/eee/instances-0.2.0.jsonl'), '-f', 'json']);
  assert.equal(JSON.parse(r.stdout).files[0].type, 'eee.instance');
  const m = await cli(['migrate', join(projectRoot, 'examples/datastore/legacy'), '--dry-run', '-f', 'json']);
  const kinds = JSON.parse(m.stdout).files.map((f: { kind: string }) => f.kind);
  assert.ok(kinds.includes('eee.instance') && !kinds.includes('eee.instances'), kinds.join());
});

test('help text is wrapped once, by the terminal width, not by hand as well', async () => {
  for (const command of ['stats', 'report']) {
    const r = await cli([command, '--help']);
    // Wrapped once (at 80 columns off a terminal), every line of the first paragraph but its last is nearly full;
    // wrapped by hand as well, every other line is a short leftover.
    const lines = r.stdout.split('\n\n')[1].split('\n');
    assert.ok(lines.length >= 4, command);
    for (const line of lines.slice(0, -1)) assert.ok(line.length >= 60, `${command}: short line "${line}"`);
  }
});

test('the quickstart writes no escape codes into output that is not a terminal', async () => {
  const r = await runNode([join(projectRoot, 'scripts/quickstart.mjs')], { timeoutMs: 120_000 });
  assert.match(r.stdout, /▶ Validate the example records/);
  assert.doesNotMatch(r.stdout + r.stderr, /\u001b\[/);
});
