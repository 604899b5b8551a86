// The CLI as `npm run build` ships it (scripts/bundle.mjs: one esbuild bundle, its worker files and the view app),
// built once for each state of the sources and shared by every test file of a run. Starting the bundle costs a
// tenth of loading ~300 modules one by one through tsx, which was most of the time of a CLI test.
//
// Layout, as under dist/: <dir>/bundle/cli.mjs (+ its chunks, worker.js, convert-worker.js, evalkit.mjs, a launcher
// like bin/evalkit.js) and <dir>/app/ (app.js, app.css), where <dir> is .tmp/test-build/<hash of the sources>;
// <dir>/meta.json is esbuild's metafile of the CLI bundle.
//
// In a test process tsx's loader sits in front of every import, and it rewrites any ES module that mentions
// `import` (a pass over the whole 5 MB bundle, as slow as loading the sources). So the in-process CLI is the same
// entry bundled once more as CommonJS (<dir>/bundle/cli-inprocess.cjs, import.meta.url defined as its own URL, so
// that it starts the same worker files and finds the same app) and compiled with vm.compileFunction, which is what
// Node's CommonJS loader does with a module, without the loader hooks.
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compileFunction } from 'node:vm';
import { projectRoot } from './shared.js';

const BUILDS = join(projectRoot, '.tmp', 'test-build');
/** A lock older than this belongs to a build that died. */
const STALE_LOCK_MS = 180_000;

/** What the bundle is made of: the sources, the bundler script and the locked dependencies. */
function sourceHash(): string {
  const hash = createHash('sha256');
  const add = (path: string): void => {
    hash.update(relative(projectRoot, path)).update('\0').update(readFileSync(path)).update('\0');
  };
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else add(path);
    }
  };
  walk(join(projectRoot, 'src'));
  add(join(projectRoot, 'scripts', 'bundle.mjs'));
  add(join(projectRoot, 'package-lock.json'));
  return hash.digest('hex').slice(0, 16);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function build(dir: string): Promise<void> {
  const partial = `${dir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  const bundler = (await import(pathToFileURL(join(projectRoot, 'scripts', 'bundle.mjs')).href)) as {
    bundleCli(outdir: string, options: { metafile: string }): Promise<string>;
    bundleApp(outdir: string): Promise<unknown>;
  };
  await bundler.bundleCli(join(partial, 'bundle'), { metafile: join(partial, 'meta.json') });
  await bundler.bundleApp(join(partial, 'app'));
  writeFileSync(
    join(partial, 'bundle', 'evalkit.mjs'),
    "import { main } from './cli.mjs';\nprocess.exitCode = await main(process.argv);\n",
  );
  const { build: esbuild } = await import('esbuild');
  await esbuild({
    entryPoints: { 'cli-inprocess': join(projectRoot, 'src/cli/main.ts') },
    outdir: join(partial, 'bundle'),
    outExtension: { '.js': '.cjs' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // The .ts branch of the worker start (import.meta.resolve) is never taken in a bundle.
    logLevel: 'error',
    external: ['@duckdb/node-api'],
    define: { 'import.meta.url': '__evalkitModuleUrl' },
    banner: { js: "const __evalkitModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
    // import() of an external (DuckDB) as require(): code compiled by vm has no module loader to import with.
    supported: { 'dynamic-import': false },
  });
  renameSync(partial, dir);
}

/** Removes builds of earlier states of the sources (not touched for a while, so no run still uses them). */
function sweep(keep: string): void {
  for (const name of readdirSync(BUILDS)) {
    const path = join(BUILDS, name);
    if (path === keep || path === `${keep}.lock`) continue;
    try {
      if (Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true });
    } catch {
      // another run removed it
    }
  }
}

async function ensureBuilt(): Promise<string> {
  const dir = join(BUILDS, sourceHash());
  const lock = `${dir}.lock`;
  mkdirSync(BUILDS, { recursive: true });
  for (;;) {
    if (existsSync(dir)) return dir;
    try {
      mkdirSync(lock);
    } catch {
      // Another test file is building it: wait for it, or take over a lock its builder left behind.
      try {
        if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS)
          rmSync(lock, { recursive: true, force: true });
      } catch {
        // the lock just went away
      }
      await sleep(100);
      continue;
    }
    try {
      if (!existsSync(dir)) await build(dir);
      sweep(dir);
      return dir;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

let built: Promise<string> | undefined;

/** This state's build (building it first when no test file has yet): the bundle and its launcher. */
export function builtCli(): Promise<{ cli: string; launcher: string; inProcess: string; meta: string }> {
  built ??= ensureBuilt();
  return built.then((dir) => ({
    meta: join(dir, 'meta.json'),
    cli: join(dir, 'bundle', 'cli.mjs'),
    launcher: join(dir, 'bundle', 'evalkit.mjs'),
    inProcess: join(dir, 'bundle', 'cli-inprocess.cjs'),
  }));
}

/**
 * The bundle's worker threads start with this process's Node options, tsx among them; named bare (`--import tsx`)
 * it would be looked up from the working directory of the call, which need not be inside the project.
 */
function tsxByAbsoluteUrl(): void {
  const tsx = import.meta.resolve('tsx');
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--import=tsx') argv[i] = `--import=${tsx}`;
    else if (argv[i] === '--import' && argv[i + 1] === 'tsx') argv[i + 1] = tsx;
  }
}

/** The exports of the in-process bundle (`main` among them), evaluated once per test process. */
export async function loadBuiltCli(): Promise<Record<string, unknown>> {
  tsxByAbsoluteUrl();
  const file = (await builtCli()).inProcess;
  const run = compileFunction(
    readFileSync(file, 'utf8'),
    ['exports', 'require', 'module', '__filename', '__dirname'],
    { filename: file },
  );
  const module = { exports: {} as Record<string, unknown> };
  run(module.exports, createRequire(file), module, file, dirname(file));
  return module.exports;
}
