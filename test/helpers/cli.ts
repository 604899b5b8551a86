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

export function runCli(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string | Buffer; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, join(projectRoot, 'src/cli/bin.ts'), ...args], {
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
