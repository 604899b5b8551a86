// Feeds mutated and truncated files and datastore trees to validate and migrate (in-process, a fixed number of seeded
// cases). Invariants: no uncaught exception (only EvalkitError may be thrown), never "valid" for a file that is not
// strict JSON, a file_path leaving the tree is always an error, and nothing is written outside the output folder
// (every plan is checked against the output folder; one case in five really writes).
// test-runner: own process (long: as a job of its own it keeps the batches short).
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { after, test } from 'node:test';
import { EvalkitError } from '../../src/errors.js';
import { parseStrictJson } from '../../src/io/strict-json.js';
import { migratePaths } from '../../src/migrate/index.js';
import { recordFingerprint } from '../../src/checks/index.js';
import { migrateEeeAggregate, migrateEeeInstanceRow } from '../../src/formats/eee/migrate.js';
import { migrateLegacyBenchOutput } from '../../src/formats/bench-output/migrate.js';
import { sampleHash } from '../../src/formats/eee/sample-hash.js';
import { benchmarkHash } from '../../src/formats/infereval/hash.js';
import { validatePaths } from '../../src/validate/index.js';
import { walkFiles } from '../checks/walk.js';
import { EXAMPLES, tempDir } from '../checks/tree-fixture.js';
import { createRng } from '../../src/metrics/stats/rng.js';

// A fixed number of seeded cases, not a time budget: every run tries the same cases on any machine (FUZZ_CASES
// and FUZZ_DOCUMENTS try more). Throughput is printed as a diagnostic, never asserted.
const CASES = Number(process.env.FUZZ_CASES ?? 150);
const DOCUMENTS = Number(process.env.FUZZ_DOCUMENTS ?? 1000);

type Tree = Map<string, string>;
function load(dir: string): Tree {
  return new Map(walkFiles(dir).map((f) => [relative(dir, f), readFileSync(f, 'utf8')]));
}
const CORPUS: Tree[] = ['current', 'legacy', 'bench-repo'].map((w) => load(join(EXAMPLES, w)));

const GARBAGE = [
  '{',
  '}',
  '"',
  ',',
  ':',
  'NaN',
  '1e999',
  '-Infinity',
  '\u0000',
  '\\',
  '[',
  ']',
  'null',
  '\ud800',
  '\n',
];

function mutateText(text: string, r: () => number): [string, string] {
  const at = Math.floor(r() * (text.length + 1));
  switch (Math.floor(r() * 5)) {
    case 0:
      return [text.slice(0, at), `truncate@${at}`];
    case 1: {
      const g = GARBAGE[Math.floor(r() * GARBAGE.length)];
      return [text.slice(0, at) + g + text.slice(at), `insert ${JSON.stringify(g)}@${at}`];
    }
    case 2:
      return [text.slice(0, at) + text.slice(at + 1 + Math.floor(r() * 20)), `delete@${at}`];
    case 3: {
      const m = /"([a-z_]+)":/.exec(text.slice(at));
      if (!m) return [text, 'noop'];
      const i = at + m.index;
      return [`${text.slice(0, i)}"${m[1]}": 1, ${text.slice(i)}`, `duplicate key ${m[1]}`];
    }
    default: {
      const c = text.charCodeAt(at) ^ (1 << Math.floor(r() * 7));
      return [text.slice(0, at) + String.fromCharCode(c) + text.slice(at + 1), `flip@${at}`];
    }
  }
}

const VALUES: unknown[] = [
  null,
  '',
  'x',
  -1,
  0,
  1e308,
  66.5,
  true,
  [],
  {},
  ['a'],
  { a: 1 },
  'Infinity',
  '../../x',
];
function mutateValue(doc: unknown, r: () => number): string {
  const paths: { parent: any; key: string | number }[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach((x, i) => (paths.push({ parent: v, key: i }), walk(x)));
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) (paths.push({ parent: v, key: k }), walk(x));
  };
  walk(doc);
  if (paths.length === 0) return 'noop';
  const { parent, key } = paths[Math.floor(r() * paths.length)];
  if (r() < 0.3 && !Array.isArray(parent)) {
    delete parent[key];
    return `delete ${key}`;
  }
  parent[key] = structuredClone(VALUES[Math.floor(r() * VALUES.length)]);
  return `set ${key}=${JSON.stringify(parent[key])}`;
}

function mutateJson(text: string, jsonl: boolean, r: () => number): [string, string] {
  const lines = jsonl ? text.split('\n').filter(Boolean) : [text];
  const i = Math.floor(r() * lines.length);
  try {
    const doc = JSON.parse(lines[i]);
    const what = mutateValue(doc, r);
    lines[i] = JSON.stringify(doc, null, jsonl ? undefined : 2);
    return [lines.join('\n') + (jsonl ? '\n' : ''), what];
  } catch {
    return [text, 'noop'];
  }
}

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

test('fuzz: validate and migrate survive mutated files and trees', async (ctx) => {
  // A memory-backed folder when there is one: the fuzz loop is dominated by file-system calls otherwise.
  const work = existsSync('/dev/shm') ? mkdtempSync('/dev/shm/evalkit-fuzz-') : tempDir('evalkit-fuzz-');
  dirs.push(work);
  const sentinelDir = join(work, 'outside');
  mkdirSync(sentinelDir);
  const sentinel = join(sentinelDir, 'secret_samples.jsonl');
  writeFileSync(sentinel, '{"sample_id": "keep me"}\n');
  const failures: string[] = [];
  const started = Date.now();
  let cases = 0;
  let invalidJsonCases = 0;
  for (; cases < CASES; cases++) {
    const seed = 1000 + cases;
    const r = createRng(seed);
    const tree = new Map(CORPUS[Math.floor(r() * CORPUS.length)]);
    const names = [...tree.keys()];
    const steps: string[] = [];
    const mutations = 1 + Math.floor(r() * 3);
    let outsidePath = false;
    for (let m = 0; m < mutations; m++) {
      const name = names[Math.floor(r() * names.length)];
      const text = tree.get(name) as string;
      const kind = r();
      if (kind < 0.45) {
        const [t, what] = mutateText(text, r);
        tree.set(name, t);
        steps.push(`${name}: ${what}`);
      } else if (kind < 0.85) {
        const [t, what] = mutateJson(text, name.endsWith('.jsonl'), r);
        tree.set(name, t);
        steps.push(`${name}: ${what}`);
      } else if (kind < 0.93 && name.endsWith('.json') && text.includes('"file_path"')) {
        const bad = r() < 0.5 ? '../../outside/secret_samples.jsonl' : sentinel;
        tree.set(name, text.replace(/"file_path": "[^"]*"/, `"file_path": ${JSON.stringify(bad)}`));
        outsidePath = true;
        steps.push(`${name}: file_path=${bad}`);
      } else {
        const renamed = r() < 0.5 ? name.replace(/[^/]+$/, 'CON.json') : name.replace(/[^/]+$/, 'x .json');
        tree.delete(name);
        tree.set(renamed, text);
        names.splice(names.indexOf(name), 1, renamed);
        if (renamed.startsWith('data/')) outsidePath = true; // a non-portable name inside data/ is an error too
        steps.push(`rename ${name} -> ${renamed}`);
      }
    }
    const input = join(work, 'in');
    const out = join(work, 'out');
    rmSync(input, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
    for (const [name, text] of tree) {
      mkdirSync(dirname(join(input, name)), { recursive: true });
      writeFileSync(join(input, name), text);
    }
    if (r() < 0.05) {
      const samples = names.find((n) => n.endsWith('_samples.jsonl'));
      if (samples) {
        rmSync(join(input, samples));
        symlinkSync(sentinel, join(input, samples));
        tree.set(samples, readFileSync(sentinel, 'utf8')); // what a reader following the link would see
        steps.push(`symlink ${samples} -> outside`);
      }
    }
    const label = `seed ${seed} [${steps.join('; ')}]`;
    const notStrict = [...tree].filter(([name, text]) =>
      name.endsWith('.jsonl')
        ? text.split('\n').some((l) => l.trim() !== '' && parseStrictJson(l).issues.length > 0)
        : parseStrictJson(text).issues.length > 0,
    );
    if (notStrict.length > 0) invalidJsonCases++;
    try {
      const result = await validatePaths([input]);
      if (notStrict.length > 0 && result.summary.errors === 0)
        failures.push(`${label}: validate found no error in non-strict JSON ${notStrict.map(([n]) => n)}`);
      if (outsidePath && !result.files.some((f) => f.diagnostics.some((d) => d.severity === 'error')))
        failures.push(`${label}: a file_path leaving the tree or a bad name in data/ was not an error`);
    } catch (error) {
      if (!(error instanceof EvalkitError))
        failures.push(`${label}: validate threw ${(error as Error).stack}`);
    }
    try {
      // Real writes (atomic, with fsync) in one case of five; the others plan the same writes as a dry run.
      const result = await migratePaths([input], { outDir: out, layout: r() < 0.5, dryRun: r() < 0.8 });
      for (const f of result.files)
        if (f.status === 'migrated' && notStrict.some(([n]) => f.input.endsWith(n)))
          failures.push(`${label}: migrated a file that is not strict JSON: ${f.input}`);
      if (notStrict.length > 0 && result.summary.failed === 0)
        failures.push(`${label}: migrate reported success on non-strict JSON ${notStrict.map(([n]) => n)}`);
    } catch (error) {
      if (!(error instanceof EvalkitError))
        failures.push(`${label}: migrate threw ${(error as Error).stack}`);
    }
    const outside = readdirSync(work).sort();
    if (outside.join() !== ['in', 'out', 'outside'].join() && outside.join() !== ['in', 'outside'].join())
      failures.push(`${label}: something was written beside the output folder: ${outside}`);
    if (
      readdirSync(sentinelDir).join() !== 'secret_samples.jsonl' ||
      readFileSync(sentinel, 'utf8') !== '{"sample_id": "keep me"}\n'
    )
      failures.push(`${label}: the file outside the tree was touched`);
    if (failures.length >= 5) break;
  }
  const seconds = (Date.now() - started) / 1000;
  ctx.diagnostic(`${cases} cases (${invalidJsonCases} with non-strict JSON) in ${seconds.toFixed(1)} s`);
  assert.deepEqual(failures, []);
  assert.equal(cases, CASES, 'every case ran');
});

test('fuzz: the pure transforms (migrations, hashes) on thousands of mutated documents', async (ctx) => {
  const docs: unknown[] = [];
  for (const tree of CORPUS)
    for (const [name, text] of tree)
      for (const line of name.endsWith('.jsonl') ? text.split('\n').filter(Boolean) : [text])
        docs.push(JSON.parse(line));
  const started = Date.now();
  const failures: string[] = [];
  let cases = 0;
  for (; cases < DOCUMENTS; cases++) {
    const r = createRng(50000 + cases);
    const doc = structuredClone(docs[Math.floor(r() * docs.length)]) as Record<string, any>;
    const steps: string[] = [];
    for (let m = 1 + Math.floor(r() * 4); m > 0; m--) steps.push(mutateValue(doc, r));
    const frozen = JSON.stringify(doc);
    const scores = Array.isArray(doc.evaluation_results)
      ? doc.evaluation_results.map((x: any) => x?.score_details?.score)
      : undefined;
    try {
      const a = migrateEeeAggregate(doc);
      if (JSON.stringify(doc) !== frozen) failures.push(`seed ${50000 + cases}: the input was modified`);
      if (a.changed && scores) {
        const after = (a.value.evaluation_results as any[]).map((x: any) => x?.score_details?.score);
        if (JSON.stringify(after) !== JSON.stringify(scores))
          failures.push(`seed ${50000 + cases}: a score changed`);
      }
      migrateEeeInstanceRow(doc);
      migrateLegacyBenchOutput(doc, { startedAtHint: '2026-01-01T00:00:00Z' });
      if (doc.input && typeof doc.input === 'object') sampleHash(doc.input);
      benchmarkHash(doc);
      recordFingerprint(doc);
    } catch (error) {
      failures.push(`seed ${50000 + cases} [${steps.join('; ')}]: ${(error as Error).stack}`);
      if (failures.length >= 5) break;
    }
  }
  ctx.diagnostic(`${cases} documents in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  assert.deepEqual(failures, []);
  assert.equal(cases, DOCUMENTS, 'every document was tried');
});
