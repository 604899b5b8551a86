// `npm run docs`: rewrites the options regions of docs/*.md from the CLI's own declarations (src/cli/reference.ts).
// Pages without regions are left as they are. `--check` only reports pages that would change (exit 1).
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliCommands, rewriteOptionRegions } from '../src/cli/reference.js';

const docs = join(import.meta.dirname, '..', 'docs');
const check = process.argv.includes('--check');
const commands = await cliCommands();
const documented = new Set<string>();
let stale = 0;
for (const name of readdirSync(docs)
  .filter((n) => n.endsWith('.md'))
  .sort()) {
  const path = join(docs, name);
  const page = readFileSync(path, 'utf8');
  const { text, regions, unknown } = rewriteOptionRegions(page, commands);
  regions.forEach((r) => documented.add(r));
  for (const u of unknown) console.error(`docs/${name}: no command "${u}" in the CLI`);
  if (text === page) continue;
  stale++;
  if (check) console.error(`docs/${name}: out of date with the CLI`);
  else {
    writeFileSync(path, text);
    console.log(`docs/${name}: rewritten`);
  }
}
for (const name of commands.keys())
  if (!documented.has(name)) console.error(`no docs page has an options region for "evalkit ${name}"`);
if (check && stale > 0) process.exit(1);
