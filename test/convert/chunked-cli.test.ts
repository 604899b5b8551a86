// The chunked conversion from the CLI as shipped (the esbuild bundle starts convert-worker.js next to cli.mjs) and
// from source: the same bytes as one thread; and a conversion killed while its workers run leaves no record under
// its final name (only hidden temporary files).
import assert from 'node:assert/strict';
import { killBeforeFirstRename } from '../helpers/pause.js';
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { builtCli } from '../helpers/built-cli.js';
import { cliFromSource as fromSource, runNode } from '../helpers/cli.js';
import { tempRoot, treeBytes } from './helpers.js';
import { writeGeneratedRun } from './lm-eval-generated.js';

/** The bundle scripts/bundle.mjs writes, built once per run for every test file that needs it. */
let cli = '';
let results = '';
before(async () => {
  cli = (await builtCli()).cli;
  // Two samples files of ~3 MiB: three 1 MiB chunks each with --jobs 2.
  results = writeGeneratedRun(join(tempRoot(), 'run'), 3 * 1024 * 1024).results;
});

const bundleArgv = (args: string[]): string[] => [
  '--input-type=module',
  '-e',
  `const { main } = await import(${JSON.stringify(pathToFileURL(cli).href)}); process.exitCode = await main(process.argv);`,
  'evalkit',
  ...args,
];

test('the bundled CLI converts with workers (--jobs 2) to the bytes the CLI from source writes in one thread', async () => {
  assert.ok(existsSync(join(dirname(cli), 'convert-worker.js')), 'the bundle has the convert worker');
  const a = tempRoot();
  const b = tempRoot();
  const [bundled, source] = await Promise.all([
    runNode(bundleArgv(['convert', results, '-o', a, '--jobs', '2', '--format', 'json'])),
    fromSource(['convert', results, '-o', b, '--jobs', '1', '--format', 'json']),
  ]);
  assert.equal(bundled.stderr, '');
  assert.equal(bundled.code, 0, bundled.stdout);
  assert.equal(source.code, 0, source.stderr);
  const ta = treeBytes(a);
  const tb = treeBytes(b);
  assert.deepEqual([...ta.keys()], [...tb.keys()]);
  for (const [k, v] of ta) assert.ok(v.equals(tb.get(k)!), k);
  assert.equal(JSON.parse(bundled.stdout).records[0].rows, JSON.parse(source.stdout).records[0].rows);
});

test('killed while workers convert: no aggregate or samples file under its final name', async (ctx) => {
  const root = tempRoot();
  const walk = (d: string, out: string[] = []): string[] => {
    if (!existsSync(d)) return out;
    for (const e of readdirSync(d, { withFileTypes: true }))
      if (e.isDirectory()) walk(join(d, e.name), out);
      else out.push(e.name);
    return out;
  };
  // The pair written whole waits before its renames (src/convert/write.ts): the kill lands there, every time.
  const paused = await killBeforeFirstRename(bundleArgv(['convert', results, '-o', root, '--jobs', '2']));
  const started = basename(paused);
  ctx.diagnostic(`killed with ${started} written but not renamed`);
  const left = walk(root);
  assert.ok(left.includes(started), 'the temporary file is left as it was');
  assert.deepEqual(
    left.filter((f) => !f.endsWith('.tmp')),
    [],
    'no aggregate or samples file under its final name',
  );
});
