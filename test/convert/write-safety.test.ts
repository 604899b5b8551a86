// What convert writes never destroys what it reads, and leaves no temporary file behind: every file written is
// checked against every input (the input at the output path, through a symlink, through a hard link), a re-run
// whose output is unchanged leaves nothing, and the temporaries of a convert killed with SIGKILL are swept by the
// next run, which completes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
} from 'node:fs';
import { join } from 'node:path';
import { test, before } from 'node:test';
import { cli } from '../checks/cli-inproc.js';
import { projectRoot } from '../helpers/shared.js';
import { tempRoot } from './helpers.js';
import { writeFixture } from './lm-eval-fixture.js';
import { cliCommand } from '../helpers/cli.js';

/** The CLI from the tests' shared build (a start costs 0.3 s of CPU, not the 2.4 s of tsx). */
let CLI: string[] = [];
before(async () => {
  CLI = await cliCommand();
});
import { writeGeneratedRun } from './lm-eval-generated.js';

/** Every file under `dir` (relative names). */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string): void => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true }))
      e.isDirectory() ? walk(join(d, e.name), join(rel, e.name)) : out.push(join(rel, e.name));
  };
  walk(dir, '');
  return out.sort();
}

const temporaries = (dir: string): string[] => filesUnder(dir).filter((f) => f.endsWith('.tmp'));

/** Converts the fixture run once; returns the run folder, the root and the written pair (absolute). */
async function convertedOnce(): Promise<{ run: string; root: string; aggregate: string; samples: string }> {
  const base = tempRoot();
  const run = join(base, 'run');
  writeFixture(run);
  const root = join(base, 'out');
  const r = await cli(['convert', run, '-o', root, '--format', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const record = JSON.parse(r.stdout).records[0];
  return { run, root, aggregate: join(root, record.aggregatePath), samples: join(root, record.samplesPath) };
}

const samplesOf = (run: string, task: string): string =>
  join(
    run,
    readdirSync(run).find((f) => f.startsWith(`samples_${task}_`))!,
  );

test('convert --force refuses to overwrite an input that sits at the output path (inside the output folder)', async () => {
  const { run, root, aggregate } = await convertedOnce();
  // The results file placed where its own aggregate goes, converted from there into the same root.
  const results = join(
    run,
    readdirSync(run).find((f) => f.startsWith('results_'))!,
  );
  copyFileSync(results, aggregate);
  const before = readFileSync(aggregate);
  const r = await cli(['convert', aggregate, '-o', root, '--force', '--format', 'json']);
  assert.equal(r.code, 2, r.stdout);
  assert.equal(JSON.parse(r.stdout).failures[0].code, 'io.output-is-input');
  assert.deepEqual(readFileSync(aggregate), before, 'the input is untouched');
  assert.deepEqual(temporaries(root), []);
});

test('convert --force refuses to overwrite an input reached through a symlink', async () => {
  const { run, root, samples } = await convertedOnce();
  // The lm-eval samples file lives at the output's samples path; the run folder links to it.
  const input = samplesOf(run, 'sub_a');
  renameSync(input, samples);
  symlinkSync(samples, input);
  const before = readFileSync(samples);
  const r = await cli(['convert', run, '-o', root, '--force', '--format', 'json']);
  assert.equal(r.code, 2, r.stdout);
  const failure = JSON.parse(r.stdout).failures[0];
  assert.equal(failure.code, 'io.output-is-input');
  assert.match(failure.message, /samples_sub_a_/);
  assert.deepEqual(readFileSync(samples), before, 'the input is untouched');
  assert.deepEqual(temporaries(root), []);
});

test('convert --force refuses to write over a hard link of an input', async () => {
  const { run, root, samples } = await convertedOnce();
  const input = samplesOf(run, 'sub_b');
  renameSync(samples, `${samples}.old`);
  linkSync(input, samples);
  const r = await cli(['convert', run, '-o', root, '--force', '--format', 'json']);
  assert.equal(r.code, 2, r.stdout);
  assert.equal(JSON.parse(r.stdout).failures[0].code, 'io.output-is-input');
});

test('the output root inside the input folder is not taken for an input', async () => {
  const base = tempRoot();
  writeFixture(base);
  const root = join(base, 'out');
  assert.equal((await cli(['convert', base, '-o', root])).code, 0);
  const again = await cli(['convert', base, '-o', root, '--force', '--format', 'json']);
  assert.equal(again.code, 0, again.stdout);
  assert.equal(JSON.parse(again.stdout).records[0].status, 'unchanged');
});

test('a re-run whose output is unchanged leaves no temporary file', async () => {
  const { run, root } = await convertedOnce();
  const before = filesUnder(root);
  for (const flags of [[], ['--force']]) {
    const r = await cli(['convert', run, '-o', root, '--format', 'json', ...flags]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).records[0].status, 'unchanged');
    assert.deepEqual(filesUnder(root), before, `no file added (${flags.join(' ') || 'no flags'})`);
  }
});

test('a refused write (exists with different content) leaves no temporary file', async () => {
  const { run, root, aggregate } = await convertedOnce();
  const text = readFileSync(aggregate, 'utf8').replace('"tiny-model"', '"tiny-model-edited"');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(aggregate, text);
  const r = await cli(['convert', run, '-o', root, '--format', 'json']);
  assert.equal(r.code, 1, r.stdout);
  assert.equal(JSON.parse(r.stdout).failures[0].code, 'convert.exists');
  assert.deepEqual(temporaries(root), []);
});

test('kill -9 during a large convert: the re-run sweeps the temporaries, completes, and leaves nothing', async () => {
  const base = tempRoot();
  const { results } = writeGeneratedRun(join(base, 'run'), 8 * 1024 * 1024);
  const root = join(base, 'out');
  mkdirSync(root);
  const child = spawn(process.execPath, [...CLI, 'convert', results, '-o', root, '--jobs', '1'], {
    cwd: projectRoot,
    stdio: 'ignore',
  });
  const exited = new Promise((r) => child.on('exit', r));
  let seen: string[] = [];
  for (let i = 0; i < 30_000 && child.exitCode === null; i++) {
    seen = temporaries(root);
    if (seen.length > 0) break;
    await new Promise((r) => setTimeout(r, 2));
  }
  child.kill('SIGKILL');
  await exited;
  assert.ok(seen.length > 0, 'the convert was killed while writing its temporary file');
  assert.ok(temporaries(root).length > 0, 'the kill left a temporary file');
  const again = await cli(['convert', results, '-o', root, '--format', 'json']);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(JSON.parse(again.stdout).records[0].status, 'written');
  assert.deepEqual(temporaries(root), [], 'swept and none left');
  assert.equal(filesUnder(root).length, 2);
});
