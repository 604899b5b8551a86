/**
 * Runs the real CLI in a child process (started as test/helpers/cli.ts starts it) under a real pseudo-terminal, using
 * util-linux `script` instead of a native module such as node-pty.
 *
 * How it works, and what `script` does that one might not expect:
 * - `script -qfec CMD /dev/null` forks a shell running CMD with stdin, stdout and stderr on a new pty, copies
 *   everything written to the pty to its own stdout (our pipe), and with -e exits with CMD's exit status
 *   (128 + n for a signal). -q drops its "Script started" banners, -f flushes at once, /dev/null discards the
 *   typescript file.
 * - Our side of `script` has stdin at /dev/null: `script` then forwards nothing and does not end the session on
 *   EOF (util-linux 2.38), so the child runs to its end without a controlling user.
 * - A pty opened this way has size 0x0 (there is no terminal to copy it from), so `process.stdout.columns` is 0 in
 *   the child. The command therefore starts with `stty cols C rows R` (stty acts on its stdin, the pty).
 * - The pty's line discipline turns every "\n" into "\r\n" (onlcr), which would make a progress bar's own "\r"
 *   hard to tell apart; `stty -onlcr` switches that off, so `output` holds the bytes exactly as the CLI wrote them.
 * - stdout and stderr share the one pty, so `output` interleaves them. To see one of them alone, redirect the
 *   other inside the command (`stdoutTo` / `stderrTo`): the redirected stream is then a plain file, not a TTY.
 * - The CLI's environment: NO_COLOR and FORCE_COLOR are removed (runCli sets NO_COLOR) and TERM is set, as in a
 *   real terminal session; `env` entries override, and an `undefined` entry removes a variable.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cliCommand } from './cli.js';
import { projectRoot } from './shared.js';

export interface PtyResult {
  /** The exit status of the CLI (or of the shell pipeline around it); null when the run was killed. */
  code: number | null;
  /** Everything written to the pty, byte for byte (no "\r\n" translation). */
  output: string;
  /** What `script` itself printed on its stderr (normally nothing). */
  scriptErrors: string;
}

export interface PtyOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** Terminal width the pty reports (`process.stdout.columns`); 0 leaves it unsized, as `script` makes it. */
  columns?: number;
  /** Send the CLI's stdout / stderr to this file instead of the pty. */
  stdoutTo?: string;
  stderrTo?: string;
  /** A shell command whose output is piped into the CLI's stdin (otherwise stdin is the pty). */
  stdinFrom?: string;
  timeoutMs?: number;
}

/** Why the pty tests cannot run here, or false when `script` is available. */
export function skipWithoutScript(): string | false {
  const r = spawnSync('script', ['--version'], { encoding: 'utf8' });
  return r.status === 0 && /util-linux/.test(r.stdout)
    ? false
    : 'util-linux `script` not found (Debian: apt-get install bsdutils)';
}

/** Quotes one word for /bin/sh. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export async function runCliInPty(args: string[], options: PtyOptions = {}): Promise<PtyResult> {
  const columns = options.columns ?? 100;
  const cli = [process.execPath, ...(await cliCommand()), ...args].map(shellQuote).join(' ');
  const redirects =
    (options.stdoutTo === undefined ? '' : ` >${shellQuote(options.stdoutTo)}`) +
    (options.stderrTo === undefined ? '' : ` 2>${shellQuote(options.stderrTo)}`);
  const size = columns > 0 ? `cols ${columns} rows 40 ` : '';
  const command =
    `stty ${size}-onlcr; ` +
    (options.stdinFrom === undefined
      ? `exec ${cli}${redirects}`
      : `${options.stdinFrom} | ${cli}${redirects}`);

  const env: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm-256color' };
  delete env.NO_COLOR;
  delete env.FORCE_COLOR;
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }

  return new Promise((resolvePromise, reject) => {
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: options.cwd ?? projectRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let scriptErrors = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c) => (scriptErrors += c));
    // Killing `script` closes the pty's master side; the CLI then gets SIGHUP and ends too.
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, output: Buffer.concat(out).toString('utf8'), scriptErrors });
    });
  });
}

/** Removes ANSI colour / style sequences (SGR), leaving the cursor-control ones a progress bar uses. */
export function stripSgr(text: string): string {
  return text.replace(/\x1b\[[0-9;]*m/g, '');
}

/**
 * The lines a terminal shows after receiving `output` (no wrapping, colours dropped): "\r" moves to column 0,
 * "ESC[K" erases to the end of the line, "\n" starts a new line at column 0 (what onlcr does on a real terminal).
 */
export function screenLines(output: string): string[] {
  const lines: string[] = [];
  let line: string[] = [];
  let col = 0;
  const text = stripSgr(output);
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\n') {
      lines.push(line.join(''));
      line = [];
      col = 0;
    } else if (ch === '\r') col = 0;
    else if (ch === '\x1b' && text.startsWith('\x1b[K', i)) {
      line.length = col;
      i += 2;
    } else {
      line[col++] = ch;
    }
  }
  if (line.length > 0) lines.push(line.join(''));
  return lines;
}
