import type { Command } from 'commander';

/** What a command may touch of the outside world. Tests pass their own. */
export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** True when colours may be used on this stream (a TTY, NO_COLOR unset, FORCE_COLOR honoured). */
export function useColor(io: CliIO, stream: 'stdout' | 'stderr' = 'stdout'): boolean {
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== '0') return true;
  return Boolean(io[stream].isTTY);
}

/**
 * A command module: adds its sub-command to the program. The action resolves to the exit code
 * (0 ok, 1 invalid data / failed checks, 2 usage or I/O error) and never calls process.exit itself.
 */
export interface CommandModule {
  register(program: Command, io: CliIO, run: (action: () => Promise<number>) => Promise<void>): void;
}
