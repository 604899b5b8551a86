// A command loads only what it uses (issue 32): the registry (src/cli/commands/index.ts) imports a command's module
// when that command is called, and the bundle is split so that cli.mjs, which every start loads, holds no command.
// Checked three ways: each registry line names the command its module registers; esbuild's account of the built
// bundle (what each command's chunk imports statically, i.e. what loads before the command runs); and a process that
// runs `validate` with the bundle and then looks whether DuckDB's native package was loaded (`ingest` must).
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { Command } from 'commander';
import { commandEntries, entriesFor } from '../src/cli/commands/index.js';
import type { CliIO } from '../src/cli/context.js';
import { builtCli } from './helpers/built-cli.js';
import { cliFromSource, runNode } from './helpers/cli.js';
import { projectRoot } from './helpers/shared.js';

test('each registry line names the command its module registers', async () => {
  const sink = new PassThrough();
  const io: CliIO = { stdout: sink, stderr: sink, stdin: new PassThrough(), env: {}, cwd: '/' };
  for (const entry of commandEntries) {
    const program = new Command('evalkit');
    (await entry.load()).register(program, io, async () => {});
    assert.deepEqual(
      program.commands.map((c) => c.name()),
      [entry.name],
      `the registry line "${entry.name}"`,
    );
  }
});

test('a command line loads the modules of the command it names; --version none; --help and the unknown all', () => {
  assert.deepEqual(
    entriesFor(['validate', 'x.json']).map((e) => e.name),
    ['validate'],
  );
  assert.deepEqual(
    entriesFor(['survey', 'export']).map((e) => e.name),
    ['survey', 'survey'],
  );
  assert.deepEqual(entriesFor(['--version']), []);
  assert.deepEqual(entriesFor(['-V']), []);
  for (const args of [[], ['--help'], ['help', 'validate'], ['frobnicate'], ['--frobnicate', 'validate']]) {
    assert.equal(entriesFor(args), commandEntries, args.join(' '));
  }
});

interface Metafile {
  outputs: Record<
    string,
    {
      bytes: number;
      entryPoint?: string;
      imports: { path: string; kind: string }[];
      inputs: Record<string, unknown>;
    }
  >;
}

/** The sources a start loads before the command runs: cli.mjs, the command's chunk, what they import statically. */
function startClosure(meta: Metafile, command?: string): { sources: string[]; bytes: number } {
  const outputs = meta.outputs;
  const cli = Object.keys(outputs).find((k) => k.endsWith('/cli.mjs'));
  const chunk = Object.keys(outputs).find((k) => outputs[k].entryPoint === `src/cli/commands/${command}.ts`);
  assert.ok(cli, 'the bundle has cli.mjs');
  if (command !== undefined) assert.ok(chunk, `the bundle has a chunk for commands/${command}.ts`);
  const seen = new Set<string>();
  const walk = (out: string): void => {
    if (seen.has(out)) return;
    seen.add(out);
    for (const i of outputs[out].imports) if (i.kind === 'import-statement' && outputs[i.path]) walk(i.path);
  };
  walk(cli);
  if (chunk) walk(chunk);
  return {
    sources: [...seen].flatMap((out) => Object.keys(outputs[out].inputs)),
    bytes: [...seen].reduce((n, out) => n + outputs[out].bytes, 0),
  };
}

const SDKS = /^node_modules\/(openai|@anthropic-ai)\//;
/** The DuckDB loader (src/store/db.ts) and DuckDB's bundled API, the web viewer's server and its app framework. */
const STORE_OR_VIEW =
  /^(src\/store\/db\.ts|node_modules\/@duckdb\/|src\/view\/(?!shared\/)|node_modules\/preact\/)/;

test('the start of the bundled CLI loads no command, and no command starts with DuckDB, the SDKs or the viewer', async () => {
  const meta = JSON.parse(readFileSync((await builtCli()).meta, 'utf8')) as Metafile;
  const start = startClosure(meta);
  assert.deepEqual(
    start.sources.filter((s) =>
      /^src\/(?!cli\/(main|context|hints|help-lines|commands\/index|output\/terminal-text)|errors|io\/net|view\/shared)/.test(
        s,
      ),
    ),
    [],
    'cli.mjs and its static imports hold only the CLI frame',
  );
  assert.ok(start.bytes < 256_000, `what every start loads: ${start.bytes} bytes`);
  for (const entry of meta.outputs[Object.keys(meta.outputs).find((k) => k.endsWith('/cli.mjs'))!].imports) {
    if (entry.kind !== 'dynamic-import') continue;
    const command = meta.outputs[entry.path]?.entryPoint?.match(/^src\/cli\/commands\/(.+)\.ts$/)?.[1];
    if (!command) continue;
    const { sources } = startClosure(meta, command);
    assert.deepEqual(
      sources.filter((s) => SDKS.test(s)),
      [],
      `${command} loads an LLM SDK before it runs`,
    );
    if (command !== 'view')
      assert.deepEqual(
        sources.filter((s) => STORE_OR_VIEW.test(s)),
        [],
        `${command} loads DuckDB or the viewer`,
      );
  }
  const validate = startClosure(meta, 'validate').sources;
  assert.deepEqual(
    validate.filter((s) => /^src\/(store\/(?!path\.ts)|run|convert|serve|view\/(?!shared\/))/.test(s)),
    [],
    'validate loads the store (beyond where its file is), the runner, the converters or a server',
  );
});

test("DuckDB's API is loaded by loadDuckDb only (in the bundle its exports are a chunk's default export)", () => {
  const sources = (readdirSync(join(projectRoot, 'src'), { recursive: true }) as string[]).filter((f) =>
    /\.tsx?$/.test(f),
  );
  const loaders = sources.filter((f) =>
    /(?<!typeof )import\(\s*'@duckdb\/node-api'\s*\)|^import (?!type )[^;]*'@duckdb\/node-api'/m.test(
      readFileSync(join(projectRoot, 'src', f), 'utf8'),
    ),
  );
  assert.deepEqual(loaders, [join('store', 'db.ts')]);
});

test('validate with the bundle does not load DuckDB; ingest does', async () => {
  const { cli } = await builtCli();
  const script = (args: string[]) =>
    `const { main } = await import(${JSON.stringify(pathToFileURL(cli).href)});` +
    `const code = await main(['node', 'evalkit', ...${JSON.stringify(args)}]);` +
    `const { createRequire } = await import('node:module');` +
    `const duckdb = Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('@duckdb'));` +
    `process.stderr.write(JSON.stringify({ code, duckdb }));`;
  const loaded = async (args: string[]) => {
    const r = await runNode(['--input-type=module', '-e', script(args)]);
    return JSON.parse(r.stderr.slice(r.stderr.lastIndexOf('{'))) as { code: number; duckdb: boolean };
  };
  const tmp = mkdtempSync(join(tmpdir(), 'evalkit-lazy-'));
  try {
    const [validate, ingest] = await Promise.all([
      loaded(['validate', 'examples/eee', '--quiet']),
      loaded(['ingest', 'examples/compare', '--db', join(tmp, 'store.duckdb')]),
    ]);
    assert.deepEqual(validate, { code: 1, duckdb: false });
    assert.deepEqual(ingest, { code: 0, duckdb: true }, 'the check sees DuckDB where it is loaded');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('--help of the bundled CLI loads no command: with every command chunk gone it prints what the sources print', async () => {
  const { cli: built, meta } = await builtCli();
  const outputs = (JSON.parse(readFileSync(meta, 'utf8')) as Metafile).outputs;
  const commandChunks = Object.keys(outputs)
    .filter((k) => /^src\/cli\/commands\/.+\.ts$/.test(outputs[k].entryPoint ?? ''))
    .map((k) => basename(k));
  assert.ok(commandChunks.length >= 20, `${commandChunks.length} command chunks`);
  const tmp = mkdtempSync(join(tmpdir(), 'evalkit-help-'));
  try {
    cpSync(dirname(built), tmp, { recursive: true });
    for (const chunk of commandChunks) rmSync(join(tmp, chunk));
    const script = (args: string[]) =>
      `const { main } = await import(${JSON.stringify(pathToFileURL(join(tmp, 'cli.mjs')).href)});` +
      `process.exitCode = await main(['node', 'evalkit', ...${JSON.stringify(args)}]);`;
    const help = await runNode(['--input-type=module', '-e', script(['--help'])]);
    assert.equal(help.code, 0, help.stderr);
    const fromSource = await cliFromSource(['--help']);
    assert.equal(help.stdout, fromSource.stdout);
    assert.match(help.stdout, /^ {2}validate \[options\] <paths\.\.\.> +validate EEE/m);
    // A command's own help needs its module: without the chunk it cannot be printed (the copy is really without them).
    const own = await runNode(['--input-type=module', '-e', script(['validate', '--help'])]);
    assert.notEqual(own.code, 0);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
