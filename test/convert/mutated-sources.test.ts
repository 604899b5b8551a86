// Outputs the converters have not seen: every real source file of the reference data (peers, peers-wild, peers-wild-2), changed
// at seeded random places (a field deleted, or replaced by null, a string, a number, an array, an object), one to
// four changes per case. Whatever the change, a converter either fails with one of our errors (a code and a message,
// never a TypeError from deep inside) or writes pairs that pass every evalkit check with no warning and the upstream
// 0.3.0 schemas. Inspect `.eval` archives are read, one JSON member changed, and zipped again. The seed is printed with any failure so the case can be replayed.
// test-runner: own process (long: as a job of its own it keeps the batches short).
import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { zipSync } from 'fflate';
import { EvalkitError } from '../../src/errors.js';
import { ZipReader } from '../../src/io/zip.js';
import type { SourceId } from '../../src/convert/types.js';
import { reference, skipWithoutReference, WILD_SETS } from '../helpers/shared.js';
import { assertUpstreamValid, assertValidTree, convertInto, load, tempRoot } from './helpers.js';

const skip = skipWithoutReference('peers-wild/MANIFEST.json');

const SOURCE_OF: Record<string, SourceId> = {
  'lm-eval-harness': 'lm-eval',
  inspect_ai: 'inspect',
  helm: 'helm',
  promptfoo: 'promptfoo',
  'openai-evals': 'openai-evals',
};

/** Each convertible unit of the reference data: a tool's peers folder, or one peers-wild run folder. */
function units(): { source: SourceId; path: string }[] {
  const out: { source: SourceId; path: string }[] = [];
  for (const set of ['peers', ...WILD_SETS]) {
    const root = reference(set);
    if (root === undefined) continue;
    for (const tool of readdirSync(root).sort()) {
      const source = SOURCE_OF[tool];
      if (!source) continue;
      if (set === 'peers') out.push({ source, path: join(root, tool) });
      else
        for (const run of readdirSync(join(root, tool)).sort())
          out.push({ source, path: join(root, tool, run) });
    }
  }
  return out;
}

/** A small deterministic generator (an LCG), so a failing case can be replayed from its seed. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

type Path = (string | number)[];
const REPLACEMENTS: unknown[] = [null, '', 'x', 'N/A', -1, 0, 2.5, 1e308, true, [], [1, 'a'], {}, { a: 1 }];

/** Every place in a value, at most `limit` of them, breadth first (shallow places are the structural ones). */
function places(value: unknown, limit = 4000): Path[] {
  const out: Path[] = [];
  const queue: { v: unknown; p: Path }[] = [{ v: value, p: [] }];
  while (queue.length > 0 && out.length < limit) {
    const { v, p } = queue.shift()!;
    if (p.length > 0) out.push(p);
    if (Array.isArray(v)) v.slice(0, 4).forEach((x, i) => queue.push({ v: x, p: [...p, i] }));
    else if (v !== null && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) queue.push({ v: x, p: [...p, k] });
  }
  return out;
}

/** Changes `doc` in place at one random place (depth chosen first, so shallow fields are hit often). */
function mutate(doc: unknown, random: () => number): string {
  const all = places(doc);
  if (all.length === 0) return 'nothing to change';
  const depths = [...new Set(all.map((p) => p.length))];
  const depth = depths[Math.floor(random() * depths.length)];
  const atDepth = all.filter((p) => p.length === depth);
  const path = atDepth[Math.floor(random() * atDepth.length)];
  let parent = doc as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
  const key = path[path.length - 1];
  const where = `/${path.join('/')}`;
  if (!Array.isArray(parent) && random() < 0.3) {
    delete parent[key];
    return `deleted ${where}`;
  }
  const replacement = structuredClone(REPLACEMENTS[Math.floor(random() * REPLACEMENTS.length)]);
  parent[key] = replacement;
  return `${where} = ${JSON.stringify(replacement)}`;
}

function changeableFiles(path: string): string[] {
  if (statSync(path).isFile()) return /\.(jsonl?|eval)$/.test(path) ? [path] : [];
  return readdirSync(path)
    .sort()
    .flatMap((name) => changeableFiles(join(path, name)));
}

/**
 * An Inspect `.eval` archive with one JSON member changed, written back with deflate (zstd members are
 * recompressed as deflate: the reader must not care which).
 */
async function mutateArchive(file: string, changes: number, random: () => number): Promise<string> {
  const zip = await ZipReader.open(file);
  const members: Record<string, Uint8Array> = {};
  try {
    for (const entry of zip.uniqueEntries()) members[entry.name] = await zip.read(entry);
  } finally {
    await zip.close();
  }
  const names = Object.keys(members).filter((n) => n.endsWith('.json'));
  const name = names[Math.floor(random() * names.length)];
  const doc = JSON.parse(
    Buffer.from(members[name])
      .toString('utf8')
      .replace(/\bNaN\b|-?\bInfinity\b/g, 'null'),
  );
  const said: string[] = [];
  for (let c = 0; c < changes; c++) said.push(mutate(doc, random));
  members[name] = Buffer.from(JSON.stringify(doc));
  writeFileSync(file, zipSync(members, { level: 1 }));
  return `member ${name}: ${said.join('; ')}`;
}

/** Copies the unit, changes one of its JSON or JSONL files, and says what was changed. */
async function mutatedCopy(unitPath: string, dir: string, random: () => number): Promise<string | undefined> {
  const copy = join(dir, basename(unitPath));
  cpSync(unitPath, copy, { recursive: true });
  const files = changeableFiles(copy);
  if (files.length === 0) return undefined;
  const file = files[Math.floor(random() * files.length)];
  const changes = 1 + Math.floor(random() * 4);
  if (file.endsWith('.eval')) return `${basename(file)} ${await mutateArchive(file, changes, random)}`;
  const text = readFileSync(file, 'utf8');
  const said: string[] = [];
  if (file.endsWith('.jsonl')) {
    const lines = text.split('\n');
    const filled = [...lines.keys()].filter((i) => lines[i].trim() !== '');
    for (let c = 0; c < changes; c++) {
      const i = filled[Math.floor(random() * filled.length)];
      const row = JSON.parse(lines[i]);
      said.push(`line ${i + 1}: ${mutate(row, random)}`);
      lines[i] = JSON.stringify(row);
    }
    writeFileSync(file, lines.join('\n'));
  } else {
    const doc = JSON.parse(text.replace(/\bNaN\b|-?\bInfinity\b/g, 'null'));
    for (let c = 0; c < changes; c++) said.push(mutate(doc, random));
    writeFileSync(file, JSON.stringify(doc));
  }
  return `${basename(file)}: ${said.join('; ')}`;
}

const CASES_PER_UNIT = 8;

test(
  'converters either fail with a clear error or write valid pairs, whatever field of a real source is changed',
  { skip },
  async (t) => {
    let converted = 0;
    let refused = 0;
    for (const [u, unit] of units().entries()) {
      for (let c = 0; c < CASES_PER_UNIT; c++) {
        const seed = 1000 * u + c + 1;
        const random = generator(seed);
        const dir = tempRoot('evalkit-mutated-');
        try {
          const change = await mutatedCopy(unit.path, dir, random);
          if (change === undefined) continue;
          const replay = `${unit.path} (seed ${seed}) with ${change}`;
          const out = await convertInto([join(dir, basename(unit.path))], {
            root: join(dir, 'out'),
            from: unit.source,
          });
          for (const failure of out.failures) {
            assert.ok(
              failure.error instanceof EvalkitError,
              `${replay}: an unexpected ${failure.error.name}: ${failure.error.stack}`,
            );
            assert.match(failure.error.message, /\S/, `${replay}: an empty error message`);
            refused++;
          }
          if (out.written.length === 0) continue;
          await assertValidTree(join(dir, 'out')).catch((e: Error) => assert.fail(`${replay}: ${e.message}`));
          for (const { record } of out.written) {
            const { aggregate, rows } = load(join(dir, 'out'), record);
            await assertUpstreamValid(t, aggregate, rows).catch((e: Error) =>
              assert.fail(`${replay}: ${e.message}`),
            );
            converted++;
          }
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
    }
    // The changes are small, so most cases still convert; a run where nothing converted tested nothing.
    console.log(`converted ${converted} records, ${refused} refused`);
    assert.ok(converted > refused, `converted ${converted}, refused ${refused}`);
  },
);
