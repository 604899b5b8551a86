// Runs the CLI's main() in this process with captured streams (the same code path as the binary, without a child
// process); tests that need a real process (signals, kill -9) spawn one instead.
import { Readable, Writable } from 'node:stream';
import { main } from '../../src/cli/main.js';
import { projectRoot } from '../helpers/shared.js';

export async function cli(
  args: string[],
  cwd = projectRoot,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(chunk, _encoding, done) {
        append(String(chunk));
        done();
      },
    });
  const code = await main(['node', 'evalkit', ...args], {
    stdout: sink((s) => (stdout += s)),
    stderr: sink((s) => (stderr += s)),
    stdin: Readable.from([]),
    env: { ...process.env, NO_COLOR: '1' },
    cwd,
  });
  return { code, stdout, stderr };
}
