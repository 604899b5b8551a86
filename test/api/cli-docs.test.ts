// docs/ holds the command reference, and its option tables are the CLI's own declarations: a page whose table
// differs from what `npm run docs` would write, a command no page documents, or a region naming no command fails.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Command } from 'commander';
import { cliCommands, commandReference, rewriteOptionRegions } from '../../src/cli/reference.js';
import { projectRoot } from '../helpers/shared.js';

const docs = join(projectRoot, 'docs');
const pages = readdirSync(docs).filter((n) => n.endsWith('.md'));

test('every options region in docs/ is what the CLI declares (run `npm run docs` to update)', async () => {
  const commands = await cliCommands();
  const documented = new Set<string>();
  for (const name of pages) {
    const page = readFileSync(join(docs, name), 'utf8');
    const { text, regions, unknown } = rewriteOptionRegions(page, commands);
    assert.deepEqual(unknown, [], `docs/${name} has a region for a command the CLI does not have`);
    assert.ok(text === page, `docs/${name} has drifted from the CLI: run \`npm run docs\``);
    regions.forEach((r) => documented.add(r));
  }
  const missing = [...commands.keys()].filter((c) => !documented.has(c));
  assert.deepEqual(missing, [], 'commands without an options table in docs/');
});

test('a changed declaration changes the generated table', () => {
  const cmd = new Command('demo').argument('<file>', 'the input').option('--depth <n>', 'how deep', '3');
  const before = commandReference('demo', cmd);
  assert.match(before, /\| `--depth <n>` \| how deep \| `3` \|/);
  assert.match(before, /\| `<file>` \| the input \| required \|/);
  const page = `intro\n<!-- options:demo -->\n${before}\n<!-- /options -->\noutro\n`;
  assert.equal(rewriteOptionRegions(page, new Map([['demo', cmd]])).text, page);
  cmd.option('--width <n>', 'how wide');
  const after = rewriteOptionRegions(page, new Map([['demo', cmd]]));
  assert.notEqual(after.text, page);
  assert.match(after.text, /`--width <n>` \| how wide/);
  assert.ok(after.text.startsWith('intro\n') && after.text.endsWith('outro\n'));
});

test('a page without options regions is left as it is', () => {
  const page = '# Design\n\nNo tables here.\n';
  assert.deepEqual(rewriteOptionRegions(page, new Map()), { text: page, regions: [], unknown: [] });
});
