import { Command, CommanderError } from 'commander';
import { DataError, EvalkitError, InterruptedError, errorLine } from '../errors.js';
import { isInteractive, useColor, type CliIO } from './context.js';
import { terminalSafeStream } from './output/terminal-text.js';
import { entriesFor, loadCommands } from './commands/index.js';
import {
  helpLinesOf,
  isTopLevelHelp,
  proseHelp,
  recordedHelpLines,
  registerHelpLines,
  type HelpLine,
} from './help-lines.js';
import { createRedactor } from '../io/net/redact.js';
import { withCliHint } from './hints.js';

export const VERSION = '0.1.0';

/** Error text never shows URL credentials or API-key-shaped tokens, whatever produced it. */
const errorRedactor = createRedactor();

/** The one place where an error becomes an exit code. */
function exitCodeFor(error: unknown): number {
  if (error instanceof InterruptedError) return error.exitCode;
  return error instanceof DataError ? 1 : 2;
}

/** Runs the CLI with argv (as process.argv: node, script, ...args) and resolves to the exit code. */
/** The program every command registers on: its name, description, version and how it ends and writes. */
function newProgram(io: CliIO): Command {
  return new Command('evalkit')
    .description('Validate, run, score, convert and report LLM evaluation records.')
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureHelp(proseHelp)
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // Help is wrapped to the terminal the CLI writes to (80 columns when it is not a terminal).
      getOutHelpWidth: () => (io.stdout.isTTY && io.stdout.columns ? io.stdout.columns : 80),
      getErrHelpWidth: () => (io.stderr.isTTY && io.stderr.columns ? io.stderr.columns : 80),
    });
}

/** The top-level help's line of every command (scripts/bundle.mjs records them into the bundled CLI). */
export async function recordHelpLines(): Promise<HelpLine[]> {
  const io = processIO();
  const program = newProgram(io);
  for (const mod of await loadCommands()) mod.register(program, io, async () => {});
  return helpLinesOf(program);
}

export async function main(argv: string[], given: CliIO = processIO()): Promise<number> {
  const io = terminalSafeIO(given);
  let exitCode = 0;
  const program = newProgram(io);

  const run = async (action: () => Promise<number>): Promise<void> => {
    exitCode = await action();
  };

  try {
    const args = argv.slice(2);
    // Only the modules this command line needs: start-up costs what the command uses (commands/index.ts); the
    // top-level help of the bundled CLI needs none (help-lines.ts).
    if (recordedHelpLines && isTopLevelHelp(args)) registerHelpLines(program, recordedHelpLines);
    else for (const mod of await loadCommands(entriesFor(args))) mod.register(program, io, run);
    await program.parseAsync(argv);
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with code 0; usage mistakes were already printed by commander.
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof InterruptedError) {
      io.stderr.write(`evalkit: ${errorRedactor.text(error.message)}\n`);
      return exitCodeFor(error);
    }
    if (error instanceof EvalkitError) {
      io.stderr.write(
        `evalkit: ${errorRedactor.text(errorLine(error.code, withCliHint(error.code, error.message)))}\n`,
      );
      return exitCodeFor(error);
    }
    // Never a stack trace for the user; say what happened and how to report it.
    const message = errorRedactor.text(error instanceof Error ? error.message : String(error));
    io.stderr.write(`evalkit: internal error: ${message}\n(set EVALKIT_DEBUG=1 for details)\n`);
    if (io.env.EVALKIT_DEBUG) io.stderr.write(`${(error as Error)?.stack ?? ''}\n`);
    return 2;
  }
}

/**
 * The output streams every command writes to, with control characters and escapes from records neutralised
 * (only our own colours, and progress redraws on a terminal, pass).
 */
function terminalSafeIO(io: CliIO): CliIO {
  const allow = (stream: 'stdout' | 'stderr') => ({
    colour: useColor(io, stream),
    redraw: isInteractive(io, stream),
  });
  return {
    ...io,
    stdout: terminalSafeStream(io.stdout, allow('stdout')),
    stderr: terminalSafeStream(io.stderr, allow('stderr')),
  };
}

/**
 * A reader that goes away (`evalkit validate … | head -1`) closes our stdout: further writes fail with EPIPE, which
 * Node reports as an unhandled 'error' event with a stack. Instead the stream quietly becomes a sink: the command
 * finishes its work (nothing half-written, journals complete) and exits with its usual code. Installed once, here,
 * for every command.
 */
function quietOnClosedPipe(stream: NodeJS.WriteStream): void {
  if ((stream as { evalkitPipeGuard?: true }).evalkitPipeGuard) return;
  (stream as { evalkitPipeGuard?: true }).evalkitPipeGuard = true;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
    stream.write = ((...args: unknown[]) => {
      const callback = args.find((a) => typeof a === 'function') as (() => void) | undefined;
      if (callback) process.nextTick(callback);
      return true;
    }) as typeof stream.write;
  });
}

export function processIO(): CliIO {
  quietOnClosedPipe(process.stdout);
  quietOnClosedPipe(process.stderr);
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  };
}
