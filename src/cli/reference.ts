/**
 * The command reference in docs/ is generated from the CLI's own declarations: each command's arguments and
 * options, read from the commander program `main` builds, as a Markdown table. `npm run docs` rewrites the marked
 * regions of docs/*.md (`<!-- options:<command> -->` … `<!-- /options -->`); a test fails when a page and the CLI drift.
 */
import { Command, type Argument, type Option } from 'commander';
import { PassThrough } from 'node:stream';
import { loadCommands } from './commands/index.js';
import type { CliIO } from './context.js';
import { markdownRows } from '../report/tables.js';

/** The program with every command registered (nothing runs). */
async function program(): Promise<Command> {
  const sink = new PassThrough();
  const io: CliIO = { stdout: sink, stderr: sink, stdin: new PassThrough(), env: {}, cwd: '/' };
  const root = new Command('evalkit');
  for (const mod of await loadCommands()) mod.register(root, io, async () => {});
  return root;
}

/** Every command that does something (a group such as `survey` is not one), by its full name ("survey import"). */
export async function cliCommands(): Promise<Map<string, Command>> {
  const found = new Map<string, Command>();
  const walk = (cmd: Command, prefix: string): void => {
    for (const sub of cmd.commands) {
      const name = prefix === '' ? sub.name() : `${prefix} ${sub.name()}`;
      if (sub.commands.length > 0) walk(sub, name);
      else found.set(name, sub);
    }
  };
  walk(await program(), '');
  return found;
}

const code = (text: string): string => `\`${text}\``;
const cell = (text: string): string =>
  text
    .replace(/\|/g, '\\|')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\s*\n+\s*/g, ' ');

function argumentRow(arg: Argument): string[] {
  const name = `${arg.required ? '<' : '['}${arg.name()}${arg.variadic ? '...' : ''}${arg.required ? '>' : ']'}`;
  return [code(name), cell(arg.description ?? ''), arg.required ? 'required' : ''];
}

function defaultOf(option: Option): string {
  if (option.mandatory) return 'required';
  const value = option.defaultValue as unknown;
  if (value === undefined || option.negate || typeof value === 'boolean') return '';
  return code(Array.isArray(value) ? value.join(',') : String(value));
}

function optionRow(option: Option): string[] {
  const description = option.description ?? '';
  const stop = description === '' || /[.;:!?)]$/.test(description) ? '' : '.';
  const choices = option.argChoices ? `${stop} One of: ${option.argChoices.map(code).join(', ')}.` : '';
  return [code(option.flags), `${cell(description)}${choices}`, defaultOf(option)];
}

/** The usage line and the table of arguments and options of one command. */
export function commandReference(name: string, cmd: Command): string {
  const rows = [
    ...cmd.registeredArguments.map(argumentRow),
    ...cmd.options.filter((o) => !o.hidden).map(optionRow),
  ];
  const usage = `evalkit ${name} ${cmd.usage()}`.trim();
  const summary = cmd.summary() || cmd.description().split('\n')[0];
  return [
    `\`${usage}\` — ${summary}`,
    '',
    markdownRows(['argument / option', 'what it does', 'default'], rows),
  ].join('\n');
}

const REGION = /<!-- options:([a-z][a-z -]*?) -->\n[\s\S]*?<!-- \/options -->/g;

/** The page with every options region rewritten from the CLI; the names of the regions it holds. */
export function rewriteOptionRegions(
  page: string,
  commands: Map<string, Command>,
): { text: string; regions: string[]; unknown: string[] } {
  const regions: string[] = [];
  const unknown: string[] = [];
  const text = page.replace(REGION, (whole, name: string) => {
    const cmd = commands.get(name);
    if (!cmd) {
      unknown.push(name);
      return whole;
    }
    regions.push(name);
    return `<!-- options:${name} -->\n${commandReference(name, cmd)}\n<!-- /options -->`;
  });
  return { text, regions, unknown };
}
