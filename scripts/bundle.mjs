// Bundles the CLI and its worker files under dist/bundle/ (`npm run build` runs it after tsc). Loading ~170 modules
// one by one is most of the CLI's start-up and of a `--jobs` worker's: bundled, both start in about half the time
// (measured in `npm run bench -- validate`, which runs this same bundle). The CLI is split: cli.mjs holds what every
// start needs (commander, the registry of commands), and each command module, with what it imports, is loaded from
// chunks beside it when that command runs (src/cli/commands/index.ts). The library entry (dist/index.js) stays the
// plain tsc output.
import { build } from 'esbuild';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Writes <outdir>/cli.mjs (exports `main`), its chunks, and the worker files started next to it: worker.js
 * (validate --jobs) and convert-worker.js (convert's chunked rows). With `metafile`, esbuild's account of the CLI's
 * outputs (which chunk holds which source, and what each imports) is written there (the tests read it). `split:
 * false` writes the CLI as one file instead (the baseline of `npm run bench -- startup`).
 */
export async function bundleCli(outdir = join(root, 'dist', 'bundle'), { metafile, split = true } = {}) {
  const common = {
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
    // Native: DuckDB's binding is loaded from node_modules at run time; its JavaScript API (@duckdb/node-api) is
    // bundled into the store's chunk, which the store commands import lazily (src/store/db.ts, EVALKIT_BUNDLE).
    external: ['@duckdb/node-bindings'],
    define: { EVALKIT_BUNDLE: 'true' },
    // CommonJS dependencies (ajv) call require() for Node built-ins.
    banner: {
      js: "import { createRequire as __evalkitRequire } from 'node:module'; const require = __evalkitRequire(import.meta.url);",
    },
  };
  const buildCli = (define = common.define) =>
    build({
      ...common,
      define,
      entryPoints: { cli: join(root, 'src/cli/main.ts') },
      outdir,
      outExtension: { '.js': '.mjs' },
      // Each command module (imported by src/cli/commands/index.ts when it is called) and the code commands share
      // become chunks beside cli.mjs, which keeps only what every start needs: `--version` loads ~0.1 MB, not 5 MB.
      splitting: split,
      chunkNames: '[name]-[hash]',
      metafile: metafile !== undefined,
    });
  // Built twice: the first build records every command's line of the top-level help, which the second carries, so
  // that `evalkit --help` loads no command (src/cli/help-lines.ts).
  await buildCli();
  const { recordHelpLines } = await import(
    `${pathToFileURL(join(outdir, 'cli.mjs')).href}?record=${Date.now()}`
  );
  const lines = await recordHelpLines();
  const cli = await buildCli({ ...common.define, EVALKIT_HELP_LINES: JSON.stringify(lines) });
  if (metafile) await writeFile(metafile, JSON.stringify(cli.metafile));
  await build({
    ...common,
    entryPoints: {
      worker: join(root, 'src/validate/worker.ts'),
      // convert's chunk worker (src/convert/row-blocks.ts starts it by this name, next to cli.mjs).
      'convert-worker': join(root, 'src/convert/convert-worker.ts'),
    },
    outdir,
  });
  return join(outdir, 'cli.mjs');
}

/**
 * The `evalkit view` browser app (src/view/app, Preact): one minified classic script (not a module: Chromium
 * refuses module scripts to a page opened from file://, and a static export so opened must at least run far enough
 * to say how to serve it) and its style sheet. With `outdir`
 * they are written there (dist/app, which the built CLI serves); without, returned as text (the CLI run from
 * source builds the app this way when it starts, so it always serves the current code).
 */
export async function bundleApp(outdir) {
  const result = await build({
    entryPoints: [join(root, 'src/view/app/main.tsx')],
    bundle: true,
    minify: true,
    format: 'iife',
    target: 'es2020',
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    logLevel: 'error',
    write: false,
    outfile: 'app.js',
  });
  const js = result.outputFiles[0].text;
  const css = await readFile(join(root, 'src/view/app/style.css'), 'utf8');
  if (outdir) {
    await mkdir(outdir, { recursive: true });
    await writeFile(join(outdir, 'app.js'), js);
    await copyFile(join(root, 'src/view/app/style.css'), join(outdir, 'app.css'));
  }
  return { js, css };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const cli = await bundleCli();
  console.log(`bundle: wrote ${cli} and its worker`);
  await bundleApp(join(root, 'dist', 'app'));
  console.log(`bundle: wrote the view app to ${join(root, 'dist', 'app')}`);
}
