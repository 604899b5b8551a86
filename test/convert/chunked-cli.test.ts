// The chunked conversion from the CLI as shipped (the esbuild bundle starts convert-worker.js next to cli.mjs) and
// from source: the same bytes as one thread; and a conversion killed while its workers run leaves no record under
// its final name (only hidden temporary files).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
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
  const child = spawn(process.execPath, bundleArgv(['convert', results, '-o', root, '--jobs', '2']), {
    stdio: 'ignore',
  });
  const exited = new Promise((r) => child.on('exit', r));
  const files = (): string[] => {
    const out: string[] = [];
    const walk = (d: string): void => {
      if (!existsSync(d)) return;
      for (const e of readdirSync(d, { withFileTypes: true }))
        e.isDirectory() ? walk(join(d, e.name)) : out.push(e.name);
    };
    walk(root);
    return out;
  };
  let sawTemporary = false;
  for (let i = 0; i < 5000 && child.exitCode === null; i++) {
    if (files().some((f) => f.endsWith('.tmp'))) {
      sawTemporary = true;
      break;
    }
    await new Promise((r) => setTimeout(r, 2));
  }
  child.kill('SIGKILL');
  await exited;
  ctx.diagnostic(sawTemporary ? 'killed while a temporary file existed' : 'the run finished before the kill');
  const final = files().filter((f) => !f.endsWith('.tmp'));
  if (sawTemporary) assert.deepEqual(final, [], 'only temporary files');
  else assert.equal(final.length, 2, 'a finished run wrote its pair');
});
