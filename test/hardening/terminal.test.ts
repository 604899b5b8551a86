// Escapes and control characters in record text (ids, tags, file names) never reach the
// terminal raw — one filter on the CLI's output streams; our own colours and progress redraws still pass.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { projectRoot } from '../helpers/shared.js';
import { neutraliseControls } from '../../src/cli/output/terminal-text.js';

const HOSTILE = '\u001b]0;pwned\u0007\u001b[2J\r\u009b31m';
let dir: string;
let eta: string;
let bench: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'evalkit-harden-tty-'));
  const fixtures = join(projectRoot, 'test/fixtures/metrics');
  const e = JSON.parse(readFileSync(join(fixtures, 'eta-run1.json'), 'utf8'));
  const b = JSON.parse(readFileSync(join(fixtures, 'benchmark.json'), 'utf8'));
  for (const doc of [e, b]) {
    doc.items[0].id = `item-${HOSTILE}`;
    doc.items[0].tags = [`tag-${HOSTILE}`];
  }
  eta = join(dir, 'eta.json');
  bench = join(dir, 'benchmark.json');
  writeFileSync(eta, JSON.stringify(e));
  writeFileSync(bench, JSON.stringify(b));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

test('metrics --by-tag, retest, structure and validate print no raw control character', async () => {
  const badName = join(dir, `bad${HOSTILE}.json`);
  writeFileSync(badName, '{"schema_version": "1.0", "id": 3}');
  const runs = [
    ['metrics', eta, '--by-tag', `tag-${HOSTILE}`],
    ['retest', eta, eta, '--benchmark', bench],
    ['structure', eta, '--benchmark', bench],
    ['validate', badName],
    ['validate', badName, '-f', 'json'],
  ];
  for (const args of runs) {
    const r = await cli(args);
    assert.ok(r.code === 0 || r.code === 1, `${args[0]}: ${r.stderr}`);
    assert.doesNotMatch(r.stdout, RAW, `${args.join(' ')}: stdout`);
    assert.doesNotMatch(r.stderr, RAW, `${args.join(' ')}: stderr`);
    if (args[0] === 'metrics' || args[0] === 'validate')
      assert.match(r.stdout, /\\u001b\]0;pwned\\u0007/, `${args[0]} shows the escape visibly`);
  }
  // JSON output stays JSON, with the same values.
  const json = await cli(['metrics', eta, '--by-tag', `tag-${HOSTILE}`, '-f', 'json']);
  assert.ok(
    JSON.stringify(JSON.parse(json.stdout)).includes(
      `tag-${HOSTILE}`
        .replace('\u0007', '\\u0007')
        .replace(/\u001b/g, '\\u001b')
        .replace('\r', '\\r'),
    ),
  );
});

test('neutraliseControls keeps our colours and redraws only where allowed', () => {
  const coloured = '\u001b[1m\u001b[31mred\u001b[39m\u001b[22m';
  assert.equal(neutraliseControls(coloured, { colour: true, redraw: false }), coloured);
  assert.equal(neutraliseControls(coloured), '\\u001b[1m\\u001b[31mred\\u001b[39m\\u001b[22m');
  assert.equal(neutraliseControls('\u001b[8mhidden', { colour: true, redraw: true }), '\\u001b[8mhidden');
  assert.equal(neutraliseControls('\r\u001b[Kbar', { colour: false, redraw: true }), '\r\u001b[Kbar');
  assert.equal(neutraliseControls('a\tb\nc\u0085d\u007f'), 'a\tb\nc\\u0085d\\u007f');
  assert.equal(neutraliseControls('plain text'), 'plain text');
  // CRLF line ends (query --format csv) pass; a lone carriage return (overwrites the line) does not.
  assert.equal(neutraliseControls('a,b\r\nc,d\r\n'), 'a,b\r\nc,d\r\n');
  assert.equal(neutraliseControls('fake\rreal'), 'fake\\u000dreal');
});
