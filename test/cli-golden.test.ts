// The bundled CLI, started as a process the way bin/evalkit.js starts it, prints byte for byte what it printed
// before the start-up work of issue 32 (lazy command modules, a split bundle): test/fixtures/cli-golden.json was
// recorded from the build of main before that change. A change that means to alter an output re-records it with
// EVALKIT_GOLDEN_UPDATE=1 (`EVALKIT_GOLDEN_UPDATE=1 node scripts/run-tests.mjs test/cli-golden`) and shows the
// difference in its diff.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runCli } from './helpers/cli.js';
import { projectRoot } from './helpers/shared.js';

const GOLDEN = join(projectRoot, 'test', 'fixtures', 'cli-golden.json');
const update = process.env.EVALKIT_GOLDEN_UPDATE === '1';

const tmp = mkdtempSync(join(tmpdir(), 'evalkit-golden-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const db = join(tmp, 'arith.duckdb');
const converted = join(tmp, 'converted');

/** Run in this order (later ones read what earlier ones wrote), each in the project root. */
const CASES: string[][] = [
  ['--version'],
  ['--help'],
  ['help', 'validate'],
  ['validate', '--help'],
  ['survey', 'export', '--help'],
  ['retrieval', 'score', '--help'],
  ['frobnicate'],
  ['--frobnicate'],
  ['validate', '--jobs', 'many', 'examples/eee'],
  ['validate', 'examples/eee', 'examples/infereval'],
  ['validate', 'examples/datastore/current', 'examples/retrieval', '--format', 'json'],
  ['schema', 'list'],
  ['hash', 'examples/infereval/benchmark.json', 'examples/eee/instances-0.2.0.jsonl'],
  ['describe', 'examples/infereval/benchmark.json'],
  ['metrics', 'examples/infereval/evaluation.json', '--format', 'json'],
  ['paths', 'examples/bench-output/outputs'],
  ['convert', 'examples/convert/lm-eval', '-o', converted],
  ['validate', converted, '--format', 'json'],
  ['ingest', 'examples/compare', '--db', db],
  ['leaderboard', '--db', db],
  ['compare', 'acme/tiny-model-3b', 'acme/tiny-model-1b', '--db', db, '--format', 'json'],
  ['models', '--db', db],
  ['query', 'select count(*) as n from records', '--db', db],
];

/** The temporary folder's name differs from run to run. */
const stable = (text: string): string => text.split(tmp).join('<tmp>');

interface Recorded {
  args: string[];
  code: number | null;
  stdout: string;
  stderr: string;
}

test('the bundled CLI prints what it printed before the start-up change (test/fixtures/cli-golden.json)', async () => {
  const recorded: Recorded[] = [];
  for (const args of CASES) {
    const r = await runCli(args, { cwd: projectRoot });
    recorded.push({
      args: args.map(stable),
      code: r.code,
      stdout: stable(r.stdout),
      stderr: stable(r.stderr),
    });
  }
  if (update) {
    writeFileSync(GOLDEN, `${JSON.stringify(recorded, null, 1)}\n`);
    return;
  }
  const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Recorded[];
  assert.deepEqual(
    recorded.map((r) => r.args),
    golden.map((g) => g.args),
    'the cases changed: re-record with EVALKIT_GOLDEN_UPDATE=1',
  );
  for (let i = 0; i < golden.length; i++) {
    assert.deepEqual(recorded[i], golden[i], `evalkit ${golden[i].args.join(' ')}`);
  }
});
