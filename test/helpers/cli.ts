// Running the CLI from tests.
//
// - `cli(args, options)` runs `main(argv, io)` inside the test process with captured stdout/stderr: the same code
//   path as the binary without a Node start-up per call. Use it by default.
// - `runCli` / `runNode` start a real child process. Use them only where the process itself is the point: signals,
//   kill -9, a TTY, EPIPE, locks between processes, the bundled binary. `cliCommand()` gives the arguments that
//   start the CLI, for tests that spawn it themselves.
//
// Both run the CLI as `npm run build` bundles it, built from the current sources once per run (helpers/built-cli.ts):
// loading it costs a tenth of loading the sources module by module through tsx. EVALKIT_TEST_FROM_SOURCE=1 runs
// the sources through tsx instead (stack traces then point into src/); `cliFromSource` always does, for the tests
// that compare the two.
//
// An in-process call must leave nothing behind that a later call (or a later test) could notice. `cli` checks after
// every call that the exit code, working directory, environment and process-wide listeners are as before, and that
// no server, child process or watcher was left running, and fails the call when they are not.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { builtCli, loadBuiltCli } from './built-cli.js';
import { projectRoot } from './shared.js';

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** tsx's loader by absolute URL, so that the CLI also starts in a working directory outside the project. */
const TSX = import.meta.resolve('tsx');

/** What an in-process call gives: always an exit code, never a signal. */
export interface InProcessResult extends CliResult {
  code: number;
  signal: null;
}

export interface RunOptions {
  /** Working directory of the call (default: the project root). */
  cwd?: string;
  /** Added to the test process's environment (NO_COLOR=1 is set first); an `undefined` value removes a variable. */
  env?: Record<string, string | undefined>;
  /** What the CLI reads on stdin (default: nothing, an ended stream). */
  input?: string | Buffer;
  /** Fail (in process) or kill the child (spawned) after this long; default 60 s. */
  timeoutMs?: number;
}

/** The environment a call sees: the test process's, colours off, then the caller's entries. */
function callEnv(extra: RunOptions['env']): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const [key, value] of Object.entries(extra ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

// ---------------------------------------------------------------------------------------------------------------
// In process

type Main = (argv: string[], io: import('../../src/cli/context.js').CliIO) => Promise<number>;

/** True when the tests run the CLI from the sources (tsx) instead of the bundle built from them. */
const fromSource = process.env.EVALKIT_TEST_FROM_SOURCE === '1';

const loaded: { source?: Promise<Main>; built?: Promise<Main> } = {};
/** Loaded on first use, so that test files which only spawn do not pay for it. */
function loadMain(kind: 'source' | 'built'): Promise<Main> {
  if (kind === 'source') {
    loaded.source ??= import('../../src/cli/main.js').then((m) => m.main);
    return loaded.source;
  }
  loaded.built ??= loadBuiltCli().then((m) => m.main as Main);
  return loaded.built;
}

/** Process-wide events a command may listen to while it runs; each must be back to its count afterwards. */
const PROCESS_EVENTS = [
  'SIGINT',
  'SIGTERM',
  'SIGHUP',
  'SIGPIPE',
  'exit',
  'beforeExit',
  'uncaughtException',
  'unhandledRejection',
  'warning',
] as const;

/**
 * Kinds of handle that keep the event loop alive and outlive a command only by mistake: a listening server, a child
 * process, a file watcher. (Sockets are left out: a test's own server keeps its side of an idle keep-alive
 * connection open after the CLI is done with it.)
 */
const LEAKABLE = /^(TCPServerWrap|PipeServerWrap|ProcessWrap|FSEventWrap|StatWatcher)$/;

interface ProcessState {
  exitCode: typeof process.exitCode;
  cwd: string;
  env: string;
  listeners: Record<string, number>;
  handles: Record<string, number>;
}

function processState(): ProcessState {
  const listeners: Record<string, number> = {};
  for (const event of PROCESS_EVENTS) listeners[event] = process.listenerCount(event);
  const handles: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) {
    if (LEAKABLE.test(kind)) handles[kind] = (handles[kind] ?? 0) + 1;
  }
  return {
    exitCode: process.exitCode,
    cwd: process.cwd(),
    env: JSON.stringify(Object.entries(process.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    listeners,
    handles,
  };
}

/** What differs between two states, in words; empty when nothing does. */
function leaks(before: ProcessState, after: ProcessState): string[] {
  const found: string[] = [];
  if (after.exitCode !== before.exitCode)
    found.push(`process.exitCode ${before.exitCode} → ${after.exitCode}`);
  if (after.cwd !== before.cwd) found.push(`process.cwd() ${before.cwd} → ${after.cwd}`);
  if (after.env !== before.env) found.push('process.env changed');
  for (const event of PROCESS_EVENTS) {
    if (after.listeners[event] !== before.listeners[event]) {
      found.push(`process '${event}' listeners ${before.listeners[event]} → ${after.listeners[event]}`);
    }
  }
  for (const kind of new Set([...Object.keys(before.handles), ...Object.keys(after.handles)])) {
    if ((after.handles[kind] ?? 0) > (before.handles[kind] ?? 0)) {
      found.push(`open ${kind} handles ${before.handles[kind] ?? 0} → ${after.handles[kind]}`);
    }
  }
  return found;
}

/** A stream that keeps everything written to it, synchronously, as one string. */
function capture(): { stream: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, encoding, done) {
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, encoding));
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/**
 * In-process calls running now (tests may start several at once), the working directory they share, and the state
 * of the process before the first of them started: it is checked when the last one ends.
 */
let running = 0;
let runningCwd: string | undefined;
let idle: { state: ProcessState; home: string } | undefined;

/**
 * Runs `evalkit ...args` in this process through `main(argv, io)` and captures what it prints. The process's
 * working directory is `cwd` for the length of the call, as it is for the binary (library code that falls back on
 * process.cwd() then sees the same directory as io.cwd). `cwd` alone may be given as a string.
 */
export function cli(args: string[], options: RunOptions | string = {}): Promise<InProcessResult> {
  return inProcess(fromSource ? 'source' : 'built', args, options);
}

/** `cli`, always from the sources through tsx. */
export function cliFromSource(args: string[], options: RunOptions | string = {}): Promise<InProcessResult> {
  return inProcess('source', args, options);
}

async function inProcess(
  kind: 'source' | 'built',
  args: string[],
  given: RunOptions | string,
): Promise<InProcessResult> {
  const options = typeof given === 'string' ? { cwd: given } : given;
  const main = await loadMain(kind);
  const cwd = options.cwd ?? projectRoot;
  if (running > 0 && runningCwd !== cwd) {
    throw new Error(
      `cli(): two in-process calls at once in different working directories (${runningCwd}, ${cwd})`,
    );
  }
  if (running === 0) {
    idle = { state: processState(), home: process.cwd() };
    if (cwd !== idle.home) process.chdir(cwd);
  }
  running += 1;
  runningCwd = cwd;

  const out = capture();
  const err = capture();
  const stdin = Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)]);
  let timer: NodeJS.Timeout | undefined;
  const timeoutMs = options.timeoutMs ?? 60_000;
  let code: number;
  let ended: { state: ProcessState; home: string; moved: boolean } | undefined;
  try {
    code = await Promise.race([
      main(['node', 'evalkit', ...args], {
        stdout: out.stream,
        stderr: err.stream,
        stdin,
        env: callEnv(options.env),
        cwd,
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`cli(): evalkit ${args.join(' ')} did not finish in ${timeoutMs} ms`)),
          timeoutMs,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
    running -= 1;
    if (running === 0 && idle) {
      ended = { ...idle, moved: process.cwd() !== cwd };
      idle = undefined;
      runningCwd = undefined;
      process.chdir(ended.home);
    }
  }
  if (ended) {
    // Let servers and watchers the command closed finish closing before looking.
    await new Promise((resolve) => setImmediate(resolve));
    const found = leaks(ended.state, processState());
    if (ended.moved) found.push(`process.cwd() changed to somewhere other than ${cwd}`);
    if (found.length > 0) {
      throw new Error(
        `cli(): evalkit ${args.join(' ')} left state behind in the process: ${found.join('; ')}`,
      );
    }
  }
  return { code, signal: null, stdout: out.text(), stderr: err.text() };
}

// ---------------------------------------------------------------------------------------------------------------
// In a child process

/** The arguments of `node` that start the CLI (the built launcher, or bin.ts through tsx from source). */
export async function cliCommand(): Promise<string[]> {
  if (fromSource) return ['--import', TSX, join(projectRoot, 'src/cli/bin.ts')];
  return [(await builtCli()).launcher];
}

/** Runs the CLI in a child process. Only where the process itself is the point. */
export async function runCli(args: string[], options: RunOptions = {}): Promise<CliResult> {
  return runNode([...(await cliCommand()), ...args], options);
}

/** Runs `node ...argv` (colours off, killed after the timeout) and captures what it prints. */
export function runNode(argv: string[], options: RunOptions = {}): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, argv, {
      cwd: options.cwd ?? projectRoot,
      env: callEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}
