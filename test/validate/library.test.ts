// The library entry points on the real formats, without the CLI.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { validateFile, validatePaths, validateStream, validateValue } from '../../src/index.js';
import { projectRoot } from '../helpers/shared.js';
import { instanceRow, jsonl } from './fixtures.js';

describe('library API', () => {
  it('validateValue detects the type and returns typed diagnostics', () => {
    const ok = validateValue(instanceRow(1));
    assert.deepEqual([ok.valid, ok.type, ok.schema_version], [true, 'eee.instance', '0.3.0']);
    const bad = validateValue(instanceRow(1, { evaluation: { score: 1 } }));
    assert.equal(bad.valid, false);
    assert.deepEqual(
      bad.diagnostics.map((d) => [d.code, d.pointer]),
      [['schema.required', '/evaluation']],
    );
  });

  it('validateFile reads .jsonl as lines and reports file positions', async () => {
    const r = await validateFile('test/fixtures/validate/bad.jsonl', { cwd: projectRoot, schemaOnly: true });
    assert.deepEqual([r.documents, r.invalid, r.errors, r.warnings], [5, 3, 3, 1]);
    assert.deepEqual(
      r.diagnostics.map((d) => d.line),
      [2, 3, 4, 6],
    );
  });

  it('validateStream honours streamFormat', async () => {
    const text = jsonl([instanceRow(1), instanceRow(2)]);
    const lines = await validateStream(Readable.from([Buffer.from(text)]), {
      streamFormat: 'jsonl',
      schemaOnly: true,
    });
    assert.deepEqual([lines.documents, lines.invalid], [2, 0]);
    const asOne = await validateStream(Readable.from([Buffer.from(text)]), {
      streamFormat: 'json',
      schemaOnly: true,
    });
    assert.deepEqual([asOne.documents, asOne.invalid, asOne.diagnostics[0].code], [1, 1, 'json.trailing']);
  });

  it('validatePaths throws typed errors for usage and I/O problems', async () => {
    await assert.rejects(validatePaths([]), { name: 'UsageError', code: 'usage.no-paths' });
    await assert.rejects(validatePaths(['nope.json'], { cwd: projectRoot }), { name: 'IoError' });
    await assert.rejects(validatePaths(['examples'], { cwd: projectRoot, type: 'no.such' }), {
      name: 'UsageError',
      code: 'usage.unknown-type',
    });
  });
});
