/**
 * A `command:` tool: the user's executable, run without a shell. The call's arguments are written to its stdin as
 * JSON; what it prints on stdout is the result. It runs in the sample's own fresh temporary folder, with an
 * environment that holds no API key, for at most `timeout_ms` and `max_output_bytes` of output. A tool that exits
 * non-zero, is killed by a signal, runs out of time or prints too much is an error result (with its code), never a
 * crash of the run. The executable (the command's first element) is read from the task's folder and below only.
 */
import { spawn } from 'node:child_process';

/** What a call gave back: the text the model sees, and, for an error, its stable code. */
export interface ToolOutcome {
  content: string;
  error?: string;
  /** The answer a `submit` call ends the sample with. */
  submitted?: string;
}

export interface CommandSpec {
  /** The executable (absolute, inside the task's folder) and its arguments. */
  argv: string[];
  timeoutMs: number;
  maxOutputBytes: number;
}

export interface CommandContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

export const DEFAULT_TOOL_TIMEOUT_MS = 10_000;
export const DEFAULT_TOOL_MAX_OUTPUT_BYTES = 64 * 1024;

/** Environment variables a tool never sees: API keys and other credentials by their usual names. */
const SECRET_NAME = /(API_?KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)/i;

/** The environment a tool runs with: the run's, without credentials and without the named variables. */
export function toolEnvironment(
  env: NodeJS.ProcessEnv,
  hidden: readonly (string | undefined)[],
): NodeJS.ProcessEnv {
  const drop = new Set(hidden.filter((n): n is string => n !== undefined));
  return Object.fromEntries(
    Object.entries(env).filter(
      ([name, value]) => value !== undefined && !drop.has(name) && !SECRET_NAME.test(name),
    ),
  );
}

const tail = (text: string, n = 300): string => (text.length > n ? `…${text.slice(-n)}` : text).trim();

export function runCommand(
  spec: CommandSpec,
  argumentsJson: string,
  context: CommandContext,
): Promise<ToolOutcome> {
  return new Promise((resolve) => {
    const [file, ...args] = spec.argv;
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let ended: ToolOutcome | undefined;
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(file, args, {
        cwd: context.cwd,
        env: context.env,
        shell: false,
        stdio: ['pipe', 'pipe', 'pipe'],
        // Its own process group: a timeout stops whatever it started too.
        detached: true,
      });
    } catch (error) {
      resolve({
        content: `error: the tool could not start: ${(error as Error).message}`,
        error: 'tool.failed',
      });
      return;
    }
    const stop = (outcome: ToolOutcome): void => {
      if (ended !== undefined) return;
      ended = outcome;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(
      () =>
        stop({
          content: `error: the tool ran longer than ${spec.timeoutMs} ms and was stopped`,
          error: 'tool.timeout',
        }),
      spec.timeoutMs,
    );
    const onAbort = (): void =>
      stop({ content: 'error: the run was interrupted', error: 'tool.interrupted' });
    context.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout!.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > spec.maxOutputBytes)
        stop({
          content: `error: the tool printed more than ${spec.maxOutputBytes} bytes and was stopped`,
          error: 'tool.output-too-large',
        });
      else out.push(chunk);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      if (errBytes < 4096) err.push(chunk);
      errBytes += chunk.length;
    });
    child.stdin!.on('error', () => {}); // a tool that does not read its stdin
    child.stdin!.end(argumentsJson);
    child.on('error', (error) =>
      stop({ content: `error: the tool could not start: ${error.message}`, error: 'tool.failed' }),
    );
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      context.signal?.removeEventListener('abort', onAbort);
      if (ended !== undefined) return resolve(ended);
      const stdout = Buffer.concat(out).toString('utf8');
      if (code === 0) return resolve({ content: stdout.replace(/\r?\n$/, '') });
      const stderr = tail(Buffer.concat(err).toString('utf8'));
      resolve({
        content: `error: the tool ${signal ? `was killed by ${signal}` : `exited with status ${code}`}${stderr ? `: ${stderr}` : ''}`,
        error: 'tool.failed',
      });
    });
  });
}
