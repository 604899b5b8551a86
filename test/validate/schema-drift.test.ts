// The committed schemas/ must equal what the TypeScript definitions emit (`npm run schemas` regenerates them).
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { describe, it } from 'node:test';
import { documentTypes } from '../../src/formats/registry.js';
import { DIALECT_URI, expectedSchemaFiles } from '../../src/validate/schemas.js';
import { projectRoot } from '../helpers/shared.js';

const schemasDir = join(projectRoot, 'schemas');

async function committed(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await committed(path)));
    else if (e.name.endsWith('.schema.json')) out.push(relative(schemasDir, path).split(sep).join('/'));
  }
  return out.sort();
}

describe('schemas/ drift', () => {
  const expected = expectedSchemaFiles(documentTypes);

  it('has exactly one file per registered type and version', async () => {
    assert.deepEqual(await committed(schemasDir), [...expected.keys()].sort(), 'run `npm run schemas`');
  });

  it('each file equals the schema emitted from the TypeScript source', async () => {
    for (const [rel, content] of expected) {
      const onDisk = await readFile(join(schemasDir, rel), 'utf8').catch(() => '(missing)');
      assert.equal(onDisk, content, `schemas/${rel} differs from the source: run \`npm run schemas\``);
    }
  });

  it('declares the dialect of its family: draft-07 for EEE, 2020-12 for the others', () => {
    for (const type of documentTypes) {
      for (const v of type.versions) {
        const text = expected.get(`${type.id}/${v.version}.schema.json`)!;
        const want = type.family === 'eee' ? DIALECT_URI['draft-07'] : DIALECT_URI['2020-12'];
        assert.equal(JSON.parse(text).$schema, want, `${type.id}@${v.version}`);
      }
    }
  });
});
