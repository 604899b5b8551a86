// Writes schemas/<type>/<version>.schema.json and the precompiled validators src/validate/compiled/*.ts for every
// registered type and version (`npm run schemas`), and removes files of types or versions that no longer exist.
// test/validate/schema-drift.test.ts checks that the committed files equal this output.
import { readdir, rm } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { documentTypes } from '../src/formats/registry.js';
import { writeFileAtomic } from '../src/io/atomic.js';
import { expectedSchemaFiles } from '../src/validate/schemas.js';
import { expectedValidatorFiles, VALIDATORS_DIR } from './validators.js';

const projectRoot = resolve(fileURLToPath(import.meta.url), '..', '..');

async function existing(root: string, dir: string, suffix: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await existing(root, path, suffix)));
    else if (e.name.endsWith(suffix)) out.push(relative(root, path).split(sep).join('/'));
  }
  return out;
}

/** Writes every expected file under `dir` and removes the other files ending in `suffix` there. */
async function sync(dir: string, expected: Map<string, string>, suffix: string): Promise<string> {
  const root = join(projectRoot, dir);
  for (const [rel, content] of expected) await writeFileAtomic(join(root, rel), content);
  let removed = 0;
  for (const rel of await existing(root, root, suffix)) {
    if (!expected.has(rel)) {
      await rm(join(root, rel));
      removed++;
    }
  }
  return `wrote ${expected.size} files under ${dir}/${removed ? `, removed ${removed} stale` : ''}`;
}

console.log(`schemas: ${await sync('schemas', expectedSchemaFiles(documentTypes), '.schema.json')}`);
console.log(`validators: ${await sync(VALIDATORS_DIR, expectedValidatorFiles(documentTypes), '.ts')}`);
