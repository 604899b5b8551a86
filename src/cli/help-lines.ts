/**
 * `evalkit --help` lists every command with its usage and summary, which would load every command's module (all of
 * the bundle's chunks) only to print one line of each. The bundled CLI instead carries the lines the build recorded
 * (scripts/bundle.mjs calls `recordHelpLines` on a first build and writes them into the CLI as a constant): `--help`
 * then registers a bare command per line and prints them through commander as before, so the output is the same
 * (test/cli-golden). Run from source, the constant is absent and every module is loaded, as for any other help.
 * Below: how every help's prose is wrapped (`proseHelp`).
 */
import { Help, type Command, type HelpConfiguration } from 'commander';

/** A command's line in the top-level help: its name, its term (`validate [options] <paths...>`) and its summary. */
export interface HelpLine {
  name: string;
  term: string;
  summary: string;
}

declare const EVALKIT_HELP_LINES: readonly HelpLine[] | undefined;

/** The lines the build recorded (the bundled CLI); undefined when run from source. */
export const recordedHelpLines: readonly HelpLine[] | undefined =
  typeof EVALKIT_HELP_LINES === 'undefined' ? undefined : EVALKIT_HELP_LINES;

/** Whether the command line asks for the top-level help and nothing else. */
export const isTopLevelHelp = (args: readonly string[]): boolean =>
  args.length === 1 && (args[0] === '--help' || args[0] === '-h');

/** The top-level help's lines of the commands registered on `program`, as commander prints them. */
export function helpLinesOf(program: Command): HelpLine[] {
  const help = program.createHelp();
  return program.commands.map((c) => ({
    name: c.name(),
    term: help.subcommandTerm(c),
    summary: help.subcommandDescription(c),
  }));
}

/** Registers a bare command per recorded line on `program`, printed in the help as the real command would be. */
export function registerHelpLines(program: Command, lines: readonly HelpLine[]): void {
  const terms = new Map<string, string>();
  for (const line of lines) {
    terms.set(line.name, line.term);
    program.command(line.name).summary(line.summary);
  }
  const standard = new Help();
  program.configureHelp({
    ...program.configureHelp(),
    subcommandTerm: (c) => terms.get(c.name()) ?? standard.subcommandTerm(c),
  });
}

/*
 * How every command's help is laid out: descriptions are prose that the terminal's width wraps (commander's
 * `boxWrap`), so a line break written inside a sentence of a description is not kept — it would break the sentence
 * at a fixed column whatever the width (`… the distinct` / `samples of its rows`). A break is kept where it
 * separates paragraphs (a blank line), and around an indented line or a `- `/`* `/`• ` list item (tables, lists,
 * examples); any other single break is a space.
 */

/** A line that keeps its own line: an indented one (a table, an example, a list item's continuation) or a list item. */
const standsAlone = (line: string): boolean => /^(\s|[-*•] )/.test(line);

/**
 * The text with the line breaks inside its paragraphs made spaces. Kept: blank lines, and the breaks before and
 * after a line that stands alone (indented, or a list item).
 */
export function unwrapProse(text: string): string {
  const lines = text.split(/\r?\n/);
  let out = lines[0] ?? '';
  for (let i = 1; i < lines.length; i++) {
    const before = lines[i - 1];
    const line = lines[i];
    const join = before.trim() !== '' && line.trim() !== '' && !standsAlone(before) && !standsAlone(line);
    out = join ? `${out.trimEnd()} ${line}` : `${out}\n${line}`;
  }
  return out;
}

/** The help configuration every command inherits from the program (main.ts): prose unwrapped, then wrapped. */
export const proseHelp: HelpConfiguration = {
  boxWrap(this: Help, str: string, width: number): string {
    return Help.prototype.boxWrap.call(this, unwrapProse(str), width);
  },
};
