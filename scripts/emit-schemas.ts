// Writes schemas/<type>/<version>.schema.json for every registered type and version (`npm run schemas`), and
// removes schema files of types or versions that no longer exist. test/validate/schema-drift.test.ts checks that
// the committed files equal this output.
import { readdir, rm } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { documentTypes } from '../src/formats/registry.js';
import { writeFileAtomic } from '../src/io/atomic.js';
import { expectedSchemaFiles } from '../src/validate/schemas.js';

const root = resolve(fileURLToPath(import.meta.url), '..', '..', 'schemas');

async function existing(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await existing(path)));
    else if (e.name.endsWith('.schema.json')) out.push(relative(root, path).split(sep).join('/'));
  }
  return out;
}

const expected = expectedSchemaFiles(documentTypes);
for (const [rel, content] of expected) await writeFileAtomic(join(root, rel), content);
let removed = 0;
for (const rel of await existing(root)) {
  if (!expected.has(rel)) {
    await rm(join(root, rel));
    removed++;
  }
}
console.log(
  `schemas: wrote ${expected.size} files under schemas/${removed ? `, removed ${removed} stale` : ''}`,
);
