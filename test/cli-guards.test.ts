// Guards across commands: an output that is an input is refused before any work, --in-place keeps the file's mode
// and symlinks and says when the record was invalid before, special files as inputs are refused without hanging,
// unreadable inputs are clear I/O errors.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cli } from './helpers/cli.js';
import { projectRoot } from './helpers/shared.js';

const example = (p: string) => join(projectRoot, 'examples', p);
const EEE_DIR = 'eee/data/demo-bench/acme/tiny-model-1b';
const AGG = '7c2f4e1a-93b5-4d6e-8a0f-2b1c3d4e5f60';

let dir = '';
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'evalkit-cli-guards-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function copy(from: string, name: string): string {
  const to = join(dir, name);
  copyFileSync(example(from), to);
  return to;
}

function refusedAsInput(r: { code: number; stderr: string }): void {
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /error io\.output-is-input: the output .* is the input /);
}

describe('an output that is one of the inputs is refused, and the input is left as it was', () => {
  it('report E.json --html E.json / --markdown via a symlink', async () => {
    const eta = copy('report/evaluation.json', 'E.json');
    const before_ = readFileSync(eta);
    refusedAsInput(await cli(['report', eta, '--html', eta]));
    symlinkSync(eta, join(dir, 'E-link.md'));
    refusedAsInput(await cli(['report', eta, '--markdown', join(dir, 'E-link.md')]));
    assert.deepEqual(readFileSync(eta), before_);
  });

  it('retrieval score -o gold.jsonl and retrieval gate -o thresholds.json', async () => {
    const gold = copy('retrieval/gold.jsonl', 'gold.jsonl');
    const results = copy('retrieval/results.jsonl', 'results.jsonl');
    const events = copy('retrieval/events.jsonl', 'events.jsonl');
    const thresholds = copy('retrieval/thresholds.json', 'thresholds.json');
    const snapshot = [gold, thresholds].map((f) => readFileSync(f));
    refusedAsInput(await cli(['retrieval', 'score', '--gold', gold, '--results', results, '-o', gold]));
    refusedAsInput(
      await cli(['retrieval', 'gate', '--events', events, '--thresholds', thresholds, '-o', thresholds]),
    );
    assert.deepEqual(
      [gold, thresholds].map((f) => readFileSync(f)),
      snapshot,
    );
  });

  it('stats A.json -o A_samples.jsonl', async () => {
    const agg = copy(`${EEE_DIR}/${AGG}.json`, `${AGG}.json`);
    const samples = copy(`${EEE_DIR}/${AGG}_samples.jsonl`, `${AGG}_samples.jsonl`);
    const before_ = readFileSync(samples);
    refusedAsInput(await cli(['stats', agg, '-o', samples]));
    refusedAsInput(await cli(['stats', agg, '--samples', agg, '--in-place']));
    assert.deepEqual(readFileSync(samples), before_);
  });
});

describe('stats --in-place', () => {
  it('keeps a 0600 file 0600 and writes through a symlink', async () => {
    const agg = copy(`${EEE_DIR}/${AGG}.json`, 'private.json');
    const samples = copy(`${EEE_DIR}/${AGG}_samples.jsonl`, 'private_samples.jsonl');
    chmodSync(agg, 0o600);
    symlinkSync(agg, join(dir, 'via-link.json'));
    const r = await cli([
      'stats',
      join(dir, 'via-link.json'),
      '--samples',
      samples,
      '--in-place',
      '--iterations',
      '50',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(lstatSync(join(dir, 'via-link.json')).isSymbolicLink());
    assert.equal(statSync(agg).mode & 0o777, 0o600);
    assert.match(readFileSync(agg, 'utf8'), /"uncertainty"/);
  });

  it('says when the record was invalid before stats rewrote it', async () => {
    const agg = join(dir, 'invalid.json');
    const doc = JSON.parse(readFileSync(example(`${EEE_DIR}/${AGG}.json`), 'utf8'));
    delete doc.model_info.name;
    writeFileSync(agg, JSON.stringify(doc, null, 2));
    const samples = copy(`${EEE_DIR}/${AGG}_samples.jsonl`, 'invalid_samples.jsonl');
    const r = await cli(['stats', agg, '--samples', samples, '--in-place', '--iterations', '50']);
    assert.match(
      r.stdout,
      /note: .*invalid\.json was not a valid eee\.aggregate 0\.3\.0 before this change \(schema\.required/,
    );
    const j = await cli([
      'stats',
      agg,
      '--samples',
      samples,
      '--in-place',
      '--iterations',
      '50',
      '--format',
      'json',
    ]);
    assert.match(JSON.parse(j.stdout).invalid_before, /was not a valid/);
  });
});

describe('special files as inputs are refused at once, saying what they are', () => {
  let fifo = '';
  before(() => {
    fifo = join(dir, 'input.fifo.json');
    execFileSync('mkfifo', [fifo]);
  });
  // Each with a time limit: before the guard, these hung (or grew memory) until stopped.
  for (const args of [
    ['metrics', '/dev/zero'],
    ['hash', 'FIFO'],
    ['report', 'FIFO'],
    ['validate', 'FIFO'],
    ['validate', '/dev/zero'],
    ['stats', 'FIFO'],
  ]) {
    it(args.join(' '), async () => {
      // A call that hangs runs into its time limit, which fails the test.
      const r = await cli(
        args.map((a) => (a === 'FIFO' ? fifo : a)),
        { timeoutMs: 30_000 },
      );
      assert.equal(r.code, 2, r.stderr);
      assert.match(
        r.stderr,
        /error io\.not-regular: .*it is (a named pipe \(FIFO\)|a character device), not a regular file/,
      );
    });
  }

  it(
    'an unreadable samples file is a clear permission error',
    { skip: process.getuid?.() === 0 && 'root reads any file' },
    async () => {
      const agg = copy(`${EEE_DIR}/${AGG}.json`, 'locked.json');
      const samples = copy(`${EEE_DIR}/${AGG}_samples.jsonl`, 'locked_samples.jsonl');
      chmodSync(samples, 0);
      const r = await cli(['stats', agg, '--samples', samples]);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /error io\.permission: cannot read .*locked_samples\.jsonl: permission denied/);
    },
  );
});

describe('inputs that could crash a command are a data error, or work (never an internal error)', () => {
  it('report on an η whose items carry different numbers of analyst verdicts', async () => {
    const eta = JSON.parse(readFileSync(example('report/evaluation.json'), 'utf8'));
    eta.items[1].analyst_verdicts.pop();
    const path = join(dir, 'uneven.json');
    writeFileSync(path, JSON.stringify(eta));
    const r = await cli(['report', path]);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /error metrics\.uneven-panel: item "item-01" has 2 analyst verdict\(s\) but item "item-00" has 3/,
    );
    assert.doesNotMatch(r.stderr, /internal error/);
  });

  it('report --sweep with 300,000 points (no stack overflow)', async () => {
    const points = Array.from({ length: 300_000 }, (_, i) => ({ value: i / 1000, kappa: (i % 100) / 100 }));
    const path = join(dir, 'sweep-big.json');
    writeFileSync(path, JSON.stringify({ parameter: 'temperature', points }));
    const r = await cli(['report', example('report/evaluation.json'), '--sweep', path, '--format', 'json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      JSON.parse(r.stdout).evidence?.sweep?.kappa_range ?? JSON.parse(r.stdout).sweep?.kappa_range,
      0.99,
    );
  });
});
