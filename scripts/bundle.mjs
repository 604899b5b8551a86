// Bundles the CLI and the validation worker into one file each under dist/bundle/ (`npm run build` runs it after
// tsc). Loading ~170 modules one by one is most of the CLI's start-up and of a `--jobs` worker's: bundled, both start
// in about half the time (measured in `npm run bench -- validate`, which runs this same bundle). The library entry
// (dist/index.js) stays the plain tsc output.
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Writes <outdir>/cli.mjs (exports `main`) and <outdir>/worker.js, the file parallel.ts starts next to itself. */
export async function bundleCli(outdir = join(root, 'dist', 'bundle')) {
  const common = {
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
    // Native: loaded from node_modules at run time (the store commands import it lazily).
    external: ['@duckdb/node-api'],
    // CommonJS dependencies (ajv) call require() for Node built-ins.
    banner: {
      js: "import { createRequire as __evalkitRequire } from 'node:module'; const require = __evalkitRequire(import.meta.url);",
    },
  };
  await build({
    ...common,
    entryPoints: { cli: join(root, 'src/cli/main.ts') },
    outdir,
    outExtension: { '.js': '.mjs' },
  });
  await build({ ...common, entryPoints: { worker: join(root, 'src/validate/worker.ts') }, outdir });
  return join(outdir, 'cli.mjs');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const cli = await bundleCli();
  console.log(`bundle: wrote ${cli} and its worker`);
}
