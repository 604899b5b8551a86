// `npm run bench`: runs every benchmark module (bench/<area>.ts exporting run()) in turn, or only those named
// on the command line (`npm run bench -- validate metrics`). Each prints its figures beside a baseline measured
// in the same run, because absolute times on shared machines are noisy.
import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
// This driver is run.ts, so the `evalkit run` benchmark lives in run-task.ts and is asked for as `run`.
const ALIASES: Record<string, string> = { run: 'run-task' };
const wanted = process.argv.slice(2).map((name) => ALIASES[name] ?? name);
const modules = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_'))
  .map((f) => basename(f, '.ts'))
  .filter((name) => wanted.length === 0 || wanted.includes(name))
  .sort();

for (const name of modules) {
  const mod = (await import(pathToFileURL(join(here, `${name}.ts`)).href)) as { run?: () => Promise<void> };
  if (typeof mod.run !== 'function') continue;
  console.log(`\n=== ${name} ===`);
  const started = Date.now();
  await mod.run();
  console.log(`(${name}: ${((Date.now() - started) / 1000).toFixed(1)} s)`);
}
