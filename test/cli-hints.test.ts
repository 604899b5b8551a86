// The library never names a flag; the CLI adds the flag that acts on an error, by its code (src/cli/hints.ts),
// wherever it prints the error: at the top level and in convert's per-source failures.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { convertPaths, isConvertFailure } from '../src/convert/index.js';
import { writeConverted } from '../src/convert/write.js';
import { UsageError } from '../src/errors.js';
import { migratePaths } from '../src/migrate/index.js';
import { projectRoot } from './helpers/shared.js';
import { cli as runInProcess } from './helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'evalkit-hints-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Anything that looks like one of our long flags. */
const FLAG = /(^|[\s(`])--[a-z]/;

test('convert: a record that exists with other content is refused; the CLI names --force, the library does not', async () => {
  const source = join(dir, 'lm-eval');
  cpSync(join(projectRoot, 'examples/convert/lm-eval'), source, { recursive: true });
  const root = join(dir, 'store');
  const first = await runInProcess(['convert', source, '-o', root]);
  assert.equal(first.code, 0, first.stderr);

  // Change what is there, so the next conversion would replace different content.
  const folder = join(root, 'data');
  const aggregates: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true }))
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith('.json')) aggregates.push(join(d, e.name));
  };
  walk(folder);
  assert.ok(aggregates.length > 0);
  writeFileSync(aggregates[0], '{"changed": true}\n');

  const second = await runInProcess(['convert', source, '-o', root]);
  assert.equal(second.code, 1);
  assert.match(
    second.stderr,
    /convert\.exists .*already exists with different content \(pass --force to replace it\)/,
  );

  let libraryMessage = '';
  for await (const item of convertPaths([source])) {
    if (isConvertFailure(item)) throw item.error;
    await writeConverted(item, root).catch((e: Error) => (libraryMessage ||= e.message));
  }
  assert.match(libraryMessage, /already exists with different content/);
  assert.doesNotMatch(libraryMessage, FLAG);
});

test('migrate without a place to write: a usage error whose hint names the flags, from a message that does not', async () => {
  const input = join(projectRoot, 'examples/eee');
  await assert.rejects(migratePaths([input]), (e: Error) => {
    assert.ok(e instanceof UsageError);
    assert.equal(e.code, 'usage.migrate-mode');
    assert.doesNotMatch(e.message, FLAG);
    return true;
  });
  const r = await runInProcess(['migrate', input]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /usage\.migrate-mode: .*\(pass -o DIR, --in-place, or --dry-run to only report\)/);
});
