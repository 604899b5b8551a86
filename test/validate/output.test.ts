import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { diagnosticLine, githubLine, summaryLine } from '../../src/cli/output/diagnostics.js';
import { createProgress } from '../../src/cli/output/progress.js';
import type { Diagnostic } from '../../src/diagnostics.js';

const d: Diagnostic = {
  file: 'a,b:c.json',
  line: 3,
  column: 7,
  pointer: '/x',
  severity: 'error',
  code: 'schema.type',
  message: 'must be 100%\nnumber',
};

describe('diagnostics printer', () => {
  it('text: file:line:col severity code message (at pointer); colours only when asked', () => {
    assert.equal(diagnosticLine(d), 'a,b:c.json:3:7 error schema.type must be 100%\nnumber (at /x)');
    assert.ok(!diagnosticLine(d).includes('\u001b['));
    assert.ok(diagnosticLine(d, true).includes('\u001b['));
  });

  it('github: escapes properties and message', () => {
    assert.equal(
      githubLine({ ...d, severity: 'warning' }),
      '::warning file=a%2Cb%3Ac.json,line=3,col=7,title=schema.type::must be 100%25%0Anumber (at /x)',
    );
  });

  it('summary counts', () => {
    const s = { files: 2, documents: 5, valid: 4, invalid: 1, errors: 2, warnings: 1 };
    assert.equal(summaryLine(s), '✖ 2 files, 5 documents: 4 valid, 1 invalid (2 errors, 1 warning)');
    assert.equal(
      summaryLine({ ...s, valid: 5, invalid: 0, errors: 0, warnings: 0 }),
      '✔ 2 files, 5 documents: all valid',
    );
  });
});

describe('progress bar', () => {
  function stream(isTTY: boolean) {
    let text = '';
    const s = Object.assign(
      new Writable({
        write(c, _e, done) {
          text += String(c);
          done();
        },
      }),
      { isTTY, columns: 80 },
    );
    return { s, text: () => text };
  }
  const io = (stderr: ReturnType<typeof stream>['s']) => ({
    stdout: stderr,
    stderr,
    stdin: process.stdin,
    env: {},
    cwd: '.',
  });

  it('draws on a TTY and erases itself', () => {
    const tty = stream(true);
    const p = createProgress(io(tty.s), { delayMs: 0 });
    p.update(50, 100, '1/2 files');
    p.done();
    assert.match(tty.text(), /\[#+\.+\]\s+50% .*1\/2 files/);
    assert.ok(tty.text().endsWith('\r\u001b[K'));
  });

  it('stays silent when standard error is not a TTY', () => {
    const pipe = stream(false);
    const p = createProgress(io(pipe.s), { delayMs: 0 });
    p.update(50, 100);
    p.done();
    assert.equal(pipe.text(), '');
  });
});
