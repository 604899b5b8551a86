/**
 * Starting a worker thread on one of the project's worker modules, from source (tsx) or built code alike. Built, the
 * worker is the `.js` file named `name` next to the caller (tsc output, or the esbuild bundle, which writes each
 * worker entry beside cli.mjs: see scripts/bundle.mjs). From source, Node 20 does not pass tsx's loader to workers,
 * so the worker registers it first and then imports the `.ts` module.
 */
import { Worker } from 'node:worker_threads';

/** `from`: the caller's `import.meta.url`; `name`: the worker module's file name without extension. */
export function startWorker(from: string, name: string): Worker {
  if (!from.endsWith('.ts')) {
    // Workers inherit this process's Node options; --input-type (from `node -e`) is refused for a worker file.
    const execArgv = process.execArgv.filter((a) => !a.startsWith('--input-type'));
    return new Worker(new URL(`./${name}.js`, from), { execArgv });
  }
  const source = new URL(`./${name}.ts`, from).href;
  // Resolved here (next to the project's node_modules), not from the worker's working directory.
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(source)}); });`;
  return new Worker(boot, { eval: true });
}
