import type { Command } from 'commander';

/** What a command may touch of the outside world. Tests pass their own. */
export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/**
 * True when colours may be used on this stream. NO_COLOR (any non-empty value) wins; then FORCE_COLOR forces them
 * on (FORCE_COLOR=0 or false forces them off, as in Node); otherwise only on a terminal that is not TERM=dumb.
 */
export function useColor(io: CliIO, stream: 'stdout' | 'stderr' = 'stdout'): boolean {
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  const force = io.env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force.toLowerCase() !== 'false';
  return isInteractive(io, stream);
}

/** True when this stream is a terminal that understands carriage returns and erase-line (progress redraws). */
export function isInteractive(io: CliIO, stream: 'stdout' | 'stderr' = 'stderr'): boolean {
  return Boolean(io[stream].isTTY) && io.env.TERM !== 'dumb';
}

/**
 * A command module: adds its sub-command to the program. The action resolves to the exit code
 * (0 ok, 1 invalid data / failed checks, 2 usage or I/O error) and never calls process.exit itself.
 */
export interface CommandModule {
  register(program: Command, io: CliIO, run: (action: () => Promise<number>) => Promise<void>): void;
}
