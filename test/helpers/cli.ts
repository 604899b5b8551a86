// Runs the real CLI in a child process (from source, through tsx) and captures what it prints.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from './shared.js';

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** tsx's loader by absolute URL, so that the CLI also starts in a working directory outside the project. */
const TSX = import.meta.resolve('tsx');

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  input?: string | Buffer;
  timeoutMs?: number;
}

/** Runs the real CLI from source. */
export function runCli(args: string[], options: RunOptions = {}): Promise<CliResult> {
  return runNode(['--import', TSX, join(projectRoot, 'src/cli/bin.ts'), ...args], options);
}

/** Runs `node ...argv` (colours off, killed after the timeout) and captures what it prints. */
export function runNode(argv: string[], options: RunOptions = {}): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, argv, {
      cwd: options.cwd ?? projectRoot,
      env: { ...process.env, NO_COLOR: '1', ...options.env },
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
