// Colours in diagnostics: on a real terminal only, NO_COLOR always wins, FORCE_COLOR forces them on (or, as 0,
// off), TERM=dumb has none, and a pipe gets plain text.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { cli, type CliResult } from '../helpers/cli.js';
import { runCliInPty, skipWithoutScript, stripSgr, type PtyResult } from '../helpers/pty.js';
import { projectRoot } from '../helpers/shared.js';

const invalid = join(projectRoot, 'examples/retrieval/invalid/gold-missing-fields.jsonl');
const args = ['validate', invalid];
const SGR = /\x1b\[[0-9;]*m/;
const ANY_ESCAPE = /\x1b/;

describe('diagnostic colours', { skip: skipWithoutScript(), timeout: 60_000 }, () => {
  const tty: Record<string, PtyResult> = {};
  const piped: Record<string, CliResult> = {};
  before(async () => {
    const ttyRuns: Record<string, Record<string, string | undefined>> = {
      plain: {},
      noColor: { NO_COLOR: '1' },
      forceOff: { FORCE_COLOR: '0' },
      dumb: { TERM: 'dumb' },
    };
    const pipeRuns: Record<string, Record<string, string | undefined>> = {
      plain: { NO_COLOR: undefined, FORCE_COLOR: undefined },
      forced: { NO_COLOR: undefined, FORCE_COLOR: '1' },
      forcedButNoColor: { NO_COLOR: '1', FORCE_COLOR: '1' },
    };
    // Two at a time: each terminal run is mostly the CLI's start-up.
    const jobs: Array<() => Promise<void>> = [
      ...Object.entries(ttyRuns).map(([name, env]) => async () => {
        tty[name] = await runCliInPty(args, { env });
      }),
      ...Object.entries(pipeRuns).map(([name, env]) => async () => {
        piped[name] = await cli(args, { env, timeoutMs: 30_000 });
      }),
    ];
    for (let i = 0; i < jobs.length; i += 2) await Promise.all(jobs.slice(i, i + 2).map((job) => job()));
  });

  /** The same three diagnostics and summary whatever the colouring. */
  function assertSameText(text: string): void {
    const lines = stripSgr(text).trimEnd().split('\n');
    assert.equal(lines.length, 4, text);
    assert.match(
      lines[0]!,
      /gold-missing-fields\.jsonl:2:1 error schema\.required missing required field "layers"/,
    );
    assert.match(lines[3]!, /^✖ 1 file, 3 documents: 1 valid, 2 invalid \(3 errors, 0 warnings\)$/);
  }

  it('a terminal gets coloured diagnostics (red errors, cyan paths, dim codes)', () => {
    const r = tty.plain!;
    assert.equal(r.code, 1, r.output);
    assert.match(r.output, /\x1b\[36m[^\x1b]*gold-missing-fields\.jsonl\x1b\[39m:2:1 \x1b\[31m\x1b\[1merror/);
    assert.match(r.output, /\x1b\[2mschema\.required\x1b\[22m/);
    assertSameText(r.output);
  });

  it('NO_COLOR=1 on a terminal: no escape sequence at all', () => {
    const r = tty.noColor!;
    assert.equal(r.code, 1, r.output);
    assert.doesNotMatch(r.output, ANY_ESCAPE);
    assertSameText(r.output);
  });

  it('FORCE_COLOR=0 and TERM=dumb turn colours off on a terminal', () => {
    for (const r of [tty.forceOff!, tty.dumb!]) {
      assert.equal(r.code, 1, r.output);
      assert.doesNotMatch(r.output, SGR);
      assertSameText(r.output);
    }
  });

  it('piped output is plain unless FORCE_COLOR asks, and NO_COLOR beats FORCE_COLOR', () => {
    assert.equal(piped.plain!.code, 1);
    assert.doesNotMatch(piped.plain!.stdout, ANY_ESCAPE);
    assertSameText(piped.plain!.stdout);
    // The pipe run's text is the terminal run's, minus colours (and minus the pty's line discipline, which is off).
    assert.equal(piped.plain!.stdout, stripSgr(tty.plain!.output));

    assert.match(piped.forced!.stdout, /\x1b\[31m\x1b\[1merror/);
    assertSameText(piped.forced!.stdout);

    assert.doesNotMatch(piped.forcedButNoColor!.stdout, ANY_ESCAPE);
  });
});
