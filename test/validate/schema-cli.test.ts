import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { cli as run } from '../helpers/cli.js';
import { documentTypes } from '../../src/formats/registry.js';
import { projectRoot } from '../helpers/shared.js';

describe('evalkit schema', () => {
  it('list names every registered type with its versions', async () => {
    const r = await run(['schema', 'list']);
    assert.equal(r.code, 0);
    for (const t of documentTypes) {
      assert.match(
        r.stdout,
        new RegExp(`^${t.id.replace('.', '\\.')}\\s+${t.versions.map((v) => v.version).join(', ')}`, 'm'),
      );
    }
    const json = JSON.parse((await run(['schema', 'list', '--format', 'json'])).stdout);
    assert.deepEqual(
      json.map((t: { type: string }) => t.type),
      documentTypes.map((t) => t.id),
    );
  });

  it('show prints the committed schema file, newest version by default', async () => {
    const type = documentTypes.find((t) => t.versions.length > 1) ?? documentTypes[0];
    assert.ok(type, 'no document types registered');
    const newest = type.versions[type.versions.length - 1];
    const r = await run(['schema', 'show', type.id]);
    assert.equal(r.code, 0);
    assert.equal(
      r.stdout,
      await readFile(join(projectRoot, 'schemas', type.id, `${newest.version}.schema.json`), 'utf8'),
    );
    const first = type.versions[0];
    const old = await run(['schema', 'show', `${type.id}@${first.version}`]);
    assert.equal(
      old.stdout,
      await readFile(join(projectRoot, 'schemas', type.id, `${first.version}.schema.json`), 'utf8'),
    );
  });

  it('an unknown type or version is a usage error (exit 2) naming what exists', async () => {
    const r = await run(['schema', 'show', 'nope']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown document type "nope"; known types: /);
    const v = await run(['schema', 'show', `${documentTypes[0].id}@9.9.9`]);
    assert.equal(v.code, 2);
    assert.match(v.stderr, /has no version "9\.9\.9"/);
  });
});
