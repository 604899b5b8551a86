// The layers of src/ hold: every relative import in src/** runs down the layer order written in docs/design.md
// (or stays inside its own folder), and no set of files imports itself round a circle. Type-only and lazy
// `import()` imports count like any other: a layer that needs a type from above it is in the wrong place.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { projectRoot } from '../helpers/shared.js';

/**
 * Bottom to top. A file's layer is its first folder under src/ (or the file itself at the top of src/). A file may
 * import from its own folder and from any lower layer; folders that share a layer may not import each other except
 * along SIBLING_EDGES.
 */
export const LAYERS: string[][] = [
  ['errors.ts', 'diagnostics.ts'],
  ['io'],
  ['formats'],
  ['checks', 'validate', 'run', 'metrics', 'migrate'],
  ['convert'],
  ['store'],
  ['report'],
  ['survey', 'view', 'serve'],
  ['cli'],
  ['api'],
  ['index.ts'],
];

/** The only imports allowed between folders of one layer (from → to); the reverse direction stays forbidden. */
export const SIBLING_EDGES = new Set([
  'validate → checks',
  'migrate → checks',
  'migrate → validate',
  'run → metrics',
  'run → validate',
]);

/**
 * Violations other branches are removing at the same time; this list shrinks to empty when they are merged.
 * Each entry is one file-level edge `from → to`.
 */
const KNOWN_PENDING = new Set<string>([]);
/** Circles other branches are breaking at the same time, each as its sorted file list. */
const KNOWN_PENDING_CIRCLES = new Set<string>([]);

const srcRoot = join(projectRoot, 'src');

function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) found.push(relative(srcRoot, path));
  }
  return found;
}

/** file (relative to src/) → the src files it imports. */
function importGraph(): Map<string, string[]> {
  const files = sourceFiles(srcRoot);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(join(srcRoot, file), 'utf8');
    const { importedFiles } = ts.preProcessFile(text, true, true);
    const targets: string[] = [];
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const base = relative(srcRoot, resolve(srcRoot, dirname(file), fileName)).replace(/\.js$/, '');
      const target = [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`].find((c) => known.has(c));
      assert.ok(target, `${file} imports ${fileName}, which is no file under src/`);
      targets.push(target);
    }
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

function folderOf(file: string): string {
  return file.split('/')[0];
}

function layerOf(folder: string): number {
  const index = LAYERS.findIndex((layer) => layer.includes(folder));
  assert.notEqual(index, -1, `src/${folder} has no place in LAYERS (add it, and to docs/design.md)`);
  return index;
}

/** Strongly connected components with more than one file (or a file importing itself), by Tarjan's algorithm. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const to of graph.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file)!, index.get(to)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(component.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

test('every import in src/ runs down a layer or stays in its folder', () => {
  const graph = importGraph();
  const upward: string[] = [];
  for (const [from, targets] of graph) {
    const fromFolder = folderOf(from);
    for (const to of targets) {
      const toFolder = folderOf(to);
      if (toFolder === fromFolder) continue;
      const edge = `${from} → ${to}`;
      const fromLayer = layerOf(fromFolder);
      const toLayer = layerOf(toFolder);
      const allowed =
        toLayer < fromLayer || (toLayer === fromLayer && SIBLING_EDGES.has(`${fromFolder} → ${toFolder}`));
      if (!allowed && !KNOWN_PENDING.has(edge)) upward.push(edge);
    }
  }
  assert.deepEqual(upward, [], `imports that run up a layer or across a layer:\n${upward.join('\n')}`);
});

test('no files in src/ import each other round a circle', () => {
  const found = circles(importGraph())
    .map((c) => c.join(', '))
    .filter((c) => !KNOWN_PENDING_CIRCLES.has(c));
  assert.deepEqual(found, [], `import circles:\n${found.join('\n')}`);
});

test('the layer test sees a real violation (self-check)', () => {
  const graph = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts']],
    ['c.ts', ['a.ts']],
    ['d.ts', ['d.ts']],
    ['e.ts', ['a.ts']],
  ]);
  assert.deepEqual(circles(graph), [['a.ts', 'b.ts', 'c.ts'], ['d.ts']]);
  assert.ok(layerOf('cli') > layerOf('store'));
  assert.ok(layerOf('io') < layerOf('formats'));
});

test('docs/design.md lists the same layers as this test', () => {
  const design = readFileSync(join(projectRoot, 'docs', 'design.md'), 'utf8');
  const block = /<!-- layers:begin -->([\s\S]*?)<!-- layers:end -->/.exec(design)?.[1];
  assert.ok(block, 'docs/design.md has no <!-- layers:begin --> … <!-- layers:end --> block');
  const listed = block
    .split('\n')
    .map((line) => /^\d+\.\s+(.*)$/.exec(line.trim())?.[1])
    .filter((line): line is string => line !== undefined)
    .map((line) => [...line.matchAll(/`src\/([^`]+)`/g)].map((m) => m[1].replace(/\/$/, '')));
  assert.deepEqual(listed, LAYERS);
  for (const edge of SIBLING_EDGES)
    assert.ok(block.includes(edge), `docs/design.md does not name the edge ${edge}`);
});
