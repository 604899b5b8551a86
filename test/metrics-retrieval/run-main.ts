// Runs the CLI's `main` in this process with captured streams: the same code path as the binary minus the
// process start-up (a second or more on a loaded machine), for tests that make several CLI calls.
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main.js';
import { projectRoot } from '../helpers/shared.js';

export async function runMain(
  args: string[],
  cwd = projectRoot,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const capture = () => {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (c) => (text += c));
    return { stream, text: () => text };
  };
  const out = capture();
  const err = capture();
  const code = await main(['node', 'evalkit', ...args], {
    stdout: out.stream,
    stderr: err.stream,
    stdin: new PassThrough(),
    env: { ...process.env, NO_COLOR: '1' },
    cwd,
  });
  return { code, stdout: out.text(), stderr: err.text() };
}
