// The committed schemas/ and precompiled validators must equal what the TypeScript definitions emit (`npm run
// schemas` regenerates them).
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { describe, it } from 'node:test';
import { documentTypes } from '../../src/formats/registry.js';
import { compiledValidator, DIALECT_URI, expectedSchemaFiles } from '../../src/validate/schemas.js';
import { precompiledValidators } from '../../src/validate/compiled/index.js';
import { projectRoot } from '../helpers/shared.js';
import { expectedValidatorFiles, VALIDATORS_DIR } from '../../scripts/validators.js';

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

describe('precompiled validators drift', () => {
  it('src/validate/compiled/ holds exactly the Ajv standalone code of each registered type and version', async () => {
    const dir = join(projectRoot, VALIDATORS_DIR);
    const expected = expectedValidatorFiles(documentTypes);
    const onDisk = (await readdir(dir)).filter((f) => f.endsWith('.ts')).sort();
    assert.deepEqual(onDisk, [...expected.keys()].sort(), 'run `npm run schemas`');
    for (const [name, content] of expected) {
      const text = await readFile(join(dir, name), 'utf8');
      assert.ok(
        text === content,
        `${VALIDATORS_DIR}/${name} differs from the source: run \`npm run schemas\``,
      );
    }
  });

  it('the registered versions use them; a version outside the registry is compiled at run time', () => {
    for (const type of documentTypes) {
      for (const v of type.versions) {
        assert.equal(
          compiledValidator(v),
          precompiledValidators[`${type.id}@${v.version}`],
          `${type.id}@${v.version}`,
        );
      }
    }
    const custom = { ...documentTypes[0].versions[0] };
    const validate = compiledValidator(custom);
    assert.ok(!Object.values(precompiledValidators).includes(validate));
    assert.equal(validate({}), compiledValidator(documentTypes[0].versions[0])({}));
  });
});
