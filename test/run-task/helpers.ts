// Shared by the `evalkit run` tests: task folders written by the test, and reading the records a run wrote.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { projectRoot, UPSTREAM_EEE_SCHEMAS, withReference } from '../helpers/shared.js';
import { upstreamValidators } from '../convert/sources-helpers.js';

/** Writes a task file and its dataset (JSONL) into `dir`; returns the task file's path. */
export function writeTask(
  dir: string,
  name: string,
  task: string,
  rows: object[],
  extra: Record<string, string> = {},
): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.jsonl`), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  for (const [file, text] of Object.entries(extra)) writeFileSync(join(dir, file), text);
  const path = join(dir, `${name}.task.yaml`);
  writeFileSync(path, task);
  return path;
}

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...files(path));
    else out.push(path);
  }
  return out;
}

export interface WrittenRecord {
  path: string;
  aggregate: any;
  rows: any[];
}

/** The records under a datastore root, by model id. */
export function recordsUnder(root: string): Map<string, WrittenRecord> {
  const out = new Map<string, WrittenRecord>();
  for (const path of files(join(root, 'data'))) {
    if (!path.endsWith('.json')) continue;
    const aggregate = JSON.parse(readFileSync(path, 'utf8'));
    const samples = path.replace(/\.json$/, '_samples.jsonl');
    const rows = readFileSync(samples, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l));
    out.set(aggregate.model_info.id, { path, aggregate, rows });
  }
  return out;
}

/** A record's result for one metric name. */
export function resultOf(record: WrittenRecord, metric: string): any {
  const r = record.aggregate.evaluation_results.find((x: any) => x.metric_config.metric_name === metric);
  if (!r) throw new Error(`no result ${metric} in ${record.path}`);
  return r;
}

/** The sample id and epoch a request is for, from the x-evalkit-sample-id header (`run:sample:epoch-N[:judge-X]`). */
export function requestKey(header: string): { sample: string; epoch: number; judge: boolean } {
  const [, sample, epoch, judge] = header.split(':');
  return { sample, epoch: Number(epoch?.replace('epoch-', '')), judge: judge !== undefined };
}

/** `run TASK` against model `m` (or `models`) of an OpenAI-compatible server, writing under `out`. */
export const openaiRun = (
  task: string,
  baseUrl: string,
  out: string,
  extra: string[] = [],
  models: string[] = ['m'],
): string[] => [
  'run',
  task,
  '--provider',
  'openai',
  ...models.flatMap((m) => ['--model', m]),
  '--base-url',
  baseUrl,
  '-o',
  out,
  ...extra,
];

/** `run TASK` against model `claude-t` of an Anthropic Messages API server, writing under `out` (key: ANTHROPIC_KEY_ENV). */
export const anthropicRun = (task: string, baseUrl: string, out: string, extra: string[] = []): string[] => [
  'run',
  task,
  '--provider',
  'anthropic',
  '--model',
  'claude-t',
  '--base-url',
  baseUrl,
  '-o',
  out,
  ...extra,
];

/** The environment an Anthropic run needs (a key; the local server takes any). */
export const ANTHROPIC_KEY_ENV = { ANTHROPIC_API_KEY: 'sk-ant-test' };

/** Every file under a folder, concatenated (to search for what must not be written). */
export function readTree(root: string): string {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath ?? (e as any).path, e.name), 'utf8'))
    .join('\n');
}

/** The journal's finished calls (`type: sample` lines; a torn last line left out), or none without a journal. */
export function journalSamples(path: string): { item: string; sample: { sample_index: number } }[] {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, 'utf8');
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l))
    .filter((l) => l.type === 'sample');
}

export interface SpawnedRun {
  child: ChildProcess;
  done: Promise<{ code: number | null; signal: string | null }>;
}

/** `node ARGV` as its own process (the CLI command and its arguments), from the project root, output ignored; `env` added. */
export function spawnRun(argv: string[], env: Record<string, string> = {}): SpawnedRun {
  const child = spawn(process.execPath, argv, {
    cwd: projectRoot,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: 'ignore',
  });
  const done = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, done };
}

/** Kills the run with SIGKILL once `ready()` holds; fails when the run finished first. */
export async function killWhen(run: SpawnedRun, ready: () => boolean): Promise<void> {
  let finished = false;
  run.done.then(() => (finished = true));
  while (!finished && !ready()) await new Promise((r) => setTimeout(r, 2));
  assert.equal(finished, false, 'the run finished before it could be killed');
  run.child.kill('SIGKILL');
  assert.equal((await run.done).signal, 'SIGKILL');
}

/** The record and each of its rows under the upstream EEE 0.3.0 schemas (a visible skip without the reference data). */
export async function assertUpstream(t: TestContext, rec: WrittenRecord): Promise<void> {
  await withReference(
    t,
    UPSTREAM_EEE_SCHEMAS,
    'the upstream EEE 0.3.0 schemas accept the record',
    async () => {
      const v = await upstreamValidators();
      assert.ok(v.aggregate(rec.aggregate), JSON.stringify(v.aggregate.errors));
      for (const r of rec.rows)
        assert.ok(v.instance(r), `${r.sample_id}: ${JSON.stringify(v.instance.errors)}`);
    },
  );
}
