// The CLI's main() in the test process, with in-memory streams and a chosen working directory: the same code path
// as `evalkit`, without a child process per call.
import { PassThrough, Readable } from 'node:stream';
import { main } from '../../src/cli/main.js';
import { projectRoot } from '../helpers/shared.js';

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function evalkit(
  args: string[],
  options: { cwd?: string; onStderr?: (textSoFar: string) => void } = {},
): Promise<InProcessResult> {
  const collect = (): { stream: PassThrough; text: () => string } => {
    const stream = new PassThrough();
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
  };
  const out = collect();
  const err = collect();
  // Told what the command has written to stderr so far, each time it writes: a test can act when a line appears.
  if (options.onStderr) err.stream.on('data', () => options.onStderr!(err.text()));
  const code = await main(['node', 'evalkit', ...args], {
    stdout: out.stream,
    stderr: err.stream,
    stdin: Readable.from([]),
    env: { ...process.env, NO_COLOR: '1', EVALKIT_DB: '' },
    cwd: options.cwd ?? projectRoot,
  });
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: out.text(), stderr: err.text() };
}
