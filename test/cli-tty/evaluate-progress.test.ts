// `evalkit evaluate` (replay provider, no network) under a real pseudo-terminal: a live progress line with an ETA
// on a terminal, one line per 10 % when stderr is a file, and the run summary as the last thing on screen.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCliInPty, screenLines, skipWithoutScript, type PtyResult } from '../helpers/pty.js';
import { projectRoot } from '../helpers/shared.js';

const example = (name: string): string => join(projectRoot, 'examples/run', name);

/** The birds example (6 items × 5 samples) replayed at 20 requests a second: about 1.5 s, several redraws. */
function evaluateArgs(output: string): string[] {
  return [
    'evaluate',
    example('birds.benchmark.json'),
    '--provider',
    'replay',
    '--replay-from',
    example('birds.fixture.jsonl'),
    '--model',
    'demo-model',
    '--rate-limit',
    '20',
    '-o',
    output,
  ];
}

/** Each drawn progress line: "\r" + text + erase-to-end-of-line. */
function frames(output: string): string[] {
  return [...output.matchAll(/\r(evaluate [^\r\n]*?)\x1b\[K/g)].map((m) => m[1]!);
}

const FRAME = /evaluate [█░]{24} items \d\/6 {2}samples (\d+)\/30 {2}failed 0 {2}tokens \d+ {2}[\d.]+\/s/;

describe('evaluate on a terminal', { skip: skipWithoutScript(), timeout: 60_000 }, () => {
  let dir = '';
  let wide: PtyResult;
  let unsized: PtyResult;
  let errRedirected: PtyResult;
  let errFile = '';
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'evalkit-tty-eval-'));
    errFile = join(dir, 'stderr.txt');
    [wide, unsized, errRedirected] = await Promise.all([
      runCliInPty(evaluateArgs(join(dir, 'wide.eta.json')), { columns: 140 }),
      runCliInPty(evaluateArgs(join(dir, 'unsized.eta.json')), { columns: 0 }),
      runCliInPty(evaluateArgs(join(dir, 'redirected.eta.json')), {
        stderrTo: errFile,
        env: { NO_COLOR: '1' },
      }),
    ]);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('redraws one progress line with an ETA while samples are pending, then leaves the finished bar', () => {
    const r = wide;
    assert.equal(r.code, 0, r.output);
    const drawn = frames(r.output);
    assert.ok(
      drawn.length >= 3,
      `expected several redraws, got ${drawn.length}: ${JSON.stringify(r.output)}`,
    );
    for (const f of drawn) assert.match(f, FRAME);
    const pending = drawn.filter((f) => Number(FRAME.exec(f)![1]) < 30);
    assert.ok(pending.length > 0, 'no frame drawn before the end');
    for (const f of pending) assert.match(f, / {2}ETA \d+s$/);

    // On screen: the finished bar (30/30, no ETA), then the summary, whose last line ends the output.
    const screen = screenLines(r.output);
    assert.match(screen[0]!, FRAME);
    assert.match(screen[0]!, /samples 30\/30 .*\/s$/);
    assert.match(screen[1]!, /^wrote .*wide\.eta\.json \(run /);
    assert.equal(screen.at(-1), '  no sample failed');
    assert.equal(screen.length, 7, screen.join('\n'));
    // A terminal gets the summary in colour.
    assert.match(r.output, /\x1b\[32m {2}no sample failed\x1b\[39m\n$/);
  });

  it('an unsized pty (0 columns) gets an 80-column line, not a line cut to 20 characters', () => {
    const r = unsized;
    assert.equal(r.code, 0, r.output);
    const drawn = frames(r.output);
    assert.ok(drawn.length > 0, r.output);
    for (const f of drawn) {
      assert.ok(f.length <= 79, `wider than 80 columns: ${JSON.stringify(f)}`);
      assert.match(f, /items \d\/6 {2}samples \d+\/30/);
    }
  });

  it('with stderr redirected to a file: one plain line per 10 %, no bar; stdout unchanged and uncoloured', () => {
    const r = errRedirected;
    assert.equal(r.code, 0, r.output);
    const stderr = readFileSync(errFile, 'utf8');
    assert.doesNotMatch(stderr, /\r|\x1b|█/);
    const lines = stderr.trimEnd().split('\n');
    assert.ok(lines.length >= 5 && lines.length <= 10, stderr);
    for (const line of lines) assert.match(line, /^evaluate: \d+\/30 samples, \d\/6 items, 0 failed$/);
    assert.equal(lines.at(-1), 'evaluate: 30/30 samples, 6/6 items, 0 failed');

    assert.doesNotMatch(r.output, /\r|\x1b/);
    const screen = screenLines(r.output);
    assert.equal(screen.length, 6, r.output);
    assert.match(screen[0]!, /^wrote .*redirected\.eta\.json \(run /);
    // Same summary as the terminal run, apart from the file name, run id and timings.
    const shape = (lines: string[]): string[] =>
      lines.map((l) =>
        l.replace(/\/\S+\.eta\.json \(run [^)]*\)/, 'ETA').replace(/[\d.]+ samples\/s.*$/, 'T'),
      );
    assert.deepEqual(shape(screen), shape(screenLines(wide.output).slice(1)));
  });
});
