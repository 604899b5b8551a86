// Every run of the second corpus of real outputs (../shared/reference/peers-wild-2, listed in its MANIFEST.tsv)
// converts: no source refuses it, no file is skipped as unknown, the pairs pass every evalkit check and the upstream
// 0.3.0 schemas, and a second conversion writes the same bytes. The shapes it brought (HELM runs without
// scenario.json, promptfoo's Node API output, R-written Inspect logs, an lm-eval run whose only headline is not
// finite) have their own tests, on the real file and on a generated variant, beside each source's tests.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { reference, skipWithoutReference } from '../helpers/shared.js';
import { assertUpstreamValid, assertValidTree, convertInto, load, treeBytes } from './helpers.js';

const skip = skipWithoutReference('peers-wild-2/MANIFEST.tsv');

/** Every run folder of the corpus (tool/run). */
function runFolders(): string[] {
  const root = reference('peers-wild-2')!;
  const out: string[] = [];
  for (const tool of readdirSync(root, { withFileTypes: true }))
    if (tool.isDirectory())
      for (const run of readdirSync(join(root, tool.name)).sort()) out.push(join(root, tool.name, run));
  return out.sort();
}

test(
  'every run of peers-wild-2 converts, validates (ours and upstream 0.3.0) and gives the same bytes twice',
  { skip },
  async (t) => {
    const folders = runFolders();
    // 18 run folders (a HELM run or an lm-eval results file with its samples files is one folder).
    assert.ok(folders.length >= 18, `${folders.length} runs`);
    for (const folder of folders) {
      const first = await convertInto([folder]);
      assert.deepEqual(
        first.failures.map((f) => `${f.sourcePath}: ${f.error.message}`),
        [],
        folder,
      );
      // A samples file beside its results file is the same record, skipped as such; nothing is unrecognised.
      assert.deepEqual(
        first.skipped.filter((s) => !s.reason.startsWith('the same record as from')),
        [],
        folder,
      );
      assert.ok(first.written.length >= 1, `${folder}: no record`);
      for (const { record } of first.written) {
        const { aggregate, rows } = load(first.root, record);
        await assertUpstreamValid(t, aggregate, rows);
      }
      await assertValidTree(first.root);
      const second = await convertInto([folder]);
      assert.deepEqual(treeBytes(second.root), treeBytes(first.root), `${folder}: not the same bytes twice`);
    }
  },
);
