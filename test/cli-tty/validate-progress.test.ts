// `evalkit validate` under a real pseudo-terminal: the progress bar appears on stderr only when stderr is a
// terminal, fits the terminal's width, and is erased before the summary.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  runCliInPty,
  screenLines,
  shellQuote,
  skipWithoutScript,
  stripSgr,
  type PtyResult,
} from '../helpers/pty.js';

/** EEE 0.3.0 instance rows, each valid and distinct. */
function instanceRows(count: number, from = 0): string {
  const rows: string[] = [];
  for (let i = from; i < from + count; i++) {
    rows.push(
      JSON.stringify({
        schema_version: '0.3.0',
        evaluation_id: 'tty-progress-1',
        model_id: 'acme/tiny-1b',
        evaluation_name: 'arithmetic',
        sample_id: `s${i}`,
        interaction_type: 'single_turn',
        input: {
          raw: `What is ${i} + ${i}? Answer with the number only. `.repeat(4),
          reference: [String(2 * i)],
        },
        output: { raw: [String(2 * i)] },
        answer_attribution: [
          {
            turn_idx: 0,
            source: 'output.raw',
            extracted_value: String(2 * i),
            extraction_method: 'exact_match',
            is_terminal: true,
          },
        ],
        evaluation: { score: 1, is_correct: true },
      }),
    );
  }
  return `${rows.join('\n')}\n`;
}

// The bar usually waits 500 ms and redraws at most ten times a second (src/cli/output/progress.ts); these runs set
// EVALKIT_PROGRESS_EVERY_TICK=1, so that it draws at every progress tick (a 1 MiB chunk read) however fast the
// machine: ≈ 4.8 MB gives several frames.
const ROWS = 8_000;
const EVERY_TICK = { env: { EVALKIT_PROGRESS_EVERY_TICK: '1' } };
const BAR_FRAME = /\r\x1b\[K\[([#.]+)\]\s+\d+% [\d.]+ [kMG]?B\/[\d.]+ [kMG]?B/;

describe('validate on a terminal', { skip: skipWithoutScript(), timeout: 90_000 }, () => {
  let dir = '';
  let onTty: PtyResult;
  let errRedirected: PtyResult;
  let errFile = '';
  let outRedirected: PtyResult;
  let outFile = '';
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'evalkit-tty-'));
    const big = join(dir, 'big.instances.jsonl');
    writeFileSync(big, instanceRows(ROWS));
    errFile = join(dir, 'stderr.txt');
    outFile = join(dir, 'report.txt');
    // The same run twice at once: stdout and stderr on the pty, then stderr sent to a file.
    [onTty, errRedirected, outRedirected] = await Promise.all([
      runCliInPty(['validate', big], { columns: 60, ...EVERY_TICK }),
      runCliInPty(['validate', big], { columns: 60, stderrTo: errFile, ...EVERY_TICK }),
      runCliInPty(['validate', big], { columns: 60, stdoutTo: outFile, ...EVERY_TICK }),
    ]);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const summary = `✔ 1 file, ${ROWS} documents: all valid`;

  it('draws a bar as wide as the terminal allows, erases it, and ends with the summary', () => {
    const r = onTty;
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, BAR_FRAME, 'no progress bar');

    // Every frame fits in 59 columns, and the bar itself shrinks to 10 cells on a 60-column terminal (30 on 80+).
    const frames = r.output.split('\r\x1b[K').slice(1, -1);
    assert.ok(frames.length >= 2, `expected several redraws, got ${frames.length}`);
    for (const f of frames) {
      assert.ok(f.length <= 59, `frame wider than the terminal: ${JSON.stringify(f)}`);
      assert.doesNotMatch(f, /\n/);
    }
    assert.equal(BAR_FRAME.exec(r.output)![1]!.length, 10);

    // What the user sees at the end: the summary alone, no trace of the bar, colours on (a TTY).
    assert.deepEqual(screenLines(r.output), [summary]);
    assert.match(r.output, /\x1b\[32m✔/);
  });

  it('with stderr redirected to a file: no bar anywhere, and stdout is what the terminal run showed', () => {
    const r = errRedirected;
    assert.equal(r.code, 0, r.output);
    const stderr = readFileSync(errFile, 'utf8');
    assert.equal(stderr, '', `stderr file: ${JSON.stringify(stderr.slice(0, 200))}`);
    assert.doesNotMatch(r.output, /\r|\x1b\[K|\[#/);
    // stdout is still the pty (colours on): the very screen of the run that had the bar.
    assert.equal(r.output, `\x1b[32m✔\x1b[39m${summary.slice(1)}\n`);
    assert.deepEqual(screenLines(onTty.output), screenLines(r.output));
  });

  it('with stdout redirected to a file (evalkit validate … > report.txt): the bar stays on the terminal', () => {
    const r = outRedirected;
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, BAR_FRAME);
    assert.deepEqual(screenLines(r.output), [], 'the bar was not erased');
    // The report file is plain: its stream is not a terminal, even though stderr is.
    assert.equal(readFileSync(outFile, 'utf8'), `${summary}\n`);
  });

  it('a slow stream on standard input (no known size) shows bytes read, whatever the machine speed', async () => {
    // Some rows, a pause longer than the bar's delay, more rows: the bar must have drawn by then.
    const first = join(dir, 'first.jsonl');
    const second = join(dir, 'second.jsonl');
    writeFileSync(first, instanceRows(2_000));
    writeFileSync(second, instanceRows(2_000, 2_000));
    const feed = `{ cat ${shellQuote(first)}; sleep 1; cat ${shellQuote(second)}; }`;
    const [r, quiet] = await Promise.all([
      runCliInPty(['validate', '-'], { stdinFrom: feed }),
      runCliInPty(['validate', '-', '--no-progress'], { stdinFrom: feed }),
    ]);
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, /\r\x1b\[K[\d.]+ [kMG]?B [\d.]+ [kMG]?B\/s 0\/1 files/);
    assert.deepEqual(screenLines(r.output), ['✔ 1 file, 4000 documents: all valid']);
    assert.equal(quiet.code, 0, quiet.output);
    assert.equal(stripSgr(quiet.output), '✔ 1 file, 4000 documents: all valid\n');
  });
});
