// The CLI as `npm run build` ships it: one bundle (scripts/bundle.mjs) and its worker file. It must print exactly
// what the CLI from source prints, including with --jobs 2 (the worker is started from the bundle's folder).
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { builtCli } from './helpers/built-cli.js';
import { cliFromSource as fromSource, runNode } from './helpers/cli.js';

/** The bundle scripts/bundle.mjs writes, built once per run for every test file that needs it. */
let cli = '';
before(async () => {
  cli = (await builtCli()).cli;
});

/** Runs the bundle the way bin/evalkit.js does. */
function runBundle(args: string[]) {
  const script = `const { main } = await import(${JSON.stringify(pathToFileURL(cli).href)}); process.exitCode = await main(process.argv);`;
  return runNode(['--input-type=module', '-e', script, 'evalkit', ...args]);
}

test('the bundled CLI validates with a worker and prints what the CLI from source prints', async () => {
  const args = ['validate', 'examples/eee', 'examples/infereval', '--format', 'json', '--max-errors', '0'];
  const [bundled, source] = await Promise.all([
    runBundle([...args, '--jobs', '2']),
    fromSource([...args, '--jobs', '1']),
  ]);
  assert.equal(bundled.stderr, '');
  assert.equal(bundled.code, source.code);
  assert.ok(JSON.parse(source.stdout).summary.invalid > 0, 'the examples include invalid documents');
  assert.equal(bundled.stdout, source.stdout);
});

test('the bundled CLI reports a usage error with exit code 2 and no stack trace', async () => {
  const r = await runBundle(['validate', '--jobs', 'many', 'examples/eee']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--jobs/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});
