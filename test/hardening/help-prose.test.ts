// Issue 39 item 19: help is prose the terminal's width wraps, never broken by hand inside a sentence ("… the
// distinct" / newline / "samples of its rows" in `reconcile --help`). Every command's and sub-command's help is
// rendered at two widths through `main` with a terminal of that width: each line of a description paragraph but
// its last is as full as the width allows (the next word would not have fitted), so a line ends early only where
// the text ends a paragraph, a list item or a table row.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { main } from '../../src/cli/main.js';

async function help(args: string[], columns: number): Promise<string> {
  let out = '';
  const stdout = Object.assign(
    new Writable({
      write(chunk, _encoding, done) {
        out += String(chunk);
        done();
      },
    }),
    { isTTY: true, columns },
  );
  const stderr = new Writable({ write: (_c, _e, done) => done() });
  const code = await main(['node', 'evalkit', ...args, '--help'], {
    stdout,
    stderr,
    stdin: process.stdin,
    env: { NO_COLOR: '1', TERM: 'dumb' },
    cwd: process.cwd(),
  });
  assert.equal(code, 0, args.join(' '));
  return out;
}

/** The names listed under "Commands:" of a help text (without `help`). */
const commandsOf = (text: string): string[] =>
  [...(text.split('\nCommands:\n')[1] ?? '').matchAll(/^ {2}([a-z][\w-]*)/gm)]
    .map((m) => m[1])
    .filter((name) => name !== 'help');

/** Every command line with a help of its own: each command, and each sub-command of a group. */
async function everyCommand(): Promise<string[][]> {
  const all: string[][] = [];
  for (const name of commandsOf(await help([], 80))) {
    const subs = commandsOf(await help([name], 80));
    all.push([name], ...subs.map((sub) => [name, sub]));
  }
  return all;
}

/** The description's lines: after the usage line, before Arguments/Options/Commands. */
const descriptionOf = (text: string): string[] =>
  text
    .split(/\n(?:Arguments|Options|Commands):\n/)[0]
    .split('\n')
    .slice(2);

/** The lines of a description that end early: a prose line followed by more prose whose first word would fit. */
function earlyBreaks(lines: string[], width: number): string[] {
  const prose = (line: string | undefined): boolean =>
    line !== undefined && line.trim() !== '' && !/^(\s|[-*•] )/.test(line);
  const found: string[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!prose(lines[i]) || !prose(lines[i + 1])) continue;
    const nextWord = lines[i + 1].split(/\s/)[0];
    if (lines[i].length + 1 + nextWord.length <= width) found.push(`${lines[i]} ⏎ ${nextWord}`);
  }
  return found;
}

test('every command’s help wraps its prose at the terminal width, with no line break inside a sentence', async () => {
  const commands = await everyCommand();
  for (const named of [['reconcile'], ['query'], ['export', 'hf-evals'], ['ingest'], ['convert']])
    assert.ok(
      commands.some((c) => c.join(' ') === named.join(' ')),
      `${named.join(' ')} is checked`,
    );
  const broken: string[] = [];
  for (const command of commands)
    for (const width of [64, 150]) {
      const lines = descriptionOf(await help(command, width));
      for (const line of earlyBreaks(lines, width)) broken.push(`${command.join(' ')} (${width}): ${line}`);
      // Wrapped by the width: no line of prose is longer than it unless it is one word.
      for (const line of lines)
        if (line.length > width && /\s/.test(line.trim()))
          broken.push(`${command.join(' ')} (${width}): too long: ${line}`);
    }
  assert.deepEqual(broken, []);
});

test('the reconcile help reads its first sentence on full lines (the exact case of the issue)', async () => {
  const text = (await help(['reconcile'], 100)).replace(/\n/g, ' ');
  assert.match(text, /the distinct samples of its rows against the count its source declared/);
});
